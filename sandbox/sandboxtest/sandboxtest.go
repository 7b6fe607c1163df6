// Package sandboxtest is the conformance suite of package sandbox: the behaviour the runner and
// eval rely on, written once, that every backend passes. A backend's tests call Run with a
// factory of its real backend (a Docker engine, a Kubernetes cluster):
//
//	func TestConformance(t *testing.T) {
//		sandboxtest.Run(t, sandboxtest.Config{Image: "swebench-run/base:bookworm",
//			New: func(t *testing.T, capacity int) sandboxtest.Backend { … }})
//	}
//
// It checks the exec contract (exact `bash -c` semantics, stderr merged in order, exit codes,
// environment and working directory, a timeout that kills every process of the command — a
// TERM-ignoring fork bomb under a pids limit included — and is over when Exec returns, a 1 GiB
// output flood kept to head and tail in bounded memory, cancellation), files, removal, sweeping
// by run, lifetime, the typed errors (*sandbox.DiedError for a sandbox that died, OOM kills,
// sandbox.ErrImageUnavailable) and capacity. The subtests run one after the other.
package sandboxtest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/sandbox"
)

// Backend is what a backend gives the suite: the runner's view, eval's, and sweeping.
type Backend interface {
	sandbox.Backend
	sandbox.Starter
	sandbox.Sweeper
}

// Config describes the backend under test.
type Config struct {
	// New returns the backend, with room for capacity sandboxes at once, and arranges its
	// closing when t ends (t.Cleanup). A backend that cannot be reached fails or skips t, as
	// the backend's tests do.
	New func(t *testing.T, capacity int) Backend
	// Image is an image the backend has or can fetch, with bash, coreutils, procps (ps),
	// util-linux (setsid) and python3, e.g. swebench-run/base:bookworm (make images).
	Image string
	// MissingImage is an image the backend cannot have (default
	// swebench-run-conformance/no-such-image:never; a backend configured never to pull answers
	// at once).
	MissingImage string
}

// Run runs the suite.
func Run(t *testing.T, cfg Config) {
	if cfg.New == nil || cfg.Image == "" {
		t.Fatal("sandboxtest: Config needs New and Image")
	}
	if cfg.MissingImage == "" {
		cfg.MissingImage = "swebench-run-conformance/no-such-image:never"
	}
	s := &suite{cfg: cfg, b: cfg.New(t, 4)}
	tests := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"Exec", s.testExec},
		{"BashSemantics", s.testBashSemantics},
		{"TimeoutKillsEverything", s.testTimeoutKillsEverything},
		{"CommandAfterTimeout", s.testCommandAfterTimeout},
		{"ForkBombUnderPidsLimit", s.testForkBomb},
		{"OutputFloodBounded", s.testOutputFlood},
		{"Cancel", s.testCancel},
		{"WriteFile", s.testWriteFile},
		{"Remove", s.testRemove},
		{"SweepByRun", s.testSweep},
		{"Died", s.testDied},
		{"DiedUnderCommand", s.testDiedUnderCommand},
		{"Lifetime", s.testLifetime},
		{"OOM", s.testOOM},
		{"ImageUnavailable", s.testImageUnavailable},
		{"Starter", s.testStarter},
		{"Capacity", s.testCapacity},
		{"Probe", s.testProbe},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.fn)
	}
}

type suite struct {
	cfg Config
	b   Backend
}

// runID is unique to one test and one process: other processes may run the suite against the
// same backend at the same time.
func runID(t *testing.T) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	name := strings.ToLower(regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(t.Name(), "-"))
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	return "conf-" + strings.Trim(name, "-") + "-" + hex.EncodeToString(b)
}

