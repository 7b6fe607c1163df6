package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"google.golang.org/genai"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/model"
)

func kindNamed(t *testing.T, name string) kind {
	for _, k := range kinds {
		if k.name == name {
			return k
		}
	}
	t.Fatalf("no kind %q", name)
	return kind{}
}

// one kind per wire the agents speak, and Bedrock, whose errors are AWS's.
var perWire = []string{"Anthropic", "Bedrock Claude", "OpenAI chat", "OpenAI Responses", "Gemini"}

// answer makes a wrapper that answers the first n model calls itself (n < 0: all of them).
func answer(n int, status int, header http.Header, body string) func(http.Handler) http.Handler {
	var seen atomic.Int64
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/token" || n >= 0 && seen.Add(1) > int64(n) {
				next.ServeHTTP(w, r)
				return
			}
			for k, v := range header {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		})
	}
}

// splitStream makes a wrapper that sends a stream's first event, then calls hold (which may
// block) and sends the rest unless hold returns false (the stream cut short).
func splitStream(hold func(r *http.Request) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			i := bytes.Index(body, []byte("\n\n"))
			if r.URL.Path == "/token" || rec.Header().Get("Content-Type") != "text/event-stream" || i < 0 {
				w.WriteHeader(rec.Code)
				_, _ = w.Write(body)
				return
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body[:i+2])
			w.(http.Flusher).Flush()
			if hold(r) {
				_, _ = w.Write(body[i+2:])
			}
		})
	}
}

// sdkError is what an SDK's error says: the HTTP status and the error type or status.
func sdkError(t *testing.T, err error) (int, string) {
	code, typ, _ := sdkErrorMessage(t, err)
	return code, typ
}

// sdkErrorMessage is sdkError with the error's message.
func sdkErrorMessage(t *testing.T, err error) (int, string, string) {
	t.Helper()
	var ae *anthropic.Error
	var oe *openai.Error
	var ge genai.APIError
	switch {
	case errors.As(err, &ae):
		return ae.StatusCode, string(ae.Type()), ae.Message
	case errors.As(err, &oe):
		return oe.StatusCode, oe.Type + "/" + oe.Code, oe.Message
	case errors.As(err, &ge):
		return ge.Code, ge.Status, ge.Message
	}
	t.Fatalf("error %v (%T) is not an SDK's API error", err, err)
	return 0, "", ""
}

// brief is a call of the record without its bodies, for messages.
func brief(calls []Call) string {
	var b strings.Builder
	for _, c := range calls {
		c.Request, c.Response = nil, nil
		fmt.Fprintf(&b, "\n  %+v error=%+v", c, c.Error)
	}
	return b.String()
}

