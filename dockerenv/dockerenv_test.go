package dockerenv_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/launcher/launchertest"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/sandbox/sandboxtest"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

func startTestContainer(t *testing.T, e *dockerenv.Engine, spec sandbox.Spec) *dockerenv.Container {
	t.Helper()
	if spec.Image == "" {
		spec.Image = testenv.BaseImage
	}
	if spec.RunID == "" {
		spec.RunID = "test-" + strings.ReplaceAll(t.Name(), "/", "-")
	}
	if spec.InstanceID == "" {
		spec.InstanceID = "test__dockerenv-1"
	}
	if spec.Cwd == "" {
		spec.Cwd = "/tmp"
	}
	if spec.Launcher == "" {
		// The tests of the exec path (kills through PID 1, limits, …) run without the launcher
		// that a make launcher embedded; the launcher's tests ask for it.
		spec.Launcher = sandbox.LauncherOff
	}
	ctx := context.Background()
	// Sweep by run id at cleanup as well, so a failed create leaves nothing either.
	t.Cleanup(func() { _, _ = e.Sweep(context.Background(), sandbox.Selector{RunID: spec.RunID}) })
	c, err := e.StartContainer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Remove(context.Background()) })
	return c
}

// The behaviour the runner and eval rely on, on the real engine: a pool of the default engine
// that never pulls (the suite's images are built locally by `make images`), with the launcher
// (built from this checkout) and without it.
func TestConformance(t *testing.T) {
	testenv.RequireImage(t, testenv.Docker(t), testenv.BaseImage)
	for _, mode := range []sandbox.Launcher{sandbox.LauncherAuto, sandbox.LauncherOff} {
		t.Run("launcher="+string(mode), func(t *testing.T) {
			sandboxtest.Run(t, sandboxtest.Config{
				Image: testenv.BaseImage,
				New: func(t *testing.T, capacity int) sandboxtest.Backend {
					return newPool(t, capacity, mode)
				},
			})
		})
	}
}

// newPool returns a pool of the default engine that never pulls, with the launcher built from
// this checkout (mode auto) or without it.
func newPool(t *testing.T, capacity int, mode sandbox.Launcher) *dockerenv.Pool {
	t.Helper()
	opts := dockerenv.Options{Pull: dockerenv.PullNever, Launcher: mode}
	if mode != sandbox.LauncherOff {
		opts.LauncherBinaries = launchertest.Binaries(t)
	}
	pool, err := dockerenv.NewPool(context.Background(), nil, capacity, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

// The main process acknowledges every kill after a timeout in the container's log, and Exec
// counts them; when an acknowledgement gets lost, Exec falls back to an exec'd kill, and the
// next command in the container still runs normally.
func TestKillAcknowledgement(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, sandbox.Spec{})
	ctx := context.Background()
	run := func(t *testing.T) {
		t.Helper()
		res, err := c.Exec(ctx, "sleep 100", sandbox.ExecOptions{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut {
			t.Errorf("sleep 100: TimedOut = false (exit %d), want true", res.ExitCode)
		}
		res, err = c.Exec(ctx, "echo ok", sandbox.ExecOptions{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != "ok\n" || res.ExitCode != 0 || res.TimedOut {
			t.Errorf("echo ok after a timeout: got (%q, %d, timedOut=%v), want (\"ok\\n\", 0, false)", res.Output, res.ExitCode, res.TimedOut)
		}
	}
	for i := 1; i <= 5; i++ {
		t.Run(fmt.Sprintf("timeout %d", i), func(t *testing.T) {
			run(t)
			if kills, lost := dockerenv.KillState(c); kills != i || lost {
				t.Errorf("kill state = (%d, lost %v), want (%d, false)", kills, lost, i)
			}
		})
	}
	// A count ahead of the main process's: no acknowledgement comes, Exec falls back to an
	// exec'd kill; the next kill reads the count again from the log.
	t.Run("acknowledgement lost", func(t *testing.T) {
		dockerenv.SetKillState(c, 100, false)
		run(t)
		if _, lost := dockerenv.KillState(c); !lost {
			t.Error("an unacknowledged kill is not marked lost")
		}
	})
	t.Run("count read again", func(t *testing.T) {
		run(t)
		if kills, lost := dockerenv.KillState(c); kills != 7 || lost {
			t.Errorf("kill state = (%d, lost %v), want (7, false)", kills, lost)
		}
	})
}

// Every container carries the tool's labels and the default pids limit; Remove removes it.
func TestContainerLabels(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	ctx := context.Background()
	runID := "test-labels-" + strings.ReplaceAll(t.Name(), "/", "-")
	c := startTestContainer(t, e, sandbox.Spec{RunID: runID, InstanceID: "owner__repo-42", Role: "eval"})

	out, err := exec.Command("docker", "inspect", "-f", `{{index .Config.Labels "swebench-run"}} {{index .Config.Labels "swebench-run.instance-id"}} {{index .Config.Labels "swebench-run.run-id"}} {{index .Config.Labels "swebench-run.role"}} {{index .Config.Labels "swebench-run.owner"}} {{.HostConfig.PidsLimit}}`, c.ID()).CombinedOutput()
	if err != nil {
		t.Fatalf("docker inspect: %v: %s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "1 owner__repo-42 "+runID+" eval "+dockerenv.Owner()+" 4096"; got != want {
		t.Errorf("labels/pids = %q, want %q", got, want)
	}
	if err := c.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	names, err := e.ListContainers(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 0 {
		t.Errorf("containers left after Remove: %v", names)
	}
}
