package launchertest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/launcher"
	"github.com/swebench-run/swebench-run/sandbox"
)

// Sandbox is a sandbox with a launcher: LauncherPID is the launcher's process id in the
// sandbox, 0 once its commands run with the backend's exec.
type Sandbox interface {
	sandbox.Sandbox
	LauncherPID() int
}

// Config describes the backend under test.
type Config struct {
	// Start starts a sandbox of the suite's image (bash, coreutils, procps) with cwd /tmp, the
	// launcher on (from Binaries) or off, and arranges its removal when t ends.
	Start func(t *testing.T, launcherOn bool) Sandbox
	// Goroutines are substrings of the stack frames of the backend's own goroutines of a
	// launcher (e.g. "dockerenv.(*Container).launch"): none may be left once the sandboxes of
	// a test are removed.
	Goroutines []string
}

// Run runs the fault suite: each case ends as package launcher says (a clean fallback to the
// backend's exec, or a *sandbox.LauncherLostError for the command the fault hit), never with a
// hung Exec, a wrong output, a command run twice, or a goroutine left behind.
func Run(t *testing.T, cfg Config) {
	s := &suite{cfg: cfg}
	tests := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"SameAsExec", s.testSameAsExec},
		{"KilledBetweenCommands", s.testKilledBetween},
		{"KilledMidCommand", s.testKilledMid},
		{"KillAllMidCommand", s.testKillAllMid},
		{"StoppedBetweenCommands", s.testStopped},
		{"BinaryReplaced", s.testReplaced},
		{"GarbageIntoStdout", s.testGarbageStdout},
		{"GarbageIntoStdinBetweenCommands", s.testGarbageStdinBetween},
		{"FloodIntoStdinMidCommand", s.testFloodStdin},
		{"LauncherFileGone", s.testFileGone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.noLeaks(t) // registered first: runs after the sandboxes' removal
			tt.fn(t)
		})
	}
}

type suite struct{ cfg Config }

// findPID is how an agent finds the launcher: the process whose executable is the (removed)
// launcher file.
const findPID = `LPID=$(for p in /proc/[0-9]*; do case "$(readlink $p/exe 2>/dev/null)" in */.swebench-run-*/launcher*) echo ${p#/proc/};; esac; done | head -n1); `

// run runs cmd with a guard against a hung Exec.
func run(t *testing.T, sb sandbox.Sandbox, cmd string, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
	t.Helper()
	type result struct {
		res sandbox.ExecResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := sb.Exec(context.Background(), cmd, opts)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-time.After(4 * time.Minute):
		t.Fatalf("Exec(%q) hung for 4 minutes", cmd)
		return sandbox.ExecResult{}, nil
	}
}

// ok runs cmd and requires output want and exit 0.
func ok(t *testing.T, sb sandbox.Sandbox, cmd, want string) {
	t.Helper()
	res, err := run(t, sb, cmd, sandbox.ExecOptions{Timeout: time.Minute})
	if err != nil || res.Output != want || res.ExitCode != 0 || res.TimedOut {
		t.Errorf("%s: got (%q, %d, timedOut=%v, %v), want (%q, 0)", cmd, res.Output, res.ExitCode, res.TimedOut, err, want)
	}
}

// started starts a sandbox with the launcher and checks that it runs, and that an agent finds
// it as the suite's commands do.
func (s *suite) started(t *testing.T) Sandbox {
	t.Helper()
	sb := s.cfg.Start(t, true)
	pid := sb.LauncherPID()
	if pid == 0 {
		t.Fatal("the sandbox runs no launcher")
	}
	ok(t, sb, findPID+`echo $LPID`, strconv.Itoa(pid)+"\n")
	return sb
}

