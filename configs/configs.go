// Package configs holds the shipped YAML configs (embedded in the binary) and turns config
// files and `key.path=value` overrides into one validated Config.
package configs

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/agent"
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
	Agent       agent.Config   `yaml:"agent"`
	Environment Environment    `yaml:"environment"`
	Model       Model          `yaml:"model"`
	Run         Run            `yaml:"run"`
	Ignored     []string       `yaml:"-"` // key paths that mean nothing here, reported once
	raw         map[string]any // merged tree, for Dump
}

// Environment configures the container and command execution.
type Environment struct {
	Cwd         string            `yaml:"cwd"`
	Timeout     float64           `yaml:"timeout"` // seconds per command
	Env         map[string]string `yaml:"env"`
	ForwardEnv  []string          `yaml:"forward_env"` // host variables copied into every command
	Interpreter []string          `yaml:"interpreter"`
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
// directly and choose classes by name), reported once and dropped.
var ignoredKeys = map[string]bool{
	"agent_type": true, "model_type": true, "environment_type": true,
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
	"model.litellm_model_registry":      true,
	"model.multimodal_regex":            true,
	"run.output_path":                   true,
	"environment.start_kwargs":          true,
	"environment.remove_container":      true,
	"model.model_type":                  true,
	"model.litellm_model_name_override": true,
}

// Load reads the shipped default (when files is empty) or each file in order (a name of a
// shipped config or a path), deep-merges them, applies overrides ("a.b=value", value parsed as
// YAML), and decodes the result strictly: unknown keys are errors naming the key path.
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
	var ignored []string
	dropIgnored(tree, "", &ignored)
	sort.Strings(ignored)

	data, err := yaml.Marshal(tree)
	if err != nil {
		return nil, err
	}
	cfg := &Config{Ignored: ignored, raw: tree}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil {
		return nil, fmt.Errorf("config: %w (see configs/%s for the known keys)", err, DefaultName)
	}
	cfg.Agent.ObservationTemplate = cfg.Model.ObservationTemplate
	cfg.Agent.FormatErrorTemplate = cfg.Model.FormatErrorTemplate
	return cfg, cfg.validate()
}

func (c *Config) validate() error {
	switch {
	case c.Agent.SystemTemplate == "":
		return fmt.Errorf("config: agent.system_template is empty")
	case c.Agent.InstanceTemplate == "":
		return fmt.Errorf("config: agent.instance_template is empty")
	case c.Model.ObservationTemplate == "":
		return fmt.Errorf("config: model.observation_template is empty")
	case c.Environment.Timeout < 0:
		return fmt.Errorf("config: environment.timeout must be >= 0 seconds, got %v", c.Environment.Timeout)
	}
	if c.Model.FormatErrorTemplate == "" {
		c.Model.FormatErrorTemplate = "{{ error }}"
		c.Agent.FormatErrorTemplate = c.Model.FormatErrorTemplate
	}
	return nil
}

// Set applies one override after loading (used for flags such as --model).
func (c *Config) Set(key string, v any) { setPath(c.raw, strings.Split(key, "."), v) }

// Dump returns the resolved config as a tree in mini-swe-agent's layout, with secrets removed;
// it is saved in run.json and in every trajectory's info.config.
func (c *Config) Dump() map[string]any {
	out := deepCopy(c.raw).(map[string]any)
	redact(out)
	return out
}

func readConfig(f string) ([]byte, string, error) {
	if data, err := fs.ReadFile(shipped, path.Clean(f)); err == nil && !strings.Contains(f, "/") {
		return data, "configs/" + f, nil
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
