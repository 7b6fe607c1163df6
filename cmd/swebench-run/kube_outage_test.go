package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/kubeenv/kubetest"
)

// kubeOutage is the test cluster's API server behind a loopback TCP port of the test's own,
// which the run reaches through a copy of the kubeconfig naming that port, in a namespace of the
// test's own. The API server itself must not go away under a test: every test binary shares the
// one test cluster. Beyond its API nothing changes when an API server restarts: the kubelet keeps
// the pods running, and they are there, with their state, when it answers again — as here. (Its
// serving certificate names 127.0.0.1, which the proxy's address keeps; TLS passes through.)
func kubeOutage(t *testing.T) *outageBackend {
	t.Helper()
	env := kubetest.Cluster(t)
	ns := env.NewNamespace(t)
	server, err := url.Parse(env.Config.Host)
	if err != nil || server.Host == "" {
		t.Fatalf("the cluster's server %q: %v", env.Config.Host, err)
	}
	p := newCutProxy(t, "tcp", "127.0.0.1:0", "tcp", server.Host)
	data, err := os.ReadFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	servers := regexp.MustCompile(`(?m)^(\s*server:\s*)\S+\s*$`)
	if !servers.Match(data) {
		t.Fatalf("%s names no server", env.Kubeconfig)
	}
	via := servers.ReplaceAll(data, []byte("${1}https://"+p.addr))
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, via, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	pods := func(t *testing.T, runID string, running bool) []string {
		t.Helper()
		list, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: kubeenv.LabelManagedBy + "=" + kubeenv.ManagedBy})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, pod := range list.Items {
			if pod.Annotations[kubeenv.LabelRun] == runID && pod.DeletionTimestamp == nil && (!running || pod.Status.Phase == "Running") {
				names = append(names, pod.Name)
			}
		}
		return names
	}
	return &outageBackend{
		proxy:      p,
		flags:      []string{"--backend", "kubernetes", "--namespace", ns, "--pull", "never"},
		unanswered: "kubernetes API server kubernetes://" + p.addr + "/" + ns + " does not answer",
		left:       func(t *testing.T, runID string) []string { return pods(t, runID, false) },
		alsoDown:   func(*testing.T, ...string) {},
		forget:     func(*testing.T, ...string) {}, // the namespace goes, with its pods
		// Running pods, then time for their first command (`sleep 8`) to start: the pod's
		// container answers its first exec at once, and the script's first step is that command.
		waitBusy: func(t *testing.T, n int, runIDs ...string) {
			t.Helper()
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
				running := 0
				for _, runID := range runIDs {
					running += len(pods(t, runID, true))
				}
				if running >= n {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("fewer than %d pods of runs %v running within 2 minutes", n, runIDs)
				}
			}
			time.Sleep(2 * time.Second)
		},
	}
}
