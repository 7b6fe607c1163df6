package configs

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/sandbox"
)

// Config layouts. mini-swe-agent 1.x keeps every template under agent: (action_observation_template,
// format_error_template, timeout_template) and finds commands with agent.action_regex; 2.x moved
// the observation and format-error templates to model: and added tool calling. The layout also
// chooses the loop: a 1.x config runs with 1.x semantics (agent/v1.go).
const (
	LayoutV2 = "mini-swe-agent 2.x"
	LayoutV1 = "mini-swe-agent 1.x"
)

// MiniVersionV1 is the mini-swe-agent release whose 1.x semantics a 1.x config reproduces,
// recorded as info.mini_version in the trajectories of such runs.
const MiniVersionV1 = "1.17.5"

// Keys only one layout has. A config with keys of both is an error: merging a 1.x file into a
// 2.x one (or the other way round) would silently drop one file's templates.
var (
	v1OnlyKeys = []string{"agent.action_observation_template", "agent.action_regex", "agent.format_error_template", "agent.timeout_template"}
	v2OnlyKeys = []string{"agent.max_consecutive_format_errors", "environment.interpreter", "model.action_regex", "model.format_error_template", "model.observation_template"}
)

// detectLayout names the layout of the merged files and the keys that show it. A config with
// no key of either layout (e.g. only a model name) is 2.x, the default.
func detectLayout(tree map[string]any) (layout, evidence string, err error) {
	has := func(path string) bool {
		sec, key, _ := strings.Cut(path, ".")
		m, ok := tree[sec].(map[string]any)
		if !ok {
			return false
		}
		_, ok = m[key]
		return ok
	}
	var v1, v2 []string
	for _, k := range v1OnlyKeys {
		if has(k) {
			v1 = append(v1, k)
		}
	}
	for _, k := range v2OnlyKeys {
		if has(k) {
			v2 = append(v2, k)
		}
	}
	if m, ok := tree["model"].(map[string]any); ok {
		if c, ok := m["model_class"].(string); ok && strings.HasSuffix(c, "_textbased") {
			v2 = append(v2, "model.model_class: "+c)
		}
	}
	switch {
	case len(v1) > 0 && len(v2) > 0:
		return "", "", fmt.Errorf("config: mixes mini-swe-agent 1.x keys (%s) with 2.x keys (%s); "+
			"a 1.x config keeps its templates under agent:, a 2.x config keeps them under model: — use files of one layout",
			strings.Join(v1, ", "), strings.Join(v2, ", "))
	case len(v1) > 0:
		return LayoutV1, strings.Join(v1, ", "), nil
	case len(v2) > 0:
		return LayoutV2, strings.Join(v2, ", "), nil
	}
	return LayoutV2, "no 1.x keys", nil
}

// LayoutNote describes the layout and why it was chosen, for `config show` and run logs.
func (c *Config) LayoutNote() string {
	return fmt.Sprintf("%s (%s)", c.Layout, c.LayoutEvidence)
}

// fromTrajectory returns the config a file holds: the file itself, or, for a trajectory
// (mini-swe-agent's or ours: trajectory_format, or info and messages), its info.config. A 1.x
// trajectory from before 1.12 also records the action regex those versions used.
func fromTrajectory(name string, m map[string]any) (map[string]any, error) {
	_, isTraj := m["trajectory_format"]
	_, hasInfo := m["info"]
	_, hasMsgs := m["messages"]
	if !isTraj && !(hasInfo && hasMsgs) {
		return m, nil
	}
	info, _ := m["info"].(map[string]any)
	cfg, ok := info["config"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("config %s: a trajectory without info.config: it records no config to load", name)
	}
	if v, _ := info["mini_version"].(string); v != "" {
		if re := v1ActionRegexOf(v); re != "" {
			if a, ok := cfg["agent"].(map[string]any); ok {
				if _, set := a["action_regex"]; !set {
					a["action_regex"] = re
				}
			}
		}
	}
	return cfg, nil
}

// v1ActionRegexOf returns the action regex of mini-swe-agent 1.x releases before 1.12 (fixed in
// the code, so their trajectories do not record it): "" for other versions. 1.12 allowed
// whitespace after ```bash; 1.16 made it agent.action_regex, recorded in info.config.
func v1ActionRegexOf(version string) string {
	major, rest, _ := strings.Cut(version, ".")
	minor, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(minor)
	if major != "1" || err != nil || n >= 12 {
		return ""
	}
	return "```bash\\n(.*?)\\n```"
}

//go:embed mswea1/defaults.yaml
var v1DefaultsYAML []byte

func v1Defaults() map[string]any {
	var m map[string]any
	if err := yaml.Unmarshal(v1DefaultsYAML, &m); err != nil {
		panic(fmt.Sprintf("configs/mswea1/defaults.yaml: %v", err)) // embedded; a test reads it
	}
	return m
}

