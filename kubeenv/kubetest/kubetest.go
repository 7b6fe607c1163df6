// Package kubetest gives tests a real Kubernetes cluster: the one $KUBECONFIG names, or the
// project's single-node test cluster (scripts/kube-up.sh, docs/kubernetes-test-cluster.md) when
// it is up. Tests never start, restart or stop a cluster: starting one can mean building
// Kubernetes (about 5 minutes on a new, idle machine), which does not belong under go test's timeout,
// and test binaries run at once share the cluster, so none of them may replace it under the
// others. `make kube-up` starts it; scripts/test.sh starts it before the tests when
// SWEBENCH_RUN_KUBE=1 asks for it (and .ci/run does), and stops what it started at its end.
//
// Without a cluster such tests skip with a line naming `make kube-up`, except when CI is set,
// where they fail.
package kubetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Env is a reachable cluster.
type Env struct {
	Kubeconfig string
	Config     *rest.Config
	Client     kubernetes.Interface
	Namespace  string
}

// Images the test cluster has (imported by scripts/kube-up.sh), used with pull policy never.
const BaseImage = "swebench-run/base:bookworm"

// StartHint is what a person reads when the Kubernetes tests skip.
const StartHint = "start the test cluster with `make kube-up` (as root; the first start builds Kubernetes from the Go module proxy, about 5 minutes on an idle 2-core machine, then about 10 s), or run `SWEBENCH_RUN_KUBE=1 make test`"

var (
	once     sync.Once
	env      *Env
	envErr   error
	userLock *os.File // shared lock on kubeDir()/users.lock while this process uses the test cluster
)

func kubeDir() string {
	if d := os.Getenv("SWEBENCH_KUBE_DIR"); d != "" {
		return d
	}
	return "/var/lib/swebench-run-kube"
}

// TestClusterKubeconfig is the admin kubeconfig of the project's test cluster.
func TestClusterKubeconfig() string { return filepath.Join(kubeDir(), "admin.kubeconfig") }

// RepoRoot is the repository root.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Cluster returns the cluster the tests use; it skips t (fails under CI) when none answers.
func Cluster(t testing.TB) *Env {
	t.Helper()
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("Kubernetes test skipped in -short mode")
	}
	once.Do(func() { env, envErr = connect() })
	if envErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and no Kubernetes cluster answers: %v", envErr)
		}
		t.Skipf("no Kubernetes cluster (%v): %s", envErr, StartHint)
	}
	return env
}

// connect reaches $KUBECONFIG's cluster, else the test cluster. While this process uses the test
// cluster it holds a shared lock on its users.lock, which scripts/kube-up.sh and
// scripts/kube-down.sh check before they replace or stop it.
func connect() (*Env, error) {
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		path = TestClusterKubeconfig()
	}
	if filepath.Clean(path) == filepath.Clean(TestClusterKubeconfig()) {
		lockUsers()
	}
	e, err := open(path)
	if err != nil {
		unlockUsers() // nothing of the cluster is used: a kube-up must not wait for this process
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return e, nil
}

func unlockUsers() {
	if userLock != nil {
		userLock.Close()
		userLock = nil
	}
}

func open(path string) (*Env, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	config, err := cc.ClientConfig()
	if err != nil {
		return nil, err
	}
	ns, _, err := cc.Namespace()
	if err != nil || ns == "" {
		ns = "default"
	}
	config.QPS, config.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{}); err != nil {
		return nil, err
	}
	return &Env{Kubeconfig: path, Config: config, Client: cs, Namespace: ns}, nil
}

// NewNamespace creates a namespace of its own for t (its pods cannot meet other tests' pods, and a
// sweep in it touches nothing else), waits for its default ServiceAccount, and deletes it when t
// ends.
func (e *Env) NewNamespace(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	ns, err := e.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "swebench-run-test-",
		Labels:       map[string]string{"swebench-run/test": "1"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create a test namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = e.Client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if _, err := e.Client.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{}); err == nil {
			return ns.Name
		}
		if time.Now().After(deadline) {
			t.Fatalf("namespace %s got no default ServiceAccount within a minute", ns.Name)
		}
	}
}

// lockUsers takes a shared lock that says this process uses the test cluster; the kernel drops
// it when the process ends, however it ends.
func lockUsers() {
	f, err := os.OpenFile(filepath.Join(kubeDir(), "users.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return // no cluster directory: there is no test cluster to protect
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		f.Close()
		return
	}
	userLock = f
}
