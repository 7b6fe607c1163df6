package kubeenv_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/kubeenv/kubetest"
	"github.com/swebench-run/swebench-run/launcher/launchertest"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/sandbox/sandboxtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		os.Exit(childMain())
	}
	os.Exit(m.Run())
}

// newCluster returns a Cluster of the test cluster with opts (Pull never by default; the
// namespace of the test cluster's kubeconfig unless opts.Namespace).
func newCluster(t *testing.T, opts kubeenv.Options) *kubeenv.Cluster {
	t.Helper()
	env := kubetest.Cluster(t)
	if opts.Pull == "" {
		opts.Pull = kubeenv.PullNever // the test cluster has no registry
	}
	if opts.Launcher == "" {
		// The tests of pods/exec run without the launcher that a make launcher embedded; the
		// launcher's tests ask for it (launcherOptions).
		opts.Launcher = sandbox.LauncherOff
	}
	ns := env.Namespace
	if opts.Namespace != "" {
		ns = opts.Namespace
	}
	c, err := kubeenv.NewForConfig(context.Background(), env.Config, ns, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The exec contract on the test cluster, with the launcher (built from this checkout) and
// without it.
func TestConformance(t *testing.T) {
	for _, mode := range []sandbox.Launcher{sandbox.LauncherAuto, sandbox.LauncherOff} {
		t.Run("launcher="+string(mode), func(t *testing.T) {
			sandboxtest.Run(t, sandboxtest.Config{
				Image: kubetest.BaseImage,
				New: func(t *testing.T, capacity int) sandboxtest.Backend {
					return newCluster(t, launcherOptions(t, kubeenv.Options{Capacity: capacity}, mode))
				},
			})
		})
	}
}

// launcherOptions returns opts with the launcher built from this checkout (mode auto) or off.
func launcherOptions(t *testing.T, opts kubeenv.Options, mode sandbox.Launcher) kubeenv.Options {
	opts.Launcher = mode
	if mode != sandbox.LauncherOff {
		opts.LauncherBinaries = launchertest.Binaries(t)
	}
	return opts
}

// The SPDY executor, the fallback for API servers or proxies that refuse WebSocket upgrades,
// keeps the exec contract: output, exit code, a timeout killed by PID 1 (attach), files.
func TestSPDYFallback(t *testing.T) {
	c := newCluster(t, kubeenv.Options{})
	p := start(t, c, sandbox.Spec{Cwd: "/tmp"})
	kubeenv.SetForceSPDY(true)
	t.Cleanup(func() { kubeenv.SetForceSPDY(false) })
	ctx := context.Background()
	if res, err := p.Exec(ctx, "echo out; echo err >&2; exit 4", sandbox.ExecOptions{}); err != nil || res.Output != "out\nerr\n" || res.ExitCode != 4 {
		t.Errorf("got (%q, %d, %v), want (\"out\\nerr\\n\", 4, nil)", res.Output, res.ExitCode, err)
	}
	res, err := p.Exec(ctx, "trap '' TERM; echo started; sleep 300", sandbox.ExecOptions{Timeout: time.Second})
	if err != nil || !res.TimedOut || res.Output != "started\n" {
		t.Errorf("timeout: got (%q, timedOut=%v, %v), want (\"started\\n\", true, nil)", res.Output, res.TimedOut, err)
	}
	if err := p.WriteFile(ctx, "/tmp/f", []byte("data\n")); err != nil {
		t.Fatal(err)
	}
	if res, err := p.Exec(ctx, "cat /tmp/f; pgrep -c sleep || true", sandbox.ExecOptions{}); err != nil || res.Output != "data\n0\n" {
		t.Errorf("after the timeout: got (%q, %v), want the file and no sleep left", res.Output, err)
	}
}