// afterFallback checks that sb runs commands with the backend's exec, correctly: output, exit
// codes, a timeout that kills, and nothing of the suite's processes left.
func afterFallback(t *testing.T, sb Sandbox) {
	t.Helper()
	if pid := sb.LauncherPID(); pid != 0 {
		t.Errorf("LauncherPID = %d after the launcher's end, want 0 (the exec)", pid)
	}
	ok(t, sb, "echo after; echo err >&2", "after\nerr\n")
	if res, err := run(t, sb, "exit 7", sandbox.ExecOptions{}); err != nil || res.ExitCode != 7 {
		t.Errorf("exit 7: got (%d, %v)", res.ExitCode, err)
	}
	res, err := run(t, sb, "trap '' TERM; echo started; sleep 333", sandbox.ExecOptions{Timeout: time.Second})
	if err != nil || !res.TimedOut || res.Output != "started\n" {
		t.Errorf("a timeout after the fallback: got (%q, timedOut=%v, %v)", res.Output, res.TimedOut, err)
	}
	ok(t, sb, "ps -eo args | grep -c -e '^sleep 33' -e '^cat /dev' -e '^yes' || true", "0\n")
}

// lost checks that err is the *sandbox.LauncherLostError of the sandbox's command n.
func lost(t *testing.T, res sandbox.ExecResult, err error, n int64) {
	t.Helper()
	var le *sandbox.LauncherLostError
	if !errors.As(err, &le) || !errors.Is(err, sandbox.ErrLauncherLost) {
		t.Fatalf("the command that hit the launcher: got (%q, exit %d, %v), want a *sandbox.LauncherLostError", res.Output, res.ExitCode, err)
	}
	if le.Command != n {
		t.Errorf("LauncherLostError.Command = %d, want %d", le.Command, n)
	}
	if got := le.ExitStatus(); got != "LauncherLost" {
		t.Errorf("ExitStatus = %q, want LauncherLost", got)
	}
}

// The launcher's commands see what the backend's exec commands see: the same environment,
// process state, descriptors, limits, messages, exit codes and output caps.
func (s *suite) testSameAsExec(t *testing.T) {
	withL, withoutL := s.started(t), s.cfg.Start(t, false)
	if withoutL.LauncherPID() != 0 {
		t.Fatal("the sandbox without the launcher runs one")
	}
	env := map[string]string{"FOO": "1", "HOME": "/root/x", "PAGER": "cat"}
	tests := []struct {
		name string
		cmd  string
		opts sandbox.ExecOptions
	}{
		{"environment as exec'd", `tr '\0' '\n' </proc/$$/environ`, sandbox.ExecOptions{Env: env}},
		{"environment as bash exports it", `env`, sandbox.ExecOptions{Env: env}},
		{"login shell", `env | sort`, sandbox.ExecOptions{Interpreter: []string{"bash", "-lc"}}},
		{"process state", `grep -E '^(Uid|Gid|Groups|Sig(Blk|Ign|Cgt)|Cap|NoNewPrivs|Seccomp)' /proc/self/status; ps -o pgid=,sid=,tty= -p $$ | awk '{print ($1==$2) " " $3}'`, sandbox.ExecOptions{}},
		{"descriptors", `ls -l /proc/self/fd | awk 'NR>1 {print $9, $10, substr($11,1,5)}'; umask`, sandbox.ExecOptions{}},
		{"limits", `ulimit -a; cat /proc/self/oom_score_adj`, sandbox.ExecOptions{}},
		{"cwd", `pwd; cd ..; pwd`, sandbox.ExecOptions{Cwd: "/usr/share"}},
		{"missing cwd", `pwd`, sandbox.ExecOptions{Cwd: "/no/such/dir"}},
		{"missing interpreter", `true`, sandbox.ExecOptions{Interpreter: []string{"no-such-shell", "-c"}}},
		{"syntax error", `if then fi`, sandbox.ExecOptions{}},
		{"command not found", `no-such-command-x`, sandbox.ExecOptions{}},
		{"signal", `kill -TERM $$`, sandbox.ExecOptions{}},
		{"exit code", `exit 300`, sandbox.ExecOptions{}},
		{"stdin", `cat; read x; echo "[$x]" $?`, sandbox.ExecOptions{}},
		{"binary output", `printf 'a\0b\377c\n'`, sandbox.ExecOptions{}},
		{"stderr interleaved", `for i in 1 2 3; do echo o$i; echo e$i >&2; done`, sandbox.ExecOptions{}},
		{"output capped", `seq 1 400000`, sandbox.ExecOptions{MaxOutput: 100000}},
		{"output capped, odd size", `head -c 300001 /dev/zero | tr '\0' x; echo; echo end`, sandbox.ExecOptions{MaxOutput: 1001}},
		{"output at the cap", `head -c 1000 /dev/zero | tr '\0' y`, sandbox.ExecOptions{MaxOutput: 1000}},
		{"background child holding the output", `(sleep 4; echo late) & echo early`, sandbox.ExecOptions{}},
		{"background child, output closed", `sleep 4 >/dev/null 2>&1 & echo early`, sandbox.ExecOptions{}},
		// Timeouts long enough for an exec to start on a loaded machine (its timer starts
		// before the process does; the launcher's as it forks).
		{"timeout", `echo a; sleep 30; echo b`, sandbox.ExecOptions{Timeout: 3 * time.Second}},
		{"timeout, TERM ignored", `trap '' TERM; echo a; sleep 30`, sandbox.ExecOptions{Timeout: 3 * time.Second}},
		{"timeout, TERM handled", `trap 'echo got TERM; exit 3' TERM; echo a; sleep 30 & wait`, sandbox.ExecOptions{Timeout: 3 * time.Second}},
	}
	hostA, hostB := hostname(t, withL), hostname(t, withoutL)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, errA := run(t, withL, tt.cmd, tt.opts)
			b, errB := run(t, withoutL, tt.cmd, tt.opts)
			a.Output = strings.ReplaceAll(strings.ReplaceAll(a.Output, withL.Name(), "NAME"), hostA, "HOST")
			b.Output = strings.ReplaceAll(strings.ReplaceAll(b.Output, withoutL.Name(), "NAME"), hostB, "HOST")
			a.Duration, b.Duration = 0, 0
			if (errA == nil) != (errB == nil) || a != b {
				t.Errorf("with the launcher (%v):\n%+v\nwith exec (%v):\n%+v", errA, a, errB, b)
			}
		})
	}
	// Hostnames differ between two sandboxes; the rest must not.
	if withL.LauncherPID() == 0 {
		t.Error("the launcher is gone after the comparison")
	}
}

