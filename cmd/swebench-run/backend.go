package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/launcher"
	"github.com/swebench-run/swebench-run/runner"
	"github.com/swebench-run/swebench-run/sandbox"
)

// Backends: where the sandboxes of instances and evaluations live.
const (
	backendDocker     = "docker"
	backendKubernetes = "kubernetes"
)

const groupBackend = "Backend"

// backendFlags choose the backend: --backend, and for Kubernetes --kube-context and --namespace.
type backendFlags struct {
	backend, kubeContext, namespace string
	// kubeSection is the kubernetes section of the config of a command that opens its backend
	// with openSimple and takes -c (eval); nil for none.
	kubeSection map[string]any
}

func (b *backendFlags) register(cmd *cobra.Command, fs *pflag.FlagSet) {
	fs.StringVar(&b.backend, "backend", backendDocker, "where sandboxes run: docker (engines of --docker-host) or kubernetes (one pod per instance in the cluster of KUBECONFIG, ~/.kube/config or the pod's service account)")
	fs.StringVar(&b.kubeContext, "kube-context", "", "with --backend kubernetes: the kubeconfig context (default: the current one, or kubernetes.context of the config)")
	fs.StringVar(&b.namespace, "namespace", "", "with --backend kubernetes: the pods' namespace (default: the context's, or kubernetes.namespace of the config, else default)")
	flagGroup(fs, groupBackend, "backend", "kube-context", "namespace")
	metavar(fs, "backend", "NAME")
	metavar(fs, "kube-context", "NAME")
	metavar(fs, "namespace", "NAME")
	completeFlags(cmd, map[string]cobra.CompletionFunc{"backend": oneOf(backendDocker, backendKubernetes)})
}

// check validates the flags; dockerOnly names the Docker flags the command line set, which
// mean nothing on Kubernetes.
func (b *backendFlags) check(fs *pflag.FlagSet, dockerOnly ...string) error {
	switch b.backend {
	case backendDocker:
		for _, name := range []string{"kube-context", "namespace"} {
			if fs.Changed(name) {
				return fmt.Errorf("%w: --%s is for --backend kubernetes", errUsage, name)
			}
		}
	case backendKubernetes:
		for _, name := range dockerOnly {
			if fs.Lookup(name) != nil && fs.Changed(name) {
				return fmt.Errorf("%w: --%s is for --backend docker (on Kubernetes the cluster places the pods and its kubelets pull the images)", errUsage, name)
			}
		}
	default:
		return fmt.Errorf("%w: --backend %q: want docker or kubernetes", errUsage, b.backend)
	}
	return nil
}

// dockerOnlyFlags are the flags of run and eval that configure Docker engines.
var dockerOnlyFlags = []string{"docker-host", "pull-workers", "image-cache", "platform"}

// sandboxes is what the commands need of a backend: the runner's view, eval's, and sweeping.
type sandboxes interface {
	sandbox.Backend
	sandbox.Starter
	sandbox.Sweeper
}

var (
	_ sandboxes       = (*kubeenv.Cluster)(nil)
	_ sandbox.Sandbox = (*kubeenv.Pod)(nil)
)

// launcherBinaries are the launcher programs the backends copy into sandboxes (nil: those
// embedded by make build); tests set the ones built from their checkout.
var launcherBinaries launcher.Binaries

// kubeSettings are the Kubernetes backend's settings beyond the flags.
type kubeSettings struct {
	workers  int
	pull     string
	section  map[string]any // the config's kubernetes section, nil when none
	limits   sandbox.Limits
	logger   *slog.Logger
	progress runner.Progress // shows pods waiting for room; nil for none
	stderr   io.Writer
	launcher sandbox.Launcher // environment.launcher ("" auto)
}

// openKube connects to the cluster and starts renewing the heartbeat of this process's pods;
// closeFn stops the heartbeat (call it once no pod of this process lives any more).
func (b *backendFlags) openKube(ctx context.Context, s kubeSettings) (_ *kubeenv.Cluster, closeFn func(), _ error) {
	cfg, err := kubeenv.DecodeConfig(s.section)
	if err != nil {
		return nil, nil, err
	}
	if err := kubeenv.CheckLimits(s.limits); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	opts := kubeenv.Options{
		Context: cfg.Context, Namespace: cfg.Namespace, Capacity: s.workers, Pull: kubeenv.PullPolicy(s.pull),
		Pod: cfg.PodOptions, PullTimeout: cfg.PullTimeoutDuration(), StaleAfter: cfg.StaleAfterDuration(), Logger: s.logger,
		Launcher: s.launcher, LauncherBinaries: launcherBinaries,
	}
	if b.kubeContext != "" {
		opts.Context = b.kubeContext
	}
	if b.namespace != "" {
		opts.Namespace = b.namespace
	}
	if s.progress != nil {
		opts.OnPending = pendingReporter(s.progress, s.stderr)
	}
	cluster, err := kubeenv.New(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	hctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = cluster.Heartbeat(hctx)
	}()
	return cluster, func() { stop(); wg.Wait() }, nil
}

// pendingReporter shows an instance whose pod waits for room in the cluster as phase
// "pending" (the bar and JSON events show phases; the line display prints the reason once),
// and as "starting" again once it is scheduled.
func pendingReporter(progress runner.Progress, stderr io.Writer) func(instance, reason string) {
	_, lines := progress.(*runner.Lines)
	return func(instance, reason string) {
		if reason == "" {
			progress.Event(runner.Event{Instance: instance, Phase: runner.PhaseStarting})
			return
		}
		progress.Event(runner.Event{Instance: instance, Phase: phasePending})
		if lines && stderr != nil {
			fmt.Fprintf(stderr, "%s pending: the cluster has no room for its pod yet: %s\n", instance, reason)
		}
	}
}

// phasePending is the phase of an instance whose pod waits for room in the cluster.
const phasePending = "pending"

// openBackend opens the run's backend: Docker engines (connectDocker) or a Kubernetes cluster.
func (b *backendFlags) openBackend(ctx context.Context, cfg *configs.Config, s kubeSettings, connectDocker func() (sandboxes, func(), error)) (sandboxes, func(), error) {
	if b.backend != backendKubernetes {
		return connectDocker()
	}
	s.section = cfg.Kubernetes
	if s.limits.PidsLimit != 0 && s.stderr != nil {
		fmt.Fprintln(s.stderr, "swebench-run: --pids-limit does not apply to pods: the cluster's kubelets bound every pod's processes (podPidsLimit)")
	}
	return b.openKube(ctx, s)
}

// evalBackend is what eval and cleanup need of a backend.
type evalBackend interface {
	sandbox.Starter
	sandbox.Sweeper
}

// openSimple opens the backend of eval and cleanup: one Docker engine (connectDocker), or the
// cluster with room for workers pods.
func (b *backendFlags) openSimple(ctx context.Context, workers int, pull string, stderr io.Writer, connectDocker func() (evalBackend, func(), error)) (evalBackend, func(), error) {
	if b.backend != backendKubernetes {
		return connectDocker()
	}
	return b.openKube(ctx, kubeSettings{workers: workers, pull: pull, section: b.kubeSection, stderr: stderr})
}
