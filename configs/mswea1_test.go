package configs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// swebench_v1.yaml is mini-swe-agent 1.17.5's swebench.yaml: the same keys and values.
func TestShippedV1EqualsUpstream(t *testing.T) {
	upstream, err := os.ReadFile(testenv.Fixtures(t, "configs", "mini-swe-agent-1.17.5", "swebench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := shipped.ReadFile("swebench_v1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := yaml.Unmarshal(ours, &got); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(upstream, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("configs/swebench_v1.yaml differs from mini-swe-agent 1.17.5's config/extra/swebench.yaml")
	}
}

func TestShippedV1(t *testing.T) {
	for _, name := range []string{"swebench_v1", "swebench_v1.yaml"} {
		cfg, err := Load([]string{name}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cfg.Layout != LayoutV1 || cfg.LayoutEvidence != "agent.action_observation_template, agent.format_error_template" {
			t.Errorf("%s: layout %s", name, cfg.LayoutNote())
		}
		if got, want := strings.Join(cfg.Ignored, ","), "environment.environment_class"; got != want {
			t.Errorf("ignored = %s, want %s", got, want)
		}
		a, e := cfg.Agent, cfg.Environment
		if !a.Mini1 || a.StepLimit != 250 || a.CostLimit != 3 || a.WallTimeLimitSeconds != 0 || a.MaxRepeatedActions != 0 {
			t.Errorf("agent = mini1 %v, step %d, cost %v, wall %d, repeated %d; want 1.x's: true, 250, 3, 0, 0",
				a.Mini1, a.StepLimit, a.CostLimit, a.WallTimeLimitSeconds, a.MaxRepeatedActions)
		}
		if a.ActionRegex != "```bash\\s*\\n(.*?)\\n```" || !strings.HasPrefix(a.TimeoutTemplate, "The last command <command>") {
			t.Errorf("1.x defaults missing: regex %q, timeout template %.40q", a.ActionRegex, a.TimeoutTemplate)
		}
		if !strings.HasPrefix(a.ObservationTemplate, "<returncode>") || !strings.HasPrefix(a.FormatErrorTemplate, "Please always provide EXACTLY ONE action") {
			t.Errorf("templates of agent: not handed to the loop: %.40q, %.40q", a.ObservationTemplate, a.FormatErrorTemplate)
		}
		if e.Cwd != "/testbed" || e.Timeout != 60 || strings.Join(e.Interpreter, " ") != "bash -lc" || e.Env["BASH_ENV"] != "" {
			t.Errorf("environment = %+v, want 1.x's: /testbed, 60 s, bash -lc, no BASH_ENV", e)
		}
		if got := cfg.Model.ModelName; got != "anthropic/claude-sonnet-4-5-20250929" {
			t.Errorf("model_name = %v", got)
		}
		vars := cfg.TemplateVars()
		if _, ok := vars["system"]; ok {
			t.Error("1.x's Docker environment has no platform template variables")
		}
		if vars["timeout"] != 60 || vars["cwd"] != "/testbed" {
			t.Errorf("template variables timeout %#v cwd %#v", vars["timeout"], vars["cwd"])
		}
		// The dump (saved as info.config) is a 1.x config: it loads again as one, with no key
		// of ours that 1.x would reject.
		d := cfg.Dump()
		if _, ok := d["environment"].(map[string]any)["interpreter"]; ok {
			t.Error("the dump has environment.interpreter, a 2.x key")
		}
		for _, k := range []string{"wall_time_limit_seconds", "max_repeated_actions", "max_consecutive_format_errors"} {
			if _, ok := d["agent"].(map[string]any)[k]; ok {
				t.Errorf("the dump has agent.%s, which 1.x's AgentConfig rejects", k)
			}
		}
		again := reload(t, d)
		if again.Layout != LayoutV1 || !reflect.DeepEqual(again.Agent, cfg.Agent) {
			t.Errorf("the dump reloads as %s with agent %+v", again.LayoutNote(), again.Agent)
		}
	}
}

func reload(t *testing.T, tree map[string]any) *Config {
	t.Helper()
	data, err := yaml.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "dump.yaml")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{p}, nil)
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	return cfg
}

func TestDetectLayout(t *testing.T) {
	tests := []struct {
		name     string
		files    []string // YAML texts, merged in order
		layout   string
		evidence string
		err      string
	}{
		{"1.x", []string{"agent:\n  action_observation_template: '{{output.output}}'\n"}, LayoutV1, "agent.action_observation_template", ""},
		{"1.x timeout only", []string{"agent:\n  timeout_template: x\n  system_template: s\n"}, LayoutV1, "agent.timeout_template", ""},
		{"1.x regex only", []string{"agent:\n  action_regex: '```sh\\n(.*?)\\n```'\n"}, LayoutV1, "agent.action_regex", ""},
		{"2.x", []string{"agent:\n  system_template: s\n  instance_template: i\nmodel:\n  observation_template: o\n"}, LayoutV2, "model.observation_template", ""},
		{"2.x text mode", []string{"agent:\n  system_template: s\n  instance_template: i\nmodel:\n  model_class: litellm_textbased\n  observation_template: o\n"}, LayoutV2, "model.observation_template, model.model_class: litellm_textbased", ""},
		{"neither", []string{"agent:\n  system_template: s\n  instance_template: i\nmodel:\n  observation_template: o\n", "model:\n  model_name: m\n"}, LayoutV2, "model.observation_template", ""},
		{"mixed files", []string{"model:\n  observation_template: o\n", "agent:\n  format_error_template: f\n"}, "", "",
			"mixes mini-swe-agent 1.x keys (agent.format_error_template) with 2.x keys (model.observation_template)"},
		{"2.x limit in a 1.x config", []string{"agent:\n  action_observation_template: o\n  max_consecutive_format_errors: 3\n"}, "", "",
			"2.x keys (agent.max_consecutive_format_errors)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []string
			for i, text := range tt.files {
				p := filepath.Join(t.TempDir(), "c"+string(rune('0'+i))+".yaml")
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, p)
			}
			cfg, err := Load(files, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Layout != tt.layout || cfg.LayoutEvidence != tt.evidence {
				t.Errorf("layout = %s, want %s (%s)", cfg.LayoutNote(), tt.layout, tt.evidence)
			}
			if cfg.Agent.Mini1 != (tt.layout == LayoutV1) {
				t.Errorf("Mini1 = %v for %s", cfg.Agent.Mini1, tt.layout)
			}
		})
	}
	if cfg, err := Load(nil, nil); err != nil || cfg.Layout != LayoutV2 {
		t.Errorf("default config: %v, layout %v", err, cfg)
	}
}

