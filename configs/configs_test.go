package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
)

func TestLoadDefault(t *testing.T) {
	cfg, err := Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Agent.StepLimit, 250; got != want {
		t.Errorf("step_limit = %d, want %d", got, want)
	}
	if got, want := cfg.Environment.Cwd, "/testbed"; got != want {
		t.Errorf("cwd = %q, want %q", got, want)
	}
	if got, want := cfg.Environment.Env["BASH_ENV"], "/root/.bashrc"; got != want {
		t.Errorf("BASH_ENV = %q, want %q", got, want)
	}
	if cfg.Agent.ObservationTemplate == "" || cfg.Agent.FormatErrorTemplate == "" {
		t.Error("templates of the model section were not handed to the agent")
	}
}

func TestLoadOverridesAndErrors(t *testing.T) {
	dir := t.TempDir()
	extra := filepath.Join(dir, "extra.yaml")
	if err := os.WriteFile(extra, []byte("agent:\n  step_limit: 7\nenvironment:\n  executable: podman\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{DefaultName, extra}, []string{"agent.cost_limit=0.5", "model.model_kwargs.temperature=0"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agent.StepLimit != 7 || cfg.Agent.CostLimit != 0.5 {
		t.Errorf("step_limit %d cost_limit %v, want 7 and 0.5", cfg.Agent.StepLimit, cfg.Agent.CostLimit)
	}
	if got, want := strings.Join(cfg.Ignored, ","), "environment.executable"; got != want {
		t.Errorf("ignored = %q, want %q", got, want)
	}
	if cfg.Agent.SystemTemplate == "" {
		t.Error("merging a second file lost the first file's keys")
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("agent:\n  step_limt: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load([]string{DefaultName, bad}, nil); err == nil || !strings.Contains(err.Error(), "step_limt") {
		t.Errorf("unknown key: err = %v, want an error naming step_limt", err)
	}
	if _, err := Load(nil, []string{"agent.step_limit"}); err == nil {
		t.Error("override without = was accepted")
	}
	if _, err := Load([]string{filepath.Join(dir, "missing.yaml")}, nil); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestDumpRedactsSecrets(t *testing.T) {
	cfg, err := Load(nil, []string{"model.api_key=sk-secret-123", "model.model_kwargs.max_tokens=5"})
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Dump()
	m := d["model"].(map[string]any)
	if m["api_key"] != "<redacted>" {
		t.Errorf("api_key = %v, want redacted", m["api_key"])
	}
	if m["model_kwargs"].(map[string]any)["max_tokens"] != 5 {
		t.Errorf("max_tokens was redacted: %v", m["model_kwargs"])
	}
}

// The shipped observation template truncates long outputs to the first and last 5,000
// characters, counting characters (not bytes) like Python.
func TestObservationTruncation(t *testing.T) {
	cfg, err := Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := agent.NewRenderer()
	render := func(out string) string {
		s, err := r.Render("observation_template", cfg.Agent.ObservationTemplate, map[string]any{
			"output": map[string]any{"output": out, "returncode": 0, "exception_info": ""}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	short := render("hello\n")
	if want := "<returncode>0</returncode>\n<output>\nhello\n</output>"; short != want {
		t.Errorf("short output rendered %q, want %q", short, want)
	}
	long := strings.Repeat("é", 6000) + strings.Repeat("x", 6000) // 12,000 characters
	got := render(long)
	head := strings.Repeat("é", 5000)
	tail := strings.Repeat("x", 5000)
	for _, want := range []string{"<output_head>\n" + head + "\n</output_head>", "2000 characters elided", "<output_tail>\n" + tail + "\n</output_tail>"} {
		if !strings.Contains(got, want) {
			t.Errorf("long output rendering lacks %.60q…", want)
		}
	}
	if strings.Contains(got, "<output>") {
		t.Error("long output was not truncated")
	}
	at := render(strings.Repeat("y", 9999))
	if !strings.Contains(at, "<output>") {
		t.Error("9,999 characters were truncated; the limit is 10,000")
	}
}
