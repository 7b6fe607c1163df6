package agent

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Config holds the loop's templates and limits, with mini-swe-agent's key names. The observation
// and format-error templates live under `model:` in mini-swe-agent configs; the loader moves
// them here.
type Config struct {
	SystemTemplate             string  `yaml:"system_template" json:"system_template"`
	InstanceTemplate           string  `yaml:"instance_template" json:"instance_template"`
	StepLimit                  int     `yaml:"step_limit" json:"step_limit"`
	CostLimit                  float64 `yaml:"cost_limit" json:"cost_limit"`
	WallTimeLimitSeconds       int     `yaml:"wall_time_limit_seconds" json:"wall_time_limit_seconds"`
	MaxConsecutiveFormatErrors int     `yaml:"max_consecutive_format_errors" json:"max_consecutive_format_errors"`
	// MaxRepeatedActions ends the run with RepeatedAction when this many steps in a row ran the
	// same commands and got the same outputs (0: off, as in mini-swe-agent).
	MaxRepeatedActions int `yaml:"max_repeated_actions" json:"max_repeated_actions"`
	// Kind is the agent kind: KindLoop ("" too) or KindInstalled.
	Kind string `yaml:"kind" json:"kind,omitempty"`
	// Installed configures an installed agent (Kind KindInstalled).
	Installed           *InstalledConfig `yaml:"installed" json:"installed,omitempty"`
	ObservationTemplate string           `yaml:"-" json:"-"`
	FormatErrorTemplate string           `yaml:"-" json:"-"`

	// Mini1 runs the loop with mini-swe-agent 1.x semantics (see v1.go); the loader sets it,
	// with the two fields below, for configs in 1.x layout.
	Mini1 bool `yaml:"-" json:"-"`
	// TimeoutTemplate renders the observation of a command that timed out (1.x only).
	TimeoutTemplate string `yaml:"-" json:"-"`
	// ActionRegex finds the command in a reply (1.x only; Python re syntax, see
	// CompilePyRegex): exactly one match is a valid reply.
	ActionRegex string `yaml:"-" json:"-"`
}

// Exit statuses the loop itself produces.
const (
	StatusSubmitted           = "Submitted"
	StatusLimitsExceeded      = "LimitsExceeded"
	StatusTimeExceeded        = "TimeExceeded"
	StatusRepeatedFormatError = "RepeatedFormatError"
	StatusInterrupted         = "Interrupted"
	// StatusRepeatedAction: the model kept running the same commands with the same outputs
	// (agent.max_repeated_actions); not a mini-swe-agent status.
	StatusRepeatedAction = "RepeatedAction"
)

// SubmitMarker, as the first line of a successful command's output, ends the run; the rest of
// the output is the submission.
const SubmitMarker = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"

// Agent runs one instance. It is not safe for concurrent use; make one per instance.
type Agent struct {
	cfg      Config
	model    Model
	env      Env
	renderer *Renderer

	// Vars are extra template variables (the instance's columns, config dumps, …); "task" and the
	// loop's counters are added by Run.
	Vars map[string]any
	// OnStep is called after every step (and after the start and the end) with the messages so
	// far; the runner saves the trajectory there. An error from it stops the run.
	OnStep func(messages []Message, stats Stats) error
	// Stop, when closed, ends the run before its next model call with exit status Interrupted
	// (graceful shutdown: the current step finishes first).
	Stop <-chan struct{}
	// Now is the clock (tests replace it).
	Now func() time.Time

	messages          []Message
	stats             Stats
	consecutiveFormat int
	start             time.Time
	// lastStep and repeats track identical consecutive steps (MaxRepeatedActions).
	lastStep string
	repeats  int
	// end is how a 1.x run ended (1.x records it outside the messages).
	end v1End
}

// Stats are the loop's counters, saved in the trajectory.
type Stats struct {
	Cost     float64
	APICalls int
	Usage    Usage
	Steps    []StepTiming
}

// StepTiming records how long one step spent in the model and in the environment.
type StepTiming struct {
	Model time.Duration `json:"model_seconds"`
	Env   time.Duration `json:"env_seconds"`
}

