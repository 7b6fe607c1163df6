package model

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
)

func TestAnthropicToolUse(t *testing.T) {
	rec, srv := newRecorder(t, respond(200, anthropicToolReply), respond(200, anthropicToolReply))
	p := testProvider(t, Config{ModelName: "anthropic/claude-sonnet-4-5-20250929", ModelKwargs: map[string]any{"temperature": 1.0}}, srv.URL, Options{})
	got, err := queryOnce(t, p, conversation())
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	want := []agent.Action{{Command: "ls -la", ToolCallID: "toolu_01A09q90qw90lq917835lq9"}, {Command: "git status", ToolCallID: "toolu_01B"}}
	if !reflect.DeepEqual(got.Actions, want) {
		t.Errorf("actions = %+v, want %+v", got.Actions, want)
	}
	if wantUsage := (agent.Usage{InputTokens: 10100, OutputTokens: 200, CacheReadTokens: 9000, CacheWriteTokens: 1000}); got.Usage != wantUsage {
		t.Errorf("usage = %+v, want %+v", got.Usage, wantUsage)
	}
	// sonnet 4.5: 100 × 3 + 200 × 15 + 9000 × 0.30 + 1000 × 3.75 per million
	if wantCost := (100*3.0 + 200*15.0 + 9000*0.30 + 1000*3.75) / 1e6; math.Abs(got.Cost-wantCost) > 1e-12 {
		t.Errorf("cost = %v, want %v", got.Cost, wantCost)
	}
	content, _ := got.Message["content"].([]any)
	if got.Message.Role() != "assistant" || len(content) != 4 || content[0].(map[string]any)["type"] != "thinking" {
		t.Errorf("message = %v, want the native content blocks, thinking first", got.Message)
	}

	h := rec.header(0)
	if h.Get("X-Api-Key") != testKey || h.Get("Anthropic-Version") != "2023-06-01" || h.Get("Authorization") != "" {
		t.Errorf("headers: x-api-key %q, anthropic-version %q, authorization %q", h.Get("X-Api-Key"), h.Get("Anthropic-Version"), h.Get("Authorization"))
	}
	body := rec.body(0)
	if body["model"] != "claude-sonnet-4-5-20250929" || body["max_tokens"] != 8192.0 || body["temperature"] != 1.0 {
		t.Errorf("model/max_tokens/temperature = %v/%v/%v", body["model"], body["max_tokens"], body["temperature"])
	}
	if want := []any{map[string]any{"type": "text", "text": "You are a helpful assistant."}}; !reflect.DeepEqual(body["system"], want) {
		t.Errorf("system = %v, want %v", body["system"], want)
	}
	tools := body["tools"].([]any)
	if tools[0].(map[string]any)["name"] != "bash" || tools[0].(map[string]any)["input_schema"] == nil {
		t.Errorf("tools = %v", tools)
	}
	wantMsgs := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Fix the bug."}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Looking."},
			map[string]any{"type": "tool_use", "id": "call_1", "name": "bash", "input": map[string]any{"command": "ls"}},
		}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "call_1",
			"content": "<returncode>0</returncode>", "cache_control": map[string]any{"type": "ephemeral"}}}},
	}
	if !reflect.DeepEqual(body["messages"], wantMsgs) {
		gotJSON, _ := json.MarshalIndent(body["messages"], "", " ")
		t.Errorf("messages =\n%s", gotJSON)
	}

	// Second turn: the stored native message goes back verbatim, thinking and signature included,
	// and the two observations become one user turn of tool_result blocks.
	msgs := append(conversation(), got.Message,
		agent.Message{"role": "tool", "tool_call_id": "toolu_01A09q90qw90lq917835lq9", "content": "a"},
		agent.Message{"role": "tool", "tool_call_id": "toolu_01B", "content": "b"})
	if _, err := queryOnce(t, p, msgs); err != nil {
		t.Fatalf("second Query: %v", err)
	}
	sent := rec.body(1)["messages"].([]any)
	if len(sent) != 5 {
		t.Fatalf("sent %d turns, want 5", len(sent))
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(anthropicToolReply), &raw); err != nil {
		t.Fatal(err)
	}
	if got := sent[3].(map[string]any)["content"]; !reflect.DeepEqual(got, raw["content"]) {
		t.Errorf("assistant turn sent as %v, want the recorded content %v", got, raw["content"])
	}
	results := sent[4].(map[string]any)["content"].([]any)
	if len(results) != 2 || results[0].(map[string]any)["tool_use_id"] != "toolu_01A09q90qw90lq917835lq9" || results[1].(map[string]any)["tool_use_id"] != "toolu_01B" {
		t.Errorf("tool results = %v", results)
	}
	if _, ok := results[0].(map[string]any)["cache_control"]; ok {
		t.Errorf("cache_control on a block other than the last")
	}
}

func TestAnthropicThinkingReordered(t *testing.T) {
	rec, srv := newRecorder(t, respond(200, anthropicToolReply))
	p := testProvider(t, Config{ModelName: "claude-sonnet-4-5", SetCacheControl: "none"}, srv.URL, Options{})
	msgs := []agent.Message{
		{"role": "user", "content": "u"},
		{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "t"},
			map[string]any{"type": "thinking", "thinking": "th", "signature": "sig"},
		}},
		{"role": "user", "content": "next"},
	}
	if _, err := queryOnce(t, p, msgs); err != nil {
		t.Fatalf("Query: %v", err)
	}
	got := rec.body(0)["messages"].([]any)[1].(map[string]any)["content"].([]any)
	if got[0].(map[string]any)["type"] != "thinking" || got[1].(map[string]any)["type"] != "text" {
		t.Errorf("content = %v, want thinking first", got)
	}
	last := rec.body(0)["messages"].([]any)[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	if _, ok := last["cache_control"]; ok {
		t.Errorf("set_cache_control: none still marked the last message")
	}
}

func TestAnthropicFinishReasonMapped(t *testing.T) {
	_, srv := newRecorder(t, respond(200, anthropicEndTurnReply))
	p := testProvider(t, Config{ModelName: "claude-sonnet-4-5"}, srv.URL, Options{})
	_, err := queryOnce(t, p, conversation())
	fe, ok := err.(*agent.FormatError)
	if !ok {
		t.Fatalf("err = %v, want *agent.FormatError", err)
	}
	if fe.Vars["finish_reason"] != "length" || fe.Vars["has_tool_calls"] != false {
		t.Errorf("vars = %v, want finish_reason length (from max_tokens), has_tool_calls false", fe.Vars)
	}
}

func TestAnthropicThinkingMaxTokens(t *testing.T) {
	rec, srv := newRecorder(t, respond(200, anthropicToolReply))
	p := testProvider(t, Config{ModelName: "claude-sonnet-4-5", ModelKwargs: map[string]any{
		"thinking": map[string]any{"type": "enabled", "budget_tokens": 10000}}}, srv.URL, Options{})
	if _, err := queryOnce(t, p, conversation()); err != nil {
		t.Fatalf("Query: %v", err)
	}
	if got := rec.body(0)["max_tokens"]; got != 18192.0 {
		t.Errorf("max_tokens = %v, want budget + 8192", got)
	}
}
