// Package configs holds the shipped YAML configs (embedded in the binary) and turns config
// files and `key.path=value` overrides into one validated Config.
package configs

import (
	"bytes"
	"cmp"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/agent/installed"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/runner/historyguard"
	"github.com/swebench-run/swebench-run/sandbox"
)

//go:embed *.yaml
var shipped embed.FS

// DefaultName is the config used when no -c names a file.
const DefaultName = "swebench.yaml"

// Shipped lists the names of the embedded configs.
func Shipped() []string {
	entries, _ := fs.ReadDir(shipped, ".")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Config is the resolved configuration of a run, with mini-swe-agent v2's sections.
type Config struct {
	Agent       agent.Config `yaml:"agent"`
	Environment Environment  `yaml:"environment"`
	Model       Model        `yaml:"model"`
	Run         Run          `yaml:"run"`
	// Kubernetes is the kubernetes section, the Kubernetes backend's settings (pod placement,
	// service account, runtime class, …), kept as written: package kubeenv decodes and
	// validates it (kubeenv.DecodeConfig) when --backend kubernetes is chosen.
	Kubernetes map[string]any `yaml:"kubernetes"`
	// Families is the families section, the dataset families' options by family
	// (families.pro.scripts_dir), kept as written: package family/all decodes and validates it
	// (all.DecodeSettings), strictly, before a dataset is loaded.
	Families map[string]any `yaml:"families"`
	Ignored  []string       `yaml:"-"` // key paths that mean nothing here, reported once
	// Layout is the layout detected in the files: LayoutV2 (the default) or LayoutV1, whose
	// loop runs with mini-swe-agent 1.x semantics; LayoutEvidence names the keys that decided.
	Layout         string         `yaml:"-"`
	LayoutEvidence string         `yaml:"-"`
	raw            map[string]any // merged tree, for Dump
}

// Environment configures the container and command execution.
type Environment struct {
	Cwd         string            `yaml:"cwd"`
	Timeout     float64           `yaml:"timeout"` // seconds per command
	Env         map[string]string `yaml:"env"`
	ForwardEnv  []string          `yaml:"forward_env"` // host variables copied into every command
	Interpreter []string          `yaml:"interpreter"`
	// Launcher is how commands run: "auto" (the default) through the launcher, a program of
	// ours started once in each sandbox, which forks every command with the semantics of the
	// backend's exec at a fraction of its cost; "off" with the backend's exec.
	Launcher string `yaml:"launcher"`
	// History is what the agent may read of the repository's history (package
	// runner/historyguard): "past" (the default) HEAD and its ancestors, "none" one root commit
	// of HEAD's tree, "as-is" the image's repository untouched.
	History string `yaml:"history"`
}

// Model holds the model section. The templates are rendered by the agent; everything else is the
// model layer's (Settings, decoded by package model).
type Model struct {
	ModelName           string         `yaml:"model_name"`
	ObservationTemplate string         `yaml:"observation_template"`
	FormatErrorTemplate string         `yaml:"format_error_template"`
	Settings            map[string]any `yaml:",inline"`
}

// Run holds run-level settings.
type Run struct {
	// EnvStartupCommand runs in the container before the agent starts (rendered with the
	// instance's columns); its failure ends the instance with EnvStartupFailed.
	EnvStartupCommand string `yaml:"env_startup_command"`
}

// ignoredKeys are mini-swe-agent keys that have no meaning here (we talk to the Docker API
// directly, choose the image per instance and classes by name), reported once and dropped.
var ignoredKeys = map[string]bool{
	"agent_type": true, "model_type": true, "environment_type": true,
	"agent.agent_class":                 true,
	"agent.output_path":                 true,
	"agent.mode":                        true,
	"agent.confirm_exit":                true,
	"agent.whitelist_actions":           true,
	"environment.environment_class":     true,
	"environment.executable":            true,
	"environment.run_args":              true,
	"environment.container_timeout":     true,
	"environment.pull_timeout":          true,
	"environment.image":                 true,
	"environment.start_kwargs":          true,
	"environment.remove_container":      true,
	"model.litellm_model_registry":      true,
	"model.litellm_model_name_override": true,
	"model.multimodal_regex":            true,
}

// defaults are the values of keys a config leaves out: mini-swe-agent's defaults (agent, Docker
// environment, model), except the wall-time limit, which is on here (mini-swe-agent: off).
func defaults() map[string]any {
	return map[string]any{
		"agent": map[string]any{
			"step_limit":                    0,
			"cost_limit":                    3.0,
			"wall_time_limit_seconds":       3600,
			"max_consecutive_format_errors": 3,
			"max_repeated_actions":          0,
		},
		"environment": map[string]any{
			"cwd":         "/",
			"timeout":     30,
			"env":         map[string]any{},
			"forward_env": []any{},
			"interpreter": []any{"bash", "-lc"},
			"launcher":    "auto",
			"history":     "past",
		},
		"model": map[string]any{
			"format_error_template": "{{ error }}",
		},
		"run": map[string]any{},
	}
}

// sections maps each top-level key to the struct that defines its keys.
var sections = map[string]reflect.Type{
	"agent":       reflect.TypeFor[agent.Config](),
	"environment": reflect.TypeFor[Environment](),
	"model":       reflect.TypeFor[model.Config](),
	"run":         reflect.TypeFor[Run](),
	"kubernetes":  reflect.TypeFor[map[string]any](), // its owner checks its keys
	"families":    reflect.TypeFor[map[string]any](), // likewise
}

// Load reads the shipped default (when files is empty) or each file in order (a name of a
// shipped config, a path, or a trajectory whose info.config is the config), deep-merges them,
// applies overrides ("a.b=value", value parsed as YAML), detects the layout (mini-swe-agent 1.x
// or 2.x, see detectLayout), fills in that layout's defaults, and decodes the result strictly:
// keys of mini-swe-agent that mean nothing here are dropped and listed in Ignored; any other
// unknown key is an error naming its key path.
func Load(files, overrides []string) (*Config, error) {
	if len(files) == 0 {
		files = []string{DefaultName}
	}
	tree := map[string]any{}
	for _, f := range files {
		data, name, err := readConfig(f)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("config %s: %w", name, err)
		}
		if m, err = fromTrajectory(name, m); err != nil {
			return nil, err
		}
		merge(tree, m)
	}
	for _, o := range overrides {
		key, val, ok := strings.Cut(o, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("config override %q: want key.path=value", o)
		}
		var v any
		if err := yaml.Unmarshal([]byte(val), &v); err != nil {
			return nil, fmt.Errorf("config override %q: value is not YAML: %w", o, err)
		}
		setPath(tree, strings.Split(key, "."), v)
	}
	layout, evidence, err := detectLayout(tree)
	if err != nil {
		return nil, err
	}
	var ignored []string
	dropIgnored(tree, "", &ignored)
	sort.Strings(ignored)
	if layout == LayoutV1 {
		return loadV1(tree, ignored, evidence)
	}
	if err := checkKeys(tree, sections); err != nil {
		return nil, err
	}
	full := defaults()
	merge(full, tree)
	tree = full

	cfg := &Config{Ignored: ignored, Layout: layout, LayoutEvidence: evidence, raw: tree}
	for name, sec := range tree {
		if err := decodeSection(name, sec, cfg); err != nil {
			return nil, err
		}
	}
	cfg.Agent.ObservationTemplate = cfg.Model.ObservationTemplate
	cfg.Agent.FormatErrorTemplate = cfg.Model.FormatErrorTemplate
	return cfg, cfg.validate()
}