// New returns an agent for one instance. renderer may be shared between agents.
func New(cfg Config, model Model, env Env, renderer *Renderer) *Agent {
	if renderer == nil {
		renderer = NewRenderer()
	}
	return &Agent{cfg: cfg, model: model, env: env, renderer: renderer, Now: time.Now}
}

// Result is how a run ended.
type Result struct {
	ExitStatus string
	Submission string
	Messages   []Message
	Stats      Stats
	// ExceptionStr and Traceback describe the unexpected error that ended a 1.x run (a 2.x run
	// records them in its exit message).
	ExceptionStr string
	Traceback    string
}

// errWallTime is the cause of the run context's end when the wall-time limit is reached.
var errWallTime = errors.New("wall-time limit reached")

// interrupt ends the loop by appending its messages (mini-swe-agent's InterruptAgentFlow).
type interrupt struct{ messages []Message }

func (i *interrupt) Error() string { return "interrupt" }

func exitMessage(status, content, submission string) Message {
	return Message{"role": "exit", "content": content, "extra": map[string]any{"exit_status": status, "submission": submission}}
}

// Run runs the loop on task until an exit message. The returned error is non-nil only for an
// unexpected failure (model or environment broken, OnStep failed); the exit message recording it
// is still appended and saved, as mini-swe-agent does before re-raising.
func (a *Agent) Run(ctx context.Context, task string) (Result, error) {
	if a.cfg.Mini1 {
		return a.runV1(ctx, task)
	}
	a.start = a.Now()
	a.messages = nil
	a.lastStep, a.repeats = "", 0
	vars := a.templateVars(task)
	system, err := a.renderer.Render("system_template", a.cfg.SystemTemplate, vars)
	if err != nil {
		return a.fail(err)
	}
	instance, err := a.renderer.Render("instance_template", a.cfg.InstanceTemplate, vars)
	if err != nil {
		return a.fail(err)
	}
	a.messages = append(a.messages, Message{"role": "system", "content": system}, Message{"role": "user", "content": instance})

	// The wall-time limit also cuts a step that hangs (a model call or command that never
	// returns); mini-swe-agent checks it only between steps.
	parent := ctx
	if limit := a.cfg.WallTimeLimitSeconds; limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, time.Duration(limit)*time.Second, errWallTime)
		defer cancel()
	}
	for {
		stepErr := a.step(ctx, task)
		var intr *interrupt
		switch {
		case stepErr == nil:
			a.consecutiveFormat = 0
		case errors.As(stepErr, &intr):
			a.messages = append(a.messages, intr.messages...)
		case parent.Err() == nil && errors.Is(context.Cause(ctx), errWallTime):
			a.messages = append(a.messages, exitMessage(StatusTimeExceeded, StatusTimeExceeded, ""))
		default:
			return a.fail(stepErr)
		}
		if err := a.save(); err != nil {
			return a.fail(err)
		}
		if a.messages[len(a.messages)-1].Role() == "exit" {
			return a.result(), nil
		}
	}
}

func (a *Agent) save() error {
	if a.OnStep == nil {
		return nil
	}
	return a.OnStep(a.messages, a.stats)
}

// fail appends the exit message of an unexpected error, saves, and returns the error.
func (a *Agent) fail(err error) (Result, error) {
	status := ExitStatusOf(err)
	msg := exitMessage(status, err.Error(), "")
	msg.Extra()["exception_str"] = err.Error()
	msg.Extra()["traceback"] = fmt.Sprintf("%+v", err)
	a.messages = append(a.messages, msg)
	if serr := a.save(); serr != nil {
		err = errors.Join(err, serr)
	}
	return a.result(), err
}

func (a *Agent) result() Result {
	last := a.messages[len(a.messages)-1].Extra()
	status, _ := last["exit_status"].(string)
	sub, _ := last["submission"].(string)
	return Result{ExitStatus: status, Submission: sub, Messages: a.messages, Stats: a.stats}
}

// ExitStatusOf names the exit status for an error: the error's own ExitStatus if it has one,
// context cancellation as Interrupted, else its Go type name (as mini-swe-agent uses the
// exception's class name).
func ExitStatusOf(err error) string {
	var es ExitStatuser
	if errors.As(err, &es) {
		return es.ExitStatus()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return StatusInterrupted
	}
	t := reflect.TypeOf(err)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if name := t.Name(); name != "" && name != "errorString" && name != "wrapError" && name != "joinError" {
		return name
	}
	return "Error"
}