// start starts a sandbox of spec the way the runner does (Acquire, PrepareImage, Start), on b
// (the suite's backend when nil), and registers its teardown (Remove, ReleaseImage, Release, and
// a sweep of its run, so that a failed start leaves nothing either) before checking errors.
func (s *suite) start(t *testing.T, b Backend, spec sandbox.Spec) sandbox.Sandbox {
	t.Helper()
	if b == nil {
		b = s.b
	}
	if spec.Image == "" {
		spec.Image = s.cfg.Image
	}
	if spec.RunID == "" {
		spec.RunID = runID(t)
	}
	if spec.InstanceID == "" {
		spec.InstanceID = "conformance__sandbox-1"
	}
	if spec.Cwd == "" {
		spec.Cwd = "/tmp"
	}
	ctx := context.Background()
	t.Cleanup(func() { _, _ = b.Sweep(context.Background(), sandbox.Selector{RunID: spec.RunID}) })
	slot, err := b.Acquire(ctx)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	t.Cleanup(func() { slot.Release(nil) })
	if _, err := slot.PrepareImage(ctx, spec.Image); err != nil {
		t.Fatalf("PrepareImage(%s): %v", spec.Image, err)
	}
	t.Cleanup(func() { slot.ReleaseImage(context.Background(), spec.Image) })
	sb, err := slot.Start(ctx, spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := sb.Remove(context.Background()); err != nil {
			t.Errorf("Remove: %v", err)
		}
	})
	return sb
}

// exec runs cmd and fails the test on an error.
func exec(t *testing.T, sb sandbox.Sandbox, cmd string, opts sandbox.ExecOptions) sandbox.ExecResult {
	t.Helper()
	res, err := sb.Exec(context.Background(), cmd, opts)
	if err != nil {
		t.Fatalf("Exec(%q): %v", cmd, err)
	}
	return res
}

func (s *suite) testExec(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{Env: map[string]string{"PAGER": "cat", "FOO": "base"}})
	tests := []struct {
		name     string
		cmd      string
		opts     sandbox.ExecOptions
		want     string
		wantCode int
	}{
		{"stdout", "echo hello", sandbox.ExecOptions{}, "hello\n", 0},
		{"exit code", "exit 7", sandbox.ExecOptions{}, "", 7},
		{"stderr merged in order", "echo out; echo err >&2; echo out2", sandbox.ExecOptions{}, "out\nerr\nout2\n", 0},
		{"interleaved stderr", "for i in 1 2 3; do echo o$i; echo e$i >&2; done", sandbox.ExecOptions{}, "o1\ne1\no2\ne2\no3\ne3\n", 0},
		{"sandbox env", "echo $PAGER-$FOO", sandbox.ExecOptions{}, "cat-base\n", 0},
		{"exec env overrides", "echo $FOO", sandbox.ExecOptions{Env: map[string]string{"FOO": "exec"}}, "exec\n", 0},
		{"sandbox cwd", "pwd", sandbox.ExecOptions{}, "/tmp\n", 0},
		{"exec cwd", "pwd", sandbox.ExecOptions{Cwd: "/usr"}, "/usr\n", 0},
		{"bash -c semantics", "x=1; [[ $x == 1 ]] && echo yes", sandbox.ExecOptions{}, "yes\n", 0},
		{"no tty", "test -t 1 && echo tty || echo notty", sandbox.ExecOptions{}, "notty\n", 0},
		{"no stdin", "cat; echo end", sandbox.ExecOptions{Timeout: 30 * time.Second}, "end\n", 0},
		{"invalid utf-8 replaced", `printf 'a\xffb'`, sandbox.ExecOptions{}, "a\uFFFDb", 0},
		{"within timeout", "sleep 0.2; echo done", sandbox.ExecOptions{Timeout: 10 * time.Second}, "done\n", 0},
		{"sh interpreter", "echo $0", sandbox.ExecOptions{Interpreter: []string{"sh", "-c"}}, "sh\n", 0},
		{"quotes and newlines", "printf '%s|' \"a b\" 'c\"d'\necho", sandbox.ExecOptions{}, "a b|c\"d|\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := exec(t, sb, tt.cmd, tt.opts)
			if res.Output != tt.want || res.ExitCode != tt.wantCode || res.TimedOut || res.TruncatedBytes != 0 {
				t.Errorf("got (%q, %d, timedOut=%v, truncated=%d), want (%q, %d, false, 0)", res.Output, res.ExitCode, res.TimedOut, res.TruncatedBytes, tt.want, tt.wantCode)
			}
		})
	}
}

