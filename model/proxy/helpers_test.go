package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/testutil/providertest"
)

const (
	testKey  = "sk-test-7f3a9c2e51b84d06a1e2f3c4d5e6f708"
	testTask = "Fix the parser so that empty sections are kept (task 4711)."
)

// testAWS are the credentials the Bedrock fake verifies SigV4 signatures with.
var testAWS = aws.Credentials{AccessKeyID: "AKIDEXAMPLEPROXY", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", SessionToken: "session-token-example-proxy"}

// script is the conversation every fake plays: a tool call, then an answer.
var script = providertest.Script{
	Tasks: map[string]string{"inst": testTask},
	Turns: map[string][]providertest.Turn{"inst": {
		{Content: "Let me look at the files.", Commands: []string{"ls -la"}},
		{Content: "Done: the parser keeps empty sections.", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}},
	}},
}

// kind is a provider of one kind behind model: the fake speaking its wire, the configured
// model, and the credentials the fake checks.
type kind struct {
	name  string
	model string
	fake  string     // the fake's wire
	in    model.Wire // the wire the agent speaks
	env   map[string]string
	path  providertest.PathFunc
	// auth: how the fake checks credentials; set up given the fake's URL.
	auth string // "x-api-key", "bearer", "goog", "api-key", "sigv4", "google"
	// check inspects the body the provider got.
	check func(r *http.Request, body map[string]any) error
	// countPath is where a token count goes at the provider.
	countPath string
}

const (
	bedrockID    = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	bedrockPath  = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0"
	vertexClaude = "/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929"
	vertexGemini = "/v1/projects/test-project/locations/global/publishers/google/models/gemini-2.5-pro"
)

func bodyModel(want string) func(*http.Request, map[string]any) error {
	return func(_ *http.Request, b map[string]any) error {
		if b["model"] != want {
			return fmt.Errorf("model %v, want %s (the configured model replaces the agent's)", b["model"], want)
		}
		return nil
	}
}

var kinds = []kind{
	{name: "Anthropic", model: "anthropic/claude-sonnet-4-5", fake: providertest.Anthropic, in: model.WireAnthropic,
		env: map[string]string{"ANTHROPIC_API_KEY": testKey}, path: providertest.BodyStream("/v1/messages"), auth: "x-api-key",
		check: func(r *http.Request, b map[string]any) error {
			if r.Header.Get("Anthropic-Version") == "" || r.Header.Get("Anthropic-Beta") != "tools-2024-04-04" {
				return fmt.Errorf("anthropic-version %q anthropic-beta %q: want the agent's", r.Header.Get("Anthropic-Version"), r.Header.Get("Anthropic-Beta"))
			}
			return bodyModel("claude-sonnet-4-5")(r, b)
		}, countPath: "/v1/messages/count_tokens"},
	{name: "Bedrock Claude", model: "bedrock/" + bedrockID, fake: providertest.Anthropic, in: model.WireAnthropic,
		env:  map[string]string{"AWS_REGION": "us-east-1"},
		path: providertest.URLStream(bedrockPath+"/invoke", bedrockPath+"/invoke-with-response-stream"), auth: "sigv4",
		check: func(r *http.Request, b map[string]any) error {
			beta, _ := b["anthropic_beta"].([]any)
			if _, has := b["model"]; has || b["stream"] != nil || b["anthropic_version"] != "bedrock-2023-05-31" || len(beta) != 1 || beta[0] != "tools-2024-04-04" || r.Header.Get("Anthropic-Beta") != "" {
				return fmt.Errorf("bedrock body model=%v stream=%v anthropic_version=%v anthropic_beta=%v: want no model or stream, bedrock-2023-05-31 and the betas in the body", b["model"], b["stream"], b["anthropic_version"], b["anthropic_beta"])
			}
			return nil
		}, countPath: bedrockPath + "/count-tokens"},
	{name: "Vertex Claude", model: "vertex_ai/claude-sonnet-4-5@20250929", fake: providertest.Anthropic, in: model.WireAnthropic,
		env:  map[string]string{"VERTEXAI_PROJECT": "test-project", "VERTEXAI_LOCATION": "us-east5"},
		path: providertest.URLStream(vertexClaude+":rawPredict", vertexClaude+":streamRawPredict"), auth: "google",
		check: func(r *http.Request, b map[string]any) error {
			if _, has := b["model"]; has || b["anthropic_version"] != "vertex-2023-10-16" {
				return fmt.Errorf("vertex body model=%v anthropic_version=%v: want no model and vertex-2023-10-16", b["model"], b["anthropic_version"])
			}
			return nil
		}, countPath: "/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict"},
	{name: "OpenAI chat", model: "openai/gpt-4.1", fake: providertest.Chat, in: model.WireChat,
		env: map[string]string{"OPENAI_API_KEY": testKey}, path: providertest.BodyStream("/chat/completions"), auth: "bearer",
		check: bodyModel("gpt-4.1")},
	{name: "OpenAI Responses", model: "openai/gpt-5-codex", fake: providertest.Responses, in: model.WireResponses,
		env: map[string]string{"OPENAI_API_KEY": testKey}, path: providertest.BodyStream("/responses"), auth: "bearer",
		check: bodyModel("gpt-5-codex")},
	{name: "Azure chat", model: "azure/my-gpt-4o", fake: providertest.Chat, in: model.WireChat,
		env: map[string]string{"AZURE_API_KEY": testKey}, path: providertest.BodyStream("/openai/deployments/my-gpt-4o/chat/completions"), auth: "api-key",
		check: bodyModel("my-gpt-4o")},
	{name: "Azure Responses", model: "azure/my-gpt-5", fake: providertest.Responses, in: model.WireResponses,
		env: map[string]string{"AZURE_API_KEY": testKey}, path: providertest.BodyStream("/openai/responses"), auth: "api-key",
		check: bodyModel("my-gpt-5")},
	{name: "Gemini", model: "gemini/gemini-2.5-pro", fake: providertest.Gemini, in: model.WireGemini,
		env:  map[string]string{"GEMINI_API_KEY": testKey},
		path: providertest.URLStream("/v1beta/models/gemini-2.5-pro:generateContent", "/v1beta/models/gemini-2.5-pro:streamGenerateContent"), auth: "goog",
		countPath: "/v1beta/models/gemini-2.5-pro:countTokens"},
	{name: "Vertex Gemini", model: "vertex_ai/gemini-2.5-pro", fake: providertest.Gemini, in: model.WireGemini,
		env:  map[string]string{"VERTEXAI_PROJECT": "test-project", "VERTEXAI_LOCATION": "global"},
		path: providertest.URLStream(vertexGemini+":generateContent", vertexGemini+":streamGenerateContent"), auth: "google",
		countPath: vertexGemini + ":countTokens"},
}