func hostname(t *testing.T, sb sandbox.Sandbox) string {
	t.Helper()
	res, err := run(t, sb, "cat /etc/hostname", sandbox.ExecOptions{})
	if err != nil || strings.TrimSpace(res.Output) == "" {
		t.Fatalf("hostname: %q, %v", res.Output, err)
	}
	return strings.TrimSpace(res.Output)
}

// A launcher killed between commands (by a process the agent left running): the next command
// runs with the exec, once, correctly; so does everything after.
func (s *suite) testKilledBetween(t *testing.T) {
	sb := s.started(t)
	ok(t, sb, findPID+`(sleep 1; kill -9 $LPID) >/dev/null 2>&1 & echo scheduled`, "scheduled\n")
	time.Sleep(3 * time.Second)
	ok(t, sb, "echo once >>/tmp/ran; cat /tmp/ran", "once\n")
	afterFallback(t, sb)
}

// A launcher killed while its command runs: that command's result is lost (the error says so,
// naming the command), nothing is made up, and the command is not run again.
func (s *suite) testKilledMid(t *testing.T) {
	sb := s.started(t)
	res, err := run(t, sb, findPID+`echo run >>/tmp/ran; kill -9 $LPID; sleep 1; echo done`, sandbox.ExecOptions{Timeout: time.Minute})
	lost(t, res, err, 2)
	ok(t, sb, "cat /tmp/ran", "run\n")
	afterFallback(t, sb)
}

// The agent's `kill -9 -1` kills the launcher too (it spares only the caller and PID 1).
func (s *suite) testKillAllMid(t *testing.T) {
	sb := s.started(t)
	res, err := run(t, sb, `sleep 300 & kill -9 -1; echo done`, sandbox.ExecOptions{Timeout: time.Minute})
	lost(t, res, err, 2)
	afterFallback(t, sb)
}

