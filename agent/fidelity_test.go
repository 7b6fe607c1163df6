package agent_test

// Fidelity tests: replay real mini-swe-agent trajectories through our loop and require the
// messages we produce to equal the recorded ones.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// fixture returns the path of a test corpus file or directory (skips without the corpus).
func fixture(t *testing.T, parts ...string) string {
	t.Helper()
	return testenv.Fixtures(t, parts...)
}

// recordedModel answers with the recorded assistant messages, in order.
type recordedModel struct {
	replies []agent.Reply
	n       int
}

func (m *recordedModel) Query(context.Context, []agent.Message) (agent.Reply, error) {
	if m.n >= len(m.replies) {
		return agent.Reply{}, fmt.Errorf("recorded model: query %d, but only %d replies were recorded", m.n+1, len(m.replies))
	}
	r := m.replies[m.n]
	m.n++
	return r, nil
}

// recordedEnv returns the recorded output of each command, and fails on a command the recording
// did not run at that point.
type recordedEnv struct {
	t     *testing.T
	steps []envStep
	n     int
}

type envStep struct {
	command string
	out     agent.Output
}

func (e *recordedEnv) Execute(_ context.Context, cmd string) (agent.Output, error) {
	if e.n >= len(e.steps) {
		return agent.Output{}, fmt.Errorf("recorded env: command %d %q was never recorded", e.n+1, cmd)
	}
	s := e.steps[e.n]
	e.n++
	if s.command != cmd {
		return agent.Output{}, fmt.Errorf("recorded env: command %d is %q, recorded %q", e.n, cmd, s.command)
	}
	return s.out, nil
}

type trajectory struct {
	Info struct {
		Config     map[string]any `json:"config"`
		ExitStatus string         `json:"exit_status"`
		Submission string         `json:"submission"`
		ModelStats struct {
			InstanceCost float64 `json:"instance_cost"`
			APICalls     int     `json:"api_calls"`
		} `json:"model_stats"`
	} `json:"info"`
	Messages   []agent.Message `json:"messages"`
	InstanceID string          `json:"instance_id"`
}