// rig is one provider of a kind behind a proxy, with one instance registered.
type rig struct {
	kind    kind
	fake    *providertest.Server
	google  *providertest.Google
	up      *model.Upstream
	proxy   *Proxy
	inst    *Instance
	record  string
	secrets []string // the provider's credentials: none may reach an agent
	counts  sync.Map // count-token paths called
}

// isolateEnv keeps the SDKs and the model layer from the machine's own credentials.
func isolateEnv(t *testing.T) {
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "AZURE_API_KEY", "AZURE_OPENAI_API_KEY",
		"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "GEMINI_API_BASE", "AZURE_API_BASE", "AWS_REGION", "AWS_REGION_NAME", "AWS_DEFAULT_REGION",
		"VERTEXAI_PROJECT", "VERTEXAI_LOCATION", "GOOGLE_CLOUD_PROJECT", "GOOGLE_GENAI_USE_VERTEXAI", "AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", testAWS.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testAWS.SecretAccessKey)
	t.Setenv("AWS_SESSION_TOKEN", testAWS.SessionToken)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "none.json"))
}

type rigOptions struct {
	limits  Limits
	budget  *model.Budget
	cfg     func(*model.Config)
	proxy   func(*Config)
	clock   model.Clock
	wrapper func(http.Handler) http.Handler // in front of the fake provider
}

