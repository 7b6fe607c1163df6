package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/sandbox"
)

// Kube is a Kubernetes cluster reached through kubeenv (as the runner gets it: pull policy
// never, the images must be on the nodes) and through a raw client-go client, for the raw exec
// reference (benchmark code only: the product keeps kubeenv as the only importer of client-go).
type Kube struct {
	Cluster *kubeenv.Cluster
	Config  *rest.Config
	Client  kubernetes.Interface
}

// ConnectKube opens the cluster of $KUBECONFIG (default: the test cluster of scripts/kube-up.sh)
// with room for capacity pods.
func ConnectKube(ctx context.Context, capacity int) (*Kube, error) {
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		path = "/var/lib/swebench-run-kube/admin.kubeconfig"
	}
	config, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s (start the test cluster with scripts/kube-up.sh): %w", path, err)
	}
	config.QPS, config.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	c, err := kubeenv.NewForConfig(ctx, config, "default", kubeenv.Options{Capacity: capacity, Pull: kubeenv.PullNever})
	if err != nil {
		return nil, err
	}
	return &Kube{Cluster: c, Config: config, Client: cs}, nil
}

// StartPod starts a pod of the base image through kubeenv, as the runner does.
func (k *Kube) StartPod(ctx context.Context, name string) (*kubeenv.Pod, error) {
	sb, err := k.Cluster.Start(ctx, sandbox.Spec{Image: BaseImage, RunID: RunID, InstanceID: name, Cwd: "/tmp"})
	if err != nil {
		return nil, err
	}
	return sb.(*kubeenv.Pod), nil
}

// timeExec times one Exec of `true` in any sandbox.
func timeExec(ctx context.Context, sb sandbox.Sandbox, opts sandbox.ExecOptions) (time.Duration, error) {
	start := time.Now()
	res, err := sb.Exec(ctx, "true", opts)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if res.ExitCode != 0 {
		return 0, fmt.Errorf("true exited with %d: %s", res.ExitCode, res.Output)
	}
	return d, nil
}

// RawKubeExec times the minimal client-go exec of argv in the pod: one WebSocket stream, stdout
// and stderr read to the end, the exit status from the stream.
func (k *Kube) RawKubeExec(ctx context.Context, namespace, pod string, argv []string) (time.Duration, error) {
	start := time.Now()
	req := k.Client.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "sandbox", Command: argv, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	exec, err := remotecommand.NewWebSocketExecutor(k.Config, "GET", req.URL().String())
	if err != nil {
		return 0, err
	}
	var out bytes.Buffer
	if err := exec.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out, Stderr: &out}); err != nil {
		return 0, fmt.Errorf("%v: %w: %s", argv, err, out.String())
	}
	return time.Since(start), nil
}

// KubeRoundTrip compares command round trips through Kubernetes with those through Docker.
type KubeRoundTrip struct {
	Kube, KubeRaw, Docker, DockerRaw Sample
}

// MeasureKubeRoundTrip runs n commands per method, interleaved command by command: our Exec in a
// pod, a raw client-go exec in that pod, our Exec in a Docker container, a raw moby-client exec
// in it.
func MeasureKubeRoundTrip(ctx context.Context, d *Docker, k *Kube, n int, log io.Writer) (KubeRoundTrip, error) {
	c, err := d.StartBase(ctx, "kube-roundtrip")
	if err != nil {
		return KubeRoundTrip{}, err
	}
	defer c.Remove(ctx)
	p, err := k.StartPod(ctx, "kube-roundtrip")
	if err != nil {
		return KubeRoundTrip{}, err
	}
	defer p.Remove(ctx)
	opts := RunnerExecOptions()
	ns := k.Cluster.Namespace()
	var kube, kubeRaw, dock, dockRaw []time.Duration
	methods := []struct {
		dst *[]time.Duration
		f   func() (time.Duration, error)
	}{
		{&kube, func() (time.Duration, error) { return timeExec(ctx, p, opts) }},
		{&kubeRaw, func() (time.Duration, error) { return k.RawKubeExec(ctx, ns, p.Name(), PlainArgv) }},
		{&dock, func() (time.Duration, error) { return timeExec(ctx, c, opts) }},
		{&dockRaw, func() (time.Duration, error) { return RawExec(ctx, d.Cli, c.ID(), "/tmp", PlainArgv) }},
	}
	for range 3 { // warm-up
		for _, m := range methods {
			if _, err := m.f(); err != nil {
				return KubeRoundTrip{}, err
			}
		}
	}
	for i := range n {
		for _, m := range methods {
			t, err := m.f()
			if err != nil {
				return KubeRoundTrip{}, err
			}
			*m.dst = append(*m.dst, t)
		}
		if log != nil && (i+1)%50 == 0 {
			fmt.Fprintf(log, "kube round trip: %d/%d\n", i+1, n)
		}
	}
	return KubeRoundTrip{Kube: Summarize(kube), KubeRaw: Summarize(kubeRaw), Docker: Summarize(dock), DockerRaw: Summarize(dockRaw)}, nil
}

func sampleLine(s Sample) string {
	return fmt.Sprintf("median %s, p90 %s (n=%d)", ms(s.Median), ms(s.P90), s.N)
}