// templateVars builds the variables of every template the way mini-swe-agent merges them: the
// agent's config, then Vars (environment and model config, instance columns, …), then the loop's
// counters, then the task.
func (a *Agent) templateVars(task string) map[string]any {
	vars := make(map[string]any, len(a.Vars)+16)
	vars["system_template"] = a.cfg.SystemTemplate
	vars["instance_template"] = a.cfg.InstanceTemplate
	vars["step_limit"] = a.cfg.StepLimit
	vars["cost_limit"] = a.cfg.CostLimit
	vars["wall_time_limit_seconds"] = a.cfg.WallTimeLimitSeconds
	vars["max_consecutive_format_errors"] = a.cfg.MaxConsecutiveFormatErrors
	vars["max_repeated_actions"] = a.cfg.MaxRepeatedActions
	for k, v := range a.Vars {
		vars[k] = v
	}
	vars["n_model_calls"] = a.stats.APICalls
	vars["model_cost"] = a.stats.Cost
	vars["elapsed_seconds"] = int(a.Now().Sub(a.start).Seconds())
	vars["task"] = task
	return vars
}

func (a *Agent) step(ctx context.Context, task string) error {
	if 0 < a.cfg.StepLimit && a.cfg.StepLimit <= a.stats.APICalls || 0 < a.cfg.CostLimit && a.cfg.CostLimit <= a.stats.Cost {
		return &interrupt{[]Message{exitMessage(StatusLimitsExceeded, StatusLimitsExceeded, "")}}
	}
	if a.cfg.WallTimeLimitSeconds > 0 && a.cfg.WallTimeLimitSeconds <= int(a.Now().Sub(a.start).Seconds()) {
		return &interrupt{[]Message{exitMessage(StatusTimeExceeded, StatusTimeExceeded, "")}}
	}
	select {
	case <-a.Stop:
		return &interrupt{[]Message{exitMessage(StatusInterrupted, StatusInterrupted, "")}}
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	a.stats.APICalls++
	t0 := a.Now()
	reply, err := a.model.Query(ctx, a.messages)
	modelTime := a.Now().Sub(t0)
	var fe *FormatError
	if errors.As(err, &fe) {
		a.stats.Steps = append(a.stats.Steps, StepTiming{Model: modelTime})
		return a.formatError(task, fe)
	}
	if err != nil {
		return err
	}
	a.stats.Cost += reply.Cost
	a.stats.Usage.add(reply.Usage)
	msg := reply.Message
	extra := msg.Extra()
	actions := make([]any, len(reply.Actions))
	for i, act := range reply.Actions {
		m := map[string]any{"command": act.Command}
		if act.ToolCallID != "" {
			m["tool_call_id"] = act.ToolCallID
		}
		actions[i] = m
	}
	extra["actions"] = actions
	extra["cost"] = reply.Cost
	extra["timestamp"] = unixSeconds(a.Now())
	a.messages = append(a.messages, msg)

	t1 := a.Now()
	outputs := make([]Output, 0, len(reply.Actions))
	for _, act := range reply.Actions {
		out, err := a.env.Execute(ctx, act.Command)
		if err != nil {
			a.stats.Steps = append(a.stats.Steps, StepTiming{Model: modelTime, Env: a.Now().Sub(t1)})
			return err
		}
		if sub, ok := submission(out); ok {
			a.stats.Steps = append(a.stats.Steps, StepTiming{Model: modelTime, Env: a.Now().Sub(t1)})
			return &interrupt{[]Message{exitMessage(StatusSubmitted, sub, sub)}}
		}
		outputs = append(outputs, out)
	}
	a.stats.Steps = append(a.stats.Steps, StepTiming{Model: modelTime, Env: a.Now().Sub(t1)})
	obs, err := a.observations(task, reply.Actions, outputs)
	if err != nil {
		return err
	}
	if n := a.cfg.MaxRepeatedActions; n > 0 && a.repeated(reply.Actions, outputs) >= n {
		obs = append(obs, exitMessage(StatusRepeatedAction, fmt.Sprintf(
			"The same command(s) ran %d times in a row with the same output; the run was stopped (agent.max_repeated_actions).", a.repeats), ""))
		return &interrupt{obs}
	}
	a.messages = append(a.messages, obs...)
	return nil
}

// repeated records a step's actions and outputs and returns how many steps in a row, this one
// included, ran the same commands and got the same outputs.
func (a *Agent) repeated(actions []Action, outputs []Output) int {
	var b strings.Builder
	for i, act := range actions {
		fmt.Fprintf(&b, "%q\x00", act.Command)
		if i < len(outputs) {
			fmt.Fprintf(&b, "%d\x00%q\x00%q\x00", outputs[i].ReturnCode, outputs[i].Output, outputs[i].ExceptionInfo)
		}
	}
	sig := b.String()
	if sig == a.lastStep {
		a.repeats++
	} else {
		a.lastStep, a.repeats = sig, 1
	}
	return a.repeats
}

// submission reports whether out submits, with mini-swe-agent's rule: the first line of the
// left-stripped output (Python's str.lstrip and str.splitlines) is the marker, and the command
// succeeded; the rest of the output, line ends kept, is the submission.
func submission(out Output) (string, bool) {
	if out.ReturnCode != 0 {
		return "", false
	}
	s := strings.TrimLeftFunc(out.Output, isPySpace)
	first, rest := splitFirstLine(s)
	if first == "" || strings.TrimFunc(first, isPySpace) != SubmitMarker {
		return "", false
	}
	return rest, true
}

func (a *Agent) formatError(task string, fe *FormatError) error {
	a.stats.Cost += fe.Cost
	a.stats.Usage.add(fe.Usage)
	vars := a.templateVars(task)
	for k, v := range fe.Vars {
		vars[k] = v
	}
	vars["error"] = fe.Reason
	if _, ok := vars["actions"]; !ok {
		vars["actions"] = []string{}
	}
	content, err := a.renderer.Render("format_error_template", a.cfg.FormatErrorTemplate, vars)
	if err != nil {
		return err
	}
	extra := map[string]any{"interrupt_type": "FormatError"}
	for k, v := range fe.Extra {
		extra[k] = v
	}
	extra["cost"] = fe.Cost
	msgs := []Message{a.shape(Message{"role": "user", "content": content, "extra": extra})}
	a.consecutiveFormat++
	if n := a.cfg.MaxConsecutiveFormatErrors; n > 0 && a.consecutiveFormat >= n {
		msgs = append(msgs, exitMessage(StatusRepeatedFormatError, StatusRepeatedFormatError, ""))
	}
	return &interrupt{msgs}
}

func (a *Agent) observations(task string, actions []Action, outputs []Output) ([]Message, error) {
	vars := a.templateVars(task)
	msgs := make([]Message, 0, len(outputs))
	for i, out := range outputs {
		outVars := map[string]any{"output": out.Output, "returncode": out.ReturnCode, "exception_info": out.ExceptionInfo}
		for k, v := range out.Extra {
			if _, taken := outVars[k]; !taken {
				outVars[k] = v
			}
		}
		vars["output"] = outVars
		content, err := a.renderer.Render("observation_template", a.cfg.ObservationTemplate, vars)
		if err != nil {
			return nil, err
		}
		extra := map[string]any{
			"raw_output":     out.Output,
			"returncode":     out.ReturnCode,
			"timestamp":      unixSeconds(a.Now()),
			"exception_info": out.ExceptionInfo,
		}
		for k, v := range out.Extra {
			extra[k] = v
		}
		msg := Message{"content": content, "extra": extra}
		if id := actions[i].ToolCallID; id != "" {
			msg["role"] = "tool"
			msg["tool_call_id"] = id
		} else {
			msg["role"] = "user"
		}
		msgs = append(msgs, a.shape(msg))
	}
	return msgs, nil
}

// shape puts one of the agent's own messages into the model's shape (MessageShaper), if it has one.
func (a *Agent) shape(m Message) Message {
	if s, ok := a.model.(MessageShaper); ok {
		return s.ShapeMessage(m)
	}
	return m
}

func (u *Usage) add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.ReasoningTokens += o.ReasoningTokens
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
