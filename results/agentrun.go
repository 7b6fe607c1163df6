package results

// InstalledAgent describes an installed agent's attempt (info.swebench_run.agent of its
// trajectory): which agent from which install, how it ended, and where its own files are.
// Our loop's trajectories have none.
type InstalledAgent struct {
	Kind          string `json:"kind"` // "installed"
	Name          string `json:"name"` // the profile (claude-code, …, custom)
	Version       string `json:"version,omitempty"`
	Wire          string `json:"wire"`
	Command       string `json:"command"`        // as run, placeholders replaced
	InstallSHA256 string `json:"install_sha256"` // the install verified
	// ExitCode is the agent's exit code (-1: it was killed: a timeout, a limit, the run's end).
	ExitCode int  `json:"exit_code"`
	TimedOut bool `json:"timed_out,omitempty"`
	// Ended says why the runner ended the agent ("" when it exited on its own): LimitsExceeded,
	// RunBudgetExhausted, … (the proxy's reason), TimeExceeded, Interrupted.
	Ended      string  `json:"ended,omitempty"`
	DurationS  float64 `json:"duration_s"`
	StartSHA   string  `json:"start_commit,omitempty"` // the commit the patch is computed against
	Record     string  `json:"record"`                 // the proxy record, relative to the instance folder: agent/proxy.jsonl
	Stdout     string  `json:"stdout"`                 // agent/stdout.txt
	Sessions   string  `json:"sessions,omitempty"`     // agent/sessions/ (the agent's own session files)
	TornRecord bool    `json:"torn_record,omitempty"`  // the record's last line was torn
	// LeftoverProcesses counts the processes still running in the sandbox once the agent
	// ended (agent/leftover_processes.txt lists them): 0 when ending it ended its whole tree.
	LeftoverProcesses int `json:"leftover_processes,omitempty"`
}

// AgentDir is the folder of an installed agent's own files in an instance folder.
const AgentDir = "agent"
