package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/internal/pyre"
)

// The mini-swe-agent 1.x loop, as its DefaultAgent runs it in the last 1.x release (1.17.5),
// selected by Config.Mini1. What differs from the 2.x loop in agent.go:
//
//   - The model returns text; the agent finds the command with Config.ActionRegex (Python
//     re.findall with DOTALL). Exactly one match is valid; the command is the match stripped.
//   - Every message is {"role", "content", "timestamp"} (the model may add "extra"); there are
//     no tool messages and no "exit" message.
//   - The assistant message is appended before its command is parsed. A reply without exactly
//     one command gets the rendered format_error_template (variable "actions": the matches) as a
//     user message, and the loop goes on: format errors never end a 1.x run, only the limits do.
//   - A command that times out gets the rendered timeout_template (variables "action", a dict
//     whose "action" is the command, and "output", the text printed before the kill) as a user
//     message; a timed-out command never submits.
//   - Observations render action_observation_template with "output", a dict of output,
//     returncode and action (printed as a Python dict by the 1.x default template).
//   - The submission: the first line of the left-stripped output is
//     COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT or MINI_SWE_AGENT_FINAL_OUTPUT and the return code
//     is 0 (the check of the return code came with 1.17.4); the rest of the output is the
//     submission, appended as the final user message.
//   - Limits are checked before each model call: step_limit against the model calls made so
//     far, cost_limit against their cost; reaching one appends an empty user message and ends
//     with LimitsExceeded.
//   - Exit status and submission live outside the messages (Result; the trajectory's info). An
//     unexpected error appends nothing: its type names the exit status.
//
// swebench-run's own limits (wall time, repeated actions, graceful stop) work the same way in
// both loops; they are off unless a 1.x config sets them.

// legacySubmitMarker is the submission marker of early 1.x configs, still accepted by 1.x.
const legacySubmitMarker = "MINI_SWE_AGENT_FINAL_OUTPUT"

// v1End ends a 1.x run: appends a user message with content (unless none) and records the exit.
type v1End struct {
	status     string
	content    string
	none       bool // no message (Interrupted)
	submission string
	exception  string
	traceback  string
}

func (e *v1End) Error() string { return "end of run: " + e.status }

func (a *Agent) runV1(ctx context.Context, task string) (Result, error) {
	a.start = a.Now()
	a.messages = nil
	a.end = v1End{}
	a.lastStep, a.repeats = "", 0
	re, err := CompilePyRegex(a.cfg.ActionRegex)
	if err != nil {
		return a.failV1(err)
	}
	vars := a.v1Vars(task)
	system, err := a.renderer.Render("system_template", a.cfg.SystemTemplate, vars)
	if err != nil {
		return a.failV1(err)
	}
	instance, err := a.renderer.Render("instance_template", a.cfg.InstanceTemplate, vars)
	if err != nil {
		return a.failV1(err)
	}
	a.addV1(Message{"role": "system", "content": system})
	a.addV1(Message{"role": "user", "content": instance})

	parent := ctx
	if limit := a.cfg.WallTimeLimitSeconds; limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, time.Duration(limit)*time.Second, errWallTime)
		defer cancel()
	}
	for {
		stepErr := a.stepV1(ctx, task, re)
		var end *v1End
		switch {
		case stepErr == nil:
		case errors.As(stepErr, &end):
		case parent.Err() == nil && errors.Is(context.Cause(ctx), errWallTime):
			end = &v1End{status: StatusTimeExceeded}
		default:
			return a.failV1(stepErr)
		}
		if end != nil {
			if !end.none {
				a.addV1(Message{"role": "user", "content": end.content})
			}
			a.end = *end
		}
		if err := a.save(); err != nil {
			return a.failV1(err)
		}
		if end != nil {
			return a.resultV1(), nil
		}
	}
}

// addV1 appends m with its timestamp, as 1.x's add_message does.
func (a *Agent) addV1(m Message) {
	m["timestamp"] = unixSeconds(a.Now())
	a.messages = append(a.messages, m)
}

// failV1 records an unexpected error as the exit (1.x appends no message for it), saves, and
// returns the error.
func (a *Agent) failV1(err error) (Result, error) {
	a.end = v1End{status: ExitStatusOf(err), exception: err.Error(), traceback: fmt.Sprintf("%+v", err)}
	if serr := a.save(); serr != nil {
		err = errors.Join(err, serr)
	}
	return a.resultV1(), err
}

func (a *Agent) resultV1() Result {
	return Result{ExitStatus: a.end.status, Submission: a.end.submission, Messages: a.messages, Stats: a.stats,
		ExceptionStr: a.end.exception, Traceback: a.end.traceback}
}

