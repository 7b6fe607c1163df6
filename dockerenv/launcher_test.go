package dockerenv_test

import (
	"context"
	"testing"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/launcher/launchertest"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The launcher's faults on the real engine: killed, stopped, replaced, written into from inside
// the container; and its commands' observations equal to exec's.
func TestLauncherFaults(t *testing.T) {
	testenv.RequireImage(t, testenv.Docker(t), testenv.BaseImage)
	engines := map[bool]*dockerenv.Engine{}
	for _, on := range []bool{true, false} {
		opts := dockerenv.Options{Pull: dockerenv.PullNever, Launcher: sandbox.LauncherOff}
		if on {
			opts.Launcher, opts.LauncherBinaries = sandbox.LauncherAuto, launchertest.Binaries(t)
		}
		e, err := dockerenv.ConnectWith(context.Background(), "", opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		engines[on] = e
	}
	launchertest.Run(t, launchertest.Config{
		Start: func(t *testing.T, on bool) launchertest.Sandbox {
			return startTestContainer(t, engines[on], sandbox.Spec{Launcher: sandbox.LauncherAuto})
		},
		Goroutines: []string{"dockerenv.(*Container).launch"},
	})
}

// A Spec with the launcher off runs its commands with exec on an engine whose launcher is on
// (the retry of an instance whose launcher was lost).
func TestLauncherOffBySpec(t *testing.T) {
	testenv.RequireImage(t, testenv.Docker(t), testenv.BaseImage)
	e, err := dockerenv.ConnectWith(context.Background(), "", dockerenv.Options{Pull: dockerenv.PullNever, LauncherBinaries: launchertest.Binaries(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if c := startTestContainer(t, e, sandbox.Spec{Launcher: sandbox.LauncherAuto}); c.LauncherPID() == 0 {
		t.Error("no launcher in a container of an engine with the launcher on")
	}
	if c := startTestContainer(t, e, sandbox.Spec{InstanceID: "test__dockerenv-2", Launcher: sandbox.LauncherOff}); c.LauncherPID() != 0 {
		t.Error("a launcher in a container whose Spec says off")
	}
}
