// Package sandbox is the contract between the runner and eval and the place where an instance's
// container lives: a Docker engine (package dockerenv), a Kubernetes pod (kubeenv). The runner
// and eval see only these types; each backend implements them and is the only importer of its
// client library; cmd/swebench-run chooses one.
//
// A backend gives out room for sandboxes (Backend: capacity, Acquire, image demand), starts a
// sandbox for a Spec in that room (Slot) or on its own (Starter, for evaluations), runs commands
// in it under the exec contract (Sandbox.Exec with ExecOptions and ExecResult), writes files into
// it, removes it, and sweeps what runs left behind (Sweeper). Failures that say something about
// the infrastructure rather than the model are typed: ErrImageUnavailable, *DiedError (with
// OOMKilled), and ErrBackendDown.
//
// The behaviour every backend must have is written down once, as the conformance suite in
// package sandbox/sandboxtest; each backend's tests run it against the real thing.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Defaults of a Spec (see Spec.WithDefaults).
const (
	DefaultCwd      = "/testbed"
	DefaultLifetime = 4 * time.Hour
	DefaultRole     = "agent"
	// DefaultPidsLimit is the process limit of a sandbox whose Limits.PidsLimit is 0: a fork
	// bomb must not take the machine down.
	DefaultPidsLimit = 4096
	// DefaultMaxOutput is the output an Exec keeps when ExecOptions.MaxOutput is 0.
	DefaultMaxOutput = 1 << 20
)

// Spec describes the sandbox of one instance (or of one evaluation).
//
// The identity fields (RunID, InstanceID, Role) are stored with the sandbox where the backend
// can find them again (Docker labels, pod labels), together with the tool's own marker, the time
// it started and the process that owns it; Sweep selects by them.
type Spec struct {
	Image      string
	RunID      string
	InstanceID string
	Role       string            // "agent" or "eval"; default DefaultRole
	Cwd        string            // working directory of every exec; default DefaultCwd
	Env        map[string]string // environment of every exec
	// Lifetime bounds the sandbox: it ends by itself after Lifetime, so that one that escapes
	// every cleanup (a runner killed with SIGKILL) does not live on. Default DefaultLifetime.
	Lifetime time.Duration
	Limits   Limits
	// Launcher says how commands run: "" the backend's choice (its options), LauncherOff with
	// the backend's exec whatever the backend's options say.
	Launcher Launcher
}

// Launcher is the choice between the launcher and the backend's exec (environment.launcher).
//
// With the launcher, a backend copies a small program of ours into the sandbox as it starts
// and runs every command as a fork of it (see package launcher), with the semantics of the
// backend's exec; whatever it cannot reproduce, it leaves to the exec, and a launcher that the
// sandbox's processes kill or disturb leaves the sandbox on the exec. The exec contract is the
// same either way.
type Launcher string

const (
	LauncherAuto Launcher = "auto" // the launcher where it can run, else the exec
	LauncherOff  Launcher = "off"  // the backend's exec for every command
)

// ParseLauncher checks a launcher setting; "" is LauncherAuto.
func ParseLauncher(s string) (Launcher, error) {
	switch Launcher(s) {
	case "", LauncherAuto:
		return LauncherAuto, nil
	case LauncherOff:
		return LauncherOff, nil
	}
	return "", fmt.Errorf("launcher %q: want auto or off", s)
}

// WithDefaults returns s with the documented defaults filled in.
func (s Spec) WithDefaults() Spec {
	if s.Cwd == "" {
		s.Cwd = DefaultCwd
	}
	if s.Lifetime <= 0 {
		s.Lifetime = DefaultLifetime
	}
	if s.Role == "" {
		s.Role = DefaultRole
	}
	return s
}

// Limits are a sandbox's resource limits. Zero values mean the defaults documented on each.
// Sandboxes are never privileged and get no host mounts.
//
// Memory: when a command allocates beyond MemoryBytes, the kernel kills a process. When it kills
// the command (the sandbox's main process stays tiny), the sandbox keeps running and Exec
// returns exit code 137 with ExecResult.OOMKilled set and a note naming the limit appended to the
// output: the agent sees that and can adapt. When the sandbox as a whole is killed (a backend
// that kills the whole container on OOM), operations fail with a *DiedError whose OOMKilled is
// set.
type Limits struct {
	MemoryBytes int64   // 0 = unlimited
	CPUs        float64 // 0 = unlimited
	PidsLimit   int64   // 0 = DefaultPidsLimit; -1 = unlimited
	// NetworkMode: "" is the backend's default network, "none" disables networking; other
	// values are the backend's (Docker: a network name).
	NetworkMode string
}

