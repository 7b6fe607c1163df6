package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/providertest"
)

// demoTurns is the demo's scripted turns with the task texts that identify the instances.
func demoTurns(t *testing.T, split string, insts []dataset.Instance) providertest.Script {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(filepath.Dir(split), "scripted.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := providertest.Script{Tasks: map[string]string{}}
	if err := yaml.Unmarshal(data, &s.Turns); err != nil {
		t.Fatal(err)
	}
	for _, inst := range insts {
		s.Tasks[inst.InstanceID] = inst.ProblemStatement
	}
	return s
}

var e2eAWS = aws.Credentials{AccessKeyID: "AKIDE2ETEST", SecretAccessKey: "e2e-secret-access-key-never-in-files", SessionToken: "e2e-session-token"}

// Every wire runs the demo end to end against a fake provider that speaks it (paths, headers
// and credentials checked: API keys, SigV4 signatures recomputed with the AWS SDK's signer, OAuth
// tokens the fake issued to a service-account file), once unstreamed and once streamed: every
// instance is solved with tool calls, and the two runs' trajectories are identical message for
// message (timestamps aside).
func TestWiresDemoEndToEnd(t *testing.T) {
	split, insts := demoInstances(t)
	script := demoTurns(t, split, insts)
	type wireCase struct {
		name   string
		model  string
		wire   string
		path   func(base string) providertest.PathFunc
		setup  func(t *testing.T, srv *providertest.Server) // environment pointing the client at srv
		auth   func(t *testing.T) (func(*http.Request, []byte) error, http.Handler)
		secret string // must appear in no file of the run
	}
	keyAuth := func(h, v string) func(*testing.T) (func(*http.Request, []byte) error, http.Handler) {
		return func(*testing.T) (func(*http.Request, []byte) error, http.Handler) {
			return providertest.Header(h, v), nil
		}
	}
	aws4 := func(t *testing.T) (func(*http.Request, []byte) error, http.Handler) {
		t.Setenv("AWS_ACCESS_KEY_ID", e2eAWS.AccessKeyID)
		t.Setenv("AWS_SECRET_ACCESS_KEY", e2eAWS.SecretAccessKey)
		t.Setenv("AWS_SESSION_TOKEN", e2eAWS.SessionToken)
		t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
		t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
		t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
		t.Setenv("AWS_REGION", "us-east-1")
		return providertest.SigV4(e2eAWS, "us-east-1", "bedrock"), nil
	}
	var google *providertest.Google
	gauth := func(t *testing.T) (func(*http.Request, []byte) error, http.Handler) {
		g, err := providertest.NewGoogle()
		if err != nil {
			t.Fatal(err)
		}
		google = g
		return g.Check, g
	}
	vertexSetup := func(t *testing.T, srv *providertest.Server) {
		path, err := google.WriteCredentials(t.TempDir(), srv.URL+"/token")
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
		t.Setenv("VERTEXAI_API_BASE", srv.URL)
		t.Setenv("VERTEXAI_PROJECT", "") // the project of the service account
		t.Setenv("VERTEXAI_LOCATION", "us-east5")
	}
	vertexPath := func(publisher, model, verb, streamVerb string) func(string) providertest.PathFunc {
		return func(string) providertest.PathFunc {
			p := "/v1/projects/test-project/locations/us-east5/publishers/" + publisher + "/models/" + model + ":"
			return providertest.URLStream(p+verb, p+streamVerb)
		}
	}
	cases := []wireCase{
		{name: "OpenAI chat completions", model: "openai/gpt-4o-mini", wire: providertest.Chat,
			path:  func(string) providertest.PathFunc { return providertest.BodyStream("/v1/chat/completions") },
			setup: func(t *testing.T, srv *providertest.Server) { t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1") },
			auth:  keyAuth("Authorization", "Bearer "+testAPIKey), secret: testAPIKey},
		{name: "OpenAI Responses", model: "openai/gpt-5-codex", wire: providertest.Responses,
			path:  func(string) providertest.PathFunc { return providertest.BodyStream("/v1/responses") },
			setup: func(t *testing.T, srv *providertest.Server) { t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1") },
			auth:  keyAuth("Authorization", "Bearer "+testAPIKey), secret: testAPIKey},
		{name: "Anthropic messages", model: "anthropic/claude-sonnet-4-5", wire: providertest.Anthropic,
			path:  func(string) providertest.PathFunc { return providertest.BodyStream("/v1/messages") },
			setup: func(t *testing.T, srv *providertest.Server) { t.Setenv("ANTHROPIC_BASE_URL", srv.URL) },
			auth:  keyAuth("X-Api-Key", testAPIKey), secret: testAPIKey},
		{name: "Gemini API", model: "gemini/gemini-3-pro-preview", wire: providertest.Gemini,
			path: func(string) providertest.PathFunc {
				return providertest.URLStream("/v1beta/models/gemini-3-pro-preview:generateContent", "/v1beta/models/gemini-3-pro-preview:streamGenerateContent")
			},
			setup: func(t *testing.T, srv *providertest.Server) { t.Setenv("GEMINI_API_BASE", srv.URL) },
			auth:  keyAuth("X-Goog-Api-Key", testAPIKey), secret: testAPIKey},
		{name: "Bedrock InvokeModel", model: "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", wire: providertest.Anthropic,
			path: func(string) providertest.PathFunc {
				p := "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/"
				return providertest.URLStream(p+"invoke", p+"invoke-with-response-stream")
			},
			setup: func(t *testing.T, srv *providertest.Server) { t.Setenv("AWS_BEDROCK_RUNTIME_ENDPOINT", srv.URL) },
			auth:  aws4, secret: e2eAWS.SecretAccessKey},
		{name: "Bedrock Converse", model: "bedrock/qwen.qwen3-coder-480b-a35b-v1:0", wire: providertest.Converse,
			path: func(string) providertest.PathFunc {
				p := "/model/qwen.qwen3-coder-480b-a35b-v1%3A0/"
				return providertest.URLStream(p+"converse", p+"converse-stream")
			},
			setup: func(t *testing.T, srv *providertest.Server) { t.Setenv("AWS_BEDROCK_RUNTIME_ENDPOINT", srv.URL) },
			auth:  aws4, secret: e2eAWS.SecretAccessKey},
		{name: "Vertex AI Claude", model: "vertex_ai/claude-sonnet-4-5@20250929", wire: providertest.Anthropic,
			path: vertexPath("anthropic", "claude-sonnet-4-5@20250929", "rawPredict", "streamRawPredict"), setup: vertexSetup, auth: gauth, secret: "ya29.test-token"},
		{name: "Vertex AI Gemini", model: "vertex_ai/gemini-2.5-pro", wire: providertest.Gemini,
			path: vertexPath("google", "gemini-2.5-pro", "generateContent", "streamGenerateContent"), setup: vertexSetup, auth: gauth, secret: "ya29.test-token"},
		{name: "Azure OpenAI", model: "azure/swe-gpt-4o", wire: providertest.Chat,
			path: func(string) providertest.PathFunc {
				return providertest.BodyStream("/openai/deployments/swe-gpt-4o/chat/completions")
			},
			setup: func(t *testing.T, srv *providertest.Server) { t.Setenv("AZURE_API_BASE", srv.URL) },
			auth:  keyAuth("Api-Key", testAPIKey), secret: testAPIKey},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "AZURE_API_KEY"} {
				t.Setenv(k, testAPIKey)
			}
			auth, extra := tc.auth(t)
			srv := providertest.New(t, script, providertest.Options{Wire: tc.wire, Auth: auth, Path: tc.path(""), Extra: extra})
			tc.setup(t, srv)
			cfgFile := filepath.Join(t.TempDir(), "prices.yaml")
			prices := "model:\n  prices:\n    \"" + tc.model + "\": {input: 1.0, output: 2.0}\n"
			if err := os.WriteFile(cfgFile, []byte(prices), 0o644); err != nil {
				t.Fatal(err)
			}
			var trajs [2]map[string]any
			for i, stream := range []bool{false, true} {
				before := srv.Streamed.Load()
				out := t.TempDir()
				args := []string{"run", "--split", split, "--model", tc.model, "--workers", "3", "-o", out, "--progress", "none",
					"-c", "swebench.yaml", "-c", cfgFile}
				if stream {
					args = append(args, "-c", "model.model_kwargs.stream=true")
				}
				code, _, stderr := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("stream=%v: exit %d\n%s", stream, code, stderr)
				}
				var preds map[string]results.Prediction
				data, _ := os.ReadFile(filepath.Join(out, "preds.json"))
				if err := json.Unmarshal(data, &preds); err != nil {
					t.Fatal(err)
				}
				for _, inst := range insts {
					if preds[inst.InstanceID].ModelPatch != inst.Patch {
						t.Errorf("stream=%v: %s: the prediction is not the gold patch", stream, inst.InstanceID)
					}
				}
				for _, r := range readLedger(t, out) {
					if r.ExitStatus != "Submitted" || r.APICalls != len(script.Turns[r.InstanceID]) || r.Cost <= 0 {
						t.Errorf("stream=%v: %s: %s after %d calls, cost %v", stream, r.InstanceID, r.ExitStatus, r.APICalls, r.Cost)
					}
				}
				if streamed := srv.Streamed.Load() - before; stream != (streamed > 0) {
					t.Errorf("stream=%v: the fake answered %d calls as streams", stream, streamed)
				}
				trajs[i] = map[string]any{}
				for _, inst := range insts {
					trajs[i][inst.InstanceID] = scrubbedMessages(t, filepath.Join(out, inst.InstanceID, inst.InstanceID+".traj.json"))
				}
				assertSecretAbsent(t, out, tc.secret)
			}
			for _, inst := range insts {
				a, b := trajs[0][inst.InstanceID].([]any), trajs[1][inst.InstanceID].([]any)
				if len(a) != len(b) {
					t.Fatalf("%s: %d messages unstreamed, %d streamed", inst.InstanceID, len(a), len(b))
				}
				for j := range a {
					if !reflect.DeepEqual(a[j], b[j]) {
						ja, _ := json.Marshal(a[j])
						jb, _ := json.Marshal(b[j])
						t.Errorf("%s message %d differs:\nunstreamed %s\nstreamed   %s", inst.InstanceID, j, ja, jb)
					}
				}
			}
		})
	}
}

