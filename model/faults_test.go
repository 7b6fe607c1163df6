package model

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/agent"
)

// Error bodies as the providers send them.
const (
	openAIRateLimitBody  = `{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29500, Requested 2000. Please try again in 3s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`
	openAIServerBody     = `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`
	openAIOverloadedBody = `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`
	openAIContextBody    = `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens (130400 in the messages, 112 in the functions). Please reduce the length of the messages or functions.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`
	openAIAuthBody       = `{"error":{"message":"Incorrect API key provided: sk-test-****f708. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	openAIQuotaBody      = `{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	openAIUnsupported    = `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`
	openAIBadRequest     = `{"error":{"message":"Invalid 'messages[2].tool_calls[0].id': string too long.","type":"invalid_request_error","param":"messages[2].tool_calls[0].id","code":"string_above_max_length"}}`
	openAINotFound       = `{"error":{"message":"The model 'gpt-9' does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`
	openAIForbidden      = `{"error":{"message":"Project does not have access to model gpt-4o","type":"invalid_request_error","param":null,"code":"model_not_found"}}`
	vllmContextBody      = `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (31808 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`
	openRouterCredits    = `{"error":{"code":402,"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits"}}`
	openRouterUpstream   = `{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"DeepInfra","raw":"upstream connect error"}},"user_id":"user_123"}`
	anthropicOverloaded  = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`
	anthropicRateLimit   = `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (org-1) of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."},"request_id":"req_1"}`
	anthropicTooLong     = `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":"req_2"}`
	anthropicAuth        = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_3"}`
)

// hang blocks until the client gives up on the request.
func hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// trickle keeps sending a byte every 20ms and never finishes: not a stall, but too slow.
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	for {
		_, _ = io.WriteString(w, " ")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stall sends the headers and part of the body, then nothing.
func stall(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	_, _ = io.WriteString(w, `{"id": "chatcmpl-1", "choices": [`)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// reset drops the connection without an answer.
func reset(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

func TestFaultMatrix(t *testing.T) {
	ok := respond(200, openAIToolReply)
	aok := respond(200, anthropicToolReply)
	base := 100 * time.Millisecond // BackoffBase; attempt n waits in [base·2ⁿ/2, base·2ⁿ]
	tests := []struct {
		name         string
		model        string
		maxRetries   int
		handlers     []http.HandlerFunc
		wantRequests int
		wantStatus   string // "" for success
		wantFatal    bool
		wantExhaust  bool
		wantSleeps   []time.Duration // exact sleeps; nil: checked against the backoff range
		wantCause    error
	}{
		{name: "429 with Retry-After seconds: retry after exactly that", handlers: []http.HandlerFunc{respond(429, openAIRateLimitBody, "Retry-After", "7"), ok},
			wantRequests: 2, wantSleeps: []time.Duration{7 * time.Second}},
		{name: "429 with retry-after-ms", handlers: []http.HandlerFunc{respond(429, openAIRateLimitBody, "Retry-After-Ms", "1500"), ok},
			wantRequests: 2, wantSleeps: []time.Duration{1500 * time.Millisecond}},
		{name: "429 without Retry-After: backoff", handlers: []http.HandlerFunc{respond(429, openAIRateLimitBody), respond(429, openAIRateLimitBody), ok},
			wantRequests: 3},
		{name: "500: retry", handlers: []http.HandlerFunc{respond(500, openAIServerBody), ok}, wantRequests: 2},
		{name: "503: retry", handlers: []http.HandlerFunc{respond(503, openAIOverloadedBody), ok}, wantRequests: 2},
		{name: "503 persists: retries exhausted", maxRetries: 2, handlers: []http.HandlerFunc{respond(503, openAIOverloadedBody)},
			wantRequests: 3, wantStatus: StatusServiceUnavailable, wantExhaust: true},
		{name: "malformed JSON: retry", handlers: []http.HandlerFunc{respond(200, `{"id": "chatcmpl-1", "choices": [`), ok}, wantRequests: 2},
		{name: "no choices: retry", handlers: []http.HandlerFunc{respond(200, `{"id":"x","object":"chat.completion","choices":[]}`), ok}, wantRequests: 2},
		{name: "OpenRouter upstream error in a 200: retry", handlers: []http.HandlerFunc{respond(200, openRouterUpstream), ok}, wantRequests: 2},
		{name: "request timeout: retry", handlers: []http.HandlerFunc{trickle, ok}, wantRequests: 2},
		{name: "request timeout persists", maxRetries: 1, handlers: []http.HandlerFunc{trickle},
			wantRequests: 2, wantStatus: StatusTimeout, wantExhaust: true, wantCause: context.DeadlineExceeded},
		{name: "stall: retry", handlers: []http.HandlerFunc{stall, ok}, wantRequests: 2},
		{name: "no answer at all: stall, retry", handlers: []http.HandlerFunc{hang, ok}, wantRequests: 2},
		{name: "stall persists", maxRetries: 0, handlers: []http.HandlerFunc{stall},
			wantRequests: 1, wantStatus: StatusTimeout, wantExhaust: true, wantCause: context.Canceled},
		{name: "connection reset: retry", handlers: []http.HandlerFunc{reset, ok}, wantRequests: 2},
		{name: "context window exceeded: abort", handlers: []http.HandlerFunc{respond(400, openAIContextBody)},
			wantRequests: 1, wantStatus: StatusContextWindowExceeded, wantSleeps: []time.Duration{}},
		{name: "vLLM context overflow: abort", handlers: []http.HandlerFunc{respond(400, vllmContextBody)},
			wantRequests: 1, wantStatus: StatusContextWindowExceeded, wantSleeps: []time.Duration{}},
		{name: "unsupported parameter: abort", handlers: []http.HandlerFunc{respond(400, openAIUnsupported)},
			wantRequests: 1, wantStatus: StatusUnsupportedParams, wantSleeps: []time.Duration{}},
		{name: "other 400: abort", handlers: []http.HandlerFunc{respond(400, openAIBadRequest)},
			wantRequests: 1, wantStatus: StatusBadRequest, wantSleeps: []time.Duration{}},
		{name: "401: abort the run", handlers: []http.HandlerFunc{respond(401, openAIAuthBody)},
			wantRequests: 1, wantStatus: StatusAuthentication, wantFatal: true, wantSleeps: []time.Duration{}},
		{name: "403: abort", handlers: []http.HandlerFunc{respond(403, openAIForbidden)},
			wantRequests: 1, wantStatus: StatusPermissionDenied, wantSleeps: []time.Duration{}},
		{name: "404: abort", handlers: []http.HandlerFunc{respond(404, openAINotFound)},
			wantRequests: 1, wantStatus: StatusNotFound, wantSleeps: []time.Duration{}},
		{name: "429 insufficient_quota: abort the run", handlers: []http.HandlerFunc{respond(429, openAIQuotaBody)},
			wantRequests: 1, wantStatus: StatusInsufficientCredits, wantFatal: true, wantSleeps: []time.Duration{}},
		{name: "OpenRouter 402: abort the run", handlers: []http.HandlerFunc{respond(402, openRouterCredits)},
			wantRequests: 1, wantStatus: StatusInsufficientCredits, wantFatal: true},
		{name: "Anthropic 529 overloaded: retry", model: "claude-sonnet-4-5", handlers: []http.HandlerFunc{respond(529, anthropicOverloaded), aok}, wantRequests: 2},
		{name: "Anthropic 429 with retry-after", model: "claude-sonnet-4-5", handlers: []http.HandlerFunc{respond(429, anthropicRateLimit, "Retry-After", "12"), aok},
			wantRequests: 2, wantSleeps: []time.Duration{12 * time.Second}},
		{name: "Anthropic prompt too long: abort", model: "claude-sonnet-4-5", handlers: []http.HandlerFunc{respond(400, anthropicTooLong)},
			wantRequests: 1, wantStatus: StatusContextWindowExceeded},
		{name: "Anthropic 401: abort the run", model: "claude-sonnet-4-5", handlers: []http.HandlerFunc{respond(401, anthropicAuth)},
			wantRequests: 1, wantStatus: StatusAuthentication, wantFatal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, srv := newRecorder(t, tt.handlers...)
			clock := newFakeClock()
			model := tt.model
			if model == "" {
				model = "gpt-4o"
			}
			retries := tt.maxRetries
			if retries == 0 && tt.wantStatus == "" {
				retries = 5
			}
			p := testProvider(t, Config{ModelName: model, MaxRetries: &retries, RequestTimeout: 0.3, StallTimeout: 0.15},
				srv.URL, Options{Clock: clock, BackoffBase: base, BackoffMax: time.Second})
			got, err := queryOnce(t, p, conversation())

			if n := rec.requests(); n != tt.wantRequests {
				t.Errorf("requests = %d, want %d", n, tt.wantRequests)
			}
			if tt.wantStatus == "" {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				if len(got.Actions) != 2 {
					t.Errorf("actions = %v", got.Actions)
				}
			} else {
				var es agent.ExitStatuser
				if !errors.As(err, &es) {
					t.Fatalf("err = %v, want an agent.ExitStatuser", err)
				}
				if es.ExitStatus() != tt.wantStatus {
					t.Errorf("exit status = %q, want %q (err: %v)", es.ExitStatus(), tt.wantStatus, err)
				}
				if got := errors.Is(err, ErrFatal); got != tt.wantFatal {
					t.Errorf("errors.Is(err, ErrFatal) = %v, want %v", got, tt.wantFatal)
				}
				if got := errors.Is(err, ErrRetriesExhausted); got != tt.wantExhaust {
					t.Errorf("errors.Is(err, ErrRetriesExhausted) = %v, want %v", got, tt.wantExhaust)
				}
				if tt.wantCause != nil && !errors.Is(err, tt.wantCause) {
					t.Errorf("err = %v, want it to wrap %v", err, tt.wantCause)
				}
			}
			sleeps := clock.recorded()
			if tt.wantSleeps != nil {
				if len(sleeps) != len(tt.wantSleeps) {
					t.Fatalf("sleeps = %v, want %v", sleeps, tt.wantSleeps)
				}
				for i := range sleeps {
					if sleeps[i] != tt.wantSleeps[i] {
						t.Errorf("sleep %d = %v, want %v", i, sleeps[i], tt.wantSleeps[i])
					}
				}
				return
			}
			if len(sleeps) != tt.wantRequests-1 {
				t.Fatalf("sleeps = %v, want one per retry (%d)", sleeps, tt.wantRequests-1)
			}
			for i, d := range sleeps {
				hi := base << i
				if d < hi/2 || d > hi {
					t.Errorf("backoff %d = %v, want in [%v, %v]", i, d, hi/2, hi)
				}
			}
		})
	}
}

func TestCancelIsNotRetried(t *testing.T) {
	rec, srv := newRecorder(t, hang)
	p := testProvider(t, Config{ModelName: "gpt-4o"}, srv.URL, Options{})
	m, _ := p.ForInstance("x")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for rec.requests() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := m.Query(ctx, conversation())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := rec.requests(); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}
