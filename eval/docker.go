package eval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
)

// DockerStarter starts evaluation containers on a Docker engine: a fresh container from the
// instance image, labelled with role "eval", never the one the agent used.
type DockerStarter struct {
	Engine *dockerenv.Engine
	RunID  string
	Pull   dockerenv.PullPolicy
	Limits dockerenv.Limits
}

var _ Starter = (*DockerStarter)(nil)

// maxTestOutput bounds the test log kept in memory; the harness markers sit at its end, which a
// cap keeps (the middle of an enormous log is dropped, not its tail).
const maxTestOutput = 64 << 20

// Start implements Starter.
func (s *DockerStarter) Start(ctx context.Context, inst dataset.Instance, image string) (Sandbox, error) {
	if _, err := s.Engine.EnsureImage(ctx, image, s.Pull); err != nil {
		if errors.Is(err, dockerenv.ErrImageNotFound) {
			return nil, fmt.Errorf("%w: %v", ErrImageNotFound, err)
		}
		return nil, err
	}
	c, err := s.Engine.StartContainer(ctx, dockerenv.ContainerSpec{
		Image: image, RunID: s.RunID, InstanceID: inst.InstanceID, Role: "eval", Cwd: "/testbed", Limits: s.Limits,
	})
	if err != nil {
		if errors.Is(err, dockerenv.ErrImageNotFound) {
			return nil, fmt.Errorf("%w: %v", ErrImageNotFound, err)
		}
		return nil, err
	}
	return &dockerSandbox{c: c}, nil
}

type dockerSandbox struct{ c *dockerenv.Container }

func (b *dockerSandbox) Exec(ctx context.Context, cmd string, timeout time.Duration) (string, int, bool, error) {
	res, err := b.c.Exec(ctx, cmd, dockerenv.ExecOptions{Timeout: timeout, Cwd: "/testbed", MaxOutput: maxTestOutput})
	if err != nil {
		return "", 0, false, err
	}
	return res.Output, res.ExitCode, res.TimedOut, nil
}

func (b *dockerSandbox) WriteFile(ctx context.Context, path string, data []byte) error {
	return b.c.WriteFile(ctx, path, data)
}

func (b *dockerSandbox) Close(ctx context.Context) error { return b.c.Remove(ctx) }