// v1Vars are 1.x's template variables: the agent's config, then Vars (environment and model
// config, instance columns), then the model's counters, then the task.
func (a *Agent) v1Vars(task string) map[string]any {
	vars := make(map[string]any, len(a.Vars)+16)
	vars["system_template"] = a.cfg.SystemTemplate
	vars["instance_template"] = a.cfg.InstanceTemplate
	vars["timeout_template"] = a.cfg.TimeoutTemplate
	vars["format_error_template"] = a.cfg.FormatErrorTemplate
	vars["action_observation_template"] = a.cfg.ObservationTemplate
	vars["action_regex"] = a.cfg.ActionRegex
	vars["step_limit"] = a.cfg.StepLimit
	vars["cost_limit"] = a.cfg.CostLimit
	for k, v := range a.Vars {
		vars[k] = v
	}
	vars["n_model_calls"] = a.stats.APICalls
	vars["model_cost"] = a.stats.Cost
	vars["task"] = task
	return vars
}

func (a *Agent) stepV1(ctx context.Context, task string, re *pyre.Regexp) error {
	if 0 < a.cfg.StepLimit && a.cfg.StepLimit <= a.stats.APICalls || 0 < a.cfg.CostLimit && a.cfg.CostLimit <= a.stats.Cost {
		return &v1End{status: StatusLimitsExceeded}
	}
	if a.cfg.WallTimeLimitSeconds > 0 && a.cfg.WallTimeLimitSeconds <= int(a.Now().Sub(a.start).Seconds()) {
		return &v1End{status: StatusTimeExceeded}
	}
	select {
	case <-a.Stop:
		return &v1End{status: StatusInterrupted, none: true}
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	t0 := a.Now()
	reply, err := a.model.Query(ctx, a.messages)
	modelTime := a.Now().Sub(t0)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return fmt.Errorf("the model parsed its reply itself (%s), but a mini-swe-agent 1.x config needs its text: %w", fe.Reason, err)
		}
		return err
	}
	a.stats.APICalls++
	a.stats.Cost += reply.Cost
	a.stats.Usage.add(reply.Usage)
	msg := Message{}
	for k, v := range reply.Message {
		msg[k] = v
	}
	msg["role"] = "assistant"
	content := msg.Content()
	msg["content"] = content
	a.addV1(msg)

	actions := findAllPy(re, content)
	if len(actions) != 1 {
		a.stats.Steps = append(a.stats.Steps, StepTiming{Model: modelTime})
		vars := a.v1Vars(task)
		vars["actions"] = actions
		text, err := a.renderer.Render("format_error_template", a.cfg.FormatErrorTemplate, vars)
		if err != nil {
			return err
		}
		a.addV1(Message{"role": "user", "content": text})
		return nil
	}
	cmd := strings.TrimFunc(actions[0], isPySpace)

	t1 := a.Now()
	out, err := a.env.Execute(ctx, cmd)
	a.stats.Steps = append(a.stats.Steps, StepTiming{Model: modelTime, Env: a.Now().Sub(t1)})
	if err != nil {
		return err
	}
	vars := a.v1Vars(task)
	if out.TimedOut {
		vars["action"] = newPyDict("action", cmd, "content", content)
		vars["output"] = out.Output
		text, err := a.renderer.Render("timeout_template", a.cfg.TimeoutTemplate, vars)
		if err != nil {
			return err
		}
		a.addV1(Message{"role": "user", "content": text})
		return nil
	}
	if sub, ok := submissionV1(out); ok {
		return &v1End{status: StatusSubmitted, content: sub, submission: sub}
	}
	vars["output"] = newPyDict("output", out.Output, "returncode", out.ReturnCode, "action", cmd)
	text, err := a.renderer.Render("action_observation_template", a.cfg.ObservationTemplate, vars)
	if err != nil {
		return err
	}
	a.addV1(Message{"role": "user", "content": text})
	if n := a.cfg.MaxRepeatedActions; n > 0 && a.repeated([]Action{{Command: cmd}}, []Output{out}) >= n {
		return &v1End{status: StatusRepeatedAction, content: fmt.Sprintf(
			"The same command ran %d times in a row with the same output; the run was stopped (agent.max_repeated_actions).", a.repeats)}
	}
	return nil
}

// submissionV1 applies 1.x's rule: the first line of the left-stripped output, stripped, is one
// of the markers and the command succeeded; the other lines, line ends kept, are the submission.
func submissionV1(out Output) (string, bool) {
	if out.ReturnCode != 0 {
		return "", false
	}
	s := strings.TrimLeftFunc(out.Output, isPySpace)
	if s == "" {
		return "", false
	}
	first, rest := splitFirstLine(s)
	switch strings.TrimFunc(first, isPySpace) {
	case SubmitMarker, legacySubmitMarker:
		return rest, true
	}
	return "", false
}
