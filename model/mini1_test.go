package model

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// mini1Conversation is a 1.x history: messages with timestamps, an assistant message carrying
// the provider's response under extra.
func mini1Conversation() []agent.Message {
	return []agent.Message{
		{"role": "system", "content": "You are a helpful assistant.", "timestamp": 1.5},
		{"role": "user", "content": "Fix the bug.", "timestamp": 1.6},
		{"role": "assistant", "content": "THOUGHT: look\n\n```bash\nls\n```", "timestamp": 1.7, "extra": map[string]any{"response": map[string]any{"id": "x"}}},
		{"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\n</output>", "timestamp": 1.8},
	}
}

// With Mini1, a model speaks 1.x's contract: role and content only go out, no tools are
// offered, and the reply is its text, unparsed (a reply without a command is no format error:
// the 1.x loop decides), with the response under extra and its cost counted.
func TestMini1OpenAI(t *testing.T) {
	tests := []struct {
		name, reply, wantText string
	}{
		{"text with a command", openAITextReply, "THOUGHT: list files\n\n```mswea_bash_command\nls -la\n```"},
		{"no command", openAINoToolReply, "I think we are done."},
		{"tool calls ignored", openAIToolReply, "Let me look at the repository first."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, srv := newRecorder(t, respond(200, tt.reply))
			p := testProvider(t, Config{ModelName: "gpt-4o", Mini1: true}, srv.URL, Options{})
			got, err := queryOnce(t, p, mini1Conversation())
			if err != nil {
				t.Fatalf("Query: %v", err)
			}
			if got.Message.Role() != "assistant" || got.Message.Content() != tt.wantText || len(got.Actions) != 0 {
				t.Errorf("reply = %v, actions %v; want the text %q and no actions", got.Message, got.Actions, tt.wantText)
			}
			if _, ok := got.Message.Extra()["response"].(map[string]any); !ok {
				t.Error("no extra.response")
			}
			if len(got.Message) != 3 {
				t.Errorf("message keys = %v, want role, content, extra", got.Message)
			}
			if got.Cost <= 0 {
				t.Errorf("cost = %v, want the priced call", got.Cost)
			}
			body := rec.body(0)
			if _, ok := body["tools"]; ok {
				t.Error("tools were offered")
			}
			for i, m := range body["messages"].([]any) {
				keys := make([]string, 0, 2)
				for k := range m.(map[string]any) {
					keys = append(keys, k)
				}
				if len(keys) != 2 {
					t.Errorf("message %d sent with keys %v, want role and content", i, keys)
				}
			}
		})
	}
}

func TestMini1AnthropicAndCache(t *testing.T) {
	rec, srv := newRecorder(t, respond(200, anthropicToolReply))
	p := testProvider(t, Config{ModelName: "anthropic/claude-sonnet-4-5-20250929", Mini1: true}, srv.URL, Options{})
	got, err := queryOnce(t, p, mini1Conversation())
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	// litellm's text of an Anthropic reply: the text blocks, concatenated; thinking and tool use
	// are not part of it.
	if got.Message.Content() != "Listing the files." || len(got.Actions) != 0 {
		t.Errorf("reply = %v, actions %v", got.Message, got.Actions)
	}
	body := rec.body(0)
	if _, ok := body["tools"]; ok {
		t.Error("tools were offered")
	}
	msgs := body["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("sent %d turns, want 3 (the system message is the system parameter)", len(msgs))
	}
	last := msgs[2].(map[string]any)["content"].([]any)
	if cc := last[len(last)-1].(map[string]any)["cache_control"]; !reflect.DeepEqual(cc, map[string]any{"type": "ephemeral"}) {
		t.Errorf("last block cache_control = %v, want ephemeral (default for Claude)", cc)
	}
	asst := msgs[1].(map[string]any)["content"].([]any)
	if len(asst) != 1 || asst[0].(map[string]any)["text"] != "THOUGHT: look\n\n```bash\nls\n```" {
		t.Errorf("assistant turn = %v, want its text", asst)
	}
}

// The scripted model with a fence plays each command of a turn as its own text reply.
func TestScriptedText(t *testing.T) {
	s := NewScripted(map[string][]ScriptedTurn{"a__b-1": {
		{Content: "Look first.", Commands: []string{"ls", "cat x.py"}, Cost: 0.25},
		{Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}},
	}})
	s.Fence = "bash"
	m, err := s.ForInstance("a__b-1")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		text string
		cost float64
	}{
		{"Look first.\n\n```bash\nls\n```", 0.25},
		{"```bash\ncat x.py\n```", 0},
		{"```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```", 0},
	}
	for i, w := range want {
		r, err := m.Query(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Message.Content() != w.text || r.Cost != w.cost || r.Message["tool_calls"] != nil {
			t.Errorf("reply %d = %v (cost %v), want %q (cost %v)", i, r.Message, r.Cost, w.text, w.cost)
		}
	}
	if _, err := m.Query(context.Background(), nil); err == nil {
		t.Error("the script did not end")
	}
}

// A 1.x trajectory replays in 1.x mode: every assistant message is one call, format errors
// included, as text.
func TestReplayMini1(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(testenv.Fixtures(t, "trajectories", "mini-swe-agent-1.17.5", "github_issue.traj.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "swe-agent__test-repo-1.traj.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{ModelName: "replay:" + dir, Mini1: true}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.ForInstance("swe-agent__test-repo-1")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for {
		r, err := m.Query(context.Background(), nil)
		if err != nil {
			break
		}
		texts = append(texts, r.Message.Content())
	}
	if len(texts) != 10 || !strings.Contains(texts[0], "```bash\ncat ") || !strings.Contains(texts[9], "MINI_SWE_AGENT_FINAL_OUTPUT") {
		t.Errorf("replayed %d replies: %.60q … %.60q", len(texts), texts[0], texts[len(texts)-1])
	}
}
