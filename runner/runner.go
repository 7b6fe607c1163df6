// Package runner runs a batch: a worker pool takes instances, gives each its own container and
// agent loop, and records every outcome in the output directory.
package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/runner/historyguard"
	"github.com/swebench-run/swebench-run/sandbox"
)

// Models gives each instance its model. One Models serves the whole run and all workers.
type Models interface {
	ForInstance(instanceID string) (agent.Model, error)
}

// Options configure a batch.
type Options struct {
	RunID     string
	Version   string
	Workers   int
	Config    *configs.Config
	Models    Models
	ModelName string
	// Backend runs the sandboxes (containers): each instance takes a slot, and the backend's
	// capacity bounds the instances run at once.
	Backend       sandbox.Backend
	Out           *results.Dir
	ImageTemplate string
	// History gives an instance's family's layout for the history guard (see Cell.History).
	History func(dataset.Instance) family.History
	Limits  sandbox.Limits
	// Resume says which earlier outcomes to repeat.
	Resume Resume
	// Budget is the run-wide cost limit: no instance starts once it admits no further model call.
	Budget   interface{ Exhausted() bool }
	Progress Progress
	Logger   *slog.Logger
	// Stop, when closed, stops scheduling; running instances end at their next step
	// (graceful shutdown). Cancelling ctx stops them at once.
	Stop <-chan struct{}
	// BackendWait bounds the wait for a backend that stopped answering (see Sweep); 0 stops
	// the run at once.
	BackendWait time.Duration
	// AfterInstance, when set, runs in the worker after an instance is recorded (its
	// container's removal may still be under way), with its prediction (nil after an
	// infrastructure failure); `run --eval` evaluates there, as soon as the prediction exists.
	AfterInstance func(ctx context.Context, inst dataset.Instance, pred *results.Prediction)
	// Installed, when set, runs an installed agent instead of the loop (see Cell.Installed).
	Installed *InstalledAgent
}

// Summary is the outcome of a batch.
type Summary struct {
	Selected    int            `json:"selected"`
	Skipped     int            `json:"skipped"` // finished in an earlier run
	Ran         int            `json:"ran"`
	ByStatus    map[string]int `json:"by_status"`
	Cost        float64        `json:"cost"`
	Interrupted bool           `json:"interrupted"`
	Failed      int            `json:"failed"` // instances whose last attempt failed for infrastructure reasons
	// Retried counts the attempts that failed for infrastructure reasons and were retried
	// within the run.
	Retried int `json:"retried"`
	// Unfinished instances were cut by the run-wide budget: they run again, from the start, when
	// a run has budget left.
	Unfinished int `json:"unfinished"`
	// BudgetExhausted: the run-wide cost limit stopped the run before every instance finished.
	BudgetExhausted bool `json:"budget_exhausted"`
}

// Exit statuses of failures outside the agent loop.
const (
	StatusImageUnavailable = "ImageUnavailable"
	StatusContainerError   = "ContainerStartError"
	StatusModelSetupError  = "ModelSetupError"
	StatusEnvStartupFailed = "EnvStartupFailed"
	StatusEngineDown       = "EngineDown"
	StatusEnvironmentError = "EnvironmentError"
	// StatusLauncherLost: the sandbox's launcher was lost while a command ran, so that
	// command's result is unknown (sandbox.LauncherLostError); the retry runs with the
	// launcher off.
	StatusLauncherLost = "LauncherLost"
	// StatusHistoryGuardFailed: the history guard (environment.history past or none) could
	// not reduce the repository to the task's start; the agent did not run a command.
	StatusHistoryGuardFailed = "HistoryGuardFailed"
)

// infrastructureStatuses are outcomes that say nothing about the model: they are retried on
// resume (up to MaxAttempts).
var infrastructureStatuses = map[string]bool{
	StatusImageUnavailable:   true,
	StatusContainerError:     true,
	StatusEnvStartupFailed:   true,
	StatusEngineDown:         true,
	StatusEnvironmentError:   true,
	StatusLauncherLost:       true,
	StatusHistoryGuardFailed: true,
	"ContainerDied":          true,
	agent.StatusInterrupted:  true,
	"APIError":               true,
	"DockerError":            true,
	"RateLimitRetriesFailed": true,
}

