package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
)

const testAPIKey = "sk-test-0123456789abcdef-never-in-files"

// fakeOpenAI is an OpenAI chat-completions server that plays the demo script: it recognises the
// instance by its problem statement and answers the turn given by the number of assistant
// messages so far, with real tool_calls and usage.
func fakeOpenAI(t *testing.T, split string, insts []dataset.Instance, status int, calls *atomic.Int64) *httptest.Server {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(filepath.Dir(split), "scripted.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var script map[string][]struct {
		Content  string   `yaml:"content"`
		Commands []string `yaml:"commands"`
	}
	if err := yaml.Unmarshal(data, &script); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+testAPIKey || status == http.StatusUnauthorized {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-test-****. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		var req struct {
			Model    string           `json:"model"`
			Messages []map[string]any `json:"messages"`
			Tools    []any            `json:"tools"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) < 2 || len(req.Tools) != 1 {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"bad request","type":"invalid_request_error","param":null,"code":null}}`)
			return
		}
		task, _ := req.Messages[1]["content"].(string)
		var id string
		for _, inst := range insts {
			if strings.Contains(task, inst.ProblemStatement) {
				id = inst.InstanceID
			}
		}
		turn := 0
		for _, m := range req.Messages {
			if m["role"] == "assistant" {
				turn++
			}
		}
		mu.Lock()
		defer mu.Unlock()
		turns := script[id]
		if id == "" || turn >= len(turns) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"unexpected conversation (instance %q, turn %d)","type":"invalid_request_error","param":null,"code":null}}`, id, turn)
			return
		}
		var calls []map[string]any
		for i, c := range turns[turn].Commands {
			args, _ := json.Marshal(map[string]string{"command": c})
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%s_%d_%d", id, turn, i), "type": "function",
				"function": map[string]any{"name": "bash", "arguments": string(args)}})
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini-2024-07-18",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
				"message": map[string]any{"role": "assistant", "content": turns[turn].Content, "tool_calls": calls, "refusal": nil}}},
			"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100,
				"prompt_tokens_details": map[string]any{"cached_tokens": 0}},
		})
	}))
}

// A real run through the OpenAI-compatible client against a server speaking the wire format:
// every instance is solved, costs come from the price table, and the API key appears in no file.
func TestOpenAIRunAndSecrets(t *testing.T) {
	split, insts := demoInstances(t)
	var calls atomic.Int64
	srv := fakeOpenAI(t, split, insts, http.StatusOK, &calls)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", testAPIKey)

	out := t.TempDir()
	code, _, stderr := runCLI(t, "run", "--split", split, "--model", "openai/gpt-4o-mini", "--workers", "3", "-o", out, "--progress", "lines")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var preds map[string]results.Prediction
	data, _ := os.ReadFile(filepath.Join(out, "preds.json"))
	if err := json.Unmarshal(data, &preds); err != nil {
		t.Fatal(err)
	}
	for _, inst := range insts {
		if preds[inst.InstanceID].ModelPatch != inst.Patch || preds[inst.InstanceID].ModelNameOrPath != "openai/gpt-4o-mini" {
			t.Errorf("%s: prediction %+v does not carry the gold patch", inst.InstanceID, preds[inst.InstanceID].ModelNameOrPath)
		}
	}
	// gpt-4o-mini: $0.15 in, $0.60 out per million tokens; 5 calls of 1000 in + 100 out each.
	want := 5 * (1000*0.15 + 100*0.60) / 1e6
	for _, r := range readLedger(t, out) {
		if r.APICalls != 5 || fmt.Sprintf("%.9f", r.Cost) != fmt.Sprintf("%.9f", want) || r.Tokens.Input != 5000 {
			t.Errorf("%s: %d calls, cost %v (want %v), tokens %+v", r.InstanceID, r.APICalls, r.Cost, want, r.Tokens)
		}
	}
	assertKeyAbsent(t, out)
}

// A bad API key stops the whole run at once instead of failing every instance one by one.
func TestAuthFailureStopsRun(t *testing.T) {
	split, insts := demoInstances(t)
	var calls atomic.Int64
	srv := fakeOpenAI(t, split, insts, http.StatusUnauthorized, &calls)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", testAPIKey)
	out := t.TempDir()
	code, _, stderr := runCLI(t, "run", "--split", split, "--model", "openai/gpt-4o-mini", "--workers", "2", "-o", out, "--progress", "none")
	if code != exitFailure || !strings.Contains(stderr, "stopping the run") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if n := calls.Load(); n > 2 {
		t.Errorf("the server saw %d calls; a 401 must not be retried nor repeated by every instance", n)
	}
	recs := readLedger(t, out)
	if len(recs) > 2 || len(recs) == 0 || recs[0].ExitStatus != "AuthenticationError" || recs[0].Category != results.CategoryInfrastructure {
		t.Errorf("ledger: %+v", recs)
	}
	assertKeyAbsent(t, out)
	if strings.Contains(stderr, testAPIKey) {
		t.Error("the API key is printed on stderr")
	}
}

func assertKeyAbsent(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), testAPIKey) || strings.Contains(string(data), "never-in-files") {
			t.Errorf("%s contains the API key", p)
		}
		return nil
	})
}
