package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModelsListsAProvider(t *testing.T) {
	code, stdout, stderr := runCLI(t, "models", "--provider", "gemini")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if !strings.HasPrefix(lines[0], "MODEL ") || !strings.Contains(lines[0], "LONG CONTEXT") {
		t.Errorf("header %q", lines[0])
	}
	found := false
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if f[1] != "gemini" {
			t.Errorf("row of another provider: %q", l)
		}
		if f[0] == "gemini/gemini-3-pro-preview" {
			found = true
			if !strings.Contains(l, " 2 ") || !strings.Contains(l, ">200k 4/18") || !strings.HasSuffix(l, "built-in") {
				t.Errorf("gemini-3-pro-preview row %q: want input 2, >200k 4/18, built-in", l)
			}
		}
	}
	if !found {
		t.Errorf("no gemini/gemini-3-pro-preview row:\n%s", stdout)
	}
	if !strings.Contains(stderr, "priced models") {
		t.Errorf("stderr %q", stderr)
	}
}

// Given names, models prints the entry that prices each, with -c configs' prices first, and
// fails for a name without a price.
func TestModelsPricesNames(t *testing.T) {
	dir := t.TempDir()
	// One entry in the format of litellm's model_prices_and_context_window.json.
	table := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(table, []byte(`{"my-org/my-model": {"input_cost_per_token": 2e-07, "output_cost_per_token": 8e-07,
	  "litellm_provider": "openai", "mode": "chat"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "models", "-c", "model.prices_file="+table, "-c", "model.prices.gpt-5={input: 1, output: 2}",
		"--json", "hosted_vllm/my-org/my-model", "openai/gpt-5", "vertex_ai/claude-sonnet-4-5@20250929")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var rows []struct {
		Model, Name, Source string
		Input, Output       float64
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	want := []struct {
		Model, Name, Source string
		Input, Output       float64
	}{
		{"hosted_vllm/my-org/my-model", "my-org/my-model", "model.prices_file", 0.2, 0.8},
		{"openai/gpt-5", "gpt-5", "model.prices", 1, 2},
		{"vertex_ai/claude-sonnet-4-5@20250929", "vertex_ai/claude-sonnet-4-5@20250929", "built-in", 3, 15},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v, want %+v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}

	code, _, stderr = runCLI(t, "models", "gpt-5", "my-local-model")
	if code != 1 || !strings.Contains(stderr, "no price for my-local-model") || !strings.Contains(stderr, "model.prices_file") {
		t.Errorf("exit %d, stderr %q; want 1 and the ways to add a price", code, stderr)
	}
}

func TestModelsUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"models", "--provider", "gemeni"}, "--provider gemeni: no priced model has this provider; the providers are anthropic, azure, bedrock"},
		{[]string{"models", "--provider", "gemini", "gemini/gemini-2.5-pro"}, "leave it out when naming models"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	code, _, stderr := runCLI(t, "models", "-c", "model.prices_file=no-such-file.json")
	if code != 1 || !strings.Contains(stderr, "model.prices_file") || !strings.Contains(stderr, "no-such-file.json") {
		t.Errorf("missing prices_file: exit %d, stderr %q", code, stderr)
	}
}