// A command runs exactly as `bash -c CMD` would, with stderr merged into stdout in order, with
// a timeout or without.
func (s *suite) testBashSemantics(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{})
	tests := []struct {
		name     string
		cmd      string
		want     string
		wantCode int
	}{
		{"stderr merged in order", "echo a; echo b >&2; echo c", "a\nb\nc\n", 0},
		{"$0 is bash", "echo $0", "bash\n", 0},
		{"no positional parameters", `echo "$#"`, "0\n", 0},
		{"command not found", "nosuchcmd", "bash: line 1: nosuchcmd: command not found\n", 127},
		{"exit status of the last command", "false", "", 1},
		{"killed by a signal", "kill -9 $$", "", 137},
	}
	for _, timeout := range []time.Duration{0, time.Minute} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/timeout=%s", tt.name, timeout), func(t *testing.T) {
				res := exec(t, sb, tt.cmd, sandbox.ExecOptions{Timeout: timeout})
				if res.Output != tt.want || res.ExitCode != tt.wantCode || res.TimedOut {
					t.Errorf("got (%q, %d, timedOut=%v), want (%q, %d, false)", res.Output, res.ExitCode, res.TimedOut, tt.want, tt.wantCode)
				}
			})
		}
	}
}

// survivors lists the processes of the sandbox whose command line matches pattern (a grep
// basic regular expression), zombies included.
func survivors(t *testing.T, sb sandbox.Sandbox, pattern string) string {
	t.Helper()
	res := exec(t, sb, "ps -eo pid=,stat=,args= | grep -v -e 'ps -eo' -e grep | grep -e '"+pattern+"' || true", sandbox.ExecOptions{Timeout: 30 * time.Second})
	return strings.TrimSpace(res.Output)
}

// A timed-out command is killed inside the sandbox, with its children, including one that
// ignores TERM, one that left the process group and one that holds the output pipe open.
func (s *suite) testTimeoutKillsEverything(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{})
	tests := []struct {
		name string
		cmd  string
	}{
		{"foreground sleep", "echo started; sleep 300"},
		{"ignores TERM", "trap '' TERM; echo started; sleep 300"},
		{"background child in the group", "sleep 301 & echo started; wait"},
		{"escaped with setsid, holding stdout", "setsid sleep 302 & echo started; sleep 303"},
		{"escaped with setsid, ignoring TERM", "setsid bash -c \"trap '' TERM; sleep 304\" & echo started; sleep 305"},
		{"detached, output closed", "nohup sleep 306 >/dev/null 2>&1 & echo started; sleep 307"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := exec(t, sb, tt.cmd, sandbox.ExecOptions{Timeout: time.Second})
			if !res.TimedOut {
				t.Errorf("TimedOut = false (exit %d), want true", res.ExitCode)
			}
			if res.ExitCode != 143 && res.ExitCode != 137 {
				t.Errorf("exit code %d, want 143 (TERM) or 137 (KILL)", res.ExitCode)
			}
			if !strings.Contains(res.Output, "started") {
				t.Errorf("partial output %q lacks what the command printed before the timeout", res.Output)
			}
			// Not one of the command's processes may remain, not even as a zombie.
			if out := survivors(t, sb, "sleep 30"); out != "" {
				t.Errorf("processes survived the timeout:\n%s", out)
			}
		})
	}
}

// The kill after a timeout is over when Exec returns: the next command runs normally.
func (s *suite) testCommandAfterTimeout(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{})
	for i := 1; i <= 3; i++ {
		t.Run(fmt.Sprintf("timeout %d", i), func(t *testing.T) {
			res := exec(t, sb, "trap '' TERM; sleep 100", sandbox.ExecOptions{Timeout: time.Second})
			if !res.TimedOut {
				t.Errorf("sleep 100: TimedOut = false (exit %d), want true", res.ExitCode)
			}
			res = exec(t, sb, "echo ok", sandbox.ExecOptions{Timeout: 10 * time.Second})
			if res.Output != "ok\n" || res.ExitCode != 0 || res.TimedOut {
				t.Errorf("echo ok after a timeout: got (%q, %d, timedOut=%v), want (\"ok\\n\", 0, false)", res.Output, res.ExitCode, res.TimedOut)
			}
		})
	}
}

