// Package kubetest gives tests a real Kubernetes cluster: the one $KUBECONFIG names, or the
// project's single-node test cluster (scripts/kube-up.sh, docs/kubernetes-test-cluster.md),
// started when it is down. Without one (not root, no cluster) such tests skip — except when CI
// is set, where they fail.
//
// A test binary that started the test cluster stops it when its last user is done (see Main):
// packages tested at once share it. Under scripts/test.sh (SWEBENCH_RUN_TEST_SESSION set) the
// suite stops it instead, at its end.
package kubetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
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

var (
	once     sync.Once
	env      *Env
	envErr   error
	userLock *os.File // shared lock on kubeDir()/users.lock while this process may use it
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

// Cluster returns the test cluster, starting it when needed; it skips t (fails under CI) when
// there is none.
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
		t.Skipf("no Kubernetes cluster: %v", envErr)
	}
	return env
}

// connect reaches $KUBECONFIG's cluster, else the test cluster, starting the test cluster
// (as root) when it is down.
func connect() (*Env, error) {
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		path = TestClusterKubeconfig()
	}
	testCluster := filepath.Clean(path) == filepath.Clean(TestClusterKubeconfig())
	if testCluster {
		lockUsers()
	}
	e, err := open(path)
	if err == nil {
		return e, nil
	}
	if !testCluster {
		return nil, fmt.Errorf("KUBECONFIG=%s: %w", path, err)
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("the test cluster is down and starting it needs root (scripts/kube-up.sh): %w", err)
	}
	cmd := exec.Command(filepath.Join(RepoRoot(), "scripts", "kube-up.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("scripts/kube-up.sh: %w", err)
	}
	// Whoever uses the cluster last stops it (see Main), unless the test suite manages it.
	if os.Getenv("SWEBENCH_RUN_TEST_SESSION") == "" {
		_ = os.WriteFile(startedMarker(), []byte(fmt.Sprintln(os.Getpid())), 0o644)
	}
	return open(strings.TrimSpace(string(out)))
}

func startedMarker() string { return filepath.Join(kubeDir(), "started-by-tests") }

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

// lockUsers takes a shared lock that says this process may use the test cluster.
func lockUsers() {
	if err := os.MkdirAll(kubeDir(), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(kubeDir(), "users.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		f.Close()
		return
	}
	userLock = f
}

// Main runs the tests of m and, when a test binary started the test cluster outside the test
// suite and no other test binary still uses it, stops it (scripts/kube-down.sh). Call it from
// TestMain: os.Exit(kubetest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if userLock == nil {
		return code
	}
	f := userLock
	userLock = nil
	// The last user takes the lock exclusively.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return code
	}
	defer f.Close()
	if _, err := os.Stat(startedMarker()); err != nil {
		return code // started by someone else (a person, .ci/run, the suite): theirs to stop
	}
	os.Remove(startedMarker())
	cmd := exec.Command(filepath.Join(RepoRoot(), "scripts", "kube-down.sh"))
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "kubetest: stopping the test cluster:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
