package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// baseTasks writes a dataset of n instances on the base image (no repository needed) and a
// scripted.yaml beside it in which each instance takes steps short turns and submits.
func baseTasks(t *testing.T, n, steps int, delay time.Duration) (split string, ids []string) {
	t.Helper()
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	dir := t.TempDir()
	var rows, script strings.Builder
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("run__state-%d", i)
		ids = append(ids, id)
		fmt.Fprintf(&rows, `{"instance_id": %q, "problem_statement": "task %s", "image": %q}`+"\n", id, id, testenv.BaseImage)
		fmt.Fprintf(&script, "%s:\n", id)
		for s := 0; s < steps-1; s++ {
			fmt.Fprintf(&script, "  - commands: [\"echo step %d\"]\n    delay: %s\n", s, delay)
		}
		fmt.Fprintf(&script, "  - commands: [\"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo 'patch of %s'\"]\n", id)
	}
	split = filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(split, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scripted.yaml"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return split, ids
}

// costlyOpenAI is an OpenAI-compatible server whose every call costs callCost (reported as
// usage.cost, as OpenRouter does): each conversation takes turns calls, the last one submits.
func costlyOpenAI(t *testing.T, turns int, callCost float64, delay time.Duration, calls *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		turn := 0
		for _, m := range req.Messages {
			if m["role"] == "assistant" {
				turn++
			}
		}
		time.Sleep(delay)
		cmd := fmt.Sprintf("echo turn %d", turn)
		if turn >= turns-1 {
			cmd = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo patch"
		}
		args, _ := json.Marshal(map[string]string{"command": cmd})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-cost", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
				"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{
					"id": fmt.Sprintf("call_%d", turn), "type": "function", "function": map[string]any{"name": "bash", "arguments": string(args)}}}}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110, "cost": callCost},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// lastRecords returns the last ledger record of every instance.
func lastRecords(t *testing.T, out string) map[string]results.Record {
	t.Helper()
	last := map[string]results.Record{}
	for _, r := range readLedger(t, out) {
		last[r.InstanceID] = r
	}
	return last
}

func ledgerCost(t *testing.T, out string) float64 {
	t.Helper()
	total := 0.0
	for _, r := range readLedger(t, out) {
		total += r.Cost
	}
	return total
}

// Issue 20, part 1: 8 instances of 3 calls at $1.05 each, 2 workers, --max-cost 7. The
// instances the budget cuts are unfinished (RunBudgetExhausted), not LimitsExceeded; the cost
// stays within the documented bound; a limit below what was spent starts no call; a larger
// limit finishes all 8.
func TestCostLimitAcrossResumes(t *testing.T) {
	const callCost, workers = 1.05, 2
	split, ids := baseTasks(t, 8, 1, 0)
	var calls atomic.Int64
	srv := costlyOpenAI(t, 3, callCost, 50*time.Millisecond, &calls)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", testAPIKey)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--split", split, "--model", "openai/gpt-4o-mini", "--workers", fmt.Sprint(workers),
		"-o", out, "--progress", "none", "-c", "environment.cwd=/tmp"}

	code, _, stderr := runCLI(t, append(args, "--max-cost", "7")...)
	if code != exitFailure || !strings.Contains(stderr, "raise --max-cost") {
		t.Fatalf("first run: exit %d, want %d with the budget message\n%s", code, exitFailure, stderr)
	}
	cut := 0
	for id, r := range lastRecords(t, out) {
		switch r.ExitStatus {
		case model.StatusLimitsExceeded:
			t.Errorf("%s ended LimitsExceeded: a run-wide budget is not the instance's own limit", id)
		case model.StatusRunBudgetExhausted:
			cut++
			if r.Category != results.CategoryUnfinished {
				t.Errorf("%s: category %s, want %s", id, r.Category, results.CategoryUnfinished)
			}
		}
	}
	// The documented bound: the limit plus the calls in flight (at most one per worker).
	spent := ledgerCost(t, out)
	if bound := 7 + workers*callCost; spent > bound+1e-9 {
		t.Errorf("first run spent $%.2f, over the bound $%.2f", spent, bound)
	}
	t.Logf("first run: $%.2f spent of $7, %d instances cut, %d calls", spent, cut, calls.Load())
	if !strings.Contains(stderr, fmt.Sprintf("%d running instances were cut", cut)) {
		t.Errorf("the message does not count the %d cut instances:\n%s", cut, stderr)
	}

	// stats counts them as unfinished, never as the model's failures.
	code, stdout, stderr := runCLI(t, "stats", "--json", out)
	if code != 0 {
		t.Fatalf("stats: exit %d\n%s", code, stderr)
	}
	var st results.Stats
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Unfinished) != cut || st.ByCategory[results.CategoryUnfinished] != cut {
		t.Errorf("stats: unfinished %v (category count %d), want %d", st.Unfinished, st.ByCategory[results.CategoryUnfinished], cut)
	}
	if _, text, _ := runCLI(t, "stats", out); cut > 0 && !strings.Contains(text, "unfinished") {
		t.Errorf("stats does not show the unfinished instances:\n%s", text)
	}

	// A resumed run whose limit is below what was spent starts no model call.
	before := calls.Load()
	code, _, stderr = runCLI(t, append(args, "--max-cost", "5")...)
	if code != exitFailure || calls.Load() != before {
		t.Errorf("resume under the spent amount: exit %d, %d new calls; want exit 1 and none\n%s", code, calls.Load()-before, stderr)
	}
	if !strings.Contains(stderr, "spent by earlier runs") {
		t.Errorf("the resume does not say what earlier runs spent:\n%s", stderr)
	}

	// A larger limit finishes everything, cut instances from the start.
	code, _, stderr = runCLI(t, append(args, "--max-cost", "100")...)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, stderr)
	}
	last := lastRecords(t, out)
	for _, id := range ids {
		if r := last[id]; r.ExitStatus != "Submitted" || r.APICalls != 3 {
			t.Errorf("%s: %s after %d calls, want Submitted after 3", id, r.ExitStatus, r.APICalls)
		}
	}
	if spent := ledgerCost(t, out); spent > 100 {
		t.Errorf("total spent $%.2f over the $100 limit", spent)
	}
}

