package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/internal/testenv"
	"github.com/swebench-run/swebench-run/results"
)

// engineProxy is "the Docker engine" of one test's run: a unix socket of the test's own in front
// of this machine's engine, which the test takes away and brings back.
//
// Why not the engine itself, or the second test engine: test binaries of other packages use the
// machine's engine at the same time, and dockerenv's tests stop and start the second engine
// (scripts/start-second-engine.sh) while they run; a restart of either would disturb them, or
// them us. The proxy lets one run see an engine restart that nobody else sees.
//
// Why it is faithful: what a client sees of a restarting dockerd is its API going away — its
// socket file removed (a dial fails: connection refused or no such file), every connection cut,
// the exec streams of running commands included (EOF in the middle of the output), requests in
// flight failing — and, without live-restore (Docker's default, and this machine's), its
// containers stopped (SIGTERM to PID 1, which exits), left in the Exited state until someone
// removes them. down does exactly that, in that order: the listener closes (Go unlinks the
// socket file), every proxied connection is closed, then the run's containers are stopped
// through the real engine. back listens on the same path again, as the restarted daemon does.
type engineProxy struct {
	path string
	mu   sync.Mutex
	ln   net.Listener
	// conns are the connections of the current listener: the client's and the engine's side.
	conns map[net.Conn]bool
}

func newEngineProxy(t *testing.T) *engineProxy {
	t.Helper()
	dir, err := os.MkdirTemp("", "engine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &engineProxy{path: filepath.Join(dir, "docker.sock")}
	p.back(t)
	t.Cleanup(func() { p.cut() })
	return p
}

func (p *engineProxy) host() string { return "unix://" + p.path }

// back starts answering again on the same socket.
func (p *engineProxy) back(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("unix", p.path)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.conns = ln, map[net.Conn]bool{}
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("unix", "/var/run/docker.sock")
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			if p.ln != ln { // cut meanwhile
				p.mu.Unlock()
				c.Close()
				d.Close()
				return
			}
			p.conns[c], p.conns[d] = true, true
			p.mu.Unlock()
			go func() { io.Copy(d, c); d.Close() }()
			go func() { io.Copy(c, d); c.Close() }()
		}
	}()
}

// cut closes the socket and every connection through it.
func (p *engineProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return
	}
	p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.ln, p.conns = nil, nil
}

// down is the engine going away as a restarting dockerd goes: its API first, then its
// containers (those of runID) stopped.
func (p *engineProxy) down(t *testing.T, runID string) {
	t.Helper()
	p.cut()
	if ids := listContainers(t, runID); len(ids) > 0 {
		if out, err := exec.Command("docker", append([]string{"stop", "-t", "10"}, ids...)...).CombinedOutput(); err != nil {
			t.Logf("docker stop: %v: %s", err, out) // one may have been removed meanwhile
		}
	}
}

// outageTasks writes a dataset of n instances on the base image and a script in which each
// runs `sleep S` (a command in flight to break) and then submits.
func outageTasks(t *testing.T, n, sleep int) (split, script string, ids []string) {
	t.Helper()
	testenv.RequireImage(t, testenv.Docker(t), testenv.BaseImage)
	dir := t.TempDir()
	var rows, sb strings.Builder
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("outage__task-%d", i)
		ids = append(ids, id)
		fmt.Fprintf(&rows, `{"instance_id": %q, "problem_statement": "wait, then submit", "image": %q}`+"\n", id, testenv.BaseImage)
		fmt.Fprintf(&sb, "%s:\n  - commands: [\"sleep %d\"]\n  - commands: [\"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo 'patch of %s'\"]\n", id, sleep, id)
	}
	split, script = filepath.Join(dir, "tasks.jsonl"), filepath.Join(dir, "script.yaml")
	if err := os.WriteFile(split, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return split, script, ids
}

// sleeping finds the `sleep S` of outageTasks among the processes `docker top` lists.
var sleeping = regexp.MustCompile(`(?m)^\s*\d+\s+sleep \d+\s*$`)

// waitCommands waits until n containers of the run (any of runIDs) run their `sleep` command,
// and returns them.
func waitCommands(t *testing.T, n int, runIDs ...string) []string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		var busy []string
		for _, runID := range runIDs {
			for _, id := range listContainers(t, runID) {
				if out, err := exec.Command("docker", "top", id, "-eo", "pid,args").Output(); err == nil && sleeping.Match(out) {
					busy = append(busy, id)
				}
			}
		}
		if len(busy) >= n {
			return busy
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("fewer than %d commands of runs %v in flight within 2 minutes", n, runIDs)
	return nil
}

// removeContainers removes what runs left when a test failed.
func removeContainers(t *testing.T, runIDs ...string) {
	for _, runID := range runIDs {
		if ids := listContainers(t, runID); len(ids) > 0 {
			exec.Command("docker", append([]string{"rm", "-f"}, ids...)...).Run()
		}
	}
}

type cliResult struct {
	code           int
	stdout, stderr string
}

