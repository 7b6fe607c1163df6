package dockerenv_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
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

// Without a launcher for the container's architecture (a plain go build), or with one that
// cannot start, the container's commands run with exec, and the log says why (the missing
// build once per engine).
func TestLauncherFallbackAtStart(t *testing.T) {
	testenv.RequireImage(t, testenv.Docker(t), testenv.BaseImage)
	tests := []struct {
		name     string
		binaries func(string) ([]byte, bool)
		want     string
		once     bool
	}{
		{"not built", func(string) ([]byte, bool) { return nil, false }, "no launcher for linux/", true},
		{"does not start", func(string) ([]byte, bool) { return []byte("#!/no/such/interpreter\n"), true }, "no launcher: it could not be copied or started", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs syncBuffer
			e, err := dockerenv.ConnectWith(context.Background(), "", dockerenv.Options{Pull: dockerenv.PullNever,
				LauncherBinaries: tt.binaries, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			for i := range 2 {
				c := startTestContainer(t, e, sandbox.Spec{InstanceID: fmt.Sprintf("test__fallback-%d", i), Launcher: sandbox.LauncherAuto})
				if c.LauncherPID() != 0 {
					t.Fatal("a launcher runs")
				}
				res, err := c.Exec(context.Background(), "echo ok; ls -a /tmp | grep -c swebench-run || true", sandbox.ExecOptions{})
				if err != nil || res.Output != "ok\n0\n" {
					t.Errorf("got (%q, %v), want the exec's output and nothing of the launcher left", res.Output, err)
				}
			}
			n := strings.Count(logs.String(), tt.want)
			if n == 0 || tt.once && n != 1 {
				t.Errorf("the log says %q %d times, want %s:\n%s", tt.want, n, map[bool]string{true: "once", false: "for each container"}[tt.once], logs.String())
			}
		})
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