// Category classifies an exit status as a model outcome, an infrastructure failure, or
// unfinished (cut by a run-wide budget).
func Category(status string) string {
	switch {
	case status == model.StatusRunBudgetExhausted:
		return results.CategoryUnfinished
	case infrastructureStatuses[status]:
		return results.CategoryInfrastructure
	}
	return results.CategoryModel
}

// Resume says which earlier outcomes a run repeats.
type Resume struct {
	RedoExisting bool // rerun everything
	RetryFailed  bool // also rerun model outcomes other than Submitted
	MaxAttempts  int  // attempts per instance for infrastructure failures, over all runs (default 3)
}

// Pending splits insts into those to run and the number skipped because their last attempt is
// final: a model outcome (unless RetryFailed and not Submitted), or an infrastructure failure
// that used up its attempts. An unfinished attempt (cut by a run-wide budget) always runs again.
func Pending(insts []dataset.Instance, history map[string][]results.Record, r Resume) ([]dataset.Instance, int) {
	if r.RedoExisting {
		return insts, 0
	}
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 3
	}
	var todo []dataset.Instance
	skipped := 0
	for _, inst := range insts {
		h := history[inst.InstanceID]
		if len(h) > 0 {
			last := h[len(h)-1]
			var rerun bool
			switch last.Category {
			case results.CategoryUnfinished:
				rerun = true
			case results.CategoryInfrastructure:
				rerun = attemptsSinceFinal(h) < r.MaxAttempts
			default:
				rerun = r.RetryFailed && last.ExitStatus != agent.StatusSubmitted
			}
			if !rerun {
				skipped++
				continue
			}
		}
		todo = append(todo, inst)
	}
	return todo, skipped
}

// attemptsSinceFinal counts the infrastructure failures since the last model outcome, so that a
// --redo-existing or --retry-failed rerun gets its own attempts. Unfinished attempts (cut by a
// budget) do not count.
func attemptsSinceFinal(h []results.Record) int {
	n := 0
	for i := len(h) - 1; i >= 0 && h[i].Category != results.CategoryModel; i-- {
		if h[i].Category == results.CategoryInfrastructure {
			n++
		}
	}
	return n
}

// ErrInterrupted is returned when the batch stopped early because of Stop or ctx.
var ErrInterrupted = errors.New("run interrupted")

// Run runs the pending instances of insts: a sweep of one cell (see Sweep). Instance failures
// are data (statuses in the ledger); the error is for failures of the run itself (output not
// writable, fatal model error) or ErrInterrupted.
func Run(ctx context.Context, insts []dataset.Instance, opts Options) (Summary, error) {
	cell := Cell{
		RunID: opts.RunID, Config: opts.Config, Models: opts.Models, ModelName: opts.ModelName,
		Out: opts.Out, Instances: insts, ImageTemplate: opts.ImageTemplate, History: opts.History, Resume: opts.Resume,
		Budget: opts.Budget, Logger: opts.Logger, AfterInstance: opts.AfterInstance,
		Installed: opts.Installed,
	}
	sw, err := Sweep(ctx, []Cell{cell}, SweepOptions{
		Version: opts.Version, Workers: opts.Workers, Backend: opts.Backend, Limits: opts.Limits,
		Progress: opts.Progress, Stop: opts.Stop, BackendWait: opts.BackendWait, Logger: opts.Logger,
	})
	sum := sw.Cells[0].Summary
	if stopped := sw.Cells[0].Stopped; stopped != nil && (err == nil || errors.Is(err, ErrInterrupted)) {
		// Every other instance would fail the same way (e.g. a bad API key): the run stopped.
		return sum, fmt.Errorf("stopping the run: %w", stopped)
	}
	return sum, err
}

