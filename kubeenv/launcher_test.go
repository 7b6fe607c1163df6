package kubeenv_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/launcher/launchertest"
	"github.com/swebench-run/swebench-run/sandbox"
)

// The launcher's faults on the test cluster: killed, stopped, replaced, written into from inside
// the pod; and its commands' observations equal to pods/exec's.
func TestLauncherFaults(t *testing.T) {
	clusters := map[bool]*kubeenv.Cluster{}
	for _, on := range []bool{true, false} {
		mode := sandbox.LauncherOff
		if on {
			mode = sandbox.LauncherAuto
		}
		clusters[on] = newCluster(t, launcherOptions(t, kubeenv.Options{Capacity: 4}, mode))
	}
	launchertest.Run(t, launchertest.Config{
		Start: func(t *testing.T, on bool) launchertest.Sandbox {
			return start(t, clusters[on], sandbox.Spec{Cwd: "/tmp"})
		},
		Goroutines: []string{"kubeenv.(*Pod).launch"},
	})
}

// Without a launcher for the node's architecture, or with one that cannot start, the pod's
// commands run with pods/exec, and the log says why (the missing build once per cluster).
func TestLauncherFallbackAtStart(t *testing.T) {
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
			c := newCluster(t, kubeenv.Options{Capacity: 2, Launcher: sandbox.LauncherAuto, LauncherBinaries: tt.binaries,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			for i := range 2 {
				p := start(t, c, sandbox.Spec{Cwd: "/tmp", InstanceID: fmt.Sprintf("fallback__test-%d", i)})
				if p.LauncherPID() != 0 {
					t.Fatal("a launcher runs")
				}
				res, err := p.Exec(context.Background(), "echo ok; ls -a /tmp | grep -c swebench-run || true", sandbox.ExecOptions{})
				if err != nil || res.Output != "ok\n0\n" {
					t.Errorf("got (%q, %v), want pods/exec's output and nothing of the launcher left", res.Output, err)
				}
			}
			n := strings.Count(logs.String(), tt.want)
			if n == 0 || tt.once && n != 1 {
				t.Errorf("the log says %q %d times:\n%s", tt.want, n, logs.String())
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