// A fork bomb hits the pids limit instead of the machine; its timeout kills all of it, also
// when it ignores TERM (its kill then finds the pids limit full), and the sandbox stays usable.
func (s *suite) testForkBomb(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{Limits: sandbox.Limits{PidsLimit: 64}})
	bombs := []struct{ name, cmd string }{
		{"bomb", `bomb() { bomb | bomb & }; bomb; sleep 30`},
		{"bomb ignoring TERM", `trap '' TERM; bomb() { bomb | bomb & }; bomb; sleep 30`},
	}
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			// 12 s: room to fill a backend's pids limit (Kubernetes: the kubelet's podPidsLimit,
			// 1024 on the test cluster, not the Spec's 64) on a machine that other tests load.
			res := exec(t, sb, b.cmd, sandbox.ExecOptions{Timeout: 12 * time.Second})
			if !strings.Contains(res.Output, "Resource temporarily unavailable") {
				t.Errorf("the fork bomb never hit the pids limit; output:\n%.2000s", res.Output)
			}
			if !res.TimedOut {
				t.Errorf("TimedOut = false (exit %d), want true", res.ExitCode)
			}
			if res := exec(t, sb, "echo alive", sandbox.ExecOptions{Timeout: 10 * time.Second}); res.Output != "alive\n" {
				t.Errorf("echo alive after the bomb: got %q", res.Output)
			}
			if out := survivors(t, sb, "bomb"); out != "" {
				t.Errorf("processes of the bomb survived:\n%.2000s", out)
			}
		})
	}
}

// A command printing 1 GiB keeps memory bounded: the first and last MaxOutput/2 bytes (default
// 1 MiB in all) are kept, the middle is counted, and the heap never holds the flood.
func (s *suite) testOutputFlood(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{})
	const flood = 1 << 30
	peak, stop := heapPeak()
	res, err := sb.Exec(context.Background(), fmt.Sprintf("echo FIRST; head -c %d /dev/zero | tr '\\0' 'a'; echo; echo LAST", flood), sandbox.ExecOptions{Timeout: 10 * time.Minute})
	grew := stop()
	if err != nil {
		t.Fatal(err)
	}
	if res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("flood: exit %d, timedOut %v", res.ExitCode, res.TimedOut)
	}
	total := int64(len("FIRST\n")) + flood + int64(len("\nLAST\n"))
	if got, want := res.TruncatedBytes, total-sandbox.DefaultMaxOutput; got != want {
		t.Errorf("TruncatedBytes = %d, want %d", got, want)
	}
	note := fmt.Sprintf("\n[swebench-run: %d bytes of output elided]\n", total-sandbox.DefaultMaxOutput)
	head := "FIRST\n" + strings.Repeat("a", sandbox.DefaultMaxOutput/2-len("FIRST\n"))
	tail := strings.Repeat("a", sandbox.DefaultMaxOutput/2-len("\nLAST\n")) + "\nLAST\n"
	if res.Output != head+note+tail {
		n := len(res.Output)
		t.Errorf("output (%d bytes) is not head 512 KiB + note + tail 512 KiB: %q … %q", n, res.Output[:min(n, 40)], res.Output[max(0, n-80):])
	}
	if limit := uint64(64 << 20); grew > limit {
		t.Errorf("the heap grew by %d MiB during a 1 GiB flood (peak %d MiB), want at most %d MiB", grew>>20, peak()>>20, limit>>20)
	}
}

