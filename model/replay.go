package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
)

// replayProvider plays back the model turns recorded in trajectories (ours and mini-swe-agent's
// *.traj.json): <dir>/<id>/<id>.traj.json, or <dir>/<id>.traj.json.
type replayProvider struct {
	dir    string
	budget *Budget
	textRe *pyre.Regexp
	mini1  bool // replay text replies unparsed (Config.Mini1)
}

func newReplay(cfg Config, dir string, opts Options) (*replayProvider, error) {
	if dir == "" {
		return nil, fmt.Errorf("replay model: no directory: use --model replay:DIR")
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("replay model: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("replay model: %s is not a directory", dir)
	}
	re, err := compileActionRegex(cfg.ActionRegex)
	if err != nil {
		return nil, err
	}
	return &replayProvider{dir: dir, budget: opts.Budget, textRe: re, mini1: cfg.Mini1}, nil
}

// turn is one recorded model call: an assistant message, or a format error.
type turn struct {
	message     agent.Message
	actions     []agent.Action
	formatError *agent.FormatError
	cost        float64
	usage       agent.Usage
}

// ForInstance loads the instance's trajectory.
func (p *replayProvider) ForInstance(instanceID string) (agent.Model, error) {
	path := filepath.Join(p.dir, instanceID, instanceID+".traj.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		alt := filepath.Join(p.dir, instanceID+".traj.json")
		if d, err2 := os.ReadFile(alt); err2 == nil {
			data, err, path = d, nil, alt
		}
	}
	if err != nil {
		return nil, fmt.Errorf("replay %s: no recorded trajectory: %w", instanceID, err)
	}
	var turns []turn
	if p.mini1 {
		turns, err = parseTextRecording(data)
	} else {
		turns, err = parseRecording(data, p.textRe)
	}
	if err != nil {
		return nil, fmt.Errorf("replay %s: %s: %w", instanceID, path, err)
	}
	return &replayModel{id: instanceID, path: path, turns: turns, budget: p.budget}, nil
}

// parseRecording extracts the model turns of a trajectory.
func parseRecording(data []byte, textRe *pyre.Regexp) ([]turn, error) {
	var traj struct {
		Messages []map[string]any `json:"messages"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&traj); err != nil {
		return nil, fmt.Errorf("not a trajectory: %w", err)
	}
	var turns []turn
	for i, raw := range traj.Messages {
		m := agent.Message(raw)
		extra, _ := m["extra"].(map[string]any)
		switch {
		case m.Role() == "assistant":
			t, err := assistantTurn(m, extra, textRe)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			turns = append(turns, t)
		case m.Role() == "user" && str(extra["interrupt_type"]) == "FormatError":
			turns = append(turns, formatErrorTurn(m, extra))
		}
	}
	return turns, nil
}

// parseTextRecording extracts the model turns of a trajectory for a mini-swe-agent 1.x loop:
// every assistant message is one model call (1.x records a reply before parsing it, so replies
// that were format errors are there too), replayed as its text. Per-call costs are replayed
// when recorded (extra.cost); 1.x records only the instance's total. A bare message list (1.x
// test data) is a trajectory too.
func parseTextRecording(data []byte) ([]turn, error) {
	var msgs []map[string]any
	trimmed := bytes.TrimSpace(data)
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := dec.Decode(&msgs); err != nil {
			return nil, fmt.Errorf("not a message list: %w", err)
		}
	} else {
		var traj struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := dec.Decode(&traj); err != nil {
			return nil, fmt.Errorf("not a trajectory: %w", err)
		}
		msgs = traj.Messages
	}
	var turns []turn
	for _, raw := range msgs {
		m := agent.Message(raw)
		if m.Role() != "assistant" {
			continue
		}
		extra, _ := m["extra"].(map[string]any)
		text := m.Content()
		if blocks, ok := m["content"].([]any); ok {
			text = anthropicText(blocks)
		}
		msg := agent.Message{"role": "assistant", "content": text}
		if resp, ok := extra["response"]; ok {
			msg["extra"] = map[string]any{"response": deepCopy(resp)}
		}
		turns = append(turns, turn{message: msg, cost: floatOf(extra["cost"]), usage: recordedUsage(extra)})
	}
	return turns, nil
}

func recordedUsage(extra map[string]any) agent.Usage {
	resp, _ := extra["response"].(map[string]any)
	if resp == nil {
		return agent.Usage{}
	}
	if _, ok := resp["choices"]; ok {
		u, _, _ := openAIUsage(resp)
		return u
	}
	return anthropicUsage(resp)
}

func assistantTurn(m agent.Message, extra map[string]any, textRe *pyre.Regexp) (turn, error) {
	t := turn{cost: floatOf(extra["cost"]), usage: recordedUsage(extra)}
	msg := agent.Message(deepCopy(map[string]any(m)).(map[string]any))
	delete(msg, "extra")
	if resp, ok := extra["response"]; ok {
		msg["extra"] = map[string]any{"response": deepCopy(resp)}
	}
	t.message = msg
	if list, ok := extra["actions"].([]any); ok {
		for _, a := range list {
			am, _ := a.(map[string]any)
			t.actions = append(t.actions, agent.Action{Command: str(am["command"]), ToolCallID: str(am["tool_call_id"])})
		}
		return t, nil
	}
	var ferr *agent.FormatError
	switch content := m["content"].(type) {
	case []any:
		if calls := anthropicToolCalls(content); len(calls) > 0 {
			t.actions, ferr = parseToolCalls(calls, "")
		} else {
			t.actions, ferr = parseRegexActions(textRe, anthropicText(content), "")
		}
	default:
		if calls := openAIToolCalls(m); len(calls) > 0 {
			t.actions, ferr = parseToolCalls(calls, "")
		} else {
			t.actions, ferr = parseRegexActions(textRe, m.Content(), "")
		}
	}
	if ferr != nil {
		return turn{}, fmt.Errorf("recorded assistant message has no extra.actions and its actions cannot be parsed: %s", ferr.Reason)
	}
	return t, nil
}

// formatErrorTurn rebuilds the format error of a recorded format-error message. The reason is
// not recorded on its own, so the recorded (rendered) message content stands in for it.
func formatErrorTurn(m agent.Message, extra map[string]any) turn {
	fe := &agent.FormatError{
		Reason: m.Content(),
		Vars:   map[string]any{"actions": []string{}},
		Extra:  map[string]any{},
		Cost:   floatOf(extra["cost"]),
		Usage:  recordedUsage(extra),
	}
	for k, v := range extra {
		switch k {
		case "cost", "timestamp":
		default:
			fe.Extra[k] = deepCopy(v)
		}
	}
	if n, ok := extra["n_actions"]; ok {
		fe.Vars["n_actions"] = intOf(n)
	}
	return turn{formatError: fe, cost: fe.Cost, usage: fe.Usage}
}

type replayModel struct {
	id     string
	path   string
	budget *Budget

	mu    sync.Mutex
	turns []turn
	next  int
}

// Query returns the next recorded turn.
func (m *replayModel) Query(ctx context.Context, _ []agent.Message) (agent.Reply, error) {
	if err := ctx.Err(); err != nil {
		return agent.Reply{}, err
	}
	end, err := m.budget.begin()
	if err != nil {
		return agent.Reply{}, err
	}
	defer end()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next >= len(m.turns) {
		return agent.Reply{}, &statusError{status: StatusReplayExhausted, wraps: []error{ErrReplayExhausted},
			msg: fmt.Sprintf("replay %s: query %d asked, but %s records only %d model turns", m.id, m.next+1, m.path, len(m.turns))}
	}
	t := m.turns[m.next]
	m.next++
	m.budget.Add(t.cost)
	if t.formatError != nil {
		fe := *t.formatError
		fe.Extra = deepCopy(t.formatError.Extra).(map[string]any)
		return agent.Reply{}, &fe
	}
	return agent.Reply{
		Message: agent.Message(deepCopy(map[string]any(t.message)).(map[string]any)),
		Actions: append([]agent.Action(nil), t.actions...),
		Cost:    t.cost,
		Usage:   t.usage,
	}, nil
}
