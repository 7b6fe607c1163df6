package model

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// fixtureRuns is the real mini-swe-agent run of the test corpus.
func fixtureRuns(t *testing.T) string {
	t.Helper()
	return testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output")
}

type recordedTraj struct {
	Info struct {
		ModelStats struct {
			InstanceCost float64 `json:"instance_cost"`
			APICalls     int     `json:"api_calls"`
		} `json:"model_stats"`
	} `json:"info"`
	Messages []map[string]any `json:"messages"`
}

func fixtureIDs(t *testing.T) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(fixtureRuns(t), "*", "*.traj.json"))
	if len(paths) == 0 {
		t.Fatalf("no trajectories in %s", fixtureRuns(t))
	}
	var ids []string
	for _, p := range paths {
		ids = append(ids, filepath.Base(filepath.Dir(p)))
	}
	return ids
}

func TestReplayMiniTrajectories(t *testing.T) {
	p, err := New(Config{ModelName: "replay:" + fixtureRuns(t)}, Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	for _, id := range fixtureIDs(t) {
		t.Run(id, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(fixtureRuns(t), id, id+".traj.json"))
			if err != nil {
				t.Fatal(err)
			}
			var traj recordedTraj
			if err := json.Unmarshal(data, &traj); err != nil {
				t.Fatal(err)
			}
			var wantActions [][]agent.Action
			for _, m := range traj.Messages {
				if m["role"] != "assistant" {
					continue
				}
				var acts []agent.Action
				for _, a := range m["extra"].(map[string]any)["actions"].([]any) {
					am := a.(map[string]any)
					acts = append(acts, agent.Action{Command: am["command"].(string), ToolCallID: am["tool_call_id"].(string)})
				}
				wantActions = append(wantActions, acts)
			}

			m, err := p.ForInstance(id)
			if err != nil {
				t.Fatalf("ForInstance: %v", err)
			}
			var cost float64
			for i := range traj.Info.ModelStats.APICalls {
				r, err := m.Query(context.Background(), nil)
				if err != nil {
					t.Fatalf("query %d: %v", i+1, err)
				}
				cost += r.Cost
				if !reflect.DeepEqual(r.Actions, wantActions[i]) {
					t.Fatalf("query %d: actions = %+v, want %+v", i+1, r.Actions, wantActions[i])
				}
				if r.Message.Role() != "assistant" || r.Message.Extra()["response"] == nil {
					t.Fatalf("query %d: message = %v, want the recorded assistant message and response", i+1, r.Message)
				}
			}
			if math.Abs(cost-traj.Info.ModelStats.InstanceCost) > 1e-9 {
				t.Errorf("replayed cost = %v, want %v", cost, traj.Info.ModelStats.InstanceCost)
			}
			_, err = m.Query(context.Background(), nil)
			var es agent.ExitStatuser
			if !errors.Is(err, ErrReplayExhausted) || !errors.As(err, &es) || es.ExitStatus() != StatusReplayExhausted {
				t.Errorf("query past the end: err = %v, want ErrReplayExhausted with status %s", err, StatusReplayExhausted)
			}
		})
	}
}

func TestReplayFormatErrorsAndParsedActions(t *testing.T) {
	dir := t.TempDir()
	id := "owner__repo-7"
	traj := map[string]any{
		"trajectory_format": "mini-swe-agent-1.1",
		"messages": []any{
			map[string]any{"role": "system", "content": "s"},
			map[string]any{"role": "user", "content": "task"},
			// a format error: no assistant message, the user message carries the cost
			map[string]any{"role": "user", "content": "Format error: no tool call", "extra": map[string]any{
				"interrupt_type": "FormatError", "cost": 0.5, "response": map[string]any{"id": "r1"}}},
			// OpenAI-shaped, no extra.actions: parsed from tool_calls
			map[string]any{"role": "assistant", "content": "x", "tool_calls": []any{map[string]any{
				"id": "call_9", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command":"ls"}`}}},
				"extra": map[string]any{"cost": 0.25}},
			map[string]any{"role": "tool", "tool_call_id": "call_9", "content": "out"},
			// Anthropic-shaped
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "thinking", "thinking": "t", "signature": "s"},
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": map[string]any{"command": "pwd"}}},
				"extra": map[string]any{"cost": 0.125}},
			// text mode
			map[string]any{"role": "assistant", "content": "THOUGHT\n```mswea_bash_command\necho hi\n```", "extra": map[string]any{"cost": 0.0625}},
			map[string]any{"role": "exit", "content": "", "extra": map[string]any{"exit_status": "Submitted"}},
		},
	}
	if err := os.MkdirAll(filepath.Join(dir, id), 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(traj)
	if err := os.WriteFile(filepath.Join(dir, id, id+".traj.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	budget := NewBudget(0)
	p, err := New(Config{ModelName: "replay:" + dir}, Options{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.ForInstance(id)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Query(context.Background(), nil)
	var fe *agent.FormatError
	if !errors.As(err, &fe) || fe.Cost != 0.5 || fe.Extra["interrupt_type"] != "FormatError" {
		t.Fatalf("turn 1: err = %v, want the recorded format error with cost 0.5", err)
	}
	tests := []struct {
		want []agent.Action
		cost float64
	}{
		{[]agent.Action{{Command: "ls", ToolCallID: "call_9"}}, 0.25},
		{[]agent.Action{{Command: "pwd", ToolCallID: "toolu_1"}}, 0.125},
		{[]agent.Action{{Command: "echo hi"}}, 0.0625},
	}
	for i, tt := range tests {
		r, err := m.Query(context.Background(), nil)
		if err != nil {
			t.Fatalf("turn %d: %v", i+2, err)
		}
		if !reflect.DeepEqual(r.Actions, tt.want) || r.Cost != tt.cost {
			t.Errorf("turn %d: actions %+v cost %v, want %+v %v", i+2, r.Actions, r.Cost, tt.want, tt.cost)
		}
	}
	if got := budget.Spent(); got != 0.9375 {
		t.Errorf("budget spent = %v, want 0.9375", got)
	}
	if _, err := p.ForInstance("missing__id-1"); err == nil {
		t.Errorf("ForInstance of an unrecorded id: no error")
	}
}
