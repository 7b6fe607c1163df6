package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/results"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds swebench-run once for the tests that need a real process to signal.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "swebench-run-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "swebench-run")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// quickScript writes a script in which each demo instance takes a few short steps and submits
// "patch of <id>".
func quickScript(t *testing.T, dir string, ids []string) string {
	t.Helper()
	var sb strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&sb, "%s:\n", id)
		for i := 0; i < 3; i++ {
			fmt.Fprintf(&sb, "  - commands: [\"echo step %d\"]\n    delay: 150ms\n", i)
		}
		fmt.Fprintf(&sb, "  - commands: [\"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo 'patch of %s'\"]\n", id)
	}
	p := filepath.Join(dir, "quick.yaml")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkOutput verifies that every file of out parses and that every instance the ledger records
// as finished has its prediction.
func checkOutput(t *testing.T, out string) (finished int) {
	t.Helper()
	history, _, err := results.ReadLedger(out)
	if err != nil {
		t.Fatalf("ledger: %v", err)
	}
	preds := map[string]results.Prediction{}
	if data, err := os.ReadFile(filepath.Join(out, results.PredsFile)); err == nil {
		if err := json.Unmarshal(data, &preds); err != nil {
			t.Fatalf("preds.json does not parse: %v", err)
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for id, h := range history {
		last := h[len(h)-1]
		if last.Category != results.CategoryModel {
			continue
		}
		finished++
		if got, want := preds[id].ModelPatch, "patch of "+id+"\n"; got != want {
			t.Errorf("%s finished (%s) but preds.json has %q, want %q", id, last.ExitStatus, got, want)
		}
	}
	trajs, _ := filepath.Glob(filepath.Join(out, "*", "*.traj.json"))
	for _, p := range trajs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) {
			t.Errorf("%s does not parse", p)
		}
	}
	return finished
}

func runID(t *testing.T, out string) string {
	t.Helper()
	man, err := results.ReadManifest(out)
	if err != nil || man == nil {
		t.Fatalf("run.json: %v", err)
	}
	return man.RunID
}

func startRun(t *testing.T, bin, split, script, out string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "run", "--split", split, "--model", "scripted:"+script, "--workers", "3", "-o", out, "--progress", "none")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// waitStarted waits until the run has written its manifest (it has started).
func waitStarted(t *testing.T, out string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(out, results.ManifestFile)); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the run never wrote run.json")
}

// signalTrialSetup gives the signal trials the binary, the demo dataset, a quick script for
// its instances, a scratch directory and the instance ids.
func signalTrialSetup(t *testing.T) (bin, split, script, dir string, ids []string) {
	t.Helper()
	split, insts := demoInstances(t)
	bin = binary(t)
	for _, inst := range insts {
		ids = append(ids, inst.InstanceID)
	}
	dir = t.TempDir()
	return bin, split, quickScript(t, dir, ids), dir, ids
}

// SIGINT at random moments: exit 130 (or 0 when the run had already finished), valid output
// files, and no container of the run left.
func TestSIGINTAtRandomMoments(t *testing.T) {
	if testing.Short() {
		t.Skip("signal trials are slow")
	}
	bin, split, script, dir, ids := signalTrialSetup(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 10; trial++ {
		out := filepath.Join(dir, fmt.Sprintf("int-%d", trial))
		cmd := startRun(t, bin, split, script, out)
		waitStarted(t, out)
		time.Sleep(time.Duration(rng.IntN(6000)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		finished := checkOutput(t, out)
		if code != exitInterrupted && !(code == 0 && finished == len(ids)) {
			t.Errorf("trial %d: exit %d (%v) with %d/%d finished, want 130", trial, code, err, finished, len(ids))
		}
		assertNoContainers(t, runID(t, out))
	}
}

// SIGKILL at random moments: whatever the ledger says finished is in preds.json, every file
// parses, and the next run sweeps the leftover containers and completes the rest.
func TestSIGKILLThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("kill trials are slow")
	}
	bin, split, script, dir, ids := signalTrialSetup(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		out := filepath.Join(dir, fmt.Sprintf("kill-%d", trial))
		cmd := startRun(t, bin, split, script, out)
		waitStarted(t, out)
		time.Sleep(time.Duration(rng.IntN(5000)) * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		checkOutput(t, out)

		// Resume: sweeps what the killed process left and finishes the rest.
		resume := exec.Command(bin, "run", "--split", split, "--model", "scripted:"+script, "--workers", "6", "-o", out, "--progress", "none")
		if b, err := resume.CombinedOutput(); err != nil {
			t.Fatalf("trial %d: resume failed: %v\n%s", trial, err, b)
		}
		if got := checkOutput(t, out); got != len(ids) {
			t.Errorf("trial %d: %d of %d instances finished after the resume", trial, got, len(ids))
		}
		assertNoContainers(t, runID(t, out))
	}
}
