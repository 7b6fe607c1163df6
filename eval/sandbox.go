package eval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/sandbox"
)

// SandboxStarter starts evaluation containers through a sandbox backend: a fresh container from
// the instance image, with role "eval", never the one the agent used.
type SandboxStarter struct {
	Backend sandbox.Starter
	RunID   string
	Limits  sandbox.Limits
}

var _ Starter = (*SandboxStarter)(nil)

// maxTestOutput bounds the test log kept in memory; the harness markers sit at its end, which a
// cap keeps (the middle of an enormous log is dropped, not its tail).
const maxTestOutput = 64 << 20

// Start implements Starter.
func (s *SandboxStarter) Start(ctx context.Context, inst dataset.Instance, image string) (Sandbox, error) {
	cwd := inst.WorkingDir(sandbox.DefaultCwd)
	sb, err := s.Backend.Start(ctx, sandbox.Spec{
		Image: image, RunID: s.RunID, InstanceID: inst.InstanceID, Role: "eval", Cwd: cwd, Limits: s.Limits,
	})
	if err != nil {
		if errors.Is(err, sandbox.ErrImageUnavailable) {
			return nil, fmt.Errorf("%w: %v", ErrImageNotFound, err)
		}
		return nil, err
	}
	return &evalSandbox{sb: sb, cwd: cwd}, nil
}

type evalSandbox struct {
	sb  sandbox.Sandbox
	cwd string
}

func (b *evalSandbox) Exec(ctx context.Context, cmd string, timeout time.Duration) (string, int, bool, error) {
	res, err := b.sb.Exec(ctx, cmd, sandbox.ExecOptions{Timeout: timeout, Cwd: b.cwd, MaxOutput: maxTestOutput})
	if err != nil {
		return "", 0, false, err
	}
	return res.Output, res.ExitCode, res.TimedOut, nil
}

func (b *evalSandbox) WriteFile(ctx context.Context, path string, data []byte) error {
	return b.sb.WriteFile(ctx, path, data)
}

func (b *evalSandbox) Close(ctx context.Context) error { return b.sb.Remove(ctx) }