// testTimes are the durations pytest prints ("6 passed in 0.68s"), which differ between runs.
var testTimes = regexp.MustCompile(`in [0-9.]+s\b`)

// scrubbedMessages reads a trajectory's messages without the times that differ between runs.
func scrubbedMessages(t *testing.T, path string) []any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var traj struct {
		Messages []any `json:"messages"`
	}
	if err := json.Unmarshal(data, &traj); err != nil {
		t.Fatal(err)
	}
	var scrub func(v any)
	scrub = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "timestamp" || strings.HasSuffix(k, "duration") || strings.HasSuffix(k, "_seconds") {
					delete(x, k)
					continue
				}
				if s, ok := e.(string); ok {
					x[k] = testTimes.ReplaceAllString(s, "in Xs")
				}
				scrub(e)
			}
		case []any:
			for i, e := range x {
				if s, ok := e.(string); ok {
					x[i] = testTimes.ReplaceAllString(s, "in Xs")
				}
				scrub(e)
			}
		}
	}
	scrub(traj.Messages)
	if len(traj.Messages) < 4 {
		t.Fatalf("%s: %d messages", path, len(traj.Messages))
	}
	return traj.Messages
}

func assertSecretAbsent(t *testing.T, dir, secret string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), secret) {
			t.Errorf("%s contains a secret", p)
		}
		return nil
	})
}