// runInstance runs one attempt of one instance of cell c and records it. The returned error is
// fatal for the sweep (the output directory cannot be written), a *fatalModelError, fatal for
// the cell, or an error matching sandbox.ErrBackendDown when no slot could be had because no
// part of the backend answers (nothing was recorded: the instance waits for the backend). A
// sandbox whose removal fails is handed to gate, which removes it once the backend answers.
//
// launcherOff: the instance's last attempt lost its sandbox's launcher (StatusLauncherLost), so
// this one runs its commands with the backend's exec.
func runInstance(ctx context.Context, c *Cell, o *SweepOptions, inst dataset.Instance, attempt int, launcherOff bool, queued time.Time, renderer *agent.Renderer, gate *gate, teardowns *sync.WaitGroup) (_ results.Record, pred *results.Prediction, _ error) {
	id := inst.InstanceID
	log := c.Logger.With("instance", id, "attempt", attempt)
	rec := results.Record{InstanceID: id, Attempt: attempt, ModelName: c.ModelName, Queued: unix(queued)}
	info := &results.RunInfo{Version: o.Version, RunID: c.RunID, Attempt: attempt}
	traj := &results.Trajectory{InstanceID: id, TrajectoryFormat: results.TrajectoryFormat,
		Info: results.TrajectoryInfo{Config: c.Config.Dump(), SwebenchRun: info}}
	mini1 := c.Config.Layout == configs.LayoutV1
	if mini1 { // a 1.x config runs as 1.x did and is recorded as 1.x recorded it
		traj.TrajectoryFormat, traj.Info.MiniVersion = results.TrajectoryFormatV1, configs.MiniVersionV1
	}

	// finish records the attempt; a trajectory is written even when no container ever started.
	var slot sandbox.Slot
	var slotErr error     // the cause the slot is released with
	var cenv *startingEnv // the container's start, once it began
	finish := func(status string, cause error, res *agent.Result) (results.Record, *results.Prediction, error) {
		if cenv != nil {
			if g := cenv.guardResult(); g != nil {
				rec.History, rec.HistoryGuard = g.Applied, g.Seconds
				info.History = &results.HistoryInfo{Mode: g.Mode, Applied: g.Applied, Repo: g.Repo, Head: g.Head,
					Start: g.Start, Submodules: g.Submodules, Seconds: g.Seconds, Note: g.Note}
			}
		}
		if slot != nil && errors.Is(cause, sandbox.ErrBackendDown) {
			slotErr = cause // taken out of rotation when the slot is released
			status = StatusEngineDown
		}
		rec.ExitStatus = status
		rec.Category = Category(status)
		if errors.Is(cause, model.ErrRetriesExhausted) || errors.Is(cause, context.Canceled) ||
			errors.Is(cause, model.ErrFatal) && !errors.Is(cause, model.ErrBudgetExhausted) {
			// The API kept failing, refused the key, or the run was cancelled: nothing was
			// learned about the model, so a resume tries again.
			rec.Category = results.CategoryInfrastructure
		}
		rec.End = unix(time.Now())
		if res != nil {
			rec.Cost = res.Stats.Cost
			rec.APICalls = res.Stats.APICalls
			rec.Steps = len(res.Stats.Steps)
			rec.Tokens = tokens(res.Stats.Usage)
			rec.PatchBytes = len(res.Submission)
			fillTrajectory(traj, *res)
			if res.ExitStatus != "" { // 1.x: the exit is not a message
				traj.Info.ExitStatus, traj.Info.Submission = res.ExitStatus, res.Submission
			}
			if res.ExceptionStr != "" {
				traj.Info.ExceptionStr, traj.Info.Traceback = res.ExceptionStr, res.Traceback
			}
		} else if mini1 {
			traj.Messages = []map[string]any{}
			traj.Info.ExitStatus = status
			traj.Info.ExceptionStr = cause.Error()
		} else {
			traj.Messages = []map[string]any{{"role": "exit", "content": cause.Error(),
				"extra": map[string]any{"exit_status": status, "submission": "", "exception_str": cause.Error()}}}
			traj.Info.ExitStatus = status
			traj.Info.ExceptionStr = cause.Error()
		}
		if cause != nil {
			rec.Error = cause.Error()
			log.Warn("instance ended with an error", "status", status, "err", cause)
		} else {
			log.Info("instance finished", "status", status, "cost", rec.Cost, "steps", rec.Steps)
		}
		if err := c.Out.WriteTrajectory(traj); err != nil {
			return rec, nil, err
		}
		if rec.Category == results.CategoryModel {
			patch := ""
			if res != nil {
				patch = res.Submission
			}
			pred = &results.Prediction{ModelNameOrPath: c.ModelName, InstanceID: id, ModelPatch: patch}
		}
		return rec, pred, c.Out.Record(rec, pred)
	}

	image, err := inst.ImageName(c.ImageTemplate)
	if err != nil {
		return finish(StatusImageUnavailable, err, nil)
	}
	rec.Image, info.Image = image, image
	env := c.Config.Environment
	env.Cwd = inst.WorkingDir(env.Cwd) // the family's repository directory (SWE-bench Pro: /app)
	vars := templateVars(inst, c.Config, image)
	if inst.WorkDir != "" {
		vars["cwd"] = env.Cwd
	}
	startup := ""
	if cmd := c.Config.Run.EnvStartupCommand; cmd != "" {
		if startup, err = renderer.Render("run.env_startup_command", cmd, vars); err != nil {
			return finish(StatusEnvStartupFailed, err, nil)
		}
	}
	var llm agent.Model
	if c.Installed == nil {
		if llm, err = c.Models.ForInstance(id); err != nil {
			return finish(StatusModelSetupError, err, nil)
		}
	}
	slot, err = o.Backend.Acquire(ctx)
	if err != nil {
		if errors.Is(err, sandbox.ErrBackendDown) {
			return rec, nil, err // no engine answers: wait for it
		}
		return finish(agent.StatusInterrupted, err, nil)
	}
	// Released right after the teardown below starts (defers run last-in first-out): a removal
	// under way does not hold a worker's slot.
	defer func() { slot.Release(slotErr) }()
	rec.Host, info.Host = slot.Host(), slot.Host()
	o.Progress.Event(Event{Cell: c.Name, Instance: id, Phase: PhasePulling})
	imageID, err := slot.PrepareImage(ctx, image)
	if err != nil {
		return finish(StatusImageUnavailable, err, nil)
	}
	rec.ImageID, info.ImageID = imageID, imageID
	rec.ImageReady = unix(time.Now())

	log.Info("image ready", "image", image, "image_id", imageID, "host", rec.Host)
	o.Progress.Event(Event{Cell: c.Name, Instance: id, Phase: PhaseStarting})
	// The container starts while the agent makes its first model call, which needs no
	// container; the first command waits for it.
	spec := sandbox.Spec{Image: image, RunID: c.RunID, InstanceID: id, Role: "agent", Cwd: env.Cwd, Limits: o.Limits,
		Launcher: sandbox.Launcher(env.Launcher)}
	if launcherOff {
		spec.Launcher = sandbox.LauncherOff
		log.Info("the last attempt lost its sandbox's launcher while a command ran: this attempt runs its commands with the backend's exec")
	}
	guard := guardPlan{mode: env.History, layout: historyguard.Layout{Repo: env.Cwd}}
	if c.History != nil {
		h := c.History(inst)
		guard.layout.PastIsAnswer = h.PastIsAnswer
		if h.Repo != "" {
			guard.layout.Repo = h.Repo
		}
	}
	cenv = startContainer(ctx, slot, spec, env, inst.PreAgentCommands, startup, guard, log)
	cenv.onReady = func(c sandbox.Sandbox) { info.ContainerID = c.ID() }
	defer func() {
		// Teardown leaves the worker: it takes its next instance while the backend removes this
		// container. Run waits for every teardown before it returns.
		teardowns.Add(1)
		go func() {
			defer teardowns.Done()
			if c := cenv.wait(); c != nil {
				if err := c.Remove(ctx); err != nil {
					log.Warn("container removal failed; it is removed again once the backend answers", "container", c.Name(), "err", err)
					gate.leftover(c)
				}
			}
			slot.ReleaseImage(context.WithoutCancel(ctx), image)
		}()
	}()

	if c.Installed != nil {
		return runInstalled(ctx, installedRun{c: c, inst: inst, env: cenv, cwd: env.Cwd, traj: traj, info: info, rec: &rec, log: log, stop: o.Stop, finish: finish})
	}
	ag := agent.New(c.Config.Agent, llm, cenv, renderer)
	ag.Vars = vars
	ag.Stop = o.Stop
	firstStep := true
	ag.OnStep = func(msgs []agent.Message, stats agent.Stats) error {
		if firstStep {
			rec.FirstStep = unix(time.Now())
			firstStep = false
		}
		o.Progress.Event(Event{Cell: c.Name, Instance: id, Phase: PhaseStep, Step: stats.APICalls, Cost: stats.Cost})
		fillTrajectory(traj, agent.Result{Messages: msgs, Stats: stats})
		if err := c.Out.WriteTrajectory(traj); err != nil {
			return fmt.Errorf("%w: %w", errOutput, err)
		}
		return nil
	}
	o.Progress.Event(Event{Cell: c.Name, Instance: id, Phase: PhaseStep})
	res, runErr := ag.Run(ctx, inst.TaskText())
	if runErr != nil && isOutputError(runErr) {
		return rec, nil, runErr
	}
	rec, pred, err = finish(res.ExitStatus, runErr, &res)
	if err == nil && runErr != nil && errors.Is(runErr, model.ErrFatal) && !errors.Is(runErr, model.ErrBudgetExhausted) {
		// Every other instance of the cell would fail the same way (e.g. a bad API key).
		return rec, pred, &fatalModelError{runErr}
	}
	return rec, pred, err
}

