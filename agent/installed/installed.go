// Package installed is the installed-agent kind: CLI agents (Claude Code, Codex CLI, Gemini
// CLI, OpenHands, aider, mini-swe-agent, or any command line) run as one long command in the
// instance's sandbox, their model calls going through the run's model proxy (model/proxy).
//
// It holds the shipped profiles (embedded YAML: the documented non-interactive invocation, the
// wire each agent speaks, where it writes its session log, the variables that point it at a
// model endpoint), resolves agent.installed against them, and prepares the pinned install
// (a directory or a .tar/.tar.gz archive on the host, checked against its SHA-256) that the
// runner copies into every sandbox through the sandbox's own file API. The runner runs it
// (runner/installed.go); docs/agents.md says how it fits together.
package installed

import (
	_ "embed"
	"fmt"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/agent"
)

//go:embed profiles.yaml
var profilesYAML []byte

// Wires an agent speaks (Profile.Wire).
const (
	WireAnthropic       = "anthropic"
	WireOpenAIChat      = "openai-chat"
	WireOpenAIResponses = "openai-responses"
	WireGemini          = "gemini"
	WireAny             = "any" // custom: whatever the command's program speaks
)

// DefaultDir is where an install is unpacked in the sandbox ({install_dir}).
const DefaultDir = "/opt/swebench-run/agent"

// DefaultTimeout is agent.installed.timeout's default, in seconds.
const DefaultTimeout = 3600

// TaskFile is where the task text is written in the sandbox ({task_file}).
const TaskFile = "/tmp/swebench-run-task.md"

// Profile is a shipped agent's invocation.
type Profile struct {
	Name string `yaml:"-"`
	// Wire is the API the agent's model client speaks.
	Wire string `yaml:"wire"`
	// Command is the command line (bash -c), with placeholders (see Expand).
	Command string `yaml:"command"`
	// Env is added to the proxy's variables (values with placeholders).
	Env map[string]string `yaml:"env"`
	// Sessions are the directories in the sandbox whose files are the agent's own session log,
	// collected into <out>/<id>/agent/sessions/.
	Sessions []string `yaml:"sessions"`
}

var profiles = mustProfiles()

func mustProfiles() map[string]Profile {
	var m map[string]Profile
	if err := yaml.Unmarshal(profilesYAML, &m); err != nil {
		panic("agent/installed: profiles.yaml: " + err.Error())
	}
	for k, p := range m {
		p.Name = k
		m[k] = p
	}
	return m
}

// Names lists the shipped profiles, sorted.
func Names() []string {
	out := make([]string, 0, len(profiles))
	for k := range profiles {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the shipped profile name.
func Lookup(name string) (Profile, bool) {
	p, ok := profiles[name]
	return p, ok
}

// Validate checks agent.installed (without touching the install: see Prepare).
func Validate(c *agent.InstalledConfig) error {
	if c == nil {
		return fmt.Errorf("agent.kind is installed but agent.installed is not set: give agent.installed.name (%s) and agent.installed.install.path and .sha256", strings.Join(Names(), ", "))
	}
	p, ok := Lookup(c.Name)
	switch {
	case c.Name == "":
		return fmt.Errorf("agent.installed.name is empty: one of %s", strings.Join(Names(), ", "))
	case !ok:
		return fmt.Errorf("agent.installed.name %q is not a shipped profile: one of %s", c.Name, strings.Join(Names(), ", "))
	case c.Name == "custom" && strings.TrimSpace(c.Command) == "":
		return fmt.Errorf("agent.installed.command is empty: the custom profile runs the command you give, e.g. '{install_dir}/bin/my-agent --task {task_file}'")
	case p.Command == "" && c.Command == "":
		return fmt.Errorf("agent.installed.command is empty")
	case c.Timeout < 0:
		return fmt.Errorf("agent.installed.timeout must be >= 0 seconds (0: the default, %d), got %v", DefaultTimeout, c.Timeout)
	case c.Install.Path == "":
		return fmt.Errorf("agent.installed.install.path is empty: give the directory or .tar/.tar.gz archive on this host that holds the agent (docs/agents.md)")
	case c.Install.Dir != "" && !path.IsAbs(c.Install.Dir):
		return fmt.Errorf("agent.installed.install.dir %q must be an absolute path in the sandbox", c.Install.Dir)
	}
	for k := range c.Env {
		if !validEnvName(k) {
			return fmt.Errorf("agent.installed.env: %q is not a variable name", k)
		}
	}
	return nil
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Spec is a resolved installed agent: what the runner runs.
type Spec struct {
	Name, Version, Wire string
	Command             string            // with placeholders
	Env                 map[string]string // profile's, then the config's (with placeholders)
	Sessions            []string
	InstallDir          string
	TimeoutSeconds      float64
}

// Resolve merges agent.installed over its profile.
func Resolve(c *agent.InstalledConfig) (Spec, error) {
	if err := Validate(c); err != nil {
		return Spec{}, err
	}
	p, _ := Lookup(c.Name)
	s := Spec{Name: c.Name, Version: c.Version, Wire: p.Wire, Command: p.Command, Env: map[string]string{},
		Sessions: p.Sessions, InstallDir: c.Install.Dir, TimeoutSeconds: c.Timeout}
	if c.Command != "" {
		s.Command = c.Command
	}
	for k, v := range p.Env {
		s.Env[k] = v
	}
	for k, v := range c.Env {
		s.Env[k] = v
	}
	if s.InstallDir == "" {
		s.InstallDir = DefaultDir
	}
	if s.TimeoutSeconds == 0 {
		s.TimeoutSeconds = DefaultTimeout
	}
	return s, nil
}

// Vars are the values of the placeholders of one instance.
type Vars struct {
	TaskFile, Workdir, InstallDir, Model string
	// OpenAIBaseURL and Token are the instance's proxy address (OpenAI wire) and token, for
	// profiles whose agent reads other variables than the conventional ones.
	OpenAIBaseURL, Token string
}

// Expand replaces {task_file}, {workdir}, {install_dir}, {model}, {openai_base_url} and
// {token} in s. Other braces are left as they are (a shell's ${VAR} included).
func Expand(s string, v Vars) string {
	return strings.NewReplacer(
		"{task_file}", v.TaskFile, "{workdir}", v.Workdir, "{install_dir}", v.InstallDir,
		"{model}", v.Model, "{openai_base_url}", v.OpenAIBaseURL, "{token}", v.Token,
	).Replace(s)
}

// ModelArg is the model name an agent is given: the run's model without its provider prefix
// (anthropic/claude-sonnet-4-5 → claude-sonnet-4-5). The proxy replaces whatever the agent
// asks for with the run's model anyway; the name only keeps agents that check it content.
func ModelArg(model string) string {
	if i := strings.LastIndex(model, "/"); i >= 0 {
		return model[i+1:]
	}
	return model
}