func newRig(t *testing.T, k kind, o rigOptions) *rig {
	t.Helper()
	isolateEnv(t)
	for n, v := range k.env {
		t.Setenv(n, v)
	}
	r := &rig{kind: k}
	var authFn func(*http.Request, []byte) error
	extra := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/token" {
			r.google.ServeHTTP(w, req)
			return
		}
		if k.countPath != "" && req.URL.EscapedPath() == k.countPath {
			body, _ := io.ReadAll(req.Body)
			if err := authFn(req, body); err != nil {
				http.Error(w, err.Error(), http.StatusForbidden)
				return
			}
			r.counts.Store(req.URL.EscapedPath(), string(body))
			w.Header().Set("Content-Type", "application/json")
			switch {
			case strings.HasSuffix(k.countPath, "/count-tokens"):
				_, _ = w.Write([]byte(`{"inputTokens": 1234}`))
			case k.fake == providertest.Gemini:
				_, _ = w.Write([]byte(`{"totalTokens": 1234}`))
			default:
				_, _ = w.Write([]byte(`{"input_tokens": 1234}`))
			}
			return
		}
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
	})
	r.fake = providertest.New(t, script, providertest.Options{Wire: k.fake, Path: k.path, Extra: extra, Check: k.check,
		Auth: func(req *http.Request, body []byte) error { return authFn(req, body) }, Wrap: o.wrapper})
	switch k.auth {
	case "x-api-key":
		authFn, r.secrets = providertest.Header("X-Api-Key", testKey), []string{testKey}
	case "bearer":
		authFn, r.secrets = providertest.Bearer(testKey), []string{testKey}
	case "goog":
		authFn, r.secrets = providertest.Header("X-Goog-Api-Key", testKey), []string{testKey}
	case "api-key":
		authFn, r.secrets = providertest.Header("Api-Key", testKey), []string{testKey}
	case "sigv4":
		authFn = providertest.SigV4(testAWS, "us-east-1", "bedrock")
		r.secrets = []string{testAWS.AccessKeyID, testAWS.SecretAccessKey, testAWS.SessionToken}
	case "google":
		g, err := providertest.NewGoogle()
		if err != nil {
			t.Fatal(err)
		}
		path, err := g.WriteCredentials(t.TempDir(), r.fake.URL+"/token")
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
		r.google, authFn = g, g.Check
		r.secrets = []string{"ya29.test-token", "PRIVATE KEY"}
	}
	cfg := model.Config{ModelName: k.model, BaseURL: r.fake.URL, Prices: map[string]model.Price{k.model: {Input: 3, Output: 15}}}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	clock := o.clock
	if clock == nil {
		clock = &instantClock{}
	}
	up, err := model.NewUpstream(cfg, model.Options{Budget: o.budget, Clock: clock, Env: os.Getenv})
	if err != nil {
		t.Fatalf("NewUpstream(%s): %v", k.model, err)
	}
	r.up = up
	pc := Config{Upstream: up}
	if o.proxy != nil {
		o.proxy(&pc)
	}
	r.proxy, err = Start(pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.proxy.Close(ctx)
	})
	r.record = filepath.Join(t.TempDir(), "inst", "agent", "proxy.jsonl")
	r.inst, err = r.proxy.Register("inst", InstanceOptions{Limits: o.limits, RecordPath: r.record})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// instantClock lets retries go at once: its time advances by each sleep, from the real time
// it was made at.
type instantClock struct {
	mu     sync.Mutex
	offset time.Duration
	sleeps []time.Duration
}

func (c *instantClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *instantClock) Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	if d < 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
		return nil
	}
	c.mu.Lock()
	c.offset += d
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	return ctx.Err()
}

// capture is an HTTP client for the SDKs that keeps every response's headers and body, to
// look for credentials in what the proxy sends back.
type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capture) client() *http.Client { return &http.Client{Transport: c} }

func (c *capture) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	_ = resp.Header.Write(&c.buf)
	c.mu.Unlock()
	resp.Body = &teeBody{ReadCloser: resp.Body, c: c}
	return resp, nil
}

type teeBody struct {
	io.ReadCloser
	c *capture
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.c.mu.Lock()
	b.c.buf.Write(p[:n])
	b.c.mu.Unlock()
	return n, err
}

func (c *capture) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf.Bytes()...)
}

// noSecrets fails when a credential of the provider appears in what the agent got.
func (r *rig) noSecrets(t *testing.T, got []byte) {
	t.Helper()
	if len(got) == 0 {
		t.Fatal("nothing captured from the proxy")
	}
	for _, s := range r.secrets {
		if bytes.Contains(got, []byte(s)) {
			t.Errorf("a credential of the provider (%.12s…) reached the agent", s)
		}
	}
}

// calls ends the instance (its calls in flight written) and reads its record.
func (r *rig) calls(t *testing.T) []Call {
	t.Helper()
	if _, err := r.inst.End(); err != nil {
		t.Fatal(err)
	}
	calls, torn, err := ReadRecord(r.record)
	if err != nil || torn {
		t.Fatalf("ReadRecord: %v (torn %v)", err, torn)
	}
	// lines are in the order the calls ended: an agent may send its next call before the
	// proxy finished the last one
	sort.Slice(calls, func(i, j int) bool { return calls[i].Seq < calls[j].Seq })
	return calls
}

func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode %.200s: %v", raw, err)
	}
	return m
}