// heapPeak samples the heap until stop is called, which returns how far it grew beyond its
// size at the start; peak returns the highest sample.
func heapPeak() (peak func() uint64, stop func() uint64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var top atomic.Uint64
	top.Store(base)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > top.Load() {
				top.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return top.Load, func() uint64 {
		close(done)
		wg.Wait()
		return top.Load() - base
	}
}

// Cancelling a command's context ends Exec with the context's error and kills the command's
// processes, as a timeout does; the sandbox stays usable.
func (s *suite) testCancel(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := sb.Exec(ctx, "trap '' TERM; sleep 311 & sleep 312", sandbox.ExecOptions{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Exec with a context that ends: err = %v, want context.DeadlineExceeded", err)
	}
	if out := survivors(t, sb, "sleep 31"); out != "" {
		t.Errorf("processes survived the cancellation:\n%s", out)
	}
}

func (s *suite) testWriteFile(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{})
	ctx := context.Background()
	tests := []struct {
		name string
		path string
		data string
	}{
		{"patch", "/tmp/patch.diff", "diff --git a/x b/x\n<&>\n"},
		{"in the root", "/eval.sh", "#!/bin/bash\necho 'ünïcode' \"$1\"\n"},
		{"empty", "/tmp/empty", ""},
		{"overwrite", "/tmp/patch.diff", "second\n"},
		{"binary", "/tmp/bin", "\x00\x01\xff\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := sb.WriteFile(ctx, tt.path, []byte(tt.data)); err != nil {
				t.Fatal(err)
			}
			res := exec(t, sb, fmt.Sprintf("base64 -w0 %s; echo; stat -c %%a %s", tt.path, tt.path), sandbox.ExecOptions{})
			if want := base64.StdEncoding.EncodeToString([]byte(tt.data)) + "\n644\n"; res.Output != want {
				t.Errorf("read back (base64, mode) %q, want %q", res.Output, want)
			}
		})
	}
}

// Remove removes the sandbox: operations on it then fail with a *DiedError, a second Remove is
// no error, and nothing of its run is left to sweep.
func (s *suite) testRemove(t *testing.T) {
	id := runID(t)
	sb := s.start(t, nil, sandbox.Spec{RunID: id})
	ctx := context.Background()
	if err := sb.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := sb.Exec(ctx, "true", sandbox.ExecOptions{})
	var died *sandbox.DiedError
	if !errors.As(err, &died) {
		t.Errorf("Exec after Remove: err = %v, want *sandbox.DiedError", err)
	}
	if err := sb.WriteFile(ctx, "/tmp/x", []byte("x")); !errors.As(err, &died) {
		t.Errorf("WriteFile after Remove: err = %v, want *sandbox.DiedError", err)
	}
	if err := sb.Remove(ctx); err != nil {
		t.Errorf("second Remove: %v, want nil (already gone is fine)", err)
	}
	if n, err := s.b.Sweep(ctx, sandbox.Selector{RunID: id}); err != nil || n != 0 {
		t.Errorf("Sweep of the run after Remove = %d, %v; want 0, nil", n, err)
	}
}

// Sweep removes exactly the sandboxes of the run it names.
func (s *suite) testSweep(t *testing.T) {
	a, b := runID(t), runID(t)
	ctx := context.Background()
	a1 := s.start(t, nil, sandbox.Spec{RunID: a, InstanceID: "x__y-1"})
	a2 := s.start(t, nil, sandbox.Spec{RunID: a, InstanceID: "x__y-2", Role: "eval"})
	b1 := s.start(t, nil, sandbox.Spec{RunID: b, InstanceID: "x__y-1"})
	if n, err := s.b.Sweep(ctx, sandbox.Selector{}); err != nil || n != 0 {
		t.Errorf("Sweep with the zero Selector = %d, %v; want 0, nil", n, err)
	}
	n, err := s.b.Sweep(ctx, sandbox.Selector{RunID: a})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("swept %d, want 2", n)
	}
	for _, sb := range []sandbox.Sandbox{a1, a2} {
		var died *sandbox.DiedError
		if _, err := sb.Exec(ctx, "true", sandbox.ExecOptions{}); !errors.As(err, &died) {
			t.Errorf("Exec in swept sandbox %s: err = %v, want *sandbox.DiedError", sb.Name(), err)
		}
	}
	if res := exec(t, b1, "echo alive", sandbox.ExecOptions{}); res.Output != "alive\n" {
		t.Errorf("the other run's sandbox: got %q", res.Output)
	}
}

