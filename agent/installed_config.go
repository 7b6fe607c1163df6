package agent

// Agent kinds (agent.kind).
const (
	// KindLoop is our own loop (mini-swe-agent's semantics), the default.
	KindLoop = "loop"
	// KindInstalled is an installed CLI agent run as one long command in the sandbox, whose
	// model calls go through the run's model proxy (package agent/installed).
	KindInstalled = "installed"
)

// InstalledConfig is agent.installed: which installed agent runs, from which install, how.
// Package agent/installed resolves it against its shipped profile.
type InstalledConfig struct {
	// Name is a shipped profile (claude-code, codex, gemini-cli, openhands, aider,
	// mini-swe-agent) or custom.
	Name string `yaml:"name" json:"name"`
	// Version is the agent's version, recorded with every instance (the install pins it).
	Version string `yaml:"version" json:"version,omitempty"`
	// Install is where the agent's files come from.
	Install InstallSource `yaml:"install" json:"install"`
	// Command overrides the profile's command line (custom: required). Placeholders:
	// {task_file}, {workdir}, {install_dir}, {model}.
	Command string `yaml:"command" json:"command,omitempty"`
	// Env is added to the agent's environment after the proxy's variables and the profile's.
	Env map[string]string `yaml:"env" json:"env,omitempty"`
	// Timeout is the agent's wall-clock limit in seconds (default 3600): past it the agent and
	// every process it started are killed and the instance ends TimeExceeded.
	Timeout float64 `yaml:"timeout" json:"timeout,omitempty"`
}

// InstallSource is a pinned install on the host: a directory or a .tar/.tar.gz archive, copied
// into every sandbox through the backend's file API, its SHA-256 checked before any instance
// runs.
type InstallSource struct {
	// Path is the directory or archive on the host.
	Path string `yaml:"path" json:"path"`
	// SHA256 pins it: of the archive's bytes, or of a directory's canonical tar (see
	// agent/installed.Checksum).
	SHA256 string `yaml:"sha256" json:"sha256"`
	// Dir is where it is unpacked in the sandbox (default /opt/swebench-run/agent):
	// {install_dir}.
	Dir string `yaml:"dir" json:"dir,omitempty"`
}