// checkKeys reports the first key that no section defines, with its path and the known keys.
func checkKeys(tree map[string]any, sections map[string]reflect.Type) error {
	for _, top := range sortedKeys(tree) {
		typ, ok := sections[top]
		if !ok {
			return fmt.Errorf("config: unknown key %q (known: agent, environment, model, run, kubernetes, families)", top)
		}
		if typ.Kind() == reflect.Map {
			continue // a section decoded by its owner (kubernetes: package kubeenv; families: family/all)
		}
		sec, ok := tree[top].(map[string]any)
		if !ok {
			if tree[top] == nil {
				continue
			}
			return fmt.Errorf("config: %s must be a mapping, got %v", top, tree[top])
		}
		known := yamlKeys(typ)
		for _, k := range sortedKeys(sec) {
			if !known[k] {
				return fmt.Errorf("config: unknown key %s.%s (known keys of %s: %s)", top, k, top, strings.Join(sortedKeys(known), ", "))
			}
		}
	}
	return checkInstalledKeys(tree)
}

// checkInstalledKeys reports an unknown key of agent.installed or agent.installed.install with
// its path.
func checkInstalledKeys(tree map[string]any) error {
	sec, _ := tree["agent"].(map[string]any)
	for _, n := range []struct {
		path string
		typ  reflect.Type
	}{
		{"agent.installed", reflect.TypeFor[agent.InstalledConfig]()},
		{"agent.installed.install", reflect.TypeFor[agent.InstallSource]()},
	} {
		key := strings.TrimPrefix(n.path, "agent.")
		var m map[string]any
		switch key {
		case "installed":
			m, _ = sec["installed"].(map[string]any)
		default:
			inst, _ := sec["installed"].(map[string]any)
			m, _ = inst["install"].(map[string]any)
		}
		known := yamlKeys(n.typ)
		for _, k := range sortedKeys(m) {
			if !known[k] {
				return fmt.Errorf("config: unknown key %s.%s (known keys of %s: %s)", n.path, k, n.path, strings.Join(sortedKeys(known), ", "))
			}
		}
	}
	return nil
}