// v1Agent is the agent section of a 1.x config (1.x's AgentConfig), plus swebench-run's own
// limits, which are off unless set.
type v1Agent struct {
	SystemTemplate            string  `yaml:"system_template"`
	InstanceTemplate          string  `yaml:"instance_template"`
	TimeoutTemplate           string  `yaml:"timeout_template"`
	FormatErrorTemplate       string  `yaml:"format_error_template"`
	ActionObservationTemplate string  `yaml:"action_observation_template"`
	ActionRegex               string  `yaml:"action_regex"`
	StepLimit                 int     `yaml:"step_limit"`
	CostLimit                 float64 `yaml:"cost_limit"`
	WallTimeLimitSeconds      int     `yaml:"wall_time_limit_seconds"`
	MaxRepeatedActions        int     `yaml:"max_repeated_actions"`
}

var v1Sections = map[string]reflect.Type{
	"agent":       reflect.TypeFor[v1Agent](),
	"environment": reflect.TypeFor[Environment](),
	"model":       reflect.TypeFor[model.Config](),
	"run":         reflect.TypeFor[Run](),
	"kubernetes":  reflect.TypeFor[map[string]any](),
	"families":    reflect.TypeFor[map[string]any](),
}

// v1Interpreter is how 1.x's Docker environment runs a command: docker exec … bash -lc CMD.
var v1Interpreter = []string{"bash", "-lc"}

// loadV1 fills in 1.x's defaults and decodes a 1.x config.
func loadV1(tree map[string]any, ignored []string, evidence string) (*Config, error) {
	if err := checkKeys(tree, v1Sections); err != nil {
		return nil, err
	}
	full := v1Defaults()
	merge(full, tree)
	cfg := &Config{Ignored: ignored, Layout: LayoutV1, LayoutEvidence: evidence, raw: full}
	var a v1Agent
	for name, sec := range full {
		if name != "agent" {
			if err := decodeSection(name, sec, cfg); err != nil {
				return nil, err
			}
			continue
		}
		data, err := yaml.Marshal(sec)
		if err != nil {
			return nil, err
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&a); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("config agent: %s", yamlErrorText(err))
		}
	}
	cfg.Agent = agent.Config{
		SystemTemplate:       a.SystemTemplate,
		InstanceTemplate:     a.InstanceTemplate,
		StepLimit:            a.StepLimit,
		CostLimit:            a.CostLimit,
		WallTimeLimitSeconds: a.WallTimeLimitSeconds,
		MaxRepeatedActions:   a.MaxRepeatedActions,
		ObservationTemplate:  a.ActionObservationTemplate,
		FormatErrorTemplate:  a.FormatErrorTemplate,
		Mini1:                true,
		TimeoutTemplate:      a.TimeoutTemplate,
		ActionRegex:          a.ActionRegex,
	}
	cfg.Environment.Interpreter = v1Interpreter
	if m, ok := tree["model"].(map[string]any); ok {
		if v, set := m["set_cache_control"]; set && v == nil {
			// 1.x records set_cache_control: null for a model it sent no cache marks to (it
			// fills in default_end for Claude models before recording).
			if cfg.Model.Settings == nil {
				cfg.Model.Settings = map[string]any{}
			}
			cfg.Model.Settings["set_cache_control"] = "none"
		}
	}
	return cfg, cfg.validateV1()
}

func (c *Config) validateV1() error {
	a, e := c.Agent, c.Environment
	switch {
	case a.StepLimit < 0 || a.CostLimit < 0 || a.WallTimeLimitSeconds < 0 || a.MaxRepeatedActions < 0:
		return fmt.Errorf("config: agent limits must be >= 0 (0: no limit)")
	case e.Timeout < 0:
		return fmt.Errorf("config: environment.timeout must be >= 0 seconds, got %v", e.Timeout)
	}
	if _, err := sandbox.ParseLauncher(e.Launcher); err != nil {
		return fmt.Errorf("config: environment.%w", err)
	}
	if _, err := agent.CompilePyRegex(a.ActionRegex); err != nil {
		return fmt.Errorf("config: agent.%w", err)
	}
	r := agent.NewRenderer()
	for _, t := range []struct{ key, src string }{
		{"agent.system_template", a.SystemTemplate},
		{"agent.instance_template", a.InstanceTemplate},
		{"agent.action_observation_template", a.ObservationTemplate},
		{"agent.format_error_template", a.FormatErrorTemplate},
		{"agent.timeout_template", a.TimeoutTemplate},
		{"run.env_startup_command", c.Run.EnvStartupCommand},
	} {
		if err := r.Parse(t.key, t.src); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	return nil
}
