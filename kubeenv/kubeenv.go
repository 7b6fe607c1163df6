// Package kubeenv runs the sandboxes of package sandbox as Kubernetes pods: one pod per
// instance, commands through the pods/exec subresource, pod failures mapped to the sandbox's
// typed errors, and a heartbeat that lets any process sweep the pods of runs that died. It is
// the only importer of k8s.io/client-go.
//
// A Cluster is a sandbox.Backend (room for Options.Capacity pods at once; the cluster's
// scheduler places them), a sandbox.Starter (evaluation pods) and a sandbox.Sweeper.
//
// How the exec contract maps to Kubernetes:
//
//   - The pod's only container runs our PID 1 (see mainProcess): a bash loop that bounds the
//     pod's life, reaps orphans, and kills the other processes of the container when asked on
//     its standard input, which the pods/attach subresource reaches without starting a process
//     in the container — so a kill works when a fork bomb filled the pids limit.
//   - A command is one pods/exec stream (WebSocket, SPDY as fallback) of a small bash wrapper
//     that reads the working directory, the environment and the argv from the stream's stdin
//     (never the URL, which API servers log), closes stdin, merges stderr into stdout, prints a
//     start marker and execs `env VARS... INTERPRETER... COMMAND`.
//   - Pod failures become *sandbox.DiedError (deleted, evicted, OOM-killed, node lost, lifetime
//     over) or sandbox.ErrImageUnavailable (pull errors after Options.PullTimeout); a pod that
//     nothing can schedule waits, reported through Options.OnPending.
package kubeenv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/swebench-run/swebench-run/launcher"
	"github.com/swebench-run/swebench-run/sandbox"
)

// PullPolicy says when the kubelet pulls a pod's image; the values are those of --pull.
type PullPolicy string

const (
	PullMissing PullPolicy = "missing" // IfNotPresent
	PullAlways  PullPolicy = "always"  // Always
	PullNever   PullPolicy = "never"   // Never
)

func (p PullPolicy) kube() (corev1.PullPolicy, error) {
	switch p {
	case PullMissing, "":
		return corev1.PullIfNotPresent, nil
	case PullAlways:
		return corev1.PullAlways, nil
	case PullNever:
		return corev1.PullNever, nil
	}
	return "", fmt.Errorf("pull policy %q: want missing, always or never", p)
}

// Defaults of Options.
const (
	DefaultPullTimeout       = 5 * time.Minute
	DefaultStartTimeout      = 30 * time.Minute
	DefaultHeartbeatInterval = time.Minute
	DefaultStaleAfter        = 5 * time.Minute
)

// Options configure a Cluster.
type Options struct {
	// Kubeconfig is a kubeconfig file; "" follows client-go's rules: $KUBECONFIG (a list of
	// files), ~/.kube/config, or the pod's service account when running in a cluster.
	Kubeconfig string
	// Context is the kubeconfig context (--kube-context); "" is the current one.
	Context string
	// Namespace of the pods (--namespace); "" is the context's namespace, else "default".
	Namespace string
	// Capacity is the number of pods the runner keeps at once (--workers); default 1.
	Capacity int
	// Pull is the pods' image pull policy (--pull).
	Pull PullPolicy
	// Pod holds the pod settings of the config's kubernetes section.
	Pod PodOptions
	// PullTimeout bounds how long a pod may keep failing to pull its image (ErrImagePull,
	// ImagePullBackOff) before its start fails with sandbox.ErrImageUnavailable. Default
	// DefaultPullTimeout.
	PullTimeout time.Duration
	// StartTimeout bounds a start once the pod is scheduled (image pull, container creation).
	// A pod that nothing can schedule waits without bound. Default DefaultStartTimeout.
	StartTimeout time.Duration
	// HeartbeatInterval is how often Heartbeat renews the pods' heartbeat annotation; a pod
	// whose heartbeat is older than StaleAfter belongs to a run that died, and a sweep with
	// Selector.Orphaned deletes it. Defaults DefaultHeartbeatInterval, DefaultStaleAfter.
	HeartbeatInterval time.Duration
	StaleAfter        time.Duration
	// OnPending is called when a pod of instanceID waits because the cluster has no room for
	// it (unschedulable, or over a resource quota), with the scheduler's reason, and once more
	// with reason "" when it is scheduled. It may be nil.
	OnPending func(instanceID, reason string)
	Logger    *slog.Logger
	// Launcher says how pods run their commands: through the launcher (see package launcher),
	// sandbox.LauncherAuto, the default, or with pods/exec, sandbox.LauncherOff; a Spec's
	// Launcher off wins.
	Launcher sandbox.Launcher
	// LauncherBinaries gives the launcher programs (default launcher.Embedded).
	LauncherBinaries launcher.Binaries
}

