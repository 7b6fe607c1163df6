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

	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// cutProxy forwards the connections of a listener of the test's own (a unix socket, a loopback
// TCP port) to a backend's API, and can cut them: the backend as one test's run sees it, taken
// away and brought back without touching what other test binaries use at the same time.
//
// What a client sees of an API server process that stops (dockerd restarting, kube-apiserver
// restarting in a control-plane upgrade): its listening socket closes (a unix socket's file goes
// with it), so a new connection is refused or finds no socket; every open connection ends — the
// exec streams of running commands in the middle of their output, watches, requests in flight.
// cut does exactly that: it closes the listener (Go unlinks a unix socket's file) and both ends
// of every proxied connection. back listens again on the same address, as the restarted server
// does. What happens beyond the API is each backend's (see dockerOutage, kubeOutage).
type cutProxy struct {
	network, addr     string // where the proxy listens
	toNetwork, toAddr string // the backend's API
	mu                sync.Mutex
	ln                net.Listener
	conns             map[net.Conn]bool // of the current listener: the client's and the API's side
}

func newCutProxy(t *testing.T, network, addr, toNetwork, toAddr string) *cutProxy {
	t.Helper()
	p := &cutProxy{network: network, addr: addr, toNetwork: toNetwork, toAddr: toAddr}
	p.back(t)
	if network == "tcp" {
		p.addr = p.ln.Addr().String() // the port chosen, kept for back
	}
	t.Cleanup(p.cut)
	return p
}