// A 1.x trajectory's info.config loads as the run's config: mini-swe-agent's keys that mean
// nothing here are reported, a null set_cache_control means none, and trajectories of 1.x
// releases before 1.12 get the action regex those releases used.
func TestLoadV1FromTrajectory(t *testing.T) {
	infoConfig := map[string]any{
		"agent": map[string]any{
			"system_template": "sys", "instance_template": "{{task}}", "timeout_template": "t {{output}}",
			"format_error_template": "f", "action_observation_template": "{{output.output}}",
			"step_limit": 250, "cost_limit": 3.0,
		},
		"model": map[string]any{
			"model_name": "openai/gpt-5", "model_kwargs": map[string]any{"drop_params": true, "temperature": 0.0},
			"litellm_model_registry": nil, "set_cache_control": nil, "cost_tracking": "ignore_errors",
		},
		"environment": map[string]any{
			"image": "docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest", "cwd": "/testbed",
			"env": map[string]any{"PAGER": "cat"}, "forward_env": []any{}, "timeout": 60, "executable": "docker",
			"run_args": []any{"--rm"}, "container_timeout": "2h", "pull_timeout": 120,
		},
		"agent_type":       "minisweagent.run.extra.swebench.ProgressTrackingAgent",
		"model_type":       "minisweagent.models.litellm_model.LitellmModel",
		"environment_type": "minisweagent.environments.docker.DockerEnvironment",
	}
	write := func(t *testing.T, version string, withConfig bool) string {
		info := map[string]any{"exit_status": "Submitted", "submission": "", "mini_version": version,
			"model_stats": map[string]any{"instance_cost": 0.5, "api_calls": 3}}
		if withConfig {
			info["config"] = infoConfig
		}
		data, _ := json.Marshal(map[string]any{"info": info, "messages": []any{}, "trajectory_format": "mini-swe-agent-1", "instance_id": "x"})
		p := filepath.Join(t.TempDir(), "x.traj.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		version, regex string
	}{
		{"1.17.5", "```bash\\s*\\n(.*?)\\n```"},
		{"1.15.0", "```bash\\s*\\n(.*?)\\n```"},
		{"1.11.1", "```bash\\n(.*?)\\n```"},
		{"1.4.0", "```bash\\n(.*?)\\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			cfg, err := Load([]string{write(t, tt.version, true)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Layout != LayoutV1 || cfg.Agent.ActionRegex != tt.regex {
				t.Errorf("layout %s, regex %q; want 1.x, %q", cfg.LayoutNote(), cfg.Agent.ActionRegex, tt.regex)
			}
			want := "agent_type,environment.container_timeout,environment.executable,environment.image,environment.pull_timeout,environment.run_args,environment_type,model.litellm_model_registry,model_type"
			if got := strings.Join(cfg.Ignored, ","); got != want {
				t.Errorf("ignored = %s, want %s", got, want)
			}
			if got := cfg.Model.Settings["set_cache_control"]; got != "none" {
				t.Errorf("set_cache_control = %v, want none (1.x recorded null)", got)
			}
			if cfg.Agent.StepLimit != 250 || cfg.Environment.Timeout != 60 || cfg.Environment.Env["PAGER"] != "cat" {
				t.Errorf("agent %+v environment %+v", cfg.Agent, cfg.Environment)
			}
		})
	}
	if _, err := Load([]string{write(t, "1.17.5", false)}, nil); err == nil || !strings.Contains(err.Error(), "without info.config") {
		t.Errorf("trajectory without config: err = %v", err)
	}
}