// imagesOf resolves the image of every instance ("" where the template fails; the instance
// reports that error when it runs).
func imagesOf(insts []dataset.Instance, template string) []string {
	out := make([]string, len(insts))
	for i := range insts {
		out[i], _ = insts[i].ImageName(template)
	}
	return out
}

// isOutputError reports whether err came from writing the output directory.
func isOutputError(err error) bool { return errors.Is(err, errOutput) }

var errOutput = errors.New("output directory not writable")

func fillTrajectory(t *results.Trajectory, res agent.Result) {
	t.Messages = make([]map[string]any, len(res.Messages))
	for i, m := range res.Messages {
		t.Messages[i] = m
	}
	t.Info.ModelStats = results.ModelStats{InstanceCost: res.Stats.Cost, APICalls: res.Stats.APICalls}
	if n := len(res.Messages); n > 0 {
		extra, _ := res.Messages[n-1]["extra"].(map[string]any) // read only: 1.x messages have none
		t.Info.ExitStatus, _ = extra["exit_status"].(string)
		t.Info.Submission, _ = extra["submission"].(string)
		t.Info.ExceptionStr, _ = extra["exception_str"].(string)
		t.Info.Traceback, _ = extra["traceback"].(string)
	}
	ri := t.Info.SwebenchRun
	ri.Tokens = tokens(res.Stats.Usage)
	ri.StepTimings = ri.StepTimings[:0]
	for _, s := range res.Stats.Steps {
		ri.StepTimings = append(ri.StepTimings, results.StepTiming{Model: s.Model.Seconds(), Env: s.Env.Seconds()})
	}
}

// templateVars are the variables of the instance's templates: the config's (environment
// settings such as {{timeout}}, model settings, the host's uname fields, as mini-swe-agent
// provides them), then every dataset column by name (the row wins: {{version}} is the dataset's
// version), then {{image}}.
func templateVars(inst dataset.Instance, cfg *configs.Config, image string) map[string]any {
	vars := cfg.TemplateVars()
	for k, v := range inst.TemplateVars() {
		vars[k] = v
	}
	vars["image"] = image
	return vars
}

func tokens(u agent.Usage) results.Tokens {
	return results.Tokens{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens, Reasoning: u.ReasoningTokens}
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
