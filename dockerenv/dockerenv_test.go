package dockerenv_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/internal/testenv"
)

func startTestContainer(t *testing.T, e *dockerenv.Engine, spec dockerenv.ContainerSpec) *dockerenv.Container {
	t.Helper()
	if spec.Image == "" {
		spec.Image = testenv.BaseImage
	}
	if spec.RunID == "" {
		spec.RunID = "test-" + strings.ReplaceAll(t.Name(), "/", "-")
	}
	if spec.InstanceID == "" {
		spec.InstanceID = "test__dockerenv-1"
	}
	if spec.Cwd == "" {
		spec.Cwd = "/tmp"
	}
	ctx := context.Background()
	// Sweep by run id at cleanup as well, so a failed create leaves nothing either.
	t.Cleanup(func() { _, _ = e.Sweep(context.Background(), dockerenv.ByRun(spec.RunID)) })
	c, err := e.StartContainer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Remove(context.Background()) })
	return c
}

func TestExec(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, dockerenv.ContainerSpec{Env: map[string]string{"PAGER": "cat", "FOO": "base"}})
	ctx := context.Background()
	tests := []struct {
		name     string
		cmd      string
		opts     dockerenv.ExecOptions
		want     string
		wantCode int
	}{
		{"stdout", "echo hello", dockerenv.ExecOptions{}, "hello\n", 0},
		{"exit code", "exit 7", dockerenv.ExecOptions{}, "", 7},
		{"stderr merged in order", "echo out; echo err >&2; echo out2", dockerenv.ExecOptions{}, "out\nerr\nout2\n", 0},
		{"container env", "echo $PAGER-$FOO", dockerenv.ExecOptions{}, "cat-base\n", 0},
		{"exec env overrides", "echo $FOO", dockerenv.ExecOptions{Env: map[string]string{"FOO": "exec"}}, "exec\n", 0},
		{"container cwd", "pwd", dockerenv.ExecOptions{}, "/tmp\n", 0},
		{"exec cwd", "pwd", dockerenv.ExecOptions{Cwd: "/usr"}, "/usr\n", 0},
		{"bash -c semantics", "x=1; [[ $x == 1 ]] && echo yes", dockerenv.ExecOptions{}, "yes\n", 0},
		{"no tty", "test -t 1 && echo tty || echo notty", dockerenv.ExecOptions{}, "notty\n", 0},
		{"invalid utf-8 replaced", `printf 'a\xffb'`, dockerenv.ExecOptions{}, "a\uFFFDb", 0},
		{"within timeout", "sleep 0.2; echo done", dockerenv.ExecOptions{Timeout: 10 * time.Second}, "done\n", 0},
		{"sh interpreter", "echo $0", dockerenv.ExecOptions{Interpreter: []string{"sh", "-c"}}, "sh\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Exec(ctx, tt.cmd, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tt.want || res.ExitCode != tt.wantCode || res.TimedOut {
				t.Errorf("got (%q, %d, timedOut=%v), want (%q, %d, false)", res.Output, res.ExitCode, res.TimedOut, tt.want, tt.wantCode)
			}
		})
	}
}

// A command runs exactly as `bash -c CMD` would, with stderr merged into stdout in order, with
// a timeout or without.
func TestExecBashSemantics(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, dockerenv.ContainerSpec{})
	ctx := context.Background()
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
	}
	for _, timeout := range []time.Duration{0, time.Minute} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/timeout=%s", tt.name, timeout), func(t *testing.T) {
				res, err := c.Exec(ctx, tt.cmd, dockerenv.ExecOptions{Timeout: timeout})
				if err != nil {
					t.Fatal(err)
				}
				if res.Output != tt.want || res.ExitCode != tt.wantCode || res.TimedOut {
					t.Errorf("got (%q, %d, timedOut=%v), want (%q, %d, false)", res.Output, res.ExitCode, res.TimedOut, tt.want, tt.wantCode)
				}
			})
		}
	}
}

