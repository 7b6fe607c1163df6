package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/audit"
)

// Readers of other agents' trajectories, for the flags (AgentRun):
//
//   - SWE-agent's <id>.traj: {"trajectory": [{"action", "observation", …}], "history",
//     "info", "replay_config"}; step n is trajectory[n-1]; no exit codes.
//   - OpenHands' output.jsonl: one record per instance, {"instance_id", "instruction",
//     "instance", "metadata", "history": [events]}; a "run" action (args.command) is answered by
//     the "run" observation whose cause is its id (content, extras.metadata.exit_code); "read"
//     actions are the file editor's views; step n is the n-th action of the agent.
//   - OpenHands' completion logs, llm_completions/<id>/<model>-<time>.json: {"messages",
//     "response", "kwargs", "timestamp", "cost"[, "fncall_messages", "fncall_response"]}; the
//     newest log holds the whole conversation: its assistant messages' tool calls
//     (execute_bash's command, str_replace_editor's view) and the tool messages answering them,
//     and the response's calls last (without output).

// SWEAgentTrajectory is a SWE-agent .traj file: its steps, the agent's history (the
// conversation's messages), its info and the config it ran with.
type SWEAgentTrajectory struct {
	InstanceID string           `json:"-"`
	Path       string           `json:"-"`
	Steps      []SWEAgentStep   `json:"trajectory"`
	History    []map[string]any `json:"history"`
	Info       SWEAgentInfo     `json:"info"`
	// Config is replay_config: an object, or the same as a JSON string (decoded by the reader).
	Config any `json:"replay_config"`
}

// SWEAgentStep is one entry of the trajectory: the action, its observation and the thought, and
// the step's messages, kept undecoded until asked for (StepMessages).
type SWEAgentStep struct {
	Action      string          `json:"action"`
	Observation any             `json:"observation"`
	Thought     string          `json:"thought"`
	Messages    json.RawMessage `json:"messages"` // SWE-agent before 1.1: the history after the step
	Query       json.RawMessage `json:"query"`    // 1.1 and later: the model's input at the step
}

// SWEAgentInfo is the trajectory's info.
type SWEAgentInfo struct {
	ExitStatus string `json:"exit_status"`
	Submission string `json:"submission"`
	ModelStats struct {
		InstanceCost   float64 `json:"instance_cost"`
		TokensSent     int     `json:"tokens_sent"`
		TokensReceived int     `json:"tokens_received"`
		APICalls       int     `json:"api_calls"`
	} `json:"model_stats"`
}

