package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/kubeenv/kubetest"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
)

// kubeDemo returns the test cluster and the demo dataset (whose images the cluster has).
func kubeDemo(t *testing.T) (*kubetest.Env, string) {
	t.Helper()
	env := kubetest.Cluster(t)
	t.Setenv("KUBECONFIG", env.Kubeconfig)
	return env, filepath.Join(kubetest.RepoRoot(), "demo", "dataset.jsonl")
}

func sandboxSpec(runID string) sandbox.Spec {
	return sandbox.Spec{Image: kubetest.BaseImage, RunID: runID, InstanceID: "cleanup__pod-1"}
}

// runPods lists the pods of runID that are not being deleted.
func runPods(t *testing.T, env *kubetest.Env, runID string) []string {
	t.Helper()
	list, err := env.Client.CoreV1().Pods(env.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: kubeenv.LabelManagedBy + "=" + kubeenv.ManagedBy})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Items {
		if p.Annotations[kubeenv.LabelRun] == runID && p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	return names
}

// waitPods waits until runID has a pod and returns their names.
func waitPods(t *testing.T, env *kubetest.Env, runID string) []string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if pods := runPods(t, env, runID); len(pods) > 0 {
			return pods
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no pod of run %s within 2 minutes", runID)
	return nil
}

// sleepingScript writes a script in which id runs `sleep 120` (time enough to kill something under
// it) and then submits.
func sleepingScript(t *testing.T, id string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "slow.yaml")
	script := fmt.Sprintf("%s:\n  - commands: [\"sleep 120\"]\n  - commands: [\"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo 'patch of %s'\"]\n", id, id)
	if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// `make demo-kube`: the demo on the Kubernetes backend with --eval: every instance submitted
// and resolved, no pod left.
func TestKubeDemo(t *testing.T) {
	env, split := kubeDemo(t)
	out := t.TempDir()
	runID := fmt.Sprintf("kube-demo-%d", time.Now().UnixNano())
	code, stdout, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "4", "-o", out,
		"--backend", "kubernetes", "--pull", "never", "--eval", "--run-id", runID, "--progress", "lines")
	if code != 0 {
		t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
	}
	recs := readLedger(t, out)
	if len(recs) != 6 {
		t.Fatalf("ledger has %d records, want 6", len(recs))
	}
	for _, r := range recs {
		if r.ExitStatus != "Submitted" || !strings.HasPrefix(r.Host, "kubernetes://") {
			t.Errorf("%s: status %s on %q, want Submitted on kubernetes://…", r.InstanceID, r.ExitStatus, r.Host)
		}
	}
	if !strings.Contains(stdout, "6 resolved, 0 unresolved") {
		t.Errorf("eval summary %q, want 6 resolved", stdout)
	}
	if pods := runPods(t, env, runID); len(pods) != 0 {
		t.Errorf("pods left after the run: %v", pods)
	}
}

// A pod deleted under a running instance (kubectl delete, eviction, drain) ends that attempt with
// ContainerDied, an infrastructure failure, and the instance runs again in the same run, in a
// fresh pod: exit 0, both attempts in the ledger, no pod left.
func TestKubePodDeletedMidRun(t *testing.T) {
	env, split := kubeDemo(t)
	out := t.TempDir()
	id := "demo__datekit-12"
	runID := fmt.Sprintf("kube-deleted-%d", time.Now().UnixNano())
	script := filepath.Join(t.TempDir(), "slow.yaml")
	if err := os.WriteFile(script, []byte(fmt.Sprintf("%s:\n  - commands: [\"sleep 15\"]\n  - commands: [\"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo 'patch of %s'\"]\n", id, id)), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := runCLI(t, "run", "--split", split, "--instance-ids", id, "--model", "scripted:"+script,
			"-o", out, "--backend", "kubernetes", "--pull", "never", "--run-id", runID, "--progress", "lines")
		done <- result{code, stderr}
	}()
	pods := waitPods(t, env, runID)
	// Once it runs (a pod deleted while it starts is a ContainerStartError).
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		pod, err := env.Client.CoreV1().Pods(env.Namespace).Get(context.Background(), pods[0], metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod.Status.Phase == "Running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s not running within 2 minutes", pods[0])
		}
	}
	if err := env.Client.CoreV1().Pods(env.Namespace).Delete(context.Background(), pods[0], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	t.Logf("run output:\n%s", res.stderr)
	if res.code != 0 {
		t.Fatalf("exit code %d, want 0 (the instance retried in the same run)", res.code)
	}
	recs := readLedger(t, out)
	if len(recs) != 2 || recs[0].ExitStatus != "ContainerDied" || recs[0].Category != results.CategoryInfrastructure ||
		recs[1].ExitStatus != "Submitted" || recs[1].Attempt != 2 {
		t.Fatalf("ledger %+v, want ContainerDied (infrastructure) then Submitted as attempt 2", recs)
	}
	if pods := runPods(t, env, runID); len(pods) != 0 {
		t.Errorf("pods left: %v", pods)
	}
}