func decodeSection(name string, sec any, cfg *Config) error {
	if sec == nil {
		return nil
	}
	var target any
	switch name {
	case "agent":
		target = &cfg.Agent
	case "environment":
		target = &cfg.Environment
	case "model":
		target = &cfg.Model
	case "run":
		target = &cfg.Run
	case "kubernetes":
		target = &cfg.Kubernetes
	case "families":
		target = &cfg.Families
	}
	data, err := yaml.Marshal(sec)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(name != "model")
	if err := dec.Decode(target); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config %s: %s", name, yamlErrorText(err))
	}
	if name == "model" {
		// The model layer reads the rest of the section: check its types now, before any
		// container starts.
		var mc model.Config
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&mc); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("config model: %s", yamlErrorText(err))
		}
	}
	return nil
}

// yamlErrorText drops the line numbers of a decoding error: they refer to the merged config,
// not to any file the user wrote.
func yamlErrorText(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			if _, rest, ok := strings.Cut(m, ": "); ok && strings.HasPrefix(m, "line ") {
				m = rest
			}
			msgs[i] = m
		}
		return strings.Join(msgs, "; ")
	}
	return err.Error()
}

// yamlKeys returns the yaml key names of a struct type's fields.
func yamlKeys(t reflect.Type) map[string]bool {
	keys := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || strings.Contains(opts, "inline") {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		keys[name] = true
	}
	return keys
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (c *Config) validate() error {
	a, e := c.Agent, c.Environment
	switch {
	case a.SystemTemplate == "":
		return fmt.Errorf("config: agent.system_template is empty")
	case a.InstanceTemplate == "":
		return fmt.Errorf("config: agent.instance_template is empty")
	case c.Model.ObservationTemplate == "":
		return fmt.Errorf("config: model.observation_template is empty")
	case a.StepLimit < 0 || a.CostLimit < 0 || a.WallTimeLimitSeconds < 0 || a.MaxConsecutiveFormatErrors < 0 || a.MaxRepeatedActions < 0:
		return fmt.Errorf("config: agent limits must be >= 0 (0: no limit)")
	case e.Timeout < 0:
		return fmt.Errorf("config: environment.timeout must be >= 0 seconds, got %v", e.Timeout)
	case len(e.Interpreter) == 0:
		return fmt.Errorf("config: environment.interpreter is empty; e.g. [bash, -c]")
	}
	if _, err := sandbox.ParseLauncher(e.Launcher); err != nil {
		return fmt.Errorf("config: environment.%w", err)
	}
	if _, err := historyguard.ParseMode(e.History); err != nil {
		return fmt.Errorf("config: environment.%w", err)
	}
	switch a.Kind {
	case "", agent.KindLoop:
		if a.Installed != nil {
			return fmt.Errorf("config: agent.installed is set but agent.kind is %q: set agent.kind: installed to run it, or drop agent.installed", cmp.Or(a.Kind, agent.KindLoop))
		}
	case agent.KindInstalled:
		if err := installed.Validate(a.Installed); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	default:
		return fmt.Errorf("config: agent.kind %q: want loop (our loop, the default) or installed (an installed CLI agent, agent.installed)", a.Kind)
	}
	r := agent.NewRenderer()
	for _, t := range []struct{ key, src string }{
		{"agent.system_template", a.SystemTemplate},
		{"agent.instance_template", a.InstanceTemplate},
		{"model.observation_template", c.Model.ObservationTemplate},
		{"model.format_error_template", c.Model.FormatErrorTemplate},
		{"run.env_startup_command", c.Run.EnvStartupCommand},
	} {
		if err := r.Parse(t.key, t.src); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	return nil
}

// Set applies one override after loading (used for flags such as --model).
func (c *Config) Set(key string, v any) { setPath(c.raw, strings.Split(key, "."), v) }

// Dump returns the resolved config (defaults filled in) as a tree in mini-swe-agent's layout,
// with secrets removed; it is saved in run.json and in every trajectory's info.config.
func (c *Config) Dump() map[string]any {
	out := deepCopy(c.raw).(map[string]any)
	redact(out)
	return out
}

// TemplateVars returns the template variables mini-swe-agent derives from the config besides
// the agent's own: the environment section with the host's platform.uname() fields (system,
// node, release, version, machine, processor), then the model section. Give them to
// agent.Agent.Vars (instance columns, if wanted, go in first: these win, as in mini-swe-agent,
// where {{version}} is the kernel's version).
func (c *Config) TemplateVars() map[string]any {
	vars := map[string]any{}
	if env, ok := c.raw["environment"].(map[string]any); ok {
		for k, v := range env {
			vars[k] = deepCopy(v)
		}
	}
	if c.Layout != LayoutV1 { // 1.x's Docker environment has no platform variables
		for k, v := range unameVars() {
			vars[k] = v
		}
	}
	if t := c.Environment.Timeout; t == float64(int(t)) {
		vars["timeout"] = int(t)
	}
	if m, ok := c.raw["model"].(map[string]any); ok {
		for k, v := range m {
			vars[k] = deepCopy(v)
		}
	}
	redact(vars)
	return vars
}

func readConfig(f string) ([]byte, string, error) {
	if !strings.Contains(f, "/") {
		// A shipped config by name, with or without .yaml (-c swebench_v1).
		for _, name := range []string{path.Clean(f), path.Clean(f) + ".yaml"} {
			if data, err := fs.ReadFile(shipped, name); err == nil {
				return data, "configs/" + name, nil
			}
		}
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, f, fmt.Errorf("config %s: %w (shipped configs: %s)", f, err, strings.Join(Shipped(), ", "))
	}
	return data, f, nil
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

func setPath(m map[string]any, keys []string, v any) {
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

func dropIgnored(m map[string]any, prefix string, ignored *[]string) {
	for k, v := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if ignoredKeys[p] {
			*ignored = append(*ignored, p)
			delete(m, k)
			continue
		}
		if sub, ok := v.(map[string]any); ok && prefix == "" {
			dropIgnored(sub, p, ignored)
		}
	}
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	default:
		return v
	}
}

// redact blanks every value whose key looks like a secret.
func redact(m map[string]any) {
	for k, v := range m {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "api_key") || strings.Contains(lk, "token") && !strings.Contains(lk, "tokens") || strings.Contains(lk, "secret") || strings.Contains(lk, "password") {
			if s, ok := v.(string); ok && s != "" {
				m[k] = "<redacted>"
				continue
			}
		}
		if sub, ok := v.(map[string]any); ok {
			redact(sub)
		}
	}
}