// ReadSWEAgent reads a SWE-agent .traj file whole; the instance is the file's name.
func ReadSWEAgent(path string) (*SWEAgentTrajectory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var probe struct {
		Trajectory json.RawMessage `json:"trajectory"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s is not a SWE-agent trajectory: %w", path, err)
	}
	if len(probe.Trajectory) == 0 || bytes.Equal(probe.Trajectory, []byte("null")) {
		return nil, fmt.Errorf("%s is not a SWE-agent trajectory: no \"trajectory\" list", path)
	}
	t := &SWEAgentTrajectory{}
	if err := json.Unmarshal(data, t); err != nil {
		return nil, fmt.Errorf("%s is not a SWE-agent trajectory: %w", path, err)
	}
	t.InstanceID = strings.TrimSuffix(filepath.Base(path), ".traj")
	t.Path = path
	if s, ok := t.Config.(string); ok {
		var cfg any
		if json.Unmarshal([]byte(s), &cfg) == nil {
			t.Config = cfg
		}
	}
	return t, nil
}

// ConfigMap is the replay config when it is an object (nil otherwise).
func (t *SWEAgentTrajectory) ConfigMap() map[string]any {
	m, _ := t.Config.(map[string]any)
	return m
}

// ModelName is replay_config.agent.model.name ("" when not recorded).
func (t *SWEAgentTrajectory) ModelName() string {
	agent, _ := t.ConfigMap()["agent"].(map[string]any)
	model, _ := agent["model"].(map[string]any)
	s, _ := model["name"].(string)
	return s
}

// StepMessages decodes the messages of step i: its "messages" (field "messages"), else its
// "query" (field "query"); field is "" when the step has neither.
func (t *SWEAgentTrajectory) StepMessages(i int) (msgs []map[string]any, field string, err error) {
	st := t.Steps[i]
	for _, c := range []struct {
		name string
		raw  json.RawMessage
	}{{"messages", st.Messages}, {"query", st.Query}} {
		if len(c.raw) == 0 || bytes.Equal(c.raw, []byte("null")) {
			continue
		}
		if err := json.Unmarshal(c.raw, &msgs); err != nil {
			return nil, c.name, fmt.Errorf("%s: trajectory[%d].%s: %w", t.Path, i, c.name, err)
		}
		return msgs, c.name, nil
	}
	return nil, "", nil
}

// ReadSWEAgentTrajectory reads a SWE-agent .traj file as the commands it ran; the instance is
// the file's name.
func ReadSWEAgentTrajectory(path string) (*AgentRun, error) {
	t, err := ReadSWEAgent(path)
	if err != nil {
		return nil, err
	}
	return t.AgentRun(), nil
}

// AgentRun is the commands t ran with their observations: step n is trajectory[n-1]; no exit
// codes.
func (t *SWEAgentTrajectory) AgentRun() *AgentRun {
	id := t.InstanceID
	r := &AgentRun{InstanceID: id, Format: "swe-agent", Path: t.Path, Task: audit.Task{Repo: RepoOfInstance(id)}}
	for i, s := range t.Steps {
		r.Steps = append(r.Steps, audit.Step{Step: i + 1, Command: s.Action, Output: textOf(s.Observation)})
	}
	for _, h := range t.History {
		if h["role"] == "user" {
			r.Task.Text = textOf(h["content"])
			break
		}
	}
	if m := t.ConfigMap(); m != nil {
		env, _ := m["env"].(map[string]any)
		repo, _ := env["repo"].(map[string]any)
		r.Task.BaseCommit, _ = repo["base_commit"].(string)
		if ps, _ := m["problem_statement"].(map[string]any); ps != nil {
			if text, _ := ps["text"].(string); text != "" {
				r.Task.Text = text
			}
		}
	}
	return r
}

// textOf is a message content's text: a string, or the text parts of a list.
func textOf(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			if m, _ := p.(map[string]any); m != nil {
				if s, ok := m["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// openHandsRecord is what the flags need of an output.jsonl record.
type openHandsRecord struct {
	InstanceID  string           `json:"instance_id"`
	Instruction string           `json:"instruction"`
	Instance    map[string]any   `json:"instance"`
	History     []map[string]any `json:"history"`
}

// ReadOpenHandsOutput reads OpenHands' output.jsonl: one AgentRun per record.
func ReadOpenHandsOutput(path string) ([]*AgentRun, error) {
	var runs []*AgentRun
	err := walkOpenHandsOutput(path, func(r *AgentRun) error {
		runs = append(runs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return runs, nil
}

// walkOpenHandsOutput reads output.jsonl one record at a time.
func walkOpenHandsOutput(path string, fn func(*AgentRun) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var rec openHandsRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return fmt.Errorf("%s:%d is not an OpenHands output record: %w", path, line, err)
		}
		if rec.InstanceID == "" {
			return fmt.Errorf("%s:%d is not an OpenHands output record: no instance_id", path, line)
		}
		if err := fn(openHandsRun(rec, path)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func openHandsRun(rec openHandsRecord, path string) *AgentRun {
	r := &AgentRun{InstanceID: rec.InstanceID, Format: "openhands", Path: path}
	r.Task.Text = rec.Instruction
	in := rec.Instance
	str := func(k string) string { s, _ := in[k].(string); return s }
	if s := str("problem_statement"); s != "" {
		r.Task.Text = s
	}
	r.Task.BaseCommit, r.Task.Version, r.Task.Repo = str("base_commit"), str("version"), str("repo")
	if b, _ := in["base"].(map[string]any); b != nil && r.Task.BaseCommit == "" { // Multi-SWE-bench rows
		r.Task.BaseCommit, _ = b["sha"].(string)
	}
	if org, repo := str("org"), str("repo"); org != "" && repo != "" {
		r.Task.Repo = org + "/" + repo
	}
	if r.Task.Repo == "" {
		r.Task.Repo = RepoOfInstance(rec.InstanceID)
	}
	byID := map[float64]int{} // action id → index into r.Steps
	step := 0
	for _, e := range rec.History {
		src, _ := e["source"].(string)
		args, _ := e["args"].(map[string]any)
		if act, _ := e["action"].(string); act != "" {
			if src != "agent" || act == "system" || act == "recall" {
				continue
			}
			step++
			cmd := ""
			switch act {
			case "run":
				cmd, _ = args["command"].(string)
			case "read":
				if p, _ := args["path"].(string); p != "" {
					cmd = "str_replace_editor view " + p
				}
			case "run_ipython":
				code, _ := args["code"].(string)
				cmd = ipythonShell(code)
			}
			if cmd == "" {
				continue
			}
			if id, ok := e["id"].(float64); ok {
				byID[id] = len(r.Steps)
			}
			r.Steps = append(r.Steps, audit.Step{Step: step, Command: cmd})
			continue
		}
		if obs, _ := e["observation"].(string); obs != "" {
			cause, ok := e["cause"].(float64)
			i, found := byID[cause]
			if !ok || !found {
				continue
			}
			st := &r.Steps[i]
			st.Output, _ = e["content"].(string)
			extras, _ := e["extras"].(map[string]any)
			md, _ := extras["metadata"].(map[string]any)
			code, ok := md["exit_code"].(float64)
			if !ok {
				code, ok = extras["exit_code"].(float64)
			}
			if ok && code >= 0 { // -1: still running, or not known
				st.ExitCode, st.HasExit = int(code), true
			}
		}
	}
	return r
}

// ipythonShell is the shell commands of IPython code (its !lines), one script.
func ipythonShell(code string) string {
	var lines []string
	for _, l := range strings.Split(code, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "!") {
			lines = append(lines, strings.TrimPrefix(t, "!"))
		}
	}
	return strings.Join(lines, "\n")
}

// completionLog is what the flags need of an OpenHands completion log.
type completionLog struct {
	Messages   []map[string]any `json:"messages"`
	Response   map[string]any   `json:"response"`
	FncallMsgs []map[string]any `json:"fncall_messages"`
	FncallResp map[string]any   `json:"fncall_response"`
	Timestamp  float64          `json:"timestamp"`
}

// readCompletionFile reads p as an OpenHands completion log; ok is false when it is not one.
func readCompletionFile(p string) (*AgentRun, bool, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false, err
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return nil, false, nil
	}
	if _, ok := probe["response"]; !ok {
		return nil, false, nil
	}
	if _, ok := probe["messages"]; !ok {
		return nil, false, nil
	}
	var c completionLog
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, true, fmt.Errorf("%s is not an OpenHands completion log: %w", p, err)
	}
	id := filepath.Base(filepath.Dir(p))
	return completionRun(id, p, c), true, nil
}

// walkCompletionDirs reads llm_completions/<id>/, in the order of the instances' names: the
// newest log of each instance.
func walkCompletionDirs(dir string, fn func(*AgentRun) error) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		logs, _ := filepath.Glob(filepath.Join(dir, e.Name(), "*.json"))
		if len(logs) == 0 {
			continue
		}
		var newest string
		var newestT float64
		for _, p := range logs {
			ts, err := completionTime(p)
			if err != nil {
				return err
			}
			if newest == "" || ts > newestT || ts == newestT && p > newest {
				newest, newestT = p, ts
			}
		}
		r, ok, err := readCompletionFile(newest)
		if err != nil {
			return err
		}
		if ok {
			r.InstanceID = e.Name()
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// completionTime is when a completion log was written: the time its name ends with
// (<model>-<unix time>.json), else its timestamp field.
func completionTime(p string) (float64, error) {
	name := strings.TrimSuffix(filepath.Base(p), ".json")
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		if ts, err := strconv.ParseFloat(name[i+1:], 64); err == nil {
			return ts, nil
		}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	var c struct {
		Timestamp float64 `json:"timestamp"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return 0, fmt.Errorf("%s is not an OpenHands completion log: %w", p, err)
	}
	return c.Timestamp, nil
}