// back listens again on the same address.
func (p *cutProxy) back(t *testing.T) {
	t.Helper()
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if ln, err = net.Listen(p.network, p.addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
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
			d, err := net.Dial(p.toNetwork, p.toAddr)
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

// cut closes the listener and every connection through it.
func (p *cutProxy) cut() {
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

// outageBackend is a backend of the outage tests: the run's flags for it, and how to take it
// away and bring it back.
type outageBackend struct {
	proxy *cutProxy
	flags []string
	// waitBusy waits until n instances of the runs run their `sleep` command.
	waitBusy func(t *testing.T, n int, runIDs ...string)
	// alsoDown is what goes with the API when the server stops (Docker: the containers).
	alsoDown func(t *testing.T, runIDs ...string)
	// left lists the sandboxes of runID that are still there.
	left func(t *testing.T, runID string) []string
	// unanswered is how the run names the backend that does not answer.
	unanswered string
	// forget removes what runs left when a test failed.
	forget func(t *testing.T, runIDs ...string)
}

// cleanup removes what the runs leave should the test fail.
func (b *outageBackend) cleanup(t *testing.T, runIDs ...string) {
	t.Cleanup(func() { b.forget(t, runIDs...) })
}

func (b *outageBackend) down(t *testing.T, runIDs ...string) {
	t.Helper()
	b.proxy.cut()
	b.alsoDown(t, runIDs...)
}

// dockerOutage is this machine's Docker engine behind a unix socket of the test's own. Neither
// the engine itself nor the second test engine may go away under a test: test binaries of other
// packages use the engine at the same time, and dockerenv's tests stop and start the second
// engine (scripts/start-second-engine.sh) while they run. Beyond its API, a dockerd that stops
// without live-restore (Docker's default, and this machine's) stops its containers (SIGTERM to
// PID 1, which exits), which stay in the Exited state until someone removes them: alsoDown does
// that to the runs' containers, through the real engine.
func dockerOutage(t *testing.T) *outageBackend {
	t.Helper()
	testenv.RequireImage(t, testenv.Docker(t), testenv.BaseImage)
	dir, err := os.MkdirTemp("", "engine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := newCutProxy(t, "unix", filepath.Join(dir, "docker.sock"), "unix", "/var/run/docker.sock")
	return &outageBackend{
		proxy:      p,
		flags:      []string{"--docker-host", "unix://" + p.addr},
		waitBusy:   func(t *testing.T, n int, runIDs ...string) { waitCommands(t, n, runIDs...) },
		left:       listContainers,
		unanswered: "no docker engine answers: unix://" + p.addr,
		forget:     removeContainers,
		alsoDown: func(t *testing.T, runIDs ...string) {
			for _, runID := range runIDs {
				if ids := listContainers(t, runID); len(ids) > 0 {
					if out, err := exec.Command("docker", append([]string{"stop", "-t", "10"}, ids...)...).CombinedOutput(); err != nil {
						t.Logf("docker stop: %v: %s", err, out) // one may have been removed meanwhile
					}
				}
			}
		},
	}
}

// outageTasks writes a dataset of n instances on the base image (which the Docker engine and
// the test cluster have) and a script in which each runs `sleep S` (a command in flight to break)
// and then submits.
func outageTasks(t *testing.T, n, sleep int) (split, script string, ids []string) {
	t.Helper()
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

// outageBackends runs f for each backend: the Docker engine and the Kubernetes API server
// (skipped without the test cluster).
func outageBackends(t *testing.T, f func(t *testing.T, b *outageBackend)) {
	t.Run("docker", func(t *testing.T) { f(t, dockerOutage(t)) })
	t.Run("kubernetes", func(t *testing.T) { f(t, kubeOutage(t)) })
}

// The backend (the Docker engine, the Kubernetes API server) restarts mid-run and is back within
// 30 s: the commands it broke end their instances EngineDown, nothing starts while it is away,
// the display says what the run waits for, and once it answers the containers or pods it left
// are removed and the instances run again; the same invocation ends with every instance
// Submitted, exit 0, attempts in the ledger, nothing left behind, and no library's log line on
// the terminal.
func TestBackendAwayAndBack(t *testing.T) {
	outageBackends(t, func(t *testing.T, b *outageBackend) {
		split, script, ids := outageTasks(t, 4, 8)
		out := filepath.Join(t.TempDir(), "out")
		runID := fmt.Sprintf("outage-back-%d", time.Now().UnixNano())
		b.cleanup(t, runID)
		done := startCLI(t, append([]string{"run", "--split", split, "--model", "scripted:" + script, "-o", out, "--run-id", runID,
			"-c", "environment.cwd=/tmp", "--workers", "2", "--progress", "lines", "--backend-wait", "2m"}, b.flags...)...)
		b.waitBusy(t, 2, runID)
		away := time.Now()
		b.down(t, runID)
		time.Sleep(12 * time.Second)
		b.proxy.back(t)
		t.Logf("the backend was away for %s", time.Since(away).Round(100*time.Millisecond))
		res := waitCLI(t, done)
		t.Logf("run output:\n%s", res.stderr)
		if res.code != 0 {
			t.Fatalf("exit %d, want 0", res.code)
		}
		checkRetried(t, out, ids, 2)
		for _, want := range []string{"waiting for the sandbox backend since", b.unanswered, "the sandbox backend answers again after", "(attempt 2)"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("the run's output lacks %q", want)
			}
		}
		for _, klog := range []string{"Unhandled Error", "E1", "W1", "I1"} { // klog's prefixes
			if strings.Contains(res.stderr, "\n"+klog) {
				t.Errorf("a library's log line (%q) reached the terminal", klog)
			}
		}
		// What the outage left was removed once the backend answered, by the run itself (not only
		// by the safety sweep at its end).
		logData, err := os.ReadFile(filepath.Join(out, results.LogFile))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(logData), "removed a sandbox left while the backend did not answer") {
			t.Errorf("the run's log does not show what the outage left removed once the backend answered")
		}
		if strings.Contains(string(logData), "removed containers left at the end of the run") {
			t.Errorf("sandboxes were left for the final sweep; the run should have removed them once the backend answered")
		}
		if left := b.left(t, runID); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
		if code, stdout, _ := runCLI(t, "stats", out); code != 0 || !strings.Contains(stdout, "2 attempts: EngineDown → Submitted") {
			t.Errorf("stats: exit %d, want the retried instances listed with their attempts:\n%s", code, stdout)
		}
	})
}

// The backend stays away longer than --backend-wait: the run stops as before (exit 1, naming
// the backend), and the same command once it is back removes what the first run left and
// finishes every instance.
func TestBackendAwayTooLong(t *testing.T) {
	outageBackends(t, func(t *testing.T, b *outageBackend) {
		split, script, ids := outageTasks(t, 3, 8)
		out := filepath.Join(t.TempDir(), "out")
		runID := fmt.Sprintf("outage-long-%d", time.Now().UnixNano())
		b.cleanup(t, runID)
		args := append([]string{"run", "--split", split, "--model", "scripted:" + script, "-o", out, "--run-id", runID,
			"-c", "environment.cwd=/tmp", "--workers", "2", "--progress", "lines", "--backend-wait", "4s"}, b.flags...)
		done := startCLI(t, args...)
		b.waitBusy(t, 2, runID)
		b.down(t, runID)
		res := waitCLI(t, done)
		t.Logf("first run:\n%s", res.stderr)
		if res.code != exitFailure || !strings.Contains(res.stderr, "did not answer for 4s (--backend-wait") || !strings.Contains(res.stderr, b.unanswered) {
			t.Fatalf("exit %d, want %d naming the backend and --backend-wait", res.code, exitFailure)
		}
		b.proxy.back(t)
		code, _, stderr := runCLI(t, args...)
		t.Logf("rerun:\n%s", stderr)
		if code != 0 {
			t.Fatalf("rerun: exit %d, want 0", code)
		}
		checkRetried(t, out, ids, 2)
		if left := b.left(t, runID); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	})
}

// A container killed under its instance (docker kill): the instance ends ContainerDied and runs
// again in the same run, in a fresh container. (A pod deleted mid-run: TestKubePodDeletedMidRun.)
func TestDockerContainerKilledRetried(t *testing.T) {
	testenv.RequireImage(t, testenv.Docker(t), testenv.BaseImage)
	split, script, ids := outageTasks(t, 2, 6)
	out := filepath.Join(t.TempDir(), "out")
	runID := fmt.Sprintf("outage-killed-%d", time.Now().UnixNano())
	t.Cleanup(func() { removeContainers(t, runID) })
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

// A sweep survives the backend's restart as a run does: every cell finishes, exit 0, the first
// attempts kept the paired order (instance i started in every cell before instance i+1
// anywhere), and a retry ran after the other instances of its position, before the next.
func TestSweepSurvivesBackendOutage(t *testing.T) {
	outageBackends(t, func(t *testing.T, b *outageBackend) {
		split, script, ids := outageTasks(t, 3, 8)
		root := t.TempDir()
		done := startCLI(t, append([]string{"sweep", "--model", "a=scripted:" + script, "--model", "b=scripted:" + script, "--split", split,
			"--run-config", "environment.cwd=/tmp", "--workers", "2", "--backend-wait", "2m",
			"-o", root, "--name", "night", "--progress", "lines"}, b.flags...)...)
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
		b.cleanup(t, runIDs...)
		b.waitBusy(t, 2, runIDs...)
		b.down(t, runIDs...)
		time.Sleep(12 * time.Second)
		b.proxy.back(t)
		res := waitCLI(t, done)
		t.Logf("sweep output:\n%s", res.stderr)
		if res.code != 0 {
			t.Fatalf("sweep: exit %d, want 0", res.code)
		}
		type start struct {
			pos    int
			cell   string
			queued float64
		}
		var firsts, retries []start
		for k, cell := range []string{"a", "b"} {
			history := checkRetried(t, filepath.Join(root, "night", cell), ids, 0)
			for pos, id := range ids {
				h := history[id]
				if len(h) == 0 {
					continue
				}
				firsts = append(firsts, start{pos, cell, h[0].Queued})
				if len(h) > 1 {
					retries = append(retries, start{pos, cell, h[len(h)-1].Queued})
				}
			}
			if left := b.left(t, runIDs[k]); len(left) > 0 {
				t.Errorf("cell %s: left behind: %v", cell, left)
			}
		}
		if len(retries) == 0 {
			t.Errorf("no instance of the sweep was retried; the backend went away while two ran")
		}
		// The backend was away longer than the retries' backoff, so they were ready when it came
		// back: each ran before any instance of a later position started.
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
	})
}
