package model

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
)

func TestOpenAIToolCalls(t *testing.T) {
	rec, srv := newRecorder(t, respond(200, openAIToolReply))
	p := testProvider(t, Config{ModelName: "gpt-4o", ModelKwargs: map[string]any{"temperature": 0.0, "drop_params": true}}, srv.URL, Options{})
	got, err := queryOnce(t, p, conversation())
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	want := []agent.Action{{Command: "ls -la", ToolCallID: "call_abc123"}, {Command: "cat setup.py", ToolCallID: "call_def456"}}
	if !reflect.DeepEqual(got.Actions, want) {
		t.Errorf("actions = %+v, want %+v", got.Actions, want)
	}
	// gpt-4o: 1000 uncached × 2.50 + 1000 cached × 1.25 + 100 out × 10.00 per million
	if wantCost := (1000*2.50 + 1000*1.25 + 100*10.0) / 1e6; math.Abs(got.Cost-wantCost) > 1e-12 {
		t.Errorf("cost = %v, want %v", got.Cost, wantCost)
	}
	if wantUsage := (agent.Usage{InputTokens: 2000, OutputTokens: 100, CacheReadTokens: 1000}); got.Usage != wantUsage {
		t.Errorf("usage = %+v, want %+v", got.Usage, wantUsage)
	}
	if got.Message.Role() != "assistant" || got.Message.Content() != "Let me look at the repository first." {
		t.Errorf("message = %v", got.Message)
	}
	if calls, _ := got.Message["tool_calls"].([]any); len(calls) != 2 {
		t.Errorf("message tool_calls = %v, want the 2 native calls", got.Message["tool_calls"])
	}
	resp, _ := got.Message.Extra()["response"].(map[string]any)
	if resp["id"] != "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG" {
		t.Errorf("extra.response = %v, want the raw response", resp)
	}

	body := rec.body(0)
	if body["model"] != "gpt-4o" || body["temperature"] != 0.0 {
		t.Errorf("request model/temperature = %v/%v", body["model"], body["temperature"])
	}
	if _, ok := body["drop_params"]; ok {
		t.Errorf("litellm-only drop_params was sent")
	}
	tools, _ := body["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["function"].(map[string]any)["name"] != "bash" {
		t.Errorf("tools = %v, want the bash tool", body["tools"])
	}
	msgs := body["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("sent %d messages, want 4", len(msgs))
	}
	for i, m := range msgs {
		mm := m.(map[string]any)
		for _, k := range []string{"extra", "function_call", "provider_specific_fields"} {
			if _, ok := mm[k]; ok {
				t.Errorf("message %d carries %q", i, k)
			}
		}
	}
	call := msgs[2].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	if _, ok := call["index"]; ok || call["id"] != "call_1" {
		t.Errorf("tool call sent as %v, want id/type/function only", call)
	}
	tool := msgs[3].(map[string]any)
	if tool["role"] != "tool" || tool["tool_call_id"] != "call_1" || tool["content"] != "<returncode>0</returncode>" {
		t.Errorf("tool message sent as %v", tool)
	}
	if h := rec.header(0).Get("Authorization"); h != "Bearer "+testKey {
		t.Errorf("Authorization = %q", h)
	}
}

func TestOpenAIFormatErrors(t *testing.T) {
	toolReply := func(calls string) string {
		return `{"id":"x","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"tool_calls",
		"message":{"role":"assistant","content":null,"tool_calls":` + calls + `}}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`
	}
	tests := []struct {
		name         string
		class        string
		body         string
		wantReason   string
		wantHasCalls any
		wantFinish   string
		wantActions  []string
	}{
		{"no tool calls", "", openAINoToolReply,
			"No tool calls found in the response. Every response MUST include at least one tool call.", false, "stop", []string{}},
		{"unknown tool", "", toolReply(`[{"id":"c","type":"function","function":{"name":"python","arguments":"{\"command\":\"x\"}"}}]`),
			"Unknown tool 'python'.", true, "tool_calls", []string{}},
		{"missing command", "", toolReply(`[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"x\"}"}}]`),
			"Missing 'command' argument in bash tool call.", true, "tool_calls", []string{}},
		{"text mode, no block", "litellm_textbased", openAINoToolReply, "Expected exactly 1 action, found 0.", nil, "stop", []string{}},
		{"text mode, two blocks", "litellm_textbased",
			`{"id":"x","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"length","message":{"role":"assistant","content":"` +
				"```mswea_bash_command\\nls\\n```\\n```mswea_bash_command\\npwd\\n```" + `"}}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`,
			"Expected exactly 1 action, found 2.", nil, "length", []string{"ls", "pwd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, srv := newRecorder(t, respond(200, tt.body))
			p := testProvider(t, Config{ModelName: "gpt-4o", ModelClass: tt.class}, srv.URL, Options{})
			_, err := queryOnce(t, p, conversation())
			var fe *agent.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *agent.FormatError", err)
			}
			if fe.Reason != tt.wantReason {
				t.Errorf("reason = %q, want %q", fe.Reason, tt.wantReason)
			}
			if got := fe.Vars["has_tool_calls"]; got != tt.wantHasCalls {
				t.Errorf("has_tool_calls = %v, want %v", got, tt.wantHasCalls)
			}
			if got := fe.Vars["finish_reason"]; got != tt.wantFinish {
				t.Errorf("finish_reason = %v, want %v", got, tt.wantFinish)
			}
			if got := fe.Vars["actions"]; !reflect.DeepEqual(got, tt.wantActions) {
				t.Errorf("actions = %#v, want %#v", got, tt.wantActions)
			}
			if fe.Extra["interrupt_type"] != "FormatError" || fe.Extra["response"] == nil {
				t.Errorf("extra = %v, want interrupt_type and the raw response", fe.Extra)
			}
			if fe.Cost <= 0 {
				t.Errorf("format error cost = %v, want the billed cost", fe.Cost)
			}
		})
	}
}