// completionRun is the conversation of a completion log: the native function-calling messages
// (fncall_messages when the calls were mocked, else messages) and the response's calls.
func completionRun(id, path string, c completionLog) *AgentRun {
	msgs, resp := c.Messages, c.Response
	if c.FncallMsgs != nil {
		msgs, resp = c.FncallMsgs, c.FncallResp
	}
	r := &AgentRun{InstanceID: id, Format: "openhands-completions", Path: path, Task: audit.Task{Repo: RepoOfInstance(id)}}
	byCall := map[string]int{}
	step := 0
	addCalls := func(m map[string]any) {
		step++
		calls, _ := m["tool_calls"].([]any)
		for _, c := range calls {
			cm, _ := c.(map[string]any)
			fn, _ := cm["function"].(map[string]any)
			name, _ := fn["name"].(string)
			argStr, _ := fn["arguments"].(string)
			var args map[string]any
			_ = json.Unmarshal([]byte(argStr), &args)
			cmd := ""
			switch name {
			case "execute_bash", "bash", "execute_command", "terminal":
				cmd, _ = args["command"].(string)
			case "str_replace_editor", "file_editor":
				if v, _ := args["command"].(string); v == "view" {
					p, _ := args["path"].(string)
					cmd = "str_replace_editor view " + p
				}
			case "execute_ipython_cell":
				code, _ := args["code"].(string)
				cmd = ipythonShell(code)
			}
			if cmd == "" {
				continue
			}
			if cid, _ := cm["id"].(string); cid != "" {
				byCall[cid] = len(r.Steps)
			}
			r.Steps = append(r.Steps, audit.Step{Step: step, Command: cmd})
		}
	}
	for _, m := range msgs {
		switch m["role"] {
		case "user":
			if r.Task.Text == "" {
				r.Task.Text = textOf(m["content"])
			}
		case "assistant":
			addCalls(m)
		case "tool":
			cid, _ := m["tool_call_id"].(string)
			if i, ok := byCall[cid]; ok {
				r.Steps[i].Output = textOf(m["content"])
			}
		}
	}
	if choices, _ := resp["choices"].([]any); len(choices) > 0 {
		ch, _ := choices[0].(map[string]any)
		if m, _ := ch["message"].(map[string]any); m != nil {
			addCalls(m) // its output is in no log
		}
	}
	return r
}