// startCLI runs a command line in the background.
func startCLI(t *testing.T, args ...string) <-chan cliResult {
	t.Helper()
	done := make(chan cliResult, 1)
	go func() {
		code, stdout, stderr := runCLI(t, args...)
		done <- cliResult{code, stdout, stderr}
	}()
	return done
}

func waitCLI(t *testing.T, done <-chan cliResult) cliResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(4 * time.Minute):
		t.Fatal("the command did not end within 4 minutes")
	}
	return cliResult{}
}

// checkRetried checks that every instance of out ended Submitted and that at least want of them
// were retried within the run after an infrastructure failure, and returns the attempts by id.
func checkRetried(t *testing.T, out string, ids []string, want int) map[string][]results.Record {
	t.Helper()
	history, _, err := results.ReadLedger(out)
	if err != nil {
		t.Fatal(err)
	}
	retried := 0
	for _, id := range ids {
		h := history[id]
		if len(h) == 0 {
			t.Errorf("%s: no attempt recorded", id)
			continue
		}
		var s []string
		for k, r := range h {
			s = append(s, fmt.Sprintf("%d:%s", r.Attempt, r.ExitStatus))
			if r.Attempt != k+1 {
				t.Errorf("%s: attempt %d recorded as %d", id, k+1, r.Attempt)
			}
		}
		if last := h[len(h)-1]; last.ExitStatus != "Submitted" {
			t.Errorf("%s: attempts %v, want the last Submitted", id, s)
		}
		if len(h) > 1 {
			retried++
			for _, r := range h[:len(h)-1] {
				if r.Category != results.CategoryInfrastructure {
					t.Errorf("%s: attempts %v: a %s attempt was retried", id, s, r.Category)
				}
			}
		}
		t.Logf("%s: %s", id, strings.Join(s, " "))
	}
	if retried < want {
		t.Errorf("%d instances retried, want at least %d", retried, want)
	}
	return history
}

// The engine restarts mid-run and is back within 30 s: the commands it broke end their
// instances EngineDown, nothing starts while it is away, the display says what the run waits
// for, and once it answers the containers it left are removed and the instances run again; the
// same invocation ends with every instance Submitted, exit 0, attempts in the ledger, and no
// container left.
func TestDockerEngineAwayAndBack(t *testing.T) {
	split, script, ids := outageTasks(t, 4, 6)
	proxy := newEngineProxy(t)
	out := filepath.Join(t.TempDir(), "out")
	runID := fmt.Sprintf("outage-back-%d", time.Now().UnixNano())
	t.Cleanup(func() { removeContainers(t, runID) })
	done := startCLI(t, "run", "--split", split, "--model", "scripted:"+script, "-o", out, "--run-id", runID, "-c", "environment.cwd=/tmp",
		"--docker-host", proxy.host(), "--workers", "2", "--progress", "lines", "--backend-wait", "2m")
	waitCommands(t, 2, runID)
	away := time.Now()
	proxy.down(t, runID)
	time.Sleep(12 * time.Second)
	proxy.back(t)
	t.Logf("the engine was away for %s", time.Since(away).Round(100*time.Millisecond))
	res := waitCLI(t, done)
	t.Logf("run output:\n%s", res.stderr)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0", res.code)
	}
	checkRetried(t, out, ids, 2)
	for _, want := range []string{"waiting for the sandbox backend since", "no docker engine answers: " + proxy.host(), "the sandbox backend answers again after", "(attempt 2)"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("the run's output lacks %q", want)
		}
	}
	// The containers the restart left were removed once the engine answered, by the run itself
	// (not only by the safety sweep at its end).
	logData, err := os.ReadFile(filepath.Join(out, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logData), "removed a sandbox left while the backend did not answer") {
		t.Errorf("the run's log does not show the stopped containers removed once the engine answered")
	}
	if strings.Contains(string(logData), "removed containers left at the end of the run") {
		t.Errorf("containers were left for the final sweep; the run should have removed them once the engine answered")
	}
	assertNoContainers(t, runID)
	if code, stdout, _ := runCLI(t, "stats", out); code != 0 || !strings.Contains(stdout, "retried") {
		t.Errorf("stats: exit %d, want the retried instances listed:\n%s", code, stdout)
	}
}

// The engine stays away longer than --backend-wait: the run stops as before (exit 1, naming
// the engine), and the same command once the engine is back removes what the first run left
// and finishes every instance.
func TestDockerEngineAwayTooLong(t *testing.T) {
	split, script, ids := outageTasks(t, 3, 6)
	proxy := newEngineProxy(t)
	out := filepath.Join(t.TempDir(), "out")
	runID := fmt.Sprintf("outage-long-%d", time.Now().UnixNano())
	t.Cleanup(func() { removeContainers(t, runID) })
	args := []string{"run", "--split", split, "--model", "scripted:" + script, "-o", out, "--run-id", runID, "-c", "environment.cwd=/tmp",
		"--docker-host", proxy.host(), "--workers", "2", "--progress", "lines", "--backend-wait", "4s"}
	done := startCLI(t, args...)
	waitCommands(t, 2, runID)
	proxy.down(t, runID)
	res := waitCLI(t, done)
	t.Logf("first run:\n%s", res.stderr)
	if res.code != exitFailure || !strings.Contains(res.stderr, "did not answer for 4s (--backend-wait") || !strings.Contains(res.stderr, "no docker engine answers") {
		t.Fatalf("exit %d, want %d naming the engine and --backend-wait", res.code, exitFailure)
	}
	proxy.back(t)
	code, _, stderr := runCLI(t, args...)
	t.Logf("rerun:\n%s", stderr)
	if code != 0 {
		t.Fatalf("rerun: exit %d, want 0", code)
	}
	if !strings.Contains(stderr, "leftover containers of earlier runs") {
		t.Errorf("the rerun did not say it removed the containers the first run left")
	}
	checkRetried(t, out, ids, 2)
	assertNoContainers(t, runID)
}

