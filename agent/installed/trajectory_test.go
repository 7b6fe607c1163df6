package installed

import (
	"encoding/json"
	"testing"

	"github.com/swebench-run/swebench-run/model/proxy"
	"github.com/swebench-run/swebench-run/results"
)

// A proxy record becomes messages that the trajectory readers read as the loop's: commands of
// each wire's tool calls with the outputs sent back, so that the audit's scanner flags them.
func TestMessagesAreReadAsTrajectory(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	records := map[string][]proxy.Call{
		"chat": {
			{Seq: 1, Wire: "chat", Kind: "generate", HTTPStatus: 200, Request: raw(`{"messages":[{"role":"user","content":"T"}]}`),
				Response: raw(`{"choices":[{"message":{"role":"assistant","content":"look","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"git log --all --oneline\"}"}}]}}]}`)},
			{Seq: 2, Wire: "chat", Kind: "generate", HTTPStatus: 200, Request: raw(`{"messages":[{"role":"user","content":"T"},{"role":"assistant"},{"role":"tool","tool_call_id":"c1","content":"abc123 fix the bug"}]}`),
				Response: raw(`{"choices":[{"message":{"role":"assistant","content":"done"}}]}`)},
		},
		"anthropic": {
			{Seq: 1, Wire: "anthropic", Kind: "generate", HTTPStatus: 200, Request: raw(`{"messages":[{"role":"user","content":"T"}]}`),
				Response: raw(`{"content":[{"type":"text","text":"look"},{"type":"tool_use","id":"t1","name":"bash","input":{"command":"git log --all --oneline"}}]}`)},
			{Seq: 2, Wire: "anthropic", Kind: "generate", HTTPStatus: 200, Request: raw(`{"messages":[{"role":"user","content":"T"},{"role":"assistant","content":[]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"abc123 fix the bug"}]}]}`),
				Response: raw(`{"content":[{"type":"text","text":"done"}]}`)},
		},
		"responses": {
			{Seq: 1, Wire: "responses", Kind: "generate", HTTPStatus: 200, Request: raw(`{"input":[{"role":"user","content":"T"}]}`),
				Response: raw(`{"output":[{"type":"function_call","call_id":"r1","name":"bash","arguments":"{\"command\":\"git log --all --oneline\"}"}]}`)},
			{Seq: 2, Wire: "responses", Kind: "generate", HTTPStatus: 200, Request: raw(`{"input":[{"role":"user","content":"T"},{"type":"function_call","call_id":"r1"},{"type":"function_call_output","call_id":"r1","output":"abc123 fix the bug"}]}`),
				Response: raw(`{"output":[{"type":"message","content":[{"type":"output_text","text":"done"}]}]}`)},
		},
		"gemini": {
			{Seq: 1, Wire: "gemini", Kind: "generate", HTTPStatus: 200, Request: raw(`{"contents":[{"role":"user","parts":[{"text":"T"}]}]}`),
				Response: raw(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"bash","args":{"command":"git log --all --oneline"}}}]}}]}`)},
			{Seq: 2, Wire: "gemini", Kind: "generate", HTTPStatus: 200, Request: raw(`{"contents":[{"role":"user","parts":[{"text":"T"}]},{"role":"model","parts":[]},{"role":"user","parts":[{"functionResponse":{"name":"bash","response":{"output":"abc123 fix the bug"}}}]}]}`),
				Response: raw(`{"candidates":[{"content":{"role":"model","parts":[{"text":"done"}]}}]}`)},
			{Seq: 3, Wire: "gemini", Kind: "count_tokens", HTTPStatus: 200},
		},
	}
	for wire, calls := range records {
		t.Run(wire, func(t *testing.T) {
			msgs := Messages("Fix the bug.", calls)
			traj := &results.Trajectory{InstanceID: "demo__x-1", TrajectoryFormat: results.TrajectoryFormat}
			for _, m := range msgs {
				traj.Messages = append(traj.Messages, m)
			}
			run := traj.AgentRun("x.traj.json")
			if len(run.Steps) != 1 || run.Steps[0].Command != "git log --all --oneline" || run.Steps[0].Output != "abc123 fix the bug" {
				t.Fatalf("steps %+v", run.Steps)
			}
			if run.Task.Text != "Fix the bug." {
				t.Errorf("task %q", run.Task.Text)
			}
			if flags := run.Flags(); len(flags) == 0 {
				t.Error("git log --all was not flagged")
			}
		})
	}
}