// Rows renders the comparison with its goal: ours through Kubernetes ÷ the raw Docker API.
func (r KubeRoundTrip) Rows() []Row {
	vsDockerRaw := float64(r.Kube.Median) / float64(r.DockerRaw.Median)
	return []Row{
		{What: "kubernetes round trip: our `Exec` of `true` in a pod (runner options)", Measured: sampleLine(r.Kube), NA: true},
		{What: "kubernetes round trip: raw client-go exec (WebSocket), `bash -c true`", Measured: sampleLine(r.KubeRaw), NA: true},
		{What: "kubernetes round trip: our `Exec` in a Docker container (same run)", Measured: sampleLine(r.Docker), NA: true},
		{What: "kubernetes round trip: raw moby client (same run)", Measured: sampleLine(r.DockerRaw), NA: true},
		{What: "kubernetes round trip: ours on Kubernetes ÷ raw Docker API", Measured: fmt.Sprintf("median %.2f× (ours on Kubernetes ÷ raw client-go: %.2f×; ours on Kubernetes ÷ ours on Docker: %.2f×)",
			vsDockerRaw, float64(r.Kube.Median)/float64(r.KubeRaw.Median), float64(r.Kube.Median)/float64(r.Docker.Median)),
			Goal: "≤ 1.3×", Pass: vsDockerRaw <= 1.3},
	}
}

// KubeStart compares a sandbox's start to its first command's end: a pod through kubeenv
// against a container through dockerenv.
type KubeStart struct {
	Pod, Container Sample
}

// MeasureKubeStart alternates n pod starts with n container starts, each timed from the start
// call to the end of a first `true`; removals are not timed.
func MeasureKubeStart(ctx context.Context, d *Docker, k *Kube, n int, log io.Writer) (KubeStart, error) {
	var pods, ctrs []time.Duration
	opts := RunnerExecOptions()
	for i := range n {
		start := time.Now()
		// On the engine's default network, as a run's containers are: a pod always gets its
		// network (sandbox, CNI), so the container does too.
		c, err := d.Engine.StartContainer(ctx, sandbox.Spec{Image: BaseImage, RunID: RunID, InstanceID: fmt.Sprintf("kube-start-%d", i), Cwd: "/tmp"})
		if err != nil {
			return KubeStart{}, err
		}
		_, err = timeExec(ctx, c, opts)
		ctrs = append(ctrs, time.Since(start))
		c.Remove(ctx)
		if err != nil {
			return KubeStart{}, err
		}
		start = time.Now()
		p, err := k.StartPod(ctx, fmt.Sprintf("kube-start-%d", i))
		if err != nil {
			return KubeStart{}, err
		}
		_, err = timeExec(ctx, p, opts)
		pods = append(pods, time.Since(start))
		p.Remove(ctx)
		if err != nil {
			return KubeStart{}, err
		}
		if log != nil {
			fmt.Fprintf(log, "kube start %d/%d: pod %s, container %s\n", i+1, n, pods[i].Round(time.Millisecond), ctrs[i].Round(time.Millisecond))
		}
	}
	return KubeStart{Pod: Summarize(pods), Container: Summarize(ctrs)}, nil
}

func (s KubeStart) Rows() []Row {
	ratio := float64(s.Pod.Median) / float64(s.Container.Median)
	return []Row{
		{What: "kubernetes start: pod create → first command done (kubeenv)", Measured: sampleLine(s.Pod), NA: true},
		{What: "kubernetes start: container create → first command done (dockerenv, default bridge network, same run)", Measured: sampleLine(s.Container), NA: true},
		{What: "kubernetes start: pod ÷ container", Measured: fmt.Sprintf("median %.2f×", ratio), Goal: "≤ 1.2×", Pass: ratio <= 1.2},
	}
}

// KubeOverhead compares the runner over one instance on Kubernetes with the same pod life done
// with kubeenv alone (start, the same commands, removal).
type KubeOverhead struct {
	Runner, Backend Sample
}

// MeasureKubeOverhead alternates n runner instances on the cluster with n bare pod lives.
func MeasureKubeOverhead(ctx context.Context, k *Kube, n int, tmp string, log io.Writer) (KubeOverhead, error) {
	var r, b []time.Duration
	dir := filepath.Join(tmp, "kube")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return KubeOverhead{}, err
	}
	opts := RunnerExecOptions()
	for i := range n {
		start := time.Now()
		p, err := k.StartPod(ctx, fmt.Sprintf("kube-overhead-%d", i))
		if err != nil {
			return KubeOverhead{}, err
		}
		for s := range Steps {
			cmd := "true"
			if s == Steps-1 {
				cmd = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
			}
			if _, err := p.Exec(ctx, cmd, opts); err != nil {
				p.Remove(ctx)
				return KubeOverhead{}, err
			}
		}
		if err := p.Remove(ctx); err != nil {
			return KubeOverhead{}, err
		}
		b = append(b, time.Since(start))
		tr, err := runnerInstance(ctx, k.Cluster, dir, i, sandbox.Limits{})
		if err != nil {
			return KubeOverhead{}, fmt.Errorf("runner instance: %w", err)
		}
		r = append(r, tr)
		if log != nil {
			fmt.Fprintf(log, "kube instance %d/%d: runner %s, backend alone %s\n", i+1, n, tr.Round(time.Millisecond), b[i].Round(time.Millisecond))
		}
	}
	return KubeOverhead{Runner: Summarize(r), Backend: Summarize(b)}, nil
}

func (o KubeOverhead) Rows() []Row {
	ratio := float64(o.Runner.Median) / float64(o.Backend.Median)
	return []Row{
		{What: fmt.Sprintf("kubernetes instance: runner, %d steps, no model time", Steps), Measured: sampleLine(o.Runner), NA: true},
		{What: "kubernetes instance: kubeenv alone (start, the same commands, remove)", Measured: sampleLine(o.Backend), NA: true},
		{What: "kubernetes instance overhead: runner ÷ kubeenv alone", Measured: fmt.Sprintf("%.3f× (%+.0f ms per instance)", ratio, float64(o.Runner.Median-o.Backend.Median)/1e6),
			Goal: "≤ 1.15×", Pass: ratio <= 1.15},
	}
}