// waitDied runs `true` until it fails, and returns the error (failing the test when it never
// does within a minute).
func waitDied(t *testing.T, sb sandbox.Sandbox) *sandbox.DiedError {
	t.Helper()
	var err error
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err = sb.Exec(context.Background(), "true", sandbox.ExecOptions{Timeout: 30 * time.Second}); err != nil {
			break
		}
	}
	var died *sandbox.DiedError
	if !errors.As(err, &died) {
		t.Fatalf("Exec in a sandbox that ended: err = %v, want *sandbox.DiedError", err)
	}
	return died
}

// A sandbox that dies while a command runs (killed, deleted, its main process gone): that
// command's Exec fails with a *DiedError (while a command killed in a sandbox that runs on is a
// result) — its end is not the command's result, which the agent
// must not see as one — and so does the next command, never with a runtime's complaint as its
// output.
func (s *suite) testDiedUnderCommand(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{})
	ctx := context.Background()
	// A command killed while its sandbox runs on is a result, 137 included.
	if res := exec(t, sb, "kill -KILL $$", sandbox.ExecOptions{}); res.ExitCode != 137 {
		t.Errorf("a command that KILLs itself: exit %d, want 137", res.ExitCode)
	}
	type result struct {
		res sandbox.ExecResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := sb.Exec(ctx, "sleep 120", sandbox.ExecOptions{Timeout: 5 * time.Minute})
		done <- result{res, err}
	}()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if res := exec(t, sb, "ps -eo args", sandbox.ExecOptions{}); strings.Contains(res.Output, "sleep 120") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start within a minute")
		}
	}
	// The main process ends on TERM; then the kernel kills every other process of the sandbox.
	_, _ = sb.Exec(ctx, "kill -TERM 1", sandbox.ExecOptions{Timeout: 30 * time.Second})
	var got result
	select {
	case got = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the command's Exec did not end within 2 minutes of its sandbox's end")
	}
	var died *sandbox.DiedError
	if !errors.As(got.err, &died) {
		t.Errorf("Exec of a command whose sandbox died under it = (exit %d, %q, %v), want a *sandbox.DiedError", got.res.ExitCode, got.res.Output, got.err)
	}
	res, err := sb.Exec(ctx, "echo hi", sandbox.ExecOptions{Timeout: 30 * time.Second})
	if !errors.As(err, &died) {
		t.Errorf("the next command = (exit %d, %q, %v), want a *sandbox.DiedError", res.ExitCode, res.Output, err)
	}
}

// A sandbox whose main process ends is dead: commands fail with a *DiedError, status
// ContainerDied, and removing it is still fine.
func (s *suite) testDied(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{})
	// The main process ends on TERM; the command may or may not see its own end.
	_, _ = sb.Exec(context.Background(), "kill -TERM 1", sandbox.ExecOptions{Timeout: 30 * time.Second})
	died := waitDied(t, sb)
	if got, want := died.ExitStatus(), "ContainerDied"; got != want {
		t.Errorf("ExitStatus = %q, want %q", got, want)
	}
}

// A sandbox ends by itself after its lifetime.
func (s *suite) testLifetime(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{Lifetime: 3 * time.Second})
	if res := exec(t, sb, "echo alive", sandbox.ExecOptions{}); res.Output != "alive\n" {
		t.Fatalf("echo alive: %q", res.Output)
	}
	waitDied(t, sb)
}