// Issue 20, part 2: two runs on one output directory at once — one runs, the other stops at
// once naming the holder; with --wait it waits, then resumes with nothing to do.
func TestOneRunPerOutputDirectory(t *testing.T) {
	split, _ := baseTasks(t, 8, 3, 300*time.Millisecond)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--split", split, "--model", "scripted", "--workers", "4", "-o", out, "--progress", "none", "-c", "environment.cwd=/tmp"}

	first := make(chan int)
	go func() {
		code, _, stderr := runCLI(t, args...)
		if code != 0 {
			t.Errorf("first run: exit %d\n%s", code, stderr)
		}
		first <- code
	}()
	waitForLock(t, out)
	code, _, stderr := runCLI(t, args...)
	if code != exitFailure || !strings.Contains(stderr, "is in use by pid "+fmt.Sprint(os.Getpid())) {
		t.Errorf("second run: exit %d, want 1 naming the holder\n%s", code, stderr)
	}
	var waitCode int
	var waitErr string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		waitCode, _, waitErr = runCLI(t, append(args, "--wait")...)
	}()
	<-first
	wg.Wait()
	if waitCode != 0 || !strings.Contains(waitErr, "waiting for it to finish") || !strings.Contains(waitErr, "8 skipped") {
		t.Errorf("--wait: exit %d, want 0 after waiting, with nothing left to do\n%s", waitCode, waitErr)
	}
	if n := len(readLedger(t, out)); n != 8 {
		t.Errorf("ledger has %d records, want 8", n)
	}
	if _, err := os.Stat(filepath.Join(out, results.LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file left after the runs: %v", err)
	}
}

// A holder killed with SIGKILL releases the directory: the next run starts at once.
func TestLockOfKilledRunIsReleased(t *testing.T) {
	split, _ := baseTasks(t, 2, 3, 2*time.Second)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--split", split, "--model", "scripted", "--workers", "2", "-o", out, "--progress", "lines", "-c", "environment.cwd=/tmp"}
	holder := exec.Command(binary(t), args...)
	stderr, err := holder.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	go io.Copy(io.Discard, stderr)
	waitForLock(t, out)
	time.Sleep(time.Second) // in the middle of its instances
	if code, _, msg := runCLI(t, args...); code != exitFailure || !strings.Contains(msg, fmt.Sprintf("pid %d", holder.Process.Pid)) {
		t.Fatalf("while the holder runs: exit %d, want 1 naming pid %d\n%s", code, holder.Process.Pid, msg)
	}
	holder.Process.Kill()
	holder.Wait()
	code, _, msg := runCLI(t, append(args, "--progress", "none")...)
	if code != 0 {
		t.Fatalf("after SIGKILL of the holder: exit %d\n%s", code, msg)
	}
	for id, r := range lastRecords(t, out) {
		if r.ExitStatus != "Submitted" {
			t.Errorf("%s: %s, want Submitted", id, r.ExitStatus)
		}
	}
}

// waitForLock waits until a run holds out.
func waitForLock(t *testing.T, out string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(filepath.Join(out, results.LockFile)); err == nil && len(data) > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no run took the lock within a minute")
}