func TestOpenAITextMode(t *testing.T) {
	rec, srv := newRecorder(t, respond(200, openAITextReply))
	p := testProvider(t, Config{ModelName: "gpt-4o", ModelClass: "litellm_textbased"}, srv.URL, Options{})
	got, err := queryOnce(t, p, []agent.Message{{"role": "system", "content": "s"}, {"role": "user", "content": "u"}})
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if want := []agent.Action{{Command: "ls -la"}}; !reflect.DeepEqual(got.Actions, want) {
		t.Errorf("actions = %+v, want %+v", got.Actions, want)
	}
	if _, ok := rec.body(0)["tools"]; ok {
		t.Errorf("text mode sent tools")
	}
}

func TestOpenRouterReportedCost(t *testing.T) {
	rec, srv := newRecorder(t, respond(200, openRouterReply))
	// No price for this model: OpenRouter reports the cost, so New accepts it.
	p := testProvider(t, Config{ModelName: "openrouter/qwen/qwen3-coder"}, srv.URL, Options{})
	got, err := queryOnce(t, p, conversation())
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if got.Cost != 0.0012345 {
		t.Errorf("cost = %v, want the reported 0.0012345", got.Cost)
	}
	body := rec.body(0)
	if body["model"] != "qwen/qwen3-coder" {
		t.Errorf("model = %v, want the prefix stripped", body["model"])
	}
	if !reflect.DeepEqual(body["usage"], map[string]any{"include": true}) {
		t.Errorf("usage = %v, want include: true", body["usage"])
	}
	if want := []agent.Action{{Command: "git status", ToolCallID: "call_0"}}; !reflect.DeepEqual(got.Actions, want) {
		t.Errorf("actions = %+v, want %+v", got.Actions, want)
	}
}

func TestOpenAICacheControl(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		check func(t *testing.T, last map[string]any)
	}{
		{"claude via openrouter: default_end", Config{ModelName: "openrouter/anthropic/claude-sonnet-4.5"}, func(t *testing.T, last map[string]any) {
			if !reflect.DeepEqual(last["cache_control"], map[string]any{"type": "ephemeral"}) {
				t.Errorf("tool message cache_control = %v", last["cache_control"])
			}
			parts, _ := last["content"].([]any)
			if len(parts) != 1 || parts[0].(map[string]any)["text"] != "<returncode>0</returncode>" {
				t.Errorf("content = %v, want one text part", last["content"])
			}
		}},
		{"gpt: none", Config{ModelName: "gpt-4o"}, func(t *testing.T, last map[string]any) {
			if _, ok := last["cache_control"]; ok {
				t.Errorf("cache_control set for a non-Anthropic model")
			}
			if _, ok := last["content"].(string); !ok {
				t.Errorf("content = %v, want the plain string", last["content"])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, srv := newRecorder(t, respond(200, openRouterReply))
			p := testProvider(t, tt.cfg, srv.URL, Options{})
			msgs := conversation()
			if _, err := queryOnce(t, p, msgs); err != nil {
				t.Fatalf("Query: %v", err)
			}
			sent := rec.body(0)["messages"].([]any)
			tt.check(t, sent[len(sent)-1].(map[string]any))
			if _, ok := msgs[3]["cache_control"]; ok {
				t.Errorf("the agent's message was modified")
			}
		})
	}
}

func TestReplyMessageRoundTrips(t *testing.T) {
	// The stored message goes back to the API as it came, minus extra.
	rec, srv := newRecorder(t, respond(200, openAIToolReply))
	p := testProvider(t, Config{ModelName: "gpt-4o"}, srv.URL, Options{})
	got, err := queryOnce(t, p, conversation())
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if _, err := json.Marshal(got.Message); err != nil {
		t.Fatalf("message does not marshal: %v", err)
	}
	msgs := append(conversation(), got.Message)
	if _, err := queryOnce(t, p, msgs); err != nil {
		t.Fatalf("second Query: %v", err)
	}
	sent := rec.body(1)["messages"].([]any)
	last := sent[len(sent)-1].(map[string]any)
	want := map[string]any{"role": "assistant", "content": "Let me look at the repository first.", "tool_calls": []any{
		map[string]any{"id": "call_abc123", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command": "ls -la"}`}},
		map[string]any{"id": "call_def456", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command": "cat setup.py"}`}},
	}}
	if !reflect.DeepEqual(last, want) {
		t.Errorf("assistant message sent as %v, want %v", last, want)
	}
}