// problemStatements reads the problem statements of the Lite dev split.
func problemStatements(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(fixture(t, "datasets", "SWE-bench_Lite.dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var row struct {
			InstanceID       string `json:"instance_id"`
			ProblemStatement string `json:"problem_statement"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		out[row.InstanceID] = row.ProblemStatement
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// loadConfig writes tree to a YAML file and loads it as a user's -c file would be.
func loadConfig(t *testing.T, tree map[string]any, files ...string) *configs.Config {
	t.Helper()
	data, err := yaml.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.Load(append(files, path), nil)
	if err != nil {
		t.Fatalf("the recorded config does not load: %v", err)
	}
	return cfg
}

func asFloat(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case json.Number:
		f, _ := n.Float64()
		return f
	}
	return 0
}

func asInt(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case json.Number:
		i, _ := strconv.Atoi(n.String())
		return i
	}
	return 0
}

// toolScript turns a recorded tool-calling trajectory into model replies and command outputs.
// The output of the submitting command is not recorded as an observation: it is the marker
// line followed by the submission of the exit message.
func toolScript(t *testing.T, msgs []agent.Message) ([]agent.Reply, []envStep) {
	t.Helper()
	var replies []agent.Reply
	var steps []envStep
	for i, m := range msgs {
		if m.Role() != "assistant" {
			continue
		}
		extra := m.Extra()
		reply := agent.Reply{Message: agent.Message{}, Cost: asFloat(extra["cost"])}
		for k, v := range m {
			if k != "extra" {
				reply.Message[k] = v
			}
		}
		acts, _ := extra["actions"].([]any)
		for _, a := range acts {
			am := a.(map[string]any)
			act := agent.Action{Command: am["command"].(string)}
			act.ToolCallID, _ = am["tool_call_id"].(string)
			reply.Actions = append(reply.Actions, act)
			steps = append(steps, envStep{command: act.Command, out: recordedOutput(t, msgs[i+1:], act)})
		}
		replies = append(replies, reply)
	}
	return replies, steps
}

// recordedOutput finds the observation answering act among the messages that follow it.
func recordedOutput(t *testing.T, rest []agent.Message, act agent.Action) agent.Output {
	t.Helper()
	for _, m := range rest {
		switch m.Role() {
		case "tool":
			if m["tool_call_id"] != act.ToolCallID {
				continue
			}
			e := m.Extra()
			out := agent.Output{Output: e["raw_output"].(string), ReturnCode: asInt(e["returncode"])}
			out.ExceptionInfo, _ = e["exception_info"].(string)
			for k, v := range e {
				switch k {
				case "raw_output", "returncode", "exception_info", "timestamp":
				default:
					if out.Extra == nil {
						out.Extra = map[string]any{}
					}
					out.Extra[k] = v
				}
			}
			return out
		case "exit":
			if m.Extra()["exit_status"] == agent.StatusSubmitted {
				return agent.Output{Output: agent.SubmitMarker + "\n" + m.Content()}
			}
		}
	}
	t.Fatalf("no recorded output for tool call %s (%q)", act.ToolCallID, act.Command)
	return agent.Output{}
}

// normalize returns a message as plain JSON data without what the comparison ignores: times
// and the provider's raw response.
func normalize(t *testing.T, m agent.Message) map[string]any {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if e, ok := out["extra"].(map[string]any); ok {
		delete(e, "timestamp")
		delete(e, "response")
	}
	return out
}

// compareMessages reports the first messages that differ.
func compareMessages(t *testing.T, got, want []agent.Message) {
	t.Helper()
	for i := 0; i < len(got) && i < len(want); i++ {
		g, w := normalize(t, got[i]), normalize(t, want[i])
		if reflect.DeepEqual(g, w) {
			continue
		}
		gj, _ := json.MarshalIndent(g, "", " ")
		wj, _ := json.MarshalIndent(w, "", " ")
		t.Fatalf("message %d (%s) differs:\n%s", i, w["role"], firstDiff(string(gj), string(wj)))
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d", len(got), len(want))
	}
}

func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("got  …%q…\nwant …%q…", got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}

// TestFidelityToolCalling replays the 23 trajectories of a real mini-swe-agent v2 run on SWE-bench
// Lite dev: with the config recorded in info.config, the recorded model replies and the recorded
// command outputs, our loop must produce the recorded messages.
func TestFidelityToolCalling(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixture(t, "runs", "deepseek-chat-lite-dev", "output"), "*", "*.traj.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(files), 23; got != want {
		t.Fatalf("found %d trajectories, want %d", got, want)
	}
	tasks := problemStatements(t)
	renderer := agent.NewRenderer()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var traj trajectory
		if err := json.Unmarshal(data, &traj); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		t.Run(traj.InstanceID, func(t *testing.T) {
			cfg := loadConfig(t, traj.Info.Config)
			if got, want := cfg.Agent.MaxRepeatedActions, 0; got != want {
				t.Fatalf("max_repeated_actions = %d, want %d (off for mini-swe-agent configs)", got, want)
			}
			task, ok := tasks[traj.InstanceID]
			if !ok {
				t.Fatalf("%s is not in SWE-bench_Lite.dev.jsonl", traj.InstanceID)
			}
			replies, steps := toolScript(t, traj.Messages)
			env := &recordedEnv{t: t, steps: steps}
			a := agent.New(cfg.Agent, &recordedModel{replies: replies}, env, renderer)
			a.Vars = cfg.TemplateVars()
			res, err := a.Run(context.Background(), task)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			compareMessages(t, res.Messages, traj.Messages)
			if got, want := res.ExitStatus, traj.Info.ExitStatus; got != want {
				t.Errorf("exit status = %q, want %q", got, want)
			}
			if got, want := res.Submission, traj.Info.Submission; got != want {
				t.Errorf("submission differs:\n%s", firstDiff(got, want))
			}
			if got, want := res.Stats.APICalls, traj.Info.ModelStats.APICalls; got != want {
				t.Errorf("api calls = %d, want %d", got, want)
			}
			if got, want := res.Stats.Cost, traj.Info.ModelStats.InstanceCost; fmt.Sprintf("%.9f", got) != fmt.Sprintf("%.9f", want) {
				t.Errorf("cost = %v, want %v", got, want)
			}
			if env.n != len(env.steps) {
				t.Errorf("ran %d of %d recorded commands", env.n, len(env.steps))
			}
		})
	}
}

// The text-mode fixtures are mini-swe-agent's own test data: bare message lists (no extra, no
// info) from v1, whose last message is a user message holding the submission where v2 appends
// an exit message. Their first two messages predate mini-swe-agent's shipped configs (the
// system message keeps a trailing newline that Jinja2 would strip), so no shipped config renders
// them: the config is reconstructed from the messages (system and instance templates) on top of
// our swebench_backticks.yaml (observation template, text mode), with the task known from
// mini-swe-agent's scripts that made them ("Blah blah blah" for local; for github_issue the
// issue's title and body, which only the message holds).
func TestFidelityTextMode(t *testing.T) {
	const taskPrefix, taskEnd = "Please solve this issue: ", "\n\nYou can execute bash commands"
	actionRe := regexp.MustCompile("(?s)```mswea_bash_command\\s*\\n(.*?)\\n```")
	obsRe := regexp.MustCompile(`(?s)\A<returncode>(-?\d+)</returncode>\n<output>\n(.*)</output>\z`)
	tests := []struct {
		file string
		task string // "" : recover it from the instance message
	}{
		{"local.traj.json", "Blah blah blah"},
		{"github_issue.traj.json", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(fixture(t, "trajectories", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var msgs []agent.Message
			if err := json.Unmarshal(data, &msgs); err != nil {
				t.Fatal(err)
			}
			instance := msgs[1].Content()
			task := tt.task
			if task == "" {
				start, end := len(taskPrefix), strings.Index(instance, taskEnd)
				if !strings.HasPrefix(instance, taskPrefix) || end < 0 {
					t.Fatalf("instance message does not have the expected shape: %.80q", instance)
				}
				task = instance[start:end]
			}
			if !strings.Contains(instance, task) {
				t.Fatalf("task %q is not in the instance message", task)
			}
			tree := map[string]any{
				"agent": map[string]any{
					"system_template":   msgs[0].Content() + "\n",
					"instance_template": strings.Replace(instance, task, "{{task}}", 1) + "\n",
					"step_limit":        0,
					"cost_limit":        0,
				},
			}
			cfg := loadConfig(t, tree, "swebench_backticks.yaml")
			cfg.Agent.MaxRepeatedActions = 0

			var replies []agent.Reply
			var steps []envStep
			last := msgs[len(msgs)-1]
			for i, m := range msgs {
				if m.Role() != "assistant" {
					continue
				}
				found := actionRe.FindAllStringSubmatch(m.Content(), -1)
				if len(found) != 1 {
					t.Fatalf("message %d has %d actions", i, len(found))
				}
				cmd := strings.TrimSpace(found[0][1])
				replies = append(replies, agent.Reply{Message: agent.Message{"role": "assistant", "content": m.Content()}, Actions: []agent.Action{{Command: cmd}}})
				next := msgs[i+1]
				if i+1 == len(msgs)-1 {
					steps = append(steps, envStep{cmd, agent.Output{Output: agent.SubmitMarker + "\n" + next.Content()}})
					continue
				}
				obs := obsRe.FindStringSubmatch(next.Content())
				if obs == nil {
					t.Fatalf("message %d is not an observation: %.80q", i+1, next.Content())
				}
				rc, _ := strconv.Atoi(obs[1])
				steps = append(steps, envStep{cmd, agent.Output{Output: obs[2], ReturnCode: rc}})
			}
			env := &recordedEnv{t: t, steps: steps}
			a := agent.New(cfg.Agent, &recordedModel{replies: replies}, env, nil)
			a.Vars = cfg.TemplateVars()
			res, err := a.Run(context.Background(), task)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if got, want := len(res.Messages), len(msgs); got != want {
				t.Fatalf("got %d messages, want %d", got, want)
			}
			for i, want := range msgs[:len(msgs)-1] {
				got := res.Messages[i]
				if got.Role() != want.Role() || got.Content() != want.Content() {
					t.Fatalf("message %d differs:\n%s", i, firstDiff(got.Role()+": "+got.Content(), want.Role()+": "+want.Content()))
				}
			}
			end := res.Messages[len(res.Messages)-1]
			if end.Role() != "exit" || end.Content() != last.Content() {
				t.Errorf("last message = %s %.80q, want exit %.80q", end.Role(), end.Content(), last.Content())
			}
			if res.ExitStatus != agent.StatusSubmitted || res.Submission != last.Content() {
				t.Errorf("exit %q submission %.80q, want Submitted %.80q", res.ExitStatus, res.Submission, last.Content())
			}
		})
	}
}
