package model

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/agent"
)

const testKey = "sk-test-7f3a9c2e51b84d06a1e2f3c4d5e6f708"

// fakeClock advances virtual time by every sleep and records the sleeps.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	if d < 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
			return nil
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *fakeClock) recorded() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// recorder is a fake provider endpoint: it answers the n-th request with handlers[n] (the last
// handler answers all further requests) and keeps every request body.
type recorder struct {
	t        *testing.T
	handlers []http.HandlerFunc
	mu       sync.Mutex
	bodies   []map[string]any
	headers  []http.Header
	count    atomic.Int64
}

func newRecorder(t *testing.T, handlers ...http.HandlerFunc) (*recorder, *httptest.Server) {
	t.Helper()
	rec := &recorder{t: t, handlers: handlers}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return rec, srv
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	n := int(r.count.Add(1)) - 1
	data, _ := io.ReadAll(req.Body)
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	r.mu.Lock()
	r.bodies = append(r.bodies, body)
	r.headers = append(r.headers, req.Header.Clone())
	r.mu.Unlock()
	h := r.handlers[min(n, len(r.handlers)-1)]
	h(w, req)
}

func (r *recorder) requests() int { return int(r.count.Load()) }

func (r *recorder) body(i int) map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies[i]
}

func (r *recorder) header(i int) http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.headers[i]
}

// respond answers with a status, headers and a raw body.
func respond(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// Real response bodies, in the providers' shapes.
const (
	openAIToolReply = `{
  "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
  "object": "chat.completion",
  "created": 1741570283,
  "model": "gpt-4o-2024-08-06",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": "Let me look at the repository first.",
      "tool_calls": [
        {"id": "call_abc123", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls -la\"}"}},
        {"id": "call_def456", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"cat setup.py\"}"}}
      ],
      "refusal": null,
      "annotations": []
    },
    "logprobs": null,
    "finish_reason": "tool_calls"
  }],
  "usage": {
    "prompt_tokens": 2000,
    "completion_tokens": 100,
    "total_tokens": 2100,
    "prompt_tokens_details": {"cached_tokens": 1000, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
  },
  "service_tier": "default",
  "system_fingerprint": "fp_fc9f1d7035"
}`
	openAITextReply = `{
  "id": "chatcmpl-2",
  "object": "chat.completion",
  "created": 1741570283,
  "model": "gpt-4o-2024-08-06",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": "THOUGHT: list files\n\n` + "```mswea_bash_command\\nls -la\\n```" + `", "refusal": null}, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}
}`
	openAINoToolReply = `{
  "id": "chatcmpl-3", "object": "chat.completion", "created": 1741570283, "model": "gpt-4o-2024-08-06",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": "I think we are done.", "refusal": null}, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 1000, "completion_tokens": 10, "total_tokens": 1010}
}`
	openRouterReply = `{
  "id": "gen-1741570283-abc", "provider": "DeepInfra", "model": "qwen/qwen3-coder", "object": "chat.completion", "created": 1741570283,
  "choices": [{"logprobs": null, "finish_reason": "tool_calls", "native_finish_reason": "tool_calls", "index": 0,
    "message": {"role": "assistant", "content": "", "refusal": null, "reasoning": null,
      "tool_calls": [{"id": "call_0", "index": 0, "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"git status\"}"}}]}}],
  "usage": {"prompt_tokens": 5000, "completion_tokens": 40, "total_tokens": 5040, "cost": 0.0012345, "is_byok": false,
    "prompt_tokens_details": {"cached_tokens": 0}, "cost_details": {"upstream_inference_cost": null}, "completion_tokens_details": {"reasoning_tokens": 0}}
}`
	anthropicToolReply = `{
  "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [
    {"type": "thinking", "thinking": "The user wants the files listed.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
    {"type": "text", "text": "Listing the files."},
    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "bash", "input": {"command": "ls -la"}},
    {"type": "tool_use", "id": "toolu_01B", "name": "bash", "input": {"command": "git status"}}
  ],
  "stop_reason": "tool_use",
  "stop_sequence": null,
  "usage": {"input_tokens": 100, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": 9000, "output_tokens": 200, "service_tier": "standard"}
}`
	anthropicEndTurnReply = `{
  "id": "msg_02", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
  "content": [{"type": "text", "text": "All done."}],
  "stop_reason": "max_tokens", "stop_sequence": null,
  "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 8192}
}`
)

// conversation is a typical history: system, task, an assistant tool call with its observation.
func conversation() []agent.Message {
	return []agent.Message{
		{"role": "system", "content": "You are a helpful assistant.", "extra": map[string]any{}},
		{"role": "user", "content": "Fix the bug.", "extra": map[string]any{"x": 1}},
		{"role": "assistant", "content": "Looking.", "tool_calls": []any{
			map[string]any{"id": "call_1", "type": "function", "index": 0, "function": map[string]any{"name": "bash", "arguments": `{"command": "ls"}`}},
		}, "function_call": nil, "provider_specific_fields": nil, "extra": map[string]any{"actions": []any{}, "cost": 0.1}},
		{"role": "tool", "tool_call_id": "call_1", "content": "<returncode>0</returncode>", "extra": map[string]any{"raw_output": "a"}},
	}
}

// testProvider builds a provider against a fake server.
func testProvider(t *testing.T, cfg Config, url string, opts Options) Provider {
	t.Helper()
	cfg.BaseURL = url
	if opts.Env == nil {
		opts.Env = func(k string) string {
			if k == "OPENAI_API_KEY" || k == "ANTHROPIC_API_KEY" || k == "OPENROUTER_API_KEY" {
				return testKey
			}
			return ""
		}
	}
	if opts.Clock == nil {
		opts.Clock = newFakeClock()
	}
	p, err := New(cfg, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func queryOnce(t *testing.T, p Provider, msgs []agent.Message) (agent.Reply, error) {
	t.Helper()
	m, err := p.ForInstance("owner__repo-1")
	if err != nil {
		t.Fatalf("ForInstance: %v", err)
	}
	return m.Query(context.Background(), msgs)
}