func TestLoadV1Errors(t *testing.T) {
	tests := []struct {
		name      string
		overrides []string
		want      string
	}{
		{"unknown agent key", []string{"agent.step_limt=3"}, "agent.step_limt"},
		{"regex with a lookahead", []string{"agent.action_regex=```bash(?=x)(.*)"}, "agent.action_regex"},
		{"broken timeout template", []string{"agent.timeout_template={% if %}"}, "agent.timeout_template"},
		{"broken observation template", []string{"agent.action_observation_template={{ output"}, "agent.action_observation_template"},
		{"negative limit", []string{"agent.step_limit=-1"}, ">= 0"},
		{"wrong type", []string{"agent.cost_limit=lots"}, "config agent"},
		{"2.x key", []string{"model.observation_template=x"}, "mixes mini-swe-agent 1.x keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]string{"swebench_v1"}, tt.overrides)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one naming %s", err, tt.want)
			}
		})
	}
}

// defaults.yaml holds 1.x's defaults: a 1.x config with one key gets them all.
func TestV1Defaults(t *testing.T) {
	p := filepath.Join(t.TempDir(), "one.yaml")
	if err := os.WriteFile(p, []byte("agent:\n  action_regex: '```bash\\s*\\n(.*?)\\n```'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, e := cfg.Agent, cfg.Environment
	if a.SystemTemplate != "You are a helpful assistant that can do anything." || a.ObservationTemplate != "Observation: {{output}}" ||
		a.FormatErrorTemplate != "Please always provide EXACTLY ONE action in triple backticks." || a.StepLimit != 0 || a.CostLimit != 3 {
		t.Errorf("agent defaults = %+v", a)
	}
	if e.Cwd != "/" || e.Timeout != 30 || len(e.Env) != 0 {
		t.Errorf("environment defaults = %+v", e)
	}
}