// ExecOptions configure one command.
type ExecOptions struct {
	// Timeout bounds the command; 0 means none. It is timed from the moment the command starts
	// in the sandbox, so a slow backend's latency does not count against it. When it expires,
	// every process of the sandbox but its main process gets TERM, then KILL 2 s later (sooner
	// if the output ended) — children that left the command's process group, hold its output
	// open, ignore TERM, or filled the pids limit with a fork bomb included. Exec returns once
	// the kill is over, so that it cannot hit the next command, with TimedOut set and the output
	// printed before the kill.
	Timeout time.Duration
	Cwd     string            // default: the sandbox's Spec.Cwd
	Env     map[string]string // added to (and overriding) the sandbox's Spec.Env
	// Interpreter runs the command; default ["bash", "-c"]: the command runs exactly as
	// `bash -c COMMAND` would (no positional parameters, $0 is bash, no TTY).
	Interpreter []string
	// MaxOutput bounds the output kept in memory: the first and last MaxOutput/2 bytes are kept,
	// the middle is counted and dropped (see OutputBuffer). Default DefaultMaxOutput.
	MaxOutput int
}

// ExecResult is the outcome of one command. stdout and stderr are merged in the order they were
// written (one pipe, as a subprocess with stderr=STDOUT).
type ExecResult struct {
	// Output is what the command printed, capped (see ExecOptions.MaxOutput); invalid UTF-8 is
	// replaced by U+FFFD.
	Output string
	// ExitCode is the command's exit status: after a timeout usually 143 (TERM) or 137 (KILL).
	ExitCode       int
	TimedOut       bool  // ExecOptions.Timeout expired and the command was killed
	TruncatedBytes int64 // bytes dropped from the middle of the output
	Duration       time.Duration
	// OOMKilled: the kernel killed the command (or one of its processes) for exceeding the
	// sandbox's memory limit; the sandbox still runs. See Limits.
	OOMKilled bool
}

// Sandbox is one running sandbox: a container (Docker), a pod (Kubernetes). Its methods are safe
// for concurrent use, but commands normally run one at a time.
type Sandbox interface {
	// ID identifies the sandbox to its backend (a container id, a pod uid).
	ID() string
	// Name is the sandbox's name, for logs and messages.
	Name() string
	// Exec runs command under opts. A command that fails or times out is a result, not an
	// error: the error is for the sandbox or its backend — a *DiedError when the sandbox is
	// gone or stopped, an error matching ErrBackendDown when the backend stopped answering, or
	// ctx's error when ctx ended (the command's processes are then killed as for a timeout).
	Exec(ctx context.Context, command string, opts ExecOptions) (ExecResult, error)
	// WriteFile writes data to an absolute path in the sandbox (mode 0644), whose directory
	// exists; it creates nothing else.
	WriteFile(ctx context.Context, path string, data []byte) error
	// Remove stops and removes the sandbox. It runs on a context detached from ctx's
	// cancellation, so that teardown happens after Ctrl-C too. Removing a sandbox that is
	// already gone is not an error; every operation after Remove fails with a *DiedError.
	Remove(ctx context.Context) error
}

// Starter starts sandboxes outside the runner's capacity accounting: the fresh sandbox of an
// evaluation. Start makes the image available under the backend's pull policy (an error
// matching ErrImageUnavailable when it cannot) and starts a sandbox of spec. On error nothing is
// left behind.
type Starter interface {
	Start(ctx context.Context, spec Spec) (Sandbox, error)
}

// Backend is where the runner's sandboxes live. The runner runs at most Capacity instances at
// once, takes a Slot for each, and declares the images it will need so that a backend that
// keeps images (Docker engines) can fetch them ahead and drop them after their last use. Where a
// slot's sandbox runs (which engine, which node) is the backend's business. Safe for concurrent
// use.
type Backend interface {
	// Capacity is the number of sandboxes the backend runs at once.
	Capacity() int
	// Acquire takes room for one sandbox, waiting while the backend is full. It fails with ctx's
	// error, or with an error matching ErrBackendDown when no part of the backend answers: the
	// runner then waits for it (see Probe) before it starts anything else.
	Acquire(ctx context.Context) (Slot, error)
	// Probe asks the parts of the backend that stopped answering (a slot released with an
	// error matching ErrBackendDown) whether they answer again, and puts those that do back
	// in rotation. It returns nil when the backend can take sandboxes (some part answers),
	// else an error matching ErrBackendDown that names what does not answer. The runner
	// probes often while it waits for a backend that went away, and now and then while it
	// runs, so that a part that was away rejoins.
	Probe(ctx context.Context) error
	// Expect declares that the run will start n more sandboxes of image (n < 0 withdraws uses).
	// A backend that caches images may remove an image once its last declared use is released
	// (see Slot.ReleaseImage). It never blocks.
	Expect(image string, n int)
	// Prefetch says that a sandbox of image is likely to start soon: a backend may start
	// fetching it now. It never blocks; a failure here is retried by PrepareImage.
	Prefetch(image string)
}