// Memory beyond the limit: the kernel kills the command and Exec says so (OOMKilled, 137, a note
// naming the limit), or the whole sandbox is killed and operations fail with a *DiedError whose
// status is OOMKilled. A SIGKILL that is not the kernel's is no OOM kill.
func (s *suite) testOOM(t *testing.T) {
	sb := s.start(t, nil, sandbox.Spec{Limits: sandbox.Limits{MemoryBytes: 128 << 20}})
	ctx := context.Background()
	opts := sandbox.ExecOptions{Timeout: 60 * time.Second}
	oom := func(t *testing.T, cmd string) (survived bool) {
		t.Helper()
		res, err := sb.Exec(ctx, cmd, opts)
		var died *sandbox.DiedError
		switch {
		case errors.As(err, &died):
			if !died.OOMKilled || died.ExitStatus() != "OOMKilled" {
				t.Errorf("sandbox died (%v), want it OOM-killed", died)
			}
			return false
		case err != nil:
			t.Fatal(err)
		}
		if res.ExitCode != 137 || !res.OOMKilled || res.TimedOut {
			t.Errorf("got (exit %d, OOMKilled %v, timedOut %v), want (137, true, false); output %q", res.ExitCode, res.OOMKilled, res.TimedOut, res.Output)
		}
		if !strings.Contains(res.Output, "memory limit") {
			t.Errorf("output %q does not name the memory limit", res.Output)
		}
		return true
	}
	plain := func(t *testing.T, cmd string, wantCode int) {
		t.Helper()
		res := exec(t, sb, cmd, opts)
		if res.ExitCode != wantCode || res.OOMKilled {
			t.Errorf("%s: got (exit %d, OOMKilled %v), want (exit %d, false); output %q", cmd, res.ExitCode, res.OOMKilled, wantCode, res.Output)
		}
	}
	plain(t, `python3 -c "x=b'a'*(16<<20); print(len(x))"`, 0)
	if !oom(t, `python3 -c "x=b'a'*(1<<30)"`) {
		return // the backend kills the whole sandbox on OOM: nothing more to run in it
	}
	plain(t, "echo ok", 0)
	plain(t, "kill -9 $$", 137)
	oom(t, `python3 -c "x=bytearray(b'a'*(1<<30))"`)
}

// An image that does not exist fails PrepareImage or Start with ErrImageUnavailable, and leaves
// nothing behind.
func (s *suite) testImageUnavailable(t *testing.T) {
	ctx := context.Background()
	id := runID(t)
	t.Cleanup(func() { _, _ = s.b.Sweep(context.Background(), sandbox.Selector{RunID: id}) })
	t.Run("slot", func(t *testing.T) {
		slot, err := s.b.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer slot.Release(nil)
		_, err = slot.PrepareImage(ctx, s.cfg.MissingImage)
		if err == nil {
			defer slot.ReleaseImage(ctx, s.cfg.MissingImage)
			var sb sandbox.Sandbox
			sb, err = slot.Start(ctx, sandbox.Spec{Image: s.cfg.MissingImage, RunID: id, InstanceID: "missing__image-1"})
			if err == nil {
				_ = sb.Remove(ctx)
				t.Fatalf("started a sandbox of %s", s.cfg.MissingImage)
			}
		}
		if !errors.Is(err, sandbox.ErrImageUnavailable) {
			t.Errorf("err = %v, want sandbox.ErrImageUnavailable", err)
		}
	})
	t.Run("starter", func(t *testing.T) {
		sb, err := s.b.Start(ctx, sandbox.Spec{Image: s.cfg.MissingImage, RunID: id, InstanceID: "missing__image-2", Role: "eval"})
		if err == nil {
			_ = sb.Remove(ctx)
			t.Fatalf("started a sandbox of %s", s.cfg.MissingImage)
		}
		if !errors.Is(err, sandbox.ErrImageUnavailable) {
			t.Errorf("err = %v, want sandbox.ErrImageUnavailable", err)
		}
	})
	if n, err := s.b.Sweep(ctx, sandbox.Selector{RunID: id}); err != nil || n != 0 {
		t.Errorf("sandboxes left by failed starts: Sweep = %d, %v; want 0, nil", n, err)
	}
}