// A launcher stopped between commands does not take the next one: it is killed, and the
// command runs with the exec, once.
func (s *suite) testStopped(t *testing.T) {
	prev := launcher.StartTimeout
	launcher.StartTimeout = 3 * time.Second
	t.Cleanup(func() { launcher.StartTimeout = prev })
	sb := s.started(t)
	ok(t, sb, findPID+`(sleep 1; kill -STOP $LPID) >/dev/null 2>&1 & echo scheduled`, "scheduled\n")
	time.Sleep(3 * time.Second)
	ok(t, sb, "echo once >>/tmp/ran; cat /tmp/ran", "once\n")
	afterFallback(t, sb)
	ok(t, sb, "ps -eo stat=,args= | grep -c '^T' || true", "0\n")
}

// The agent replaces the launcher's file and kills it: the replacement never runs (a launcher
// is started once, and never again from its file).
func (s *suite) testReplaced(t *testing.T) {
	sb := s.started(t)
	ok(t, sb, findPID+`f=$(readlink /proc/$LPID/exe); f=${f% (deleted)}; mkdir -p "$(dirname "$f")"
printf '#!/bin/sh\ntouch /tmp/pwned\n' >"$f"; chmod +x "$f"; (sleep 1; kill -9 $LPID) >/dev/null 2>&1 & echo replaced`, "replaced\n")
	time.Sleep(3 * time.Second)
	for range 3 {
		ok(t, sb, "echo ok", "ok\n")
	}
	ok(t, sb, "test -e /tmp/pwned && echo pwned || echo clean", "clean\n")
	afterFallback(t, sb)
}

// Garbage written into the launcher's stdout from inside the sandbox, as `cat /dev/urandom >
// /proc/PID/fd/1` does, ends the session: the command that wrote it loses its result, and the
// next ones run with the exec.
func (s *suite) testGarbageStdout(t *testing.T) {
	sb := s.started(t)
	res, err := run(t, sb, findPID+`cat /dev/urandom >/proc/$LPID/fd/1`, sandbox.ExecOptions{Timeout: time.Minute})
	lost(t, res, err, 2)
	afterFallback(t, sb)
}

// Garbage written into the launcher's stdin between commands ends the launcher (its input fails
// the checks): the next command runs with the exec, once.
func (s *suite) testGarbageStdinBetween(t *testing.T) {
	sb := s.started(t)
	ok(t, sb, findPID+`(sleep 1; head -c 4096 /dev/urandom >/proc/$LPID/fd/0) >/dev/null 2>&1 & echo scheduled`, "scheduled\n")
	time.Sleep(3 * time.Second)
	ok(t, sb, "echo once >>/tmp/ran; cat /tmp/ran", "once\n")
	afterFallback(t, sb)
}

// A flood into the launcher's stdin while its command runs: the launcher ends, the command's
// result is lost.
func (s *suite) testFloodStdin(t *testing.T) {
	sb := s.started(t)
	res, err := run(t, sb, findPID+`yes >/proc/$LPID/fd/0 & sleep 5; echo done`, sandbox.ExecOptions{Timeout: time.Minute})
	lost(t, res, err, 2)
	afterFallback(t, sb)
}

// Nothing of the launcher is left in the sandbox's file system once it runs: it is not in the
// working tree, nor anywhere an agent lists.
func (s *suite) testFileGone(t *testing.T) {
	sb := s.started(t)
	ok(t, sb, "ls -a /tmp /var/tmp /dev/shm | grep -c swebench-run || true", "0\n")
}

// noLeaks fails t when goroutines of a launcher are left once t's sandboxes are removed.
func (s *suite) noLeaks(t *testing.T) {
	t.Cleanup(func() {
		var left string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if left = s.leftovers(); left == "" {
				return
			}
		}
		t.Errorf("goroutines of a launcher left after the sandboxes' removal:\n%s", left)
	})
}

func (s *suite) leftovers() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var left []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, f := range append([]string{"swebench-run/launcher.(*Session)"}, s.cfg.Goroutines...) {
			if strings.Contains(g, f) && !strings.Contains(g, "launchertest.") {
				left = append(left, g)
				break
			}
		}
	}
	return fmt.Sprint(strings.Join(left, "\n\n"))
}
