package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dockerenv"
)

// containerEnv executes the agent's commands in one instance's container.
type containerEnv struct {
	c    *dockerenv.Container
	opts dockerenv.ExecOptions
}

var _ agent.Env = (*containerEnv)(nil)

func newContainerEnv(c *dockerenv.Container, cfg configs.Environment) *containerEnv {
	env := map[string]string{}
	for _, k := range cfg.ForwardEnv {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range cfg.Env {
		env[k] = v // env wins over forward_env, as in mini-swe-agent
	}
	return &containerEnv{c: c, opts: dockerenv.ExecOptions{
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