// A runner killed with SIGKILL cannot delete its pods; the next run (of the same output
// directory) deletes them when it starts, and finishes the instance.
func TestKubeKilledRunner(t *testing.T) {
	env, split := kubeDemo(t)
	out := t.TempDir()
	id := "demo__moneyfmt-7"
	runID := fmt.Sprintf("kube-killed-%d", time.Now().UnixNano())
	cmd := exec.Command(binary(t), "run", "--split", split, "--instance-ids", id, "--model", "scripted:"+sleepingScript(t, id),
		"-o", out, "--backend", "kubernetes", "--pull", "never", "--run-id", runID, "--progress", "none")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	stale := waitPods(t, env, runID)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if pods := runPods(t, env, runID); len(pods) != 1 {
		t.Fatalf("pods after the SIGKILL: %v, want the one the killed runner left", pods)
	}
	quick := quickScript(t, t.TempDir(), []string{id})
	code, _, stderr := runCLI(t, "run", "--split", split, "--instance-ids", id, "--model", "scripted:"+quick,
		"-o", out, "--backend", "kubernetes", "--pull", "never", "--progress", "none", "--force")
	if code != 0 {
		t.Fatalf("next run: exit code %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "removed 1 leftover") {
		t.Errorf("the next run did not say it removed the stale pod; stderr:\n%s", stderr)
	}
	for _, p := range runPods(t, env, runID) {
		if p == stale[0] {
			t.Errorf("the stale pod %s is still there", p)
		}
	}
	recs := readLedger(t, out)
	if len(recs) != 1 || recs[0].ExitStatus != "Submitted" {
		t.Errorf("ledger %+v, want the instance Submitted", recs)
	}
}

// An instance whose pod no node can hold is shown as pending (phase "pending" in the progress
// events) and waits; it does not fail. --max-duration ends the run: the instance is Interrupted
// (retried on resume), no pod is left.
func TestKubePendingNotFailed(t *testing.T) {
	env, split := kubeDemo(t)
	out := t.TempDir()
	runID := fmt.Sprintf("kube-pending-%d", time.Now().UnixNano())
	code, _, stderr := runCLI(t, "run", "--split", split, "--instance-ids", "demo__slugkit-23", "--model", "scripted",
		"-o", out, "--backend", "kubernetes", "--pull", "never", "--run-id", runID, "--cpus", "512",
		"--max-duration", "8s", "--progress", "json")
	if code != exitInterrupted {
		t.Fatalf("exit code %d, want %d (--max-duration); stderr:\n%s", code, exitInterrupted, stderr)
	}
	var phases []string
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev["event"] == "instance" {
			phases = append(phases, fmt.Sprint(ev["phase"]))
		}
	}
	if !strings.Contains(strings.Join(phases, " "), phasePending) {
		t.Errorf("progress phases %v, want %q among them", phases, phasePending)
	}
	recs := readLedger(t, out)
	if len(recs) != 1 || recs[0].Category != results.CategoryInfrastructure || recs[0].ExitStatus != "Interrupted" {
		t.Errorf("ledger %+v, want one Interrupted record (infrastructure)", recs)
	}
	if pods := runPods(t, env, runID); len(pods) != 0 {
		t.Errorf("pods left: %v", pods)
	}
}

