package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/runner/historyguard"
	"github.com/swebench-run/swebench-run/sandbox"
)

// containerEnv executes the agent's commands in one instance's container.
type containerEnv struct {
	c    sandbox.Sandbox
	opts sandbox.ExecOptions
}

var _ agent.Env = (*containerEnv)(nil)

// startingEnv is the environment of an instance whose container is still starting: the backend
// creates and starts it (and runs env_startup_command) while the agent makes its first model
// call, which needs no container. The first command waits for the start; a failed start ends
// the agent with ContainerStartError or EnvStartupFailed.
type startingEnv struct {
	done    chan struct{}
	env     *containerEnv         // nil when the start failed
	err     error                 // a *startError, or the sandbox's error during the guard
	onReady func(sandbox.Sandbox) // called once, by the first command
	// guard is the history guard's outcome, nil when it did not run (the start failed before
	// it); read after done.
	guard *historyguard.Result
}

// guardPlan is what the history guard does to an instance's repository.
type guardPlan struct {
	mode   string // environment.history
	layout historyguard.Layout
}

var _ agent.Env = (*startingEnv)(nil)

// startContainer starts the instance's container in slot, in the background, then runs its
// family's commands before the agent starts (preAgent) and the config's env_startup_command
// (startup, "" for none), each of which must exit 0, then the history guard (guard): all of it
// while the agent makes its first model call.
func startContainer(ctx context.Context, slot sandbox.Slot, spec sandbox.Spec, cfg configs.Environment, preAgent []string, startup string, guard guardPlan, log *slog.Logger) *startingEnv {
	s := &startingEnv{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		c, err := slot.Start(ctx, spec)
		if err != nil {
			status := StatusContainerError
			if errors.Is(err, sandbox.ErrImageUnavailable) {
				status = StatusImageUnavailable // known only at the start on some backends
			}
			s.err = &startError{status: status, err: err}
			return
		}
		log.Info("container started", "container", c.Name())
		s.env = newContainerEnv(c, cfg)
		for _, cmd := range preAgent {
			out, err := s.env.Execute(ctx, cmd)
			if err == nil && out.ReturnCode != 0 {
				err = fmt.Errorf("command before the agent starts (of the dataset's family) %q exited with %d: %s", cmd, out.ReturnCode, out.Output)
			}
			if err != nil {
				s.err = &startError{status: StatusEnvStartupFailed, err: err}
				return
			}
		}
		if startup != "" {
			out, err := s.env.Execute(ctx, startup)
			if err == nil && out.ReturnCode != 0 {
				err = fmt.Errorf("env_startup_command exited with %d: %s", out.ReturnCode, out.Output)
			}
			if err != nil {
				s.err = &startError{status: StatusEnvStartupFailed, err: err}
				return
			}
		}
		res, err := historyguard.Run(ctx, c, guard.mode, guard.layout)
		s.guard = &res
		var gerr *historyguard.Error
		switch {
		case errors.As(err, &gerr):
			s.err = &startError{status: StatusHistoryGuardFailed, err: err}
		case err != nil:
			s.err = envFailure(ctx, err) // the sandbox died or the backend went away
		default:
			log.Info("history guarded", "mode", res.Mode, "applied", res.Applied, "repo", res.Repo, "head", res.Head, "start", res.Start, "seconds", res.Seconds)
		}
	}()
	return s
}

// guardResult is the history guard's outcome once the start has ended, nil before or when the
// guard did not run.
func (s *startingEnv) guardResult() *historyguard.Result {
	select {
	case <-s.done:
		return s.guard
	default:
		return nil
	}
}

// wait waits for the start to end and returns the container, nil when none was created.
func (s *startingEnv) wait() sandbox.Sandbox {
	<-s.done
	if s.env == nil {
		return nil
	}
	return s.env.c
}

// Execute runs one command once the container is ready.
func (s *startingEnv) Execute(ctx context.Context, command string) (agent.Output, error) {
	select {
	case <-s.done:
	case <-ctx.Done():
		return agent.Output{}, ctx.Err()
	}
	if s.err != nil {
		if ctx.Err() != nil {
			return agent.Output{}, ctx.Err() // the start was cancelled with the run
		}
		return agent.Output{}, s.err
	}
	if s.onReady != nil {
		s.onReady(s.env.c)
		s.onReady = nil
	}
	return s.env.Execute(ctx, command)
}

// startError is a failed container start or env_startup_command, with the exit status it ends
// the instance with.
type startError struct {
	status string
	err    error
}

func (e *startError) Error() string      { return e.err.Error() }
func (e *startError) Unwrap() error      { return e.err }
func (e *startError) ExitStatus() string { return e.status }

func newContainerEnv(c sandbox.Sandbox, cfg configs.Environment) *containerEnv {
	env := map[string]string{}
	for _, k := range cfg.ForwardEnv {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range cfg.Env {
		env[k] = v // env wins over forward_env, as in mini-swe-agent
	}
	return &containerEnv{c: c, opts: sandbox.ExecOptions{
		Timeout:     time.Duration(cfg.Timeout * float64(time.Second)),
		Cwd:         cfg.Cwd,
		Env:         env,
		Interpreter: cfg.Interpreter,
	}}
}

// Execute runs one command. A timeout is an observation (return code -1, as mini-swe-agent
// reports it, with the partial output and an explanation), not an error.
func (e *containerEnv) Execute(ctx context.Context, command string) (agent.Output, error) {
	res, err := e.c.Exec(ctx, command, e.opts)
	if err != nil {
		return agent.Output{}, envFailure(ctx, err)
	}
	out := agent.Output{Output: res.Output, ReturnCode: res.ExitCode, Duration: res.Duration}
	if res.TimedOut {
		out.TimedOut = true
		out.ReturnCode = -1
		out.ExceptionInfo = fmt.Sprintf("The command timed out after %s and was killed; the output it printed before that is shown.", e.opts.Timeout)
		out.Extra = map[string]any{"timed_out": true}
	}
	if res.TruncatedBytes > 0 {
		if out.Extra == nil {
			out.Extra = map[string]any{}
		}
		out.Extra["output_bytes_elided"] = res.TruncatedBytes
	}
	return out, nil
}

// envFailure classifies an error of the environment itself. Cancellation stays cancellation
// (Interrupted); errors that name their status (ContainerDied, OOMKilled) keep it; anything else
// — an engine error in the middle of an exec — is an EnvironmentError, an infrastructure failure
// retried on resume, never a verdict on the model.
func envFailure(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var named agent.ExitStatuser
	if errors.As(err, &named) {
		return err
	}
	return &environmentError{err}
}

type environmentError struct{ err error }

func (e *environmentError) Error() string      { return e.err.Error() }
func (e *environmentError) Unwrap() error      { return e.err }
func (e *environmentError) ExitStatus() string { return StatusEnvironmentError }