// Cluster runs sandboxes as pods in one namespace of one cluster. Safe for concurrent use.
type Cluster struct {
	cs     kubernetes.Interface
	config *rest.Config
	ns     string
	host   string // for the record: kubernetes://SERVER/NAMESPACE
	opts   Options
	pull   corev1.PullPolicy
	slots  chan struct{}
	log    *slog.Logger

	mu   sync.Mutex
	live map[string]*Pod // started and not removed, by pod name: their heartbeats are renewed
	// arches caches the architecture of nodes (for the launcher); noLauncher the
	// architectures whose missing launcher was logged.
	arches, noLauncher sync.Map
	// suspect: a slot was released with an error matching sandbox.ErrBackendDown; the next
	// Acquire asks the API server whether it answers.
	suspect bool
}

var (
	_ sandbox.Backend = (*Cluster)(nil)
	_ sandbox.Starter = (*Cluster)(nil)
	_ sandbox.Sweeper = (*Cluster)(nil)
)

// New connects to the cluster opts names and checks that its API server answers. The pod
// settings are validated here, before any pod starts.
func New(ctx context.Context, opts Options) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if opts.Kubeconfig != "" {
		rules.ExplicitPath = opts.Kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: opts.Context})
	config, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes: no cluster configuration (set KUBECONFIG, write ~/.kube/config, or run in a pod; --kube-context names a context): %w", err)
	}
	ns := opts.Namespace
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil || ns == "" {
			ns = "default"
		}
	}
	return newCluster(ctx, config, ns, opts)
}

// NewForConfig is New with a ready client configuration (tests, benchmarks).
func NewForConfig(ctx context.Context, config *rest.Config, namespace string, opts Options) (*Cluster, error) {
	if namespace == "" {
		namespace = "default"
	}
	return newCluster(ctx, config, namespace, opts)
}

