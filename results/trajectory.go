package results

// TrajectoryFormat is the layout version mini-swe-agent's tools read: mini-swe-agent 2.x's,
// written for runs of 2.x configs.
const TrajectoryFormat = "mini-swe-agent-1.1"

// TrajectoryFormatV1 is mini-swe-agent 1.x's trajectory layout, written for runs of 1.x configs:
// the same fields, but messages are {role, content, timestamp[, extra]} without tool or exit
// messages, the submission is the last user message, and info.mini_version names the 1.x
// release whose semantics ran.
const TrajectoryFormatV1 = "mini-swe-agent-1"

// Trajectory is <out>/<id>/<id>.traj.json in mini-swe-agent-1.1 layout. Fields the peer defines
// keep their meaning; our additions live under info.swebench_run.
type Trajectory struct {
	Info             TrajectoryInfo   `json:"info"`
	Messages         []map[string]any `json:"messages"`
	TrajectoryFormat string           `json:"trajectory_format"`
	InstanceID       string           `json:"instance_id"`
}

// TrajectoryInfo is the trajectory's info block.
type TrajectoryInfo struct {
	ModelStats   ModelStats `json:"model_stats"`
	Config       any        `json:"config"`
	ExitStatus   string     `json:"exit_status"`
	Submission   string     `json:"submission"`
	MiniVersion  string     `json:"mini_version,omitempty"`
	ExceptionStr string     `json:"exception_str,omitempty"`
	Traceback    string     `json:"traceback,omitempty"`
	SwebenchRun  *RunInfo   `json:"swebench_run,omitempty"`
}

// ModelStats are the instance's model totals.
type ModelStats struct {
	InstanceCost float64 `json:"instance_cost"`
	APICalls     int     `json:"api_calls"`
}

// RunInfo is what swebench-run adds to a trajectory.
type RunInfo struct {
	Version     string       `json:"version"`
	RunID       string       `json:"run_id"`
	Attempt     int          `json:"attempt"`
	Image       string       `json:"image,omitempty"`
	ImageID     string       `json:"image_id,omitempty"`
	ContainerID string       `json:"container_id,omitempty"`
	Host        string       `json:"host,omitempty"`
	Tokens      Tokens       `json:"tokens"`
	StepTimings []StepTiming `json:"step_timings,omitempty"`
	// History is what the history guard did to the repository before the agent's first
	// command; nil when it had not ended (no container started).
	History *HistoryInfo `json:"history,omitempty"`
	// Agent is set for an installed agent's attempt (nil for our loop).
	Agent *InstalledAgent `json:"agent,omitempty"`
	Extra map[string]any  `json:"extra,omitempty"`
}

// HistoryInfo is the history guard's outcome in a trajectory (info.swebench_run.history).
type HistoryInfo struct {
	Mode       string  `json:"mode"`    // environment.history: past, none, as-is
	Applied    string  `json:"applied"` // what was done: the mode, none, or "no repository"
	Repo       string  `json:"repo,omitempty"`
	Head       string  `json:"head,omitempty"`  // HEAD before the guard
	Start      string  `json:"start,omitempty"` // HEAD after it
	Submodules int     `json:"submodules,omitempty"`
	Seconds    float64 `json:"seconds"`
	Note       string  `json:"note,omitempty"`
}

// Tokens counts model tokens.
type Tokens struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
	Reasoning  int `json:"reasoning,omitempty"` // a part of Output
}

// StepTiming is the time one step spent in the model and in the environment, in seconds.
type StepTiming struct {
	Model float64 `json:"model"`
	Env   float64 `json:"env"`
}