// A container killed under its instance (docker kill, an OOM of the whole container): the
// instance ends ContainerDied and runs again in the same run, in a fresh container.
func TestDockerContainerKilledRetried(t *testing.T) {
	split, script, ids := outageTasks(t, 2, 6)
	out := filepath.Join(t.TempDir(), "out")
	runID := fmt.Sprintf("outage-killed-%d", time.Now().UnixNano())
	done := startCLI(t, "run", "--split", split, "--model", "scripted:"+script, "-o", out, "--run-id", runID, "-c", "environment.cwd=/tmp",
		"--workers", "2", "--progress", "lines")
	busy := waitCommands(t, 1, runID)
	if o, err := exec.Command("docker", "kill", busy[0]).CombinedOutput(); err != nil {
		t.Fatalf("docker kill: %v: %s", err, o)
	}
	res := waitCLI(t, done)
	t.Logf("run output:\n%s", res.stderr)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0", res.code)
	}
	history := checkRetried(t, out, ids, 1)
	died := false
	for _, h := range history {
		died = died || h[0].ExitStatus == "ContainerDied"
	}
	if !died {
		t.Errorf("no attempt ended ContainerDied")
	}
	assertNoContainers(t, runID)
}

// A sweep survives the engine's restart as a run does: every cell finishes, exit 0, and the
// first attempts kept the paired order (instance i started in every cell before instance i+1
// anywhere).
func TestSweepSurvivesEngineOutage(t *testing.T) {
	split, script, ids := outageTasks(t, 3, 6)
	proxy := newEngineProxy(t)
	root := t.TempDir()
	done := startCLI(t, "sweep", "--model", "a=scripted:"+script, "--model", "b=scripted:"+script, "--split", split,
		"--run-config", "environment.cwd=/tmp", "--docker-host", proxy.host(), "--workers", "2", "--backend-wait", "2m",
		"-o", root, "--name", "night", "--progress", "lines")
	var runIDs []string
	for _, cell := range []string{"a", "b"} {
		dir := filepath.Join(root, "night", cell)
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			if m, err := results.ReadManifest(dir); err == nil && m != nil {
				runIDs = append(runIDs, m.RunID)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("cell %s has no run.json within a minute", cell)
			}
		}
	}
	t.Cleanup(func() {
		removeContainers(t, runIDs...)
	})
	waitCommands(t, 2, runIDs...)
	proxy.down(t, runIDs[0])
	proxy.down(t, runIDs[1])
	time.Sleep(10 * time.Second)
	proxy.back(t)
	res := waitCLI(t, done)
	t.Logf("sweep output:\n%s", res.stderr)
	if res.code != 0 {
		t.Fatalf("sweep: exit %d, want 0", res.code)
	}
	type first struct {
		pos    int
		cell   string
		queued float64
	}
	var firsts, retries []first
	retried := 0
	for k, cell := range []string{"a", "b"} {
		dir := filepath.Join(root, "night", cell)
		history := checkRetried(t, dir, ids, 0)
		for pos, id := range ids {
			h := history[id]
			if len(h) > 1 {
				retried++
				retries = append(retries, first{pos, cell, h[len(h)-1].Queued})
			}
			if len(h) > 0 {
				firsts = append(firsts, first{pos, cell, h[0].Queued})
			}
		}
		assertNoContainers(t, runIDs[k])
	}
	if retried == 0 {
		t.Errorf("no instance of the sweep was retried; the engine went away while two ran")
	}
	// A retry runs after the other instances of its position, before the next positions (the
	// engine was away longer than the retries' backoff, so they were ready when it came back).
	for _, r := range retries {
		for _, f := range firsts {
			if f.pos > r.pos && f.queued < r.queued {
				t.Errorf("%s's instance %d started before the retry of %s's instance %d", f.cell, f.pos, r.cell, r.pos)
			}
		}
	}
	sort.Slice(firsts, func(i, j int) bool { return firsts[i].queued < firsts[j].queued })
	for i := 1; i < len(firsts); i++ {
		if firsts[i].pos < firsts[i-1].pos {
			t.Errorf("paired order broken: %s's instance %d started after %s's instance %d", firsts[i].cell, firsts[i].pos, firsts[i-1].cell, firsts[i-1].pos)
		}
	}
}
