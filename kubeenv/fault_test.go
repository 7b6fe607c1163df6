package kubeenv_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/kubeenv/kubetest"
	"github.com/swebench-run/swebench-run/sandbox"
)

// start starts a pod of spec on c and registers its removal and the sweep of its run.
func start(t *testing.T, c *kubeenv.Cluster, spec sandbox.Spec) *kubeenv.Pod {
	t.Helper()
	if spec.Image == "" {
		spec.Image = kubetest.BaseImage
	}
	if spec.RunID == "" {
		spec.RunID = fmt.Sprintf("kubeenv-%s-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), time.Now().UnixNano())
	}
	if spec.InstanceID == "" {
		spec.InstanceID = "fault__test-1"
	}
	t.Cleanup(func() { _, _ = c.Sweep(context.Background(), sandbox.Selector{RunID: spec.RunID}) })
	sb, err := c.Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = sb.Remove(context.Background()) })
	return sb.(*kubeenv.Pod)
}

// A pod deleted while a command runs in it (kubectl delete, an eviction, a node drain): the
// command fails with a *sandbox.DiedError (status ContainerDied, an infrastructure failure the
// runner retries on resume), and so does every later operation.
func TestPodDeletedMidExec(t *testing.T) {
	env := kubetest.Cluster(t)
	c := newCluster(t, kubeenv.Options{})
	p := start(t, c, sandbox.Spec{Cwd: "/tmp"})
	ctx := context.Background()
	errc := make(chan error, 1)
	go func() {
		_, err := p.Exec(ctx, "echo started; sleep 120", sandbox.ExecOptions{Timeout: 5 * time.Minute})
		errc <- err
	}()
	// Delete once the command runs, the way kubectl does (the pod's own grace period).
	for {
		res, err := p.Exec(ctx, "pgrep -f 'sleep 120' || true", sandbox.ExecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(res.Output) != "" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := env.Client.CoreV1().Pods(c.Namespace()).Delete(ctx, p.Name(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var died *sandbox.DiedError
	if err := <-errc; !errors.As(err, &died) || died.ExitStatus() != "ContainerDied" {
		t.Fatalf("Exec in a pod deleted under it: err = %v, want a *sandbox.DiedError with status ContainerDied", err)
	}
	if _, err := p.Exec(ctx, "true", sandbox.ExecOptions{}); !errors.As(err, &died) {
		t.Errorf("Exec after the deletion: err = %v, want a *sandbox.DiedError", err)
	}
	if err := p.WriteFile(ctx, "/tmp/x", []byte("x")); !errors.As(err, &died) {
		t.Errorf("WriteFile after the deletion: err = %v, want a *sandbox.DiedError", err)
	}
	if err := p.Remove(ctx); err != nil {
		t.Errorf("Remove of a deleted pod: %v, want nil", err)
	}
}

// An image the kubelet cannot pull (it fails at once on the test cluster, which has no
// registry) ends the start with sandbox.ErrImageUnavailable once the pull kept failing for
// PullTimeout, and leaves no pod.
func TestImagePullFails(t *testing.T) {
	c := newCluster(t, kubeenv.Options{Pull: kubeenv.PullMissing, PullTimeout: 3 * time.Second})
	run := fmt.Sprintf("kubeenv-pull-%d", time.Now().UnixNano())
	t.Cleanup(func() { _, _ = c.Sweep(context.Background(), sandbox.Selector{RunID: run}) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := c.Start(ctx, sandbox.Spec{Image: "swebench-run-test/not-in-any-registry:v1", RunID: run, InstanceID: "pull__fails-1"})
	if err == nil {
		_ = sb.Remove(ctx)
		t.Fatal("started a pod of an image that cannot be pulled")
	}
	if !errors.Is(err, sandbox.ErrImageUnavailable) {
		t.Fatalf("err = %v, want sandbox.ErrImageUnavailable", err)
	}
	if !strings.Contains(err.Error(), "ErrImagePull") && !strings.Contains(err.Error(), "ImagePullBackOff") {
		t.Errorf("err = %v, want it to name the kubelet's pull error", err)
	}
	if pods, err := c.ListPods(ctx, run); err != nil || len(pods) != 0 {
		t.Errorf("pods left by the failed start: %v, %v", pods, err)
	}
}

// A pod that no node can hold stays pending: the start waits (OnPending says why) instead of
// failing, until its context ends; then no pod is left.
func TestUnschedulableWaits(t *testing.T) {
	var (
		mu      sync.Mutex
		reasons []string
	)
	pending := make(chan struct{}, 1)
	c := newCluster(t, kubeenv.Options{OnPending: func(instance, reason string) {
		mu.Lock()
		defer mu.Unlock()
		reasons = append(reasons, instance+": "+reason)
		if reason != "" {
			select {
			case pending <- struct{}{}:
			default:
			}
		}
	}})
	run := fmt.Sprintf("kubeenv-unschedulable-%d", time.Now().UnixNano())
	t.Cleanup(func() { _, _ = c.Sweep(context.Background(), sandbox.Selector{RunID: run}) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		sb, err := c.Start(ctx, sandbox.Spec{Image: kubetest.BaseImage, RunID: run, InstanceID: "too__big-1",
			Limits: sandbox.Limits{CPUs: 512, MemoryBytes: 1 << 40}})
		if err == nil {
			_ = sb.Remove(context.Background())
		}
		errc <- err
	}()
	select {
	case <-pending:
	case err := <-errc:
		t.Fatalf("Start of a pod too big for any node ended (%v) instead of waiting", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("no pending report within 2 minutes")
	}
	// Still waiting a while later: pending is not a failure.
	select {
	case err := <-errc:
		t.Fatalf("Start ended while the pod was pending: %v", err)
	case <-time.After(3 * time.Second):
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Start after the cancellation: err = %v, want context.Canceled", err)
	}
	mu.Lock()
	got := strings.Join(reasons, "\n")
	mu.Unlock()
	if !strings.Contains(got, "too__big-1: ") || !strings.Contains(strings.ToLower(got), "insufficient") {
		t.Errorf("pending reports %q, want the scheduler's reason (Insufficient cpu/memory)", got)
	}
	if !strings.HasSuffix(got, "too__big-1: ") {
		t.Errorf("pending reports %q, want a last report with no reason (no longer pending)", got)
	}
	if pods, err := c.ListPods(context.Background(), run); err != nil || len(pods) != 0 {
		t.Errorf("pods left after the cancelled start: %v, %v", pods, err)
	}
}

// A sweep for orphans deletes the pods whose heartbeat went stale, and keeps those whose owner
// renews it.
func TestHeartbeatSweep(t *testing.T) {
	// A namespace of its own: a sweep for orphans with a short StaleAfter would take the pods
	// of tests running beside this one, which renew no heartbeat.
	ns := kubetest.Cluster(t).NewNamespace(t)
	owner := newCluster(t, kubeenv.Options{Namespace: ns, HeartbeatInterval: 300 * time.Millisecond})
	// Another machine's view: the owner process is not one of its own, only the heartbeat
	// counts (the pods of this test are owned by this process, which is alive). The first
	// sweeper's StaleAfter is far beyond any pod start, so that a machine loaded by other test
	// binaries (a pod start of several seconds) cannot make a fresh pod look stale; the second's
	// is short, yet 20 renewals of the owner's heartbeat long.
	patient := newCluster(t, kubeenv.Options{Namespace: ns, StaleAfter: 2 * time.Minute})
	const staleAfter = 6 * time.Second
	sweeper := newCluster(t, kubeenv.Options{Namespace: ns, StaleAfter: staleAfter})
	ctx := context.Background()

	alive := start(t, owner, sandbox.Spec{InstanceID: "heart__beats-1"})
	hctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = owner.Heartbeat(hctx) }()
	t.Cleanup(func() { stop(); wg.Wait() })

	quiet := newCluster(t, kubeenv.Options{Namespace: ns}) // starts pods and never renews their heartbeat
	stale := start(t, quiet, sandbox.Spec{InstanceID: "heart__stopped-1"})

	if n, err := patient.Sweep(ctx, sandbox.Selector{Orphaned: true}); err != nil || n != 0 {
		t.Fatalf("Sweep of fresh pods = %d, %v; want 0, nil", n, err)
	}
	time.Sleep(staleAfter + time.Second)
	n, err := sweeper.Sweep(ctx, sandbox.Selector{Orphaned: true})
	if err != nil {
		t.Fatal(err)
	}
	if n < 1 {
		t.Errorf("swept %d pods, want the one whose heartbeat stopped", n)
	}
	var died *sandbox.DiedError
	if _, err := stale.Exec(ctx, "true", sandbox.ExecOptions{}); !errors.As(err, &died) {
		t.Errorf("Exec in the swept pod: err = %v, want a *sandbox.DiedError", err)
	}
	if res, err := alive.Exec(ctx, "echo alive", sandbox.ExecOptions{}); err != nil || res.Output != "alive\n" {
		t.Errorf("the pod whose heartbeat is renewed: (%q, %v), want it alive", res.Output, err)
	}
}

// envChild makes the test binary a process that starts a pod, prints its name and waits to be
// killed (see TestKilledOwner).
const envChild = "KUBEENV_TEST_CHILD_RUN"

// childMain is the process TestKilledOwner kills with SIGKILL.
func childMain() int {
	run := os.Getenv(envChild)
	c, err := kubeenv.New(context.Background(), kubeenv.Options{Kubeconfig: os.Getenv("KUBECONFIG"), Namespace: os.Getenv("KUBEENV_TEST_NAMESPACE"), Pull: kubeenv.PullNever})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sb, err := c.Start(context.Background(), sandbox.Spec{Image: kubetest.BaseImage, RunID: run, InstanceID: "killed__owner-1"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(sb.Name())
	select {}
}

// A process killed with SIGKILL cannot delete its pods: a sweep for orphans on its machine
// deletes them at once (the owner's pid is gone), before their heartbeat goes stale.
func TestKilledOwner(t *testing.T) {
	env := kubetest.Cluster(t)
	ns := env.NewNamespace(t)
	c := newCluster(t, kubeenv.Options{Namespace: ns, StaleAfter: time.Hour})
	run := fmt.Sprintf("kubeenv-killed-%d", time.Now().UnixNano())
	t.Cleanup(func() { _, _ = c.Sweep(context.Background(), sandbox.Selector{RunID: run}) })
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+run, "KUBECONFIG="+env.Kubeconfig, "KUBEENV_TEST_NAMESPACE="+ns)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child process started no pod: %v", err)
	}
	name := strings.TrimSpace(line)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if pods, _ := c.ListPods(context.Background(), run); len(pods) != 1 || pods[0] != name {
		t.Fatalf("pods of the killed process: %v, want [%s]", pods, name)
	}
	n, err := c.Sweep(context.Background(), sandbox.Selector{Orphaned: true})
	if err != nil || n < 1 {
		t.Fatalf("Sweep of orphans = %d, %v; want the killed process's pod", n, err)
	}
	if pods, _ := c.ListPods(context.Background(), run); len(pods) != 0 {
		t.Errorf("pods of the killed process after the sweep: %v", pods)
	}
}
