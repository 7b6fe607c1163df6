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
	cfg, err := Load(nil, []string{"model.model_kwargs.api_key=sk-secret-123", "model.model_kwargs.max_tokens=5"})
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Dump()
	m := d["model"].(map[string]any)
	if got := m["model_kwargs"].(map[string]any)["api_key"]; got != "<redacted>" {
		t.Errorf("api_key = %v, want redacted", got)
	}
	if got := cfg.TemplateVars()["model_kwargs"].(map[string]any)["api_key"]; got != "<redacted>" {
		t.Errorf("template variable model_kwargs.api_key = %v, want redacted", got)
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

func TestShippedConfigs(t *testing.T) {
	tests := []struct {
		name      string
		wantClass any
	}{
		{"swebench.yaml", nil},
		{"swebench_backticks.yaml", "litellm_textbased"},
	}
	if got, want := strings.Join(Shipped(), ","), "swebench.yaml,swebench_backticks.yaml,swebench_v1.yaml"; got != want {
		t.Errorf("shipped = %s, want %s", got, want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load([]string{tt.name}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Ignored) != 0 {
				t.Errorf("shipped config has ignored keys %v", cfg.Ignored)
			}
			if got := cfg.Model.Settings["model_class"]; got != tt.wantClass {
				t.Errorf("model_class = %v, want %v", got, tt.wantClass)
			}
			a := cfg.Agent
			if a.WallTimeLimitSeconds != 3600 || a.MaxRepeatedActions != 5 || a.MaxConsecutiveFormatErrors != 3 {
				t.Errorf("wall time %d, repeated actions %d, format errors %d; want 3600, 5, 3",
					a.WallTimeLimitSeconds, a.MaxRepeatedActions, a.MaxConsecutiveFormatErrors)
			}
			// The observation template shows a timeout's explanation and partial output.
			obs, err := agent.NewRenderer().Render("observation_template", a.ObservationTemplate, map[string]any{
				"output": map[string]any{"output": "partial\n", "returncode": -1, "exception_info": "timed out after 60s"}})
			if err != nil {
				t.Fatal(err)
			}
			if want := "<exception>timed out after 60s</exception>\n<returncode>-1</returncode>\n<output>\npartial\n</output>"; obs != want {
				t.Errorf("timeout observation = %q, want %q", obs, want)
			}
		})
	}
}