// A timed-out command is killed inside the container, with its children, including one that
// left the process group and one that holds the output pipe open.
func TestExecTimeoutKillsEverything(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, dockerenv.ContainerSpec{})
	ctx := context.Background()

	tests := []struct {
		name string
		cmd  string
	}{
		{"foreground sleep", "echo started; sleep 300"},
		{"ignores TERM", "trap '' TERM; echo started; sleep 300"},
		{"background child in the group", "sleep 301 & echo started; wait"},
		{"escaped with setsid, holding stdout", "setsid sleep 302 & echo started; sleep 303"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Exec(ctx, tt.cmd, dockerenv.ExecOptions{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if !res.TimedOut {
				t.Errorf("TimedOut = false (exit %d), want true", res.ExitCode)
			}
			if res.ExitCode != 143 && res.ExitCode != 137 {
				t.Errorf("exit code %d, want 143 (TERM) or 137 (KILL)", res.ExitCode)
			}
			if !strings.Contains(res.Output, "started") {
				t.Errorf("partial output %q lacks what the command printed before the timeout", res.Output)
			}
			ps, err := c.Exec(ctx, "ps -eo pid=,stat=,args= | grep -v -e 'ps -eo' -e grep | grep 'sleep 30' || true", dockerenv.ExecOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// Not one of the command's processes may remain, not even as a zombie.
			if out := strings.TrimSpace(ps.Output); out != "" {
				t.Errorf("processes survived the timeout:\n%s", out)
			}
		})
	}
}

// The kill after a timeout is over when Exec returns: the next command in the container runs
// normally, even when the main process's acknowledgement of the kill got lost.
func TestExecAfterTimeout(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, dockerenv.ContainerSpec{})
	ctx := context.Background()
	run := func(t *testing.T) {
		t.Helper()
		res, err := c.Exec(ctx, "sleep 100", dockerenv.ExecOptions{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut {
			t.Errorf("sleep 100: TimedOut = false (exit %d), want true", res.ExitCode)
		}
		res, err = c.Exec(ctx, "echo ok", dockerenv.ExecOptions{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != "ok\n" || res.ExitCode != 0 || res.TimedOut {
			t.Errorf("echo ok after a timeout: got (%q, %d, timedOut=%v), want (\"ok\\n\", 0, false)", res.Output, res.ExitCode, res.TimedOut)
		}
	}
	for i := 1; i <= 5; i++ {
		t.Run(fmt.Sprintf("timeout %d", i), func(t *testing.T) {
			run(t)
			if kills, lost := dockerenv.KillState(c); kills != i || lost {
				t.Errorf("kill state = (%d, lost %v), want (%d, false)", kills, lost, i)
			}
		})
	}
	// A count ahead of the main process's: no acknowledgement comes, Exec falls back to an
	// exec'd kill; the next kill reads the count again from the log.
	t.Run("acknowledgement lost", func(t *testing.T) {
		dockerenv.SetKillState(c, 100, false)
		run(t)
		if _, lost := dockerenv.KillState(c); !lost {
			t.Error("an unacknowledged kill is not marked lost")
		}
	})
	t.Run("count read again", func(t *testing.T) {
		run(t)
		if kills, lost := dockerenv.KillState(c); kills != 7 || lost {
			t.Errorf("kill state = (%d, lost %v), want (7, false)", kills, lost)
		}
	})
}

// A command printing far more than MaxOutput keeps memory bounded: head and tail are kept, the
// middle is counted.
func TestExecHugeOutputIsBounded(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, dockerenv.ContainerSpec{})
	res, err := c.Exec(context.Background(), "echo FIRST; head -c 50000000 /dev/zero | tr '\\0' 'a'; echo; echo LAST", dockerenv.ExecOptions{MaxOutput: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Output) > 70<<10 {
		t.Errorf("kept %d bytes, want about 64 KiB", len(res.Output))
	}
	if !strings.HasPrefix(res.Output, "FIRST\n") || !strings.HasSuffix(res.Output, "LAST\n") {
		t.Errorf("head or tail lost: %q … %q", res.Output[:20], res.Output[len(res.Output)-20:])
	}
	total := int64(len("FIRST\n")) + 50_000_000 + int64(len("\nLAST\n"))
	if got, want := res.TruncatedBytes, total-64<<10; got != want {
		t.Errorf("TruncatedBytes = %d, want %d", got, want)
	}
}

func TestWriteFile(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, dockerenv.ContainerSpec{})
	ctx := context.Background()
	data := "diff --git a/x b/x\n<&>\n"
	if err := c.WriteFile(ctx, "/tmp/patch.diff", []byte(data)); err != nil {
		t.Fatal(err)
	}
	res, err := c.Exec(ctx, "cat /tmp/patch.diff", dockerenv.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != data {
		t.Errorf("read back %q, want %q", res.Output, data)
	}
}

func TestContainerLifecycle(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	ctx := context.Background()
	runID := "test-lifecycle"
	c := startTestContainer(t, e, dockerenv.ContainerSpec{RunID: runID, InstanceID: "owner__repo-42"})

	out, err := exec.Command("docker", "inspect", "-f", `{{index .Config.Labels "swebench-run.instance-id"}} {{index .Config.Labels "swebench-run.run-id"}} {{.HostConfig.PidsLimit}}`, c.ID).CombinedOutput()
	if err != nil {
		t.Fatalf("docker inspect: %v: %s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "owner__repo-42 test-lifecycle 4096"; got != want {
		t.Errorf("labels/cmd/pids = %q, want %q", got, want)
	}
	if err := c.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	names, err := e.ListContainers(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 0 {
		t.Errorf("containers left after Remove: %v", names)
	}
	if err := c.Remove(ctx); err != nil {
		t.Errorf("second Remove: %v, want nil (already gone is fine)", err)
	}
}

func TestSweepByRun(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	ctx := context.Background()
	a := startTestContainer(t, e, dockerenv.ContainerSpec{RunID: "sweep-a", InstanceID: "x__y-1"})
	startTestContainer(t, e, dockerenv.ContainerSpec{RunID: "sweep-a", InstanceID: "x__y-2"})
	b := startTestContainer(t, e, dockerenv.ContainerSpec{RunID: "sweep-b", InstanceID: "x__y-3"})
	_ = a
	n, err := e.Sweep(ctx, dockerenv.ByRun("sweep-a"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("swept %d, want 2", n)
	}
	left, _ := e.ListContainers(ctx, "sweep-b")
	if len(left) != 1 {
		t.Errorf("the other run's container was touched: %v", left)
	}
	_ = b
}

func TestDeadContainer(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, dockerenv.ContainerSpec{})
	if out, err := exec.Command("docker", "kill", c.ID).CombinedOutput(); err != nil {
		t.Fatalf("docker kill: %v: %s", err, out)
	}
	_, err := c.Exec(context.Background(), "true", dockerenv.ExecOptions{})
	var died *dockerenv.ContainerDiedError
	if !errors.As(err, &died) {
		t.Fatalf("err = %v, want *ContainerDiedError", err)
	}
	if got, want := died.ExitStatus(), "ContainerDied"; got != want {
		t.Errorf("ExitStatus = %q, want %q", got, want)
	}
}

func TestMissingImage(t *testing.T) {
	e := testenv.Docker(t)
	_, err := e.EnsureImage(context.Background(), "swebench-run-test/does-not-exist:latest", dockerenv.PullNever)
	if !errors.Is(err, dockerenv.ErrImageNotFound) {
		t.Errorf("err = %v, want ErrImageNotFound", err)
	}
}