func newCluster(ctx context.Context, config *rest.Config, ns string, opts Options) (*Cluster, error) {
	config = rest.CopyConfig(config)
	// The runner's workers talk to the API server at once: client-go's default of 5 requests a
	// second would queue their execs.
	if config.QPS == 0 {
		config.QPS = 100
		config.Burst = 200
	}
	config.UserAgent = "swebench-run"
	pull, err := opts.Pull.kube()
	if err != nil {
		return nil, err
	}
	if err := opts.Pod.validate(); err != nil {
		return nil, err
	}
	if opts.Capacity <= 0 {
		opts.Capacity = 1
	}
	if opts.PullTimeout <= 0 {
		opts.PullTimeout = DefaultPullTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.HeartbeatInterval <= 0 {
		opts.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if opts.StaleAfter <= 0 {
		opts.StaleAfter = DefaultStaleAfter
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Launcher == "" {
		opts.Launcher = sandbox.LauncherAuto
	}
	if opts.LauncherBinaries == nil {
		opts.LauncherBinaries = launcher.Embedded
	}
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	c := &Cluster{cs: cs, config: config, ns: ns, opts: opts, pull: pull,
		slots: make(chan struct{}, opts.Capacity), log: opts.Logger, live: map[string]*Pod{}}
	c.host = "kubernetes://" + serverHost(config.Host) + "/" + ns
	if err := c.ping(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func serverHost(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return u.Host
	}
	return s
}

// pingTimeout bounds the check that the API server answers.
const pingTimeout = 20 * time.Second

// ping asks the API server for its version; an error matches sandbox.ErrBackendDown.
func (c *Cluster) ping(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	_, err := c.cs.CoreV1().RESTClient().Get().AbsPath("/version").DoRaw(pctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &DownError{Host: c.host, Err: err}
	}
	return nil
}

// DownError reports an API server that does not answer. It matches sandbox.ErrBackendDown.
type DownError struct {
	Host string
	Err  error
}

func (e *DownError) Error() string {
	return fmt.Sprintf("kubernetes API server %s does not answer: %v", e.Host, e.Err)
}
func (e *DownError) Unwrap() error { return e.Err }
func (e *DownError) Is(target error) bool {
	return target == sandbox.ErrBackendDown
}

// Namespace is the namespace of the cluster's pods.
func (c *Cluster) Namespace() string { return c.ns }

// Host names the cluster and namespace: kubernetes://SERVER/NAMESPACE.
func (c *Cluster) Host() string { return c.host }

// Capacity is the number of pods the runner keeps at once.
func (c *Cluster) Capacity() int { return cap(c.slots) }

// Acquire takes room for one pod, waiting while Capacity pods are held. When a slot was
// released with an error matching sandbox.ErrBackendDown, it first checks that the API server
// answers, and fails with an error matching sandbox.ErrBackendDown when it does not.
func (c *Cluster) Acquire(ctx context.Context) (sandbox.Slot, error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c.mu.Lock()
	suspect := c.suspect
	c.mu.Unlock()
	if suspect {
		if err := c.ping(ctx); err != nil {
			<-c.slots
			return nil, err
		}
		c.mu.Lock()
		c.suspect = false
		c.mu.Unlock()
	}
	return &slot{c: c}, nil
}

// Probe asks the API server whether it answers (see sandbox.Backend): nil when it does, which
// also clears the suspicion a slot released with an error matching sandbox.ErrBackendDown left;
// a *DownError when it does not.
func (c *Cluster) Probe(ctx context.Context) error {
	if err := c.ping(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	c.suspect = false
	c.mu.Unlock()
	return nil
}

// Expect does nothing: the kubelets pull and keep the images.
func (c *Cluster) Expect(string, int) {}

// Prefetch does nothing: the kubelet of the node the scheduler picks pulls the image.
func (c *Cluster) Prefetch(string) {}

// slot is room for one pod.
type slot struct {
	c    *Cluster
	once sync.Once
}

var _ sandbox.Slot = (*slot)(nil)

func (s *slot) Host() string { return s.c.host }

// PrepareImage returns at once: the image is pulled by the kubelet when the pod starts, and a
// pull that fails then fails Start with sandbox.ErrImageUnavailable.
func (s *slot) PrepareImage(ctx context.Context, image string) (string, error) {
	if image == "" {
		return "", fmt.Errorf("%w: no image name", sandbox.ErrImageUnavailable)
	}
	return "", ctx.Err()
}

func (s *slot) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Sandbox, error) {
	return s.c.start(ctx, spec)
}

func (s *slot) ReleaseImage(context.Context, string) {}

func (s *slot) Release(cause error) {
	s.once.Do(func() {
		if errors.Is(cause, sandbox.ErrBackendDown) {
			s.c.mu.Lock()
			s.c.suspect = true
			s.c.mu.Unlock()
		}
		<-s.c.slots
	})
}

// Start starts a pod outside the slots (an evaluation's); see sandbox.Starter.
func (c *Cluster) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Sandbox, error) {
	return c.start(ctx, spec)
}