// A provider's error comes back to the agent in its wire's own shape and class, with the
// provider's message, redacted: a key the provider echoes never reaches the agent. Bedrock's
// AWS-shaped errors come back Anthropic-shaped.
func TestErrorsEveryWire(t *testing.T) {
	echo := `{"error":{"message":"Incorrect API key provided: ` + testKey + `.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	tests := []struct {
		kind   string
		status int
		header http.Header
		body   string
		want   string
		code   int
	}{
		{"Anthropic", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum; key ` + testKey + `"}}`, "invalid_request_error", 400},
		{"Anthropic", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "overloaded_error", 529},
		{"Bedrock Claude", 400, http.Header{"X-Amzn-Errortype": {"ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}},
			`{"message":"Input is too long for requested model."}`, "invalid_request_error", 400},
		{"Bedrock Claude", 403, http.Header{"X-Amzn-Errortype": {"AccessDeniedException"}}, `{"message":"You don't have access to the model with the specified model ID."}`, "permission_error", 403},
		{"OpenAI chat", 400, nil, echo, "invalid_request_error/", 400},
		{"OpenAI chat", 400, nil, `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, "invalid_request_error/context_length_exceeded", 400},
		{"OpenAI Responses", 404, nil, `{"error":{"message":"The model 'gpt-5-codex' does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, "invalid_request_error/model_not_found", 404},
		{"Gemini", 400, nil, `{"error":{"code":400,"message":"Request contains an invalid argument. ` + testKey + `","status":"INVALID_ARGUMENT"}}`, "INVALID_ARGUMENT", 400},
		{"Gemini", 403, nil, `{"error":{"code":403,"message":"Generative Language API has not been used in project 1234","status":"PERMISSION_DENIED"}}`, "PERMISSION_DENIED", 403},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.want, func(t *testing.T) {
			r := newRig(t, kindNamed(t, tt.kind), rigOptions{wrapper: answer(-1, tt.status, tt.header, tt.body)})
			cap := &capture{}
			_, err := sdkFor(r, cap.client()).converse(t, context.Background(), false)
			if err == nil {
				t.Fatal("converse succeeded, want the provider's error")
			}
			code, typ := sdkError(t, err)
			if code != tt.code || typ != tt.want {
				t.Errorf("SDK error %d %q, want %d %q (%v)", code, typ, tt.code, tt.want, err)
			}
			r.noSecrets(t, cap.bytes())
			calls := r.calls(t)
			if len(calls) != 1 || calls[0].Error == nil || calls[0].HTTPStatus != tt.code || len(calls[0].Response) == 0 {
				t.Errorf("record %s: want the error answered", brief(calls))
			}
		})
	}
}

// A request in a wire the configured model does not take is answered in that wire's error
// shape, naming the mismatch; nothing reaches the provider.
func TestWireMismatch(t *testing.T) {
	for _, tt := range []struct{ model, agent string }{{"OpenAI chat", "Anthropic"}, {"Anthropic", "OpenAI chat"}, {"Anthropic", "Gemini"}, {"Gemini", "OpenAI Responses"}} {
		t.Run(tt.agent+" to "+tt.model, func(t *testing.T) {
			r := newRig(t, kindNamed(t, tt.model), rigOptions{})
			r.kind.in = kindNamed(t, tt.agent).in
			_, err := sdkFor(r, http.DefaultClient).converse(t, context.Background(), false)
			if code, _, msg := sdkErrorMessage(t, err); code != 400 || !strings.Contains(msg, "does not translate") {
				t.Errorf("error %v, want a 400 naming the mismatch", err)
			}
			if n := r.fake.Calls.Load(); n != 0 {
				t.Errorf("the provider got %d calls", n)
			}
		})
	}
}

// Past an instance's call or cost limit the proxy answers as the agent's wire says a quota is
// exhausted (Anthropic's billing_error, OpenAI's insufficient_quota, Google's
// RESOURCE_EXHAUSTED), telling the SDKs not to retry, and ends the instance as LimitsExceeded.
func TestLimits(t *testing.T) {
	want := map[model.Wire]struct {
		code int
		typ  string
	}{
		model.WireAnthropic: {402, "billing_error"}, model.WireChat: {429, "insufficient_quota/insufficient_quota"},
		model.WireResponses: {429, "insufficient_quota/insufficient_quota"}, model.WireGemini: {429, "RESOURCE_EXHAUSTED"},
	}
	for _, name := range perWire {
		for _, lim := range []Limits{{Calls: 1}, {Cost: 0.001}} {
			k := kindNamed(t, name)
			t.Run(name+"/"+map[bool]string{true: "calls", false: "cost"}[lim.Calls > 0], func(t *testing.T) {
				r := newRig(t, k, rigOptions{limits: lim})
				_, err := sdkFor(r, http.DefaultClient).converse(t, context.Background(), true)
				if err == nil {
					t.Fatal("both calls answered, want the second refused")
				}
				code, typ := sdkError(t, err)
				if w := want[k.in]; code != w.code || typ != w.typ {
					t.Errorf("SDK error %d %q, want %d %q", code, typ, w.code, w.typ)
				}
				select {
				case <-r.inst.Done():
				default:
					t.Fatal("Done is open after a call past the limit")
				}
				var le *LimitError
				if !errors.As(r.inst.Err(), &le) || le.ExitStatus() != model.StatusLimitsExceeded {
					t.Errorf("Err() = %v, want a *LimitError (LimitsExceeded)", r.inst.Err())
				}
				calls := r.calls(t)
				// x-should-retry: false keeps the SDKs (retries on by default for 429s) from asking again.
				if len(calls) != 2 || calls[1].Error == nil || calls[1].Error.Status != model.StatusLimitsExceeded || r.fake.Calls.Load() != 1 {
					t.Errorf("record %d calls (second: %+v), provider %d calls: want one answered, one refused", len(calls), calls[len(calls)-1].Error, r.fake.Calls.Load())
				}
			})
		}
	}
}

// The run-wide budget is the loop's: a call of the proxy counts against it for the loop, and
// a budget the loop spent refuses the proxy's calls (RunBudgetExhausted, quota-shaped).
func TestBudgetShared(t *testing.T) {
	k := kindNamed(t, "Anthropic")
	k.check = nil // the loop sends no anthropic-beta
	loop := func(t *testing.T, r *rig, budget *model.Budget) error {
		p, err := model.New(model.Config{ModelName: k.model, BaseURL: r.fake.URL, Prices: map[string]model.Price{k.model: {Input: 3, Output: 15}}},
			model.Options{Budget: budget, Clock: &instantClock{}})
		if err != nil {
			t.Fatal(err)
		}
		m, _ := p.ForInstance("inst")
		_, err = m.Query(context.Background(), []agent.Message{{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": testTask}})
		return err
	}
	t.Run("proxy spends, loop refused", func(t *testing.T) {
		budget := model.NewBudget(0.006)
		r := newRig(t, k, rigOptions{budget: budget})
		c := sdkFor(r, http.DefaultClient).(anthropicAgent)
		if _, err := c.call(context.Background(), c.params(), false); err != nil {
			t.Fatal(err)
		}
		if got := budget.Spent(); got != 0.0045 {
			t.Errorf("budget spent $%v after the proxy's call, want $0.0045", got)
		}
		if err := loop(t, r, budget); !errors.Is(err, model.ErrBudgetExhausted) {
			t.Errorf("loop's call: %v, want the budget exhausted", err)
		}
	})
	t.Run("loop spends, proxy refused", func(t *testing.T) {
		budget := model.NewBudget(0.006)
		r := newRig(t, k, rigOptions{budget: budget})
		if err := loop(t, r, budget); err != nil {
			t.Fatal(err)
		}
		c := sdkFor(r, http.DefaultClient).(anthropicAgent)
		_, err := c.call(context.Background(), c.params(), false)
		if code, typ := sdkError(t, err); code != 402 || typ != "billing_error" {
			t.Errorf("proxy's call: %d %s, want 402 billing_error", code, typ)
		}
		<-r.inst.Done()
		var be *model.BudgetError
		if !errors.As(r.inst.Err(), &be) || be.ExitStatus() != model.StatusRunBudgetExhausted {
			t.Errorf("Err() = %v, want the run's budget", r.inst.Err())
		}
	})
}

// Each instance's token is its own: it spends and records only as that instance, a token
// made of one instance's id and another's secret is refused, an ended instance's token stops
// working, and the token is taken where each wire's clients send their key.
func TestTokenIsolation(t *testing.T) {
	r := newRig(t, kindNamed(t, "Gemini"), rigOptions{limits: Limits{Calls: 1}})
	other, err := r.proxy.Register("other", InstanceOptions{RecordPath: r.record + ".other"})
	if err != nil {
		t.Fatal(err)
	}
	post := func(path string, hdr http.Header) int {
		req, _ := http.NewRequest(http.MethodPost, r.proxy.URL()+path, strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"`+testTask+`"}]}]}`))
		req.Header = hdr
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	gen := "/v1beta/models/gemini-2.5-pro:generateContent"
	a, b := r.inst, other
	forged := "sbr-" + a.tokenID + "-" + string(b.secret)
	for _, tt := range []struct {
		name string
		path string
		hdr  http.Header
		want int
	}{
		{"no token", gen, http.Header{}, 400},
		{"forged", gen, http.Header{"X-Goog-Api-Key": {forged}}, 400},
		{"provider's key", gen, http.Header{"X-Goog-Api-Key": {testKey}}, 400},
		{"a's by ?key=", gen + "?key=" + a.Token(), http.Header{}, 200},
		{"a's past its limit", gen, http.Header{"X-Goog-Api-Key": {a.Token()}}, 429},
		{"b's by Bearer", gen, http.Header{"Authorization": {"Bearer " + b.Token()}}, 200},
		{"b's by x-api-key", gen, http.Header{"X-Api-Key": {b.Token()}}, 200},
	} {
		if got := post(tt.path, tt.hdr); got != tt.want {
			t.Errorf("%s: HTTP %d, want %d", tt.name, got, tt.want)
		}
	}
	// registering b again fails, and leaves its record alone
	if _, err := r.proxy.Register("other", InstanceOptions{RecordPath: r.record + ".other"}); err == nil {
		t.Error("registering a live instance again succeeded")
	}
	if s := b.Summary(); s.Calls != 2 {
		t.Errorf("b made %d calls, want 2 (a's limit is a's)", s.Calls)
	}
	if _, err := b.End(); err != nil {
		t.Fatal(err)
	}
	if got := post(gen, http.Header{"X-Goog-Api-Key": {b.Token()}}); got != 400 {
		t.Errorf("ended instance's token: HTTP %d, want 400 API_KEY_INVALID", got)
	}
	bCalls, _, err := ReadRecord(r.record + ".other")
	if err != nil {
		t.Fatal(err)
	}
	aCalls := r.calls(t)
	if len(aCalls) != 2 || len(bCalls) != 2 || aCalls[0].InstanceID != "inst" || bCalls[0].InstanceID != "other" {
		t.Errorf("a's record has %d calls, b's %d: want 2 each, each its own", len(aCalls), len(bCalls))
	}
}

// An agent killed mid-stream: the proxy cuts the provider's call, and bills what was passed
// on at an estimate, as the provider bills the tokens it generated.
func TestClientKilledMidStream(t *testing.T) {
	upstreamGone := make(chan struct{})
	budget := model.NewBudget(0)
	r := newRig(t, kindNamed(t, "Anthropic"), rigOptions{budget: budget, wrapper: splitStream(func(req *http.Request) bool {
		<-req.Context().Done()
		close(upstreamGone)
		return false
	})})
	ctx, cancel := context.WithCancel(context.Background())
	c := sdkFor(r, http.DefaultClient).(anthropicAgent)
	s := c.c.Messages.NewStreaming(ctx, c.params())
	if !s.Next() {
		t.Fatalf("no first event: %v", s.Err())
	}
	cancel() // the agent dies
	s.Close()
	select {
	case <-upstreamGone:
	case <-time.After(20 * time.Second):
		t.Fatal("the provider's call was not cut after the agent went away")
	}
	calls := r.calls(t)
	if len(calls) != 1 || calls[0].Error == nil || calls[0].Error.Status != "ClientClosed" || !calls[0].Error.MidStream {
		t.Fatalf("record %s: want a call cut mid-stream by the agent", brief(calls))
	}
	if !calls[0].CostEstimated || calls[0].Cost <= 0 || budget.Spent() != calls[0].Cost {
		t.Errorf("cost %v (estimated %v), budget $%v: want an estimate billed", calls[0].Cost, calls[0].CostEstimated, budget.Spent())
	}
}

// A provider that fails mid-stream: the call is not retried (the agent has part of the reply)
// and the agent gets its wire's error event.
func TestProviderFailsMidStream(t *testing.T) {
	for _, name := range []string{"Anthropic", "OpenAI chat", "OpenAI Responses", "Gemini"} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, kindNamed(t, name), rigOptions{wrapper: splitStream(func(*http.Request) bool { return false })})
			_, err := sdkFor(r, http.DefaultClient).converse(t, context.Background(), true)
			if err == nil || !strings.Contains(err.Error(), "the stream ended before the reply was complete") {
				t.Errorf("converse: %v, want the stream's error event", err)
			}
			if n := r.fake.Calls.Load(); n != 1 {
				t.Errorf("provider called %d times, want once (no retry after the first event)", n)
			}
			calls := r.calls(t)
			if len(calls) != 1 || calls[0].Error == nil || !calls[0].Error.MidStream || calls[0].Events == 0 {
				t.Errorf("record %s", brief(calls))
			}
		})
	}
}

// A 429 with Retry-After is retried after the delay the provider asked for, the agent none the
// wiser; once the retries are spent, the agent gets the 429 and the Retry-After.
func TestRateLimitRetryAfter(t *testing.T) {
	body := `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`
	h := http.Header{"Retry-After": {"7"}}
	t.Run("retried", func(t *testing.T) {
		clock := &instantClock{}
		r := newRig(t, kindNamed(t, "Anthropic"), rigOptions{clock: clock, wrapper: answer(1, 429, h, body)})
		c := sdkFor(r, http.DefaultClient).(anthropicAgent)
		if _, err := c.call(context.Background(), c.params(), true); err != nil {
			t.Fatal(err)
		}
		calls := r.calls(t)
		if len(calls) != 1 || calls[0].Attempts != 2 || len(calls[0].Retries) != 1 {
			t.Fatalf("record %s: want 2 attempts, one retry", brief(calls))
		}
		if rt := calls[0].Retries[0]; rt.Status != model.StatusRateLimit || rt.HTTPStatus != 429 || rt.Delay != 7*time.Second {
			t.Errorf("retry %+v, want RateLimitError 429 after 7s", rt)
		}
	})
	t.Run("retries spent", func(t *testing.T) {
		zero := 0
		r := newRig(t, kindNamed(t, "Anthropic"), rigOptions{wrapper: answer(-1, 429, h, body), cfg: func(c *model.Config) { c.MaxRetries = &zero }})
		cap := &capture{}
		c := sdkFor(r, cap.client()).(anthropicAgent)
		_, err := c.call(context.Background(), c.params(), false)
		if code, typ := sdkError(t, err); code != 429 || typ != "rate_limit_error" {
			t.Errorf("SDK error %d %s, want 429 rate_limit_error", code, typ)
		}
		if !bytes.Contains(cap.bytes(), []byte("Retry-After: 7")) {
			t.Errorf("no Retry-After sent back in %s", cap.bytes())
		}
	})
}

// A body over the bound is refused as each wire refuses one, before it is read whole.
func TestBodyOverBound(t *testing.T) {
	for _, tt := range []struct {
		kind, typ string
		code      int
	}{{"Anthropic", "request_too_large", 413}, {"OpenAI chat", "invalid_request_error/", 413}, {"Gemini", "INVALID_ARGUMENT", 400}} {
		t.Run(tt.kind, func(t *testing.T) {
			r := newRig(t, kindNamed(t, tt.kind), rigOptions{proxy: func(c *Config) { c.MaxBodyBytes = 128 }})
			_, err := sdkFor(r, http.DefaultClient).converse(t, context.Background(), false)
			if code, typ := sdkError(t, err); code != tt.code || typ != tt.typ {
				t.Errorf("SDK error %d %q, want %d %q", code, typ, tt.code, tt.typ)
			}
			calls := r.calls(t)
			if len(calls) != 1 || calls[0].Error == nil || calls[0].Error.Status != "RequestTooLarge" || calls[0].Request != nil || r.fake.Calls.Load() != 0 {
				t.Errorf("record %s", brief(calls))
			}
		})
	}
}

// Close with a stream in flight: no new connection is taken, the stream (which outlives the
// server's read timeout) finishes whole, then Close returns.
func TestGracefulShutdownWithStreams(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	r := newRig(t, kindNamed(t, "Anthropic"), rigOptions{
		proxy: func(c *Config) { c.ReadTimeout = 100 * time.Millisecond },
		wrapper: splitStream(func(*http.Request) bool {
			close(started)
			<-release
			return true
		})})
	c := sdkFor(r, http.DefaultClient).(anthropicAgent)
	got := make(chan error, 1)
	go func() {
		msg, err := c.call(context.Background(), c.params(), true)
		if err == nil && (len(msg.Content) != 3 || msg.StopReason != "tool_use") {
			err = errors.New("incomplete message")
		}
		got <- err
	}()
	<-started
	closed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		closed <- r.proxy.Close(ctx)
	}()
	// Wait until the listener is closed: new connections are refused.
	for i := 0; ; i++ {
		conn, err := net.Dial("tcp", r.proxy.Addr().String())
		if err != nil {
			break
		}
		conn.Close()
		if i > 500 {
			t.Fatal("the proxy still accepts connections while closing")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // past the read timeout
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) with a stream in flight", err)
	default:
	}
	close(release)
	if err := <-got; err != nil {
		t.Errorf("stream in flight: %v", err)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	calls, _, err := ReadRecord(r.record)
	if err != nil || len(calls) != 1 || calls[0].Error != nil {
		t.Errorf("record %s, %v: want the stream's call, whole", brief(calls), err)
	}
}

// The record's reader keeps the whole lines before a torn one, and refuses another format.
func TestReadRecordTorn(t *testing.T) {
	dir := t.TempDir()
	rec, err := newRecorder(dir + "/agent/proxy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rec.write(&Call{Format: RecordFormat, Seq: 1, InstanceID: "x"})
	rec.write(&Call{Format: RecordFormat, Seq: 2, InstanceID: "x"})
	if err := rec.close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(dir+"/agent/proxy.jsonl", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"format":"swebench-run-proxy-1","seq":3,"inst`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	calls, torn, err := ReadRecord(dir + "/agent/proxy.jsonl")
	if err != nil || !torn || len(calls) != 2 || calls[1].Seq != 2 {
		t.Errorf("ReadRecord = %d calls, torn %v, %v; want 2, torn", len(calls), torn, err)
	}
}

// What the container gets: the proxy's address and the instance's token, in each wire's
// conventional variables; the proxy binds the loopback unless told otherwise.
func TestInstanceEnv(t *testing.T) {
	r := newRig(t, kindNamed(t, "Bedrock Claude"), rigOptions{})
	if host, _, _ := net.SplitHostPort(r.proxy.Addr().String()); host != "127.0.0.1" {
		t.Errorf("bound %s by default, want 127.0.0.1", host)
	}
	env := strings.Join(r.inst.Env(), "\n")
	for _, v := range []string{"ANTHROPIC_BASE_URL=" + r.proxy.URL() + "\n", "OPENAI_BASE_URL=" + r.proxy.URL() + "/v1\n", "GOOGLE_GEMINI_BASE_URL=" + r.proxy.URL() + "\n",
		"ANTHROPIC_API_KEY=" + r.inst.Token(), "OPENAI_API_KEY=" + r.inst.Token(), "GEMINI_API_KEY=" + r.inst.Token()} {
		if !strings.Contains(env+"\n", v) {
			t.Errorf("env lacks %q:\n%s", v, env)
		}
	}
	r.noSecrets(t, []byte(env))
	p, err := Start(Config{Upstream: r.up, Listen: "127.0.0.1:0", Advertise: "172.17.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	_, port, _ := net.SplitHostPort(p.Addr().String())
	if p.URL() != "http://172.17.0.1:"+port {
		t.Errorf("URL %s, want the advertised host with the bound port", p.URL())
	}
}

// The provider refusing the run's credentials is no fault of the agent's key: the agent gets a
// server error, and the instance is done (the failure is fatal for the run, model.ErrFatal).
func TestFatalProviderError(t *testing.T) {
	r := newRig(t, kindNamed(t, "Anthropic"), rigOptions{wrapper: answer(-1, 401, nil,
		`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)})
	c := sdkFor(r, http.DefaultClient).(anthropicAgent)
	_, err := c.call(context.Background(), c.params(), false)
	if code, typ := sdkError(t, err); code != 500 || typ != "api_error" {
		t.Errorf("SDK error %d %s, want 500 api_error", code, typ)
	}
	select {
	case <-r.inst.Done():
	default:
		t.Fatal("Done is open after a fatal provider error")
	}
	if err := r.inst.Err(); !errors.Is(err, model.ErrFatal) {
		t.Errorf("Err() = %v, want model.ErrFatal", err)
	}
}

// A path the proxy does not serve is answered 404 in the shape of the API it looks like, to a
// live token; without one, as a bad key.
func TestUnknownPath(t *testing.T) {
	r := newRig(t, kindNamed(t, "Anthropic"), rigOptions{})
	for _, tt := range []struct {
		method, path string
		hdr          http.Header
		want         int
		body         string
	}{
		{"GET", "/v1/models", http.Header{"X-Api-Key": {r.inst.Token()}, "Anthropic-Version": {"2023-06-01"}}, 404, `"not_found_error"`},
		{"GET", "/v1/models", http.Header{"Authorization": {"Bearer " + r.inst.Token()}}, 404, `"model_not_found"`},
		{"POST", "/v1beta/models/gemini-2.5-pro:embedContent", http.Header{"X-Goog-Api-Key": {r.inst.Token()}}, 404, `"NOT_FOUND"`},
		{"GET", "/v1/models", http.Header{}, 401, `"invalid_api_key"`},
	} {
		req, _ := http.NewRequest(tt.method, r.proxy.URL()+tt.path, nil)
		req.Header = tt.hdr
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want || !strings.Contains(string(body), tt.body) {
			t.Errorf("%s %s: %d %s, want %d with %s", tt.method, tt.path, resp.StatusCode, body, tt.want, tt.body)
		}
	}
}

// Claude Code calls the beta Messages API: /v1/messages?beta=true, its key as a bearer token
// when it is given as ANTHROPIC_AUTH_TOKEN.
func TestAnthropicBetaPath(t *testing.T) {
	r := newRig(t, kindNamed(t, "Anthropic"), rigOptions{})
	body := `{"model":"claude-opus-4-1","max_tokens":1024,"messages":[{"role":"user","content":"` + testTask + `"}]}`
	req, _ := http.NewRequest(http.MethodPost, r.inst.Endpoints().Anthropic+"/v1/messages?beta=true", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+r.inst.Token())
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Anthropic-Beta", "tools-2024-04-04")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(data), `"tool_use"`) {
		t.Errorf("HTTP %d %s, want the reply", resp.StatusCode, data)
	}
}