// Slot is room for one sandbox, taken with Backend.Acquire. The runner calls PrepareImage, then
// Start; once the instance ends it calls Release at once, and ReleaseImage after the sandbox is
// removed (which may be later, off the worker).
type Slot interface {
	// Host names where the slot's sandbox runs (a Docker engine address, a cluster), for the
	// record.
	Host() string
	// PrepareImage makes image ready for a sandbox of this slot (a pull, through the backend's
	// queue) and holds it until ReleaseImage. It returns an id of the image's content, "" when
	// the backend does not know one before the start. An error means the image cannot be had;
	// it matches ErrImageUnavailable when the image does not exist or is not allowed.
	PrepareImage(ctx context.Context, image string) (imageID string, err error)
	// Start starts the sandbox of spec; spec.Image was prepared. On error nothing is left
	// behind; an image that turns out to be unavailable only now (a pod whose pull fails) is an
	// error matching ErrImageUnavailable.
	Start(ctx context.Context, spec Spec) (Sandbox, error)
	// ReleaseImage ends the hold PrepareImage took on image (and one declared use, see
	// Backend.Expect), once no sandbox of the slot uses it. It runs on a context that survives
	// cancellation; failures are the backend's to log.
	ReleaseImage(ctx context.Context, image string)
	// Release gives the room back. cause is the error the instance ended with (nil if none):
	// when it matches ErrBackendDown, the backend takes the part that held the slot out of
	// rotation until it answers again.
	Release(cause error)
}

// Sweeper removes the sandboxes this tool left behind.
type Sweeper interface {
	// Sweep removes the sandboxes of this tool that sel matches and returns how many it
	// removed. It runs on a context that survives cancellation.
	Sweep(ctx context.Context, sel Selector) (int, error)
}

// Selector chooses sandboxes of this tool for Sweep: a sandbox matches when any of the set
// fields does. The zero Selector matches nothing.
type Selector struct {
	// All matches every sandbox of this tool, those of runs still going on included.
	All bool
	// RunID matches the sandboxes of this run.
	RunID string
	// Orphaned matches the sandboxes whose owning process is gone (crashed, killed): removing
	// them is safe while other runs go on. How a backend knows is its own (Docker: the owner
	// process of this machine no longer runs; a cluster: a heartbeat that went stale).
	Orphaned bool
}

// PullProgress is the state of one image fetch, for progress displays. Fields a backend does not
// know are zero.
type PullProgress struct {
	Host       string
	Image      string
	Attempt    int // 1 for the first attempt
	Layers     int // layers known so far
	LayersDone int // layers downloaded and extracted (or already present)
	Current    int64
	Total      int64 // sum of the sizes of the layers whose size is known
	Done       bool
	Err        error // with Done: the fetch failed (after all retries)
}

// ErrImageUnavailable is matched (errors.Is) by the errors of an image that does not exist, or
// that the backend may not fetch (pull policy never, access denied): the instance ends with
// ImageUnavailable.
var ErrImageUnavailable = errors.New("image unavailable")

// ErrBackendDown is matched (errors.Is) by the errors that say the backend, or the part of it
// that held the sandbox (a Docker engine), stopped answering: the instance ends EngineDown and
// is retried (elsewhere, or once the backend answers again), and Backend.Acquire and
// Backend.Probe fail with it when nothing answers.
var ErrBackendDown = errors.New("sandbox backend does not answer")

// DiedError reports a sandbox that stopped while its instance still ran: killed, removed, its
// main process gone, its lifetime over, or the sandbox killed for exceeding its memory limit.
type DiedError struct {
	Name      string
	OOMKilled bool
	ExitCode  int // of the sandbox's main process; -1 when unknown (the sandbox is gone)
	Err       error
}

func (e *DiedError) Error() string {
	if e.OOMKilled {
		return fmt.Sprintf("container %s was killed for exceeding its memory limit (OOM)", e.Name)
	}
	return fmt.Sprintf("container %s is no longer running (exit code %d): %v", e.Name, e.ExitCode, e.Err)
}

func (e *DiedError) Unwrap() error { return e.Err }

// ErrLauncherLost is matched by the error of a command whose result was lost with the
// sandbox's launcher (*LauncherLostError).
var ErrLauncherLost = errors.New("the launcher was lost while a command ran")

// LauncherLostError reports a command whose end is unknown: the sandbox's launcher, whose child
// it was, was killed (by the agent's own `kill -9 -1`, say, or the OOM killer), stopped, or
// its stream disturbed while the command ran. The command is not run again (it may have had
// side effects) and no result is made up: the instance ends as an infrastructure failure, and
// its retry runs with the launcher off (Spec.Launcher).
type LauncherLostError struct {
	Name    string
	Command int64 // the sandbox's command count (1 is its first command)
	Err     error
}

func (e *LauncherLostError) Error() string {
	return fmt.Sprintf("container %s: the launcher was killed or disturbed while command %d ran, so that command's result is lost (it is not run again; a retry of the instance runs with the launcher off): %v", e.Name, e.Command, e.Err)
}

func (e *LauncherLostError) Unwrap() error { return e.Err }

// Is makes the error match ErrLauncherLost.
func (e *LauncherLostError) Is(target error) bool { return target == ErrLauncherLost }

// ExitStatus names the instance's exit status: LauncherLost, an infrastructure failure.
func (e *LauncherLostError) ExitStatus() string { return "LauncherLost" }

// ExitStatus names the instance's exit status: OOMKilled or ContainerDied.
func (e *DiedError) ExitStatus() string {
	if e.OOMKilled {
		return "OOMKilled"
	}
	return "ContainerDied"
}