// cleanup --backend kubernetes deletes the pods of one run, and only those.
func TestKubeCleanup(t *testing.T) {
	env, _ := kubeDemo(t)
	ctx := context.Background()
	c, err := kubeenv.NewForConfig(ctx, env.Config, env.Namespace, kubeenv.Options{Pull: kubeenv.PullNever, Capacity: 2})
	if err != nil {
		t.Fatal(err)
	}
	runA := fmt.Sprintf("kube-cleanup-a-%d", time.Now().UnixNano())
	runB := runA + "-b"
	for _, run := range []string{runA, runB} {
		sb, err := c.Start(ctx, sandboxSpec(run))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sb.Remove(context.Background()) })
	}
	code, stdout, stderr := runCLI(t, "cleanup", "--backend", "kubernetes", "--run-id", runA)
	if code != 0 || !strings.Contains(stdout, "removed 1 pods") {
		t.Fatalf("cleanup: exit %d, stdout %q, stderr %q; want exit 0 and 1 pod removed", code, stdout, stderr)
	}
	if pods := runPods(t, env, runA); len(pods) != 0 {
		t.Errorf("pods of %s left: %v", runA, pods)
	}
	if pods := runPods(t, env, runB); len(pods) != 1 {
		t.Errorf("pods of %s: %v, want its one pod untouched", runB, pods)
	}
}

// eval --backend kubernetes grades predictions in pods: the gold patches of two demo instances
// resolve, and no pod is left.
func TestKubeEval(t *testing.T) {
	env, split := kubeDemo(t)
	out := t.TempDir()
	runID := fmt.Sprintf("kube-eval-%d", time.Now().UnixNano())
	code, stdout, stderr := runCLI(t, "eval", "--predictions", "gold", "--split", split, "--instance-ids", "demo__confparse-31,demo__pagination-1",
		"--backend", "kubernetes", "--pull", "never", "--workers", "2", "--run-id", runID, "-o", out)
	if code != 0 {
		t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "2 resolved, 0 unresolved") {
		t.Errorf("eval summary %q, want 2 resolved", stdout)
	}
	if pods := runPods(t, env, runID); len(pods) != 0 {
		t.Errorf("pods left after eval: %v", pods)
	}
}

// A sweep runs its cells on the Kubernetes backend like a run: every cell's instances in pods,
// evaluated, and no pod left.
func TestKubeSweep(t *testing.T) {
	env, split := kubeDemo(t)
	out := t.TempDir()
	code, _, stderr := runCLI(t, "sweep", "--model", "a=scripted", "--model", "b=scripted", "--split", split, "--slice", "0:2",
		"--eval", "--backend", "kubernetes", "--pull", "never", "--workers", "4", "-o", out, "--name", "kube", "--progress", "lines")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, stderr)
	}
	for _, cell := range []string{"a", "b"} {
		dir := filepath.Join(out, "kube", cell)
		man, err := results.ReadManifest(dir)
		if err != nil || man == nil {
			t.Fatalf("cell %s: run.json: %v", cell, err)
		}
		if pods := runPods(t, env, man.RunID); len(pods) != 0 {
			t.Errorf("cell %s: pods left after the sweep: %v", cell, pods)
		}
		recs := readLedger(t, dir)
		if len(recs) != 2 {
			t.Fatalf("cell %s: %d ledger records, want 2", cell, len(recs))
		}
		for _, r := range recs {
			if r.ExitStatus != "Submitted" || !strings.HasPrefix(r.Host, "kubernetes://") {
				t.Errorf("cell %s, %s: %s on %q, want Submitted on kubernetes://…", cell, r.InstanceID, r.ExitStatus, r.Host)
			}
		}
	}
}

// A run on Kubernetes without --eval, then its submission: the missing logs are evaluated in pods
// of the same backend.
func TestKubeSubmissionEvaluates(t *testing.T) {
	_, split := kubeDemo(t)
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, "run", "--split", split, "--slice", "0:2", "--model", "scripted", "--workers", "2", "-o", out,
		"--backend", "kubernetes", "--pull", "never", "--progress", "none")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	root := t.TempDir()
	code, stdout, stderr := runCLI(t, "submission", out, "-o", root, "--split", "demo", "--dataset", split, "--name", "kube-demo",
		"--date", "20260102", "--site", "https://example.org", "--report", "https://example.org/r", "--author", "Ada", "--org", "Example",
		"--os-system", "--backend", "kubernetes", "--pull", "never", "--workers", "2", "--force")
	if code != 0 {
		t.Fatalf("submission: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "evaluating 2 predictions that have no log yet") || !strings.Contains(stdout, "Resolved 2 instances") {
		t.Errorf("the submission did not evaluate both predictions on the cluster:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}
