package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/testutil/providertest"
)

// testAWS are the credentials the Bedrock tests sign with; the fakes verify the signatures.
var testAWS = aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", SessionToken: "session-token-example"}

// awsEnv gives the SDK's default chain the test credentials only (no shared files, no IMDS).
func awsEnv(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", testAWS.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testAWS.SecretAccessKey)
	t.Setenv("AWS_SESSION_TOKEN", testAWS.SessionToken)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
}

// googleEnv makes a service account whose token endpoint is served by mux at /token, points
// Application Default Credentials at it, and returns the fake endpoint.
func googleEnv(t *testing.T, srvURL string) *providertest.Google {
	t.Helper()
	g, err := providertest.NewGoogle()
	if err != nil {
		t.Fatal(err)
	}
	path, err := g.WriteCredentials(t.TempDir(), srvURL+"/token")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
	return g
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "wire", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// converseFrames frames converse_stream.jsonl as an AWS event stream.
func converseFrames(t *testing.T) []byte {
	var events []providertest.Event
	sc := bufio.NewScanner(bytes.NewReader(readTestdata(t, "converse_stream.jsonl")))
	for sc.Scan() {
		var e struct {
			Event   string         `json:"event"`
			Payload map[string]any `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Event != "" {
			events = append(events, providertest.Event{Name: e.Event, Data: e.Payload})
		}
	}
	return providertest.AWSEvents(events)
}

// sseToChunks re-frames an Anthropic SSE file the way InvokeModelWithResponseStream sends it.
func sseToChunks(t *testing.T, sse []byte) []byte {
	var events []providertest.Event
	for _, line := range strings.Split(string(sse), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var v map[string]any
			if err := json.Unmarshal([]byte(d), &v); err != nil {
				t.Fatal(err)
			}
			events = append(events, providertest.Event{Data: v})
		}
	}
	return providertest.AWSChunks(events)
}

func decodeFile(t *testing.T, data []byte) map[string]any {
	t.Helper()
	m, err := decodeObject(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Real response bodies and event streams of each wire (testdata/wire, their origins named in
// the files and below) parse to the right message, actions and usage, and the streamed reply
// is stored exactly as the unstreamed one. Each fake checks the path and the credentials:
// API key headers, a SigV4 signature recomputed with the SDK's signer, a Google token it issued.
func TestWiresRealBodies(t *testing.T) {
	type tc struct {
		name         string
		model        string
		kwargs       map[string]any
		env          map[string]string
		body, stream []byte
		streamType   string
		path, spath  string // unstreamed and streamed request paths
		auth         func(t *testing.T, srvURL string) func(*http.Request, []byte) error
		wantActions  []agent.Action
		wantUsage    agent.Usage
		// next checks the request that follows the reply (the reply and one tool result sent
		// back): the provider's own message goes back verbatim.
		next func(t *testing.T, body map[string]any)
	}
	key := func(h, v string) func(*testing.T, string) func(*http.Request, []byte) error {
		return func(*testing.T, string) func(*http.Request, []byte) error { return providertest.Header(h, v) }
	}
	sigv4 := func(t *testing.T, _ string) func(*http.Request, []byte) error {
		awsEnv(t)
		return providertest.SigV4(testAWS, "us-east-1", "bedrock")
	}
	var google *providertest.Google
	vertex := func(t *testing.T, srvURL string) func(*http.Request, []byte) error {
		google = googleEnv(t, srvURL)
		return google.Check
	}
	price := map[string]Price{"x": {Input: 1, Output: 2}}
	tests := []tc{
		{name: "OpenAI chat completions", model: "openai/gpt-4.1", env: map[string]string{"OPENAI_API_KEY": testKey},
			body: readTestdata(t, "openai_chat.json"), stream: readTestdata(t, "openai_chat.sse"), streamType: "text/event-stream",
			path: "/chat/completions", spath: "/chat/completions", auth: key("Authorization", "Bearer "+testKey),
			wantActions: []agent.Action{{Command: "ls -la", ToolCallID: "call_QhS3Wn1bA0Yk"}, {Command: "git status", ToolCallID: "call_Zr7uPq2cTb9m"}},
			wantUsage:   agent.Usage{InputTokens: 1200, OutputTokens: 60, CacheReadTokens: 1024}},
		{name: "Anthropic messages", model: "anthropic/claude-sonnet-4-5-20250929", env: map[string]string{"ANTHROPIC_API_KEY": testKey},
			body: readTestdata(t, "anthropic.json"), stream: readTestdata(t, "anthropic.sse"), streamType: "text/event-stream",
			path: "/v1/messages", spath: "/v1/messages", auth: key("X-Api-Key", testKey),
			wantActions: []agent.Action{{Command: "python -m pytest -x -q", ToolCallID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6"}},
			wantUsage:   agent.Usage{InputTokens: 472 + 2048, OutputTokens: 89, CacheReadTokens: 2048}},
		{name: "OpenAI Responses (codex: Responses only)", model: "openai/gpt-5-codex", env: map[string]string{"OPENAI_API_KEY": testKey},
			kwargs: map[string]any{"reasoning_effort": "medium", "include": []any{"reasoning.encrypted_content"}, "store": false},
			body:   readTestdata(t, "responses.json"), stream: readTestdata(t, "responses.sse"), streamType: "text/event-stream",
			path: "/responses", spath: "/responses", auth: key("Authorization", "Bearer "+testKey),
			wantActions: []agent.Action{{Command: "python -m pytest tests/test_parser.py -q", ToolCallID: "call_l1Hs8pJbq6aU3lz2vWx0"}},
			wantUsage:   agent.Usage{InputTokens: 3210, OutputTokens: 412, CacheReadTokens: 2944, ReasoningTokens: 384},
			next: func(t *testing.T, body map[string]any) {
				input := body["input"].([]any)
				wantOut := decodeFile(t, readTestdata(t, "responses.json"))["output"].([]any)
				n := len(input)
				got := input[n-1-len(wantOut) : n-1]
				if !reflect.DeepEqual(jsonRound(t, got), jsonRound(t, wantOut)) {
					t.Errorf("output items sent back as %v, want them verbatim (reasoning item included)", got)
				}
				last := input[n-1].(map[string]any)
				if last["type"] != "function_call_output" || last["call_id"] != "call_l1Hs8pJbq6aU3lz2vWx0" || last["output"] != "<returncode>0</returncode>" || last["extra"] != nil {
					t.Errorf("tool result sent as %v", last)
				}
				if r := body["reasoning"].(map[string]any); r["effort"] != "medium" || body["store"] != false {
					t.Errorf("reasoning/store = %v/%v", body["reasoning"], body["store"])
				}
			}},
		{name: "Gemini API (AI Studio)", model: "gemini/gemini-3-pro-preview", env: map[string]string{"GEMINI_API_KEY": testKey},
			body: readTestdata(t, "gemini.json"), stream: readTestdata(t, "gemini.sse"), streamType: "text/event-stream",
			path: "/v1beta/models/gemini-3-pro-preview:generateContent", spath: "/v1beta/models/gemini-3-pro-preview:streamGenerateContent",
			auth: key("X-Goog-Api-Key", testKey),
			wantActions: []agent.Action{{Command: "cat confparse/parser.py", ToolCallID: "call_dMVuaL7hAcqV_uMP0cPj2Ak_0"},
				{Command: "git log --oneline -3", ToolCallID: "call_dMVuaL7hAcqV_uMP0cPj2Ak_1"}},
			wantUsage: agent.Usage{InputTokens: 2481, OutputTokens: 58 + 164, CacheReadTokens: 2048, ReasoningTokens: 164},
			next: func(t *testing.T, body map[string]any) {
				contents := body["contents"].([]any)
				model := contents[len(contents)-2].(map[string]any)
				wantParts := decodeFile(t, readTestdata(t, "gemini.json"))["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"]
				if model["role"] != "model" || !reflect.DeepEqual(jsonRound(t, model["parts"]), jsonRound(t, wantParts)) {
					t.Errorf("model turn sent as %v, want the parts verbatim (thought signature included)", model)
				}
				user := contents[len(contents)-1].(map[string]any)["parts"].([]any)
				if len(user) != 2 || user[0].(map[string]any)["functionResponse"].(map[string]any)["name"] != "bash" {
					t.Errorf("tool results sent as %v, want two functionResponse parts", user)
				}
			}},
		{name: "Vertex AI Gemini", model: "vertex_ai/gemini-3-pro-preview", env: map[string]string{"VERTEXAI_PROJECT": "test-project", "VERTEXAI_LOCATION": "global"},
			body: readTestdata(t, "gemini.json"), stream: readTestdata(t, "gemini.sse"), streamType: "text/event-stream",
			path:  "/v1/projects/test-project/locations/global/publishers/google/models/gemini-3-pro-preview:generateContent",
			spath: "/v1/projects/test-project/locations/global/publishers/google/models/gemini-3-pro-preview:streamGenerateContent", auth: vertex,
			wantActions: []agent.Action{{Command: "cat confparse/parser.py", ToolCallID: "call_dMVuaL7hAcqV_uMP0cPj2Ak_0"},
				{Command: "git log --oneline -3", ToolCallID: "call_dMVuaL7hAcqV_uMP0cPj2Ak_1"}},
			wantUsage: agent.Usage{InputTokens: 2481, OutputTokens: 58 + 164, CacheReadTokens: 2048, ReasoningTokens: 164}},
		{name: "Vertex AI Claude (rawPredict)", model: "vertex_ai/claude-sonnet-4-5@20250929", env: map[string]string{"VERTEXAI_PROJECT": "test-project", "VERTEXAI_LOCATION": "us-east5"},
			body: readTestdata(t, "anthropic.json"), stream: readTestdata(t, "anthropic.sse"), streamType: "text/event-stream",
			path:  "/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict",
			spath: "/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict", auth: vertex,
			wantActions: []agent.Action{{Command: "python -m pytest -x -q", ToolCallID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6"}},
			wantUsage:   agent.Usage{InputTokens: 472 + 2048, OutputTokens: 89, CacheReadTokens: 2048}},
		{name: "Bedrock Converse", model: "bedrock/qwen.qwen3-coder-480b-a35b-v1:0", env: map[string]string{"AWS_REGION": "us-east-1"},
			body: readTestdata(t, "converse.json"), stream: converseFrames(t), streamType: "application/vnd.amazon.eventstream",
			path: "/model/qwen.qwen3-coder-480b-a35b-v1%3A0/converse", spath: "/model/qwen.qwen3-coder-480b-a35b-v1%3A0/converse-stream", auth: sigv4,
			wantActions: []agent.Action{{Command: "pytest -q", ToolCallID: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"}},
			wantUsage:   agent.Usage{InputTokens: 1805, OutputTokens: 77},
			next: func(t *testing.T, body map[string]any) {
				msgs := body["messages"].([]any)
				tr := msgs[len(msgs)-1].(map[string]any)["content"].([]any)[0].(map[string]any)["toolResult"].(map[string]any)
				if tr["toolUseId"] != "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q" {
					t.Errorf("tool result sent as %v", tr)
				}
				if body["toolConfig"] == nil || body["system"] == nil {
					t.Errorf("toolConfig/system missing: %v", body)
				}
			}},
		{name: "Bedrock InvokeModel (Claude, cross-region profile)", model: "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", env: map[string]string{"AWS_REGION_NAME": "us-east-1"},
			body: readTestdata(t, "anthropic.json"), stream: sseToChunks(t, readTestdata(t, "anthropic.sse")), streamType: "application/vnd.amazon.eventstream",
			path:  "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke",
			spath: "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream", auth: sigv4,
			wantActions: []agent.Action{{Command: "python -m pytest -x -q", ToolCallID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6"}},
			wantUsage:   agent.Usage{InputTokens: 472 + 2048, OutputTokens: 89, CacheReadTokens: 2048},
			next: func(t *testing.T, body map[string]any) {
				if _, ok := body["model"]; ok || body["anthropic_version"] != "bedrock-2023-05-31" || body["stream"] != nil {
					t.Errorf("model/anthropic_version/stream = %v/%v/%v, want none/bedrock-2023-05-31/none", body["model"], body["anthropic_version"], body["stream"])
				}
				msgs := body["messages"].([]any)
				blocks := msgs[len(msgs)-2].(map[string]any)["content"].([]any)
				if b := blocks[0].(map[string]any); b["type"] != "thinking" || b["signature"] == nil {
					t.Errorf("thinking block sent as %v, want it first with its signature", b)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var replies []agent.Message
			for _, stream := range []bool{false, true} {
				var check func(*http.Request, []byte) error
				var gotPath string
				var gotBody map[string]any
				mux := http.NewServeMux()
				srv := httptest.NewServer(mux)
				t.Cleanup(srv.Close)
				check = tt.auth(t, srv.URL)
				mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) { google.ServeHTTP(w, r) })
				mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
					data, _ := io.ReadAll(r.Body)
					gotPath = r.URL.EscapedPath()
					_ = json.Unmarshal(data, &gotBody)
					if err := check(r, data); err != nil {
						t.Errorf("credentials refused: %v", err)
						w.WriteHeader(http.StatusForbidden)
						return
					}
					if stream {
						w.Header().Set("Content-Type", tt.streamType)
						_, _ = w.Write(tt.stream)
						return
					}
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(tt.body)
				})
				kwargs := map[string]any{"stream": stream}
				for k, v := range tt.kwargs {
					kwargs[k] = v
				}
				cfg := Config{ModelName: tt.model, ModelKwargs: kwargs, BaseURL: srv.URL, Prices: map[string]Price{tt.model: price["x"]}}
				p, err := New(cfg, Options{Env: func(k string) string { return firstNonEmpty(tt.env[k], os.Getenv(k)) }, Clock: newFakeClock()})
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				got, err := queryOnce(t, p, conversation())
				if err != nil {
					t.Fatalf("stream=%v: Query: %v", stream, err)
				}
				want := tt.path
				if stream {
					want = tt.spath
				}
				if gotPath != want {
					t.Errorf("stream=%v: path %s, want %s", stream, gotPath, want)
				}
				if !reflect.DeepEqual(got.Actions, tt.wantActions) {
					t.Errorf("stream=%v: actions %+v, want %+v", stream, got.Actions, tt.wantActions)
				}
				if got.Usage != tt.wantUsage {
					t.Errorf("stream=%v: usage %+v, want %+v", stream, got.Usage, tt.wantUsage)
				}
				if got.Message.Role() != "assistant" {
					t.Errorf("stream=%v: role %q", stream, got.Message.Role())
				}
				resp := got.Message.Extra()["response"].(map[string]any)
				if wantResp := decodeFile(t, tt.body); !reflect.DeepEqual(resp, wantResp) {
					gj, _ := json.Marshal(resp)
					t.Errorf("stream=%v: stored response differs from the unstreamed body:\n%s", stream, gj)
				}
				replies = append(replies, got.Message)
				if !stream && tt.next != nil {
					msgs := append(conversation(), got.Message)
					inst, err := p.ForInstance("owner__repo-1")
					if err != nil {
						t.Fatal(err)
					}
					for _, a := range got.Actions {
						obs := agent.Message{"role": "tool", "tool_call_id": a.ToolCallID, "content": "<returncode>0</returncode>", "extra": map[string]any{"returncode": 0}}
						if s, ok := inst.(agent.MessageShaper); ok { // as the agent does
							obs = s.ShapeMessage(obs)
						}
						if obs.Role() != "tool" {
							t.Errorf("observation shaped as %v: not a tool's answer", obs)
						}
						msgs = append(msgs, obs)
					}
					if _, err := queryOnce(t, p, msgs); err != nil {
						t.Fatalf("second Query: %v", err)
					}
					tt.next(t, gotBody)
				}
			}
			if !reflect.DeepEqual(replies[0], replies[1]) {
				a, _ := json.Marshal(replies[0])
				b, _ := json.Marshal(replies[1])
				t.Errorf("streamed message differs from the unstreamed one:\n%s\n%s", a, b)
			}
		})
	}
}

// jsonRound normalises a value through JSON (numbers and maps compare alike).
func jsonRound(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A Responses run's trajectory has the shape mini-swe-agent 2.x's litellm_response class writes:
// the reply is the response object without a role, an observation answering a call is a
// function_call_output item, a command's observation without a call and a format error are
// input_text messages of the user; extra is kept. A text-based config keeps the chat shape.
func TestResponsesTrajectoryShape(t *testing.T) {
	w, err := newResponsesWire("gpt-5", modelKwargs{body: map[string]any{}}, wireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msg, _, _, err := w.reply(decodeFile(t, readTestdata(t, "responses.json")))
	if err != nil {
		t.Fatal(err)
	}
	if _, has := msg["role"]; has || msg["object"] != "response" || msg.Role() != "assistant" {
		t.Errorf("reply stored with role %v, object %v: want the response object as it came", msg["role"], msg["object"])
	}
	extra := map[string]any{"returncode": 0}
	tool := w.shape(agent.Message{"role": "tool", "tool_call_id": "call_1", "content": "out", "extra": extra})
	want := agent.Message{"type": "function_call_output", "call_id": "call_1", "output": "out", "extra": extra}
	if !reflect.DeepEqual(tool, want) {
		t.Errorf("tool observation = %v, want %v", tool, want)
	}
	user := w.shape(agent.Message{"role": "user", "content": "bad format", "extra": map[string]any{"interrupt_type": "FormatError"}})
	wantUser := agent.Message{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "bad format"}},
		"extra": map[string]any{"interrupt_type": "FormatError"}}
	if !reflect.DeepEqual(user, wantUser) {
		t.Errorf("format error = %v, want %v", user, wantUser)
	}
	text, err := newResponsesWire("gpt-5", modelKwargs{body: map[string]any{}}, wireOptions{textRe: pyre.MustPattern("(?s)```bash\\n(.*?)\\n```")})
	if err != nil {
		t.Fatal(err)
	}
	if m := (agent.Message{"role": "user", "content": "x"}); !reflect.DeepEqual(text.shape(m), m) {
		t.Errorf("text-based config reshaped %v", m)
	}
}