// Starter starts a fresh sandbox outside the slots (an evaluation's), from an image it fetches
// as needed, with the defaults of a Spec (working directory /testbed unless given).
func (s *suite) testStarter(t *testing.T) {
	ctx := context.Background()
	id := runID(t)
	t.Cleanup(func() { _, _ = s.b.Sweep(context.Background(), sandbox.Selector{RunID: id}) })
	sb, err := s.b.Start(ctx, sandbox.Spec{Image: s.cfg.Image, RunID: id, InstanceID: "conformance__starter-1", Role: "eval", Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Remove(context.Background()) })
	if sb.ID() == "" || sb.Name() == "" {
		t.Errorf("ID %q, Name %q: want both set", sb.ID(), sb.Name())
	}
	if err := sb.WriteFile(ctx, "/tmp/eval.sh", []byte("echo evaluated in $PWD\n")); err != nil {
		t.Fatal(err)
	}
	if res := exec(t, sb, "/bin/bash /tmp/eval.sh", sandbox.ExecOptions{Timeout: time.Minute}); res.Output != "evaluated in /\n" || res.ExitCode != 0 {
		t.Errorf("got (%q, %d), want (\"evaluated in /\\n\", 0)", res.Output, res.ExitCode)
	}
	if err := sb.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.b.Sweep(ctx, sandbox.Selector{RunID: id}); err != nil || n != 0 {
		t.Errorf("Sweep after Remove = %d, %v; want 0, nil", n, err)
	}
}

// A backend built with room for two sandboxes says so, gives out two slots, makes the third
// Acquire wait until one is released, and runs a sandbox in each slot.
func (s *suite) testCapacity(t *testing.T) {
	b := s.cfg.New(t, 2)
	if got := b.Capacity(); got != 2 {
		t.Errorf("Capacity = %d, want 2", got)
	}
	ctx := context.Background()
	var slots []sandbox.Slot
	for range 2 {
		slot, err := b.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, slot)
	}
	wctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	extra, err := b.Acquire(wctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		if err == nil {
			extra.Release(nil)
		}
		t.Errorf("Acquire on a full backend = %v, want it to wait (context.DeadlineExceeded)", err)
	}
	got := make(chan sandbox.Slot, 1)
	go func() {
		slot, err := b.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- slot
	}()
	slots[0].Release(nil)
	slots[0] = <-got
	// Each slot runs a sandbox.
	id := runID(t)
	t.Cleanup(func() { _, _ = b.Sweep(context.Background(), sandbox.Selector{RunID: id}) })
	for i, slot := range slots {
		if slot == nil {
			continue
		}
		if _, err := slot.PrepareImage(ctx, s.cfg.Image); err != nil {
			t.Fatal(err)
		}
		sb, err := slot.Start(ctx, sandbox.Spec{Image: s.cfg.Image, RunID: id, InstanceID: fmt.Sprintf("conformance__capacity-%d", i), Cwd: "/tmp"})
		if err != nil {
			t.Fatal(err)
		}
		if res := exec(t, sb, "echo $((6*7))", sandbox.ExecOptions{}); res.Output != "42\n" {
			t.Errorf("slot %d: got %q", i, res.Output)
		}
		if err := sb.Remove(ctx); err != nil {
			t.Error(err)
		}
		slot.ReleaseImage(ctx, s.cfg.Image)
		slot.Release(nil)
	}
	if got := b.Capacity(); got != 2 {
		t.Errorf("Capacity after the slots came back = %d, want 2", got)
	}
}

// testProbe: a backend that answers says so when probed, also after a slot was released with an
// error matching ErrBackendDown (its part taken out of rotation, though it answers): the probe
// puts it back, and Acquire hands out slots again instead of failing.
func (s *suite) testProbe(t *testing.T) {
	b := s.cfg.New(t, 1)
	ctx := context.Background()
	if err := b.Probe(ctx); err != nil {
		t.Fatalf("Probe of a backend that answers = %v, want nil", err)
	}
	slot, err := b.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slot.Release(fmt.Errorf("conformance: the connection broke: %w", sandbox.ErrBackendDown))
	if err := b.Probe(ctx); err != nil {
		t.Fatalf("Probe after a release with ErrBackendDown, the backend answering = %v, want nil", err)
	}
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	slot, err = b.Acquire(actx)
	if err != nil {
		t.Fatalf("Acquire after a successful Probe = %v, want a slot", err)
	}
	slot.Release(nil)
}