// A mini-swe-agent config without our keys gets mini-swe-agent's defaults, except the
// wall-time limit; its keys that mean nothing here are reported, each once, with their path.
func TestLoadMiniConfig(t *testing.T) {
	mini := `agent:
  system_template: "sys"
  instance_template: "{{task}}"
  output_path: null
agent_type: minisweagent.agents.default.DefaultAgent
environment:
  image: python:3.11
  environment_class: docker
  run_args: ["--rm"]
model:
  model_name: deepseek/deepseek-chat
  model_kwargs: {drop_params: true, temperature: 0.0}
  litellm_model_registry: null
  multimodal_regex: ""
  observation_template: "{{output.output}}"
run:
  env_startup_command: "git -C /testbed checkout {{ base_commit }}"
`
	path := filepath.Join(t.TempDir(), "mini.yaml")
	if err := os.WriteFile(path, []byte(mini), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "agent.output_path,agent_type,environment.environment_class,environment.image,environment.run_args,model.litellm_model_registry,model.multimodal_regex"
	if got := strings.Join(cfg.Ignored, ","); got != want {
		t.Errorf("ignored = %s, want %s", got, want)
	}
	a, e := cfg.Agent, cfg.Environment
	if a.StepLimit != 0 || a.CostLimit != 3 || a.MaxConsecutiveFormatErrors != 3 || a.MaxRepeatedActions != 0 || a.WallTimeLimitSeconds != 3600 {
		t.Errorf("agent defaults = %+v", a)
	}
	if e.Cwd != "/" || e.Timeout != 30 || strings.Join(e.Interpreter, " ") != "bash -lc" {
		t.Errorf("environment defaults = %+v", e)
	}
	if got, want := cfg.Agent.FormatErrorTemplate, "{{ error }}"; got != want {
		t.Errorf("format error template = %q, want %q", got, want)
	}
	if got, want := cfg.Run.EnvStartupCommand, "git -C /testbed checkout {{ base_commit }}"; got != want {
		t.Errorf("env_startup_command = %q, want %q", got, want)
	}
	d := cfg.Dump()
	if got := d["agent"].(map[string]any)["cost_limit"]; got != 3.0 {
		t.Errorf("dumped cost_limit = %v, want the default 3.0", got)
	}
	if _, ok := d["agent_type"]; ok {
		t.Error("ignored key agent_type is in the dump")
	}
	vars := cfg.TemplateVars()
	for _, k := range []string{"cwd", "timeout", "interpreter", "system", "release", "version", "machine", "node", "model_name", "model_kwargs"} {
		if _, ok := vars[k]; !ok {
			t.Errorf("template variable %s missing", k)
		}
	}
	if got := vars["timeout"]; got != 30 {
		t.Errorf("timeout variable = %#v, want int 30 (rendered as 30, not 30.0)", got)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name      string
		overrides []string
		want      string
	}{
		{"unknown agent key", []string{"agent.step_limt=3"}, "agent.step_limt"},
		{"unknown environment key", []string{"environment.cwdd=/x"}, "environment.cwdd"},
		{"unknown model key", []string{"model.temperature=0"}, "model.temperature"},
		{"unknown run key", []string{"run.startup=ls"}, "run.startup"},
		{"unknown section", []string{"agnet.step_limit=3"}, `"agnet"`},
		{"wrong type", []string{"agent.step_limit=many"}, "config agent"},
		{"wrong model type", []string{"model.max_retries=often"}, "config model"},
		{"negative limit", []string{"agent.cost_limit=-1"}, ">= 0"},
		{"broken template", []string{"agent.instance_template={{ task"}, "agent.instance_template"},
		{"broken startup command", []string{"run.env_startup_command={% if %}"}, "run.env_startup_command"},
		{"unknown launcher setting", []string{"environment.launcher=on"}, "environment.launcher \"on\": want auto or off"},
		{"unknown history mode", []string{"environment.history=all"}, "environment.history \"all\": want past, none or as-is"},
		{"history spelled as is", []string{"environment.history=asis"}, "environment.history \"asis\": want past, none or as-is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(nil, tt.overrides)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one naming %s", err, tt.want)
			}
		})
	}
}

// environment.history: past by default (and so in the dump that run.json records), none and
// as-is when set; a 1.x config leaves it out of its dump unless set, which means past.
func TestHistorySetting(t *testing.T) {
	tests := []struct {
		name      string
		files     []string
		overrides []string
		want      string
		dumped    any
	}{
		{"default", nil, nil, "past", "past"},
		{"none", nil, []string{"environment.history=none"}, "none", "none"},
		{"as-is", nil, []string{"environment.history=as-is"}, "as-is", "as-is"},
		{"1.x layout", []string{"swebench_v1"}, nil, "", nil},
		{"1.x layout, none", []string{"swebench_v1"}, []string{"environment.history=none"}, "none", "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(tt.files, tt.overrides)
			if err != nil {
				t.Fatal(err)
			}
			env, _ := cfg.Dump()["environment"].(map[string]any)
			if got := cfg.Environment.History; got != tt.want || env["history"] != tt.dumped {
				t.Errorf("History = %q, dumped %v; want %q, %v", got, env["history"], tt.want, tt.dumped)
			}
		})
	}
}

// environment.launcher: auto by default (and so in the dump that run.json records), off when
// set; a 1.x config leaves it out of its dump (1.x records no such key), which means auto.
func TestLauncherSetting(t *testing.T) {
	tests := []struct {
		name      string
		files     []string
		overrides []string
		want      string
		dumped    any
	}{
		{"default", nil, nil, "auto", "auto"},
		{"off", nil, []string{"environment.launcher=off"}, "off", "off"},
		{"1.x layout", []string{"swebench_v1"}, nil, "", nil},
		{"1.x layout, off", []string{"swebench_v1"}, []string{"environment.launcher=off"}, "off", "off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(tt.files, tt.overrides)
			if err != nil {
				t.Fatal(err)
			}
			env, _ := cfg.Dump()["environment"].(map[string]any)
			if got := cfg.Environment.Launcher; got != tt.want || env["launcher"] != tt.dumped {
				t.Errorf("Launcher = %q, dumped %v; want %q, %v", got, env["launcher"], tt.want, tt.dumped)
			}
		})
	}
}
