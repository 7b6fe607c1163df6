package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
)

// localSandbox is a fake container: a fresh copy of a git repository in a temporary folder,
// where commands run for real through `bash -c`. Container paths (/testbed, /tmp/patch.diff,
// /eval.sh) are mapped into the folder.
type localSandbox struct {
	root   string // stands for the container's /
	closed bool
	// execErr, when set, makes Exec fail for commands containing the key (a dying container).
	execErr map[string]error
	// beforeExec, when set, is called with each command before it runs.
	beforeExec func(cmd string)
}

func (s *localSandbox) mapPaths(text string) string {
	return strings.NewReplacer(
		"/testbed", filepath.Join(s.root, "testbed"),
		containerPatchPath, filepath.Join(s.root, "tmp", "patch.diff"),
		containerEvalPath, filepath.Join(s.root, "eval.sh"),
	).Replace(text)
}

func (s *localSandbox) Exec(ctx context.Context, cmd string, timeout time.Duration) (string, int, bool, error) {
	for k, err := range s.execErr {
		if strings.Contains(cmd, k) {
			return "", -1, false, err
		}
	}
	if s.beforeExec != nil {
		s.beforeExec(cmd)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(tctx, "bash", "-c", s.mapPaths(cmd))
	c.Dir = filepath.Join(s.root, "testbed")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) } // the whole group
	c.WaitDelay = 5 * time.Second
	out, err := c.CombinedOutput()
	if errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return string(out), 137, true, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode(), false, nil
	}
	if err != nil {
		return string(out), -1, false, err
	}
	return string(out), 0, false, nil
}

func (s *localSandbox) WriteFile(_ context.Context, path string, data []byte) error {
	p := filepath.Join(s.root, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(s.mapPaths(string(data))), 0o644)
}

func (s *localSandbox) Close(context.Context) error {
	s.closed = true
	return os.RemoveAll(s.root)
}

// fakeStarter makes a localSandbox holding a fresh clone of repo for every Start.
type fakeStarter struct {
	t       *testing.T
	repo    string
	err     error            // returned by Start when set
	execErr map[string]error // passed to the sandboxes
	before  func(cmd string) // passed to the sandboxes
	mu      sync.Mutex
	started []string // images
	boxes   []*localSandbox
}

func (f *fakeStarter) Start(ctx context.Context, inst dataset.Instance, image string) (Sandbox, error) {
	f.mu.Lock()
	f.started = append(f.started, image)
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	root := f.t.TempDir()
	if out, err := exec.CommandContext(ctx, "git", "clone", "-q", f.repo, filepath.Join(root, "testbed")).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("clone: %v: %s", err, out)
	}
	sb := &localSandbox{root: root, execErr: f.execErr, beforeExec: f.before}
	f.mu.Lock()
	f.boxes = append(f.boxes, sb)
	f.mu.Unlock()
	return sb, nil
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command(args[0], args[1:]...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

func numbered(n int, tag func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d%s\n", i, tag(i))
	}
	return b.String()
}

// diffOf returns the git diff that turns before into after for calc.txt.
func diffOf(t *testing.T, before, after string) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	os.WriteFile(filepath.Join(dir, "calc.txt"), []byte(before), 0o644)
	run(t, dir, "git", "add", ".")
	run(t, dir, "git", "commit", "-qm", "base")
	os.WriteFile(filepath.Join(dir, "calc.txt"), []byte(after), 0o644)
	return run(t, dir, "git", "diff")
}

var (
	baseText  = numbered(40, func(int) string { return "" })
	fixedText = numbered(40, func(i int) string {
		if i == 20 {
			return " fixed"
		}
		return ""
	})
)

// testRepo makes the repository the fake containers clone, holding calc.txt.
func testRepo(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	os.WriteFile(filepath.Join(dir, "calc.txt"), []byte(text), 0o644)
	run(t, dir, "git", "add", ".")
	run(t, dir, "git", "commit", "-qm", "base")
	return dir
}

// testInstance is a pytest-graded row whose "test suite" checks that calc.txt has the fix.
func testInstance(id, tests string) dataset.Instance {
	if tests == "" {
		tests = `if grep -q "line 20 fixed" calc.txt; then echo "PASSED t.py::test_fix"; else echo "FAILED t.py::test_fix - AssertionError"; fi
echo "PASSED t.py::test_other"`
	}
	return dataset.Instance{
		InstanceID: id,
		FailToPass: []string{"t.py::test_fix"},
		PassToPass: []string{"t.py::test_other"},
		LogParser:  "parse_log_pytest",
		EvalType:   EvalPassAndFail,
		EvalScript: "#!/bin/bash\nset -uxo pipefail\ncd /testbed\ngit status --short\n: '>>>>> Start Test Output'\n" + tests + "\n: '>>>>> End Test Output'\n",
	}
}

func pred(id, patch string) Prediction {
	return Prediction{InstanceID: id, ModelNameOrPath: "org/model", ModelPatch: &patch}
}

func TestEvaluateInstance(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Fatal("the patch program is needed for the apply fallbacks: install it (apt-get install patch)")
	}
	fix := diffOf(t, baseText, fixedText)
	// Same change, made against a file whose neighbouring lines differ: git apply refuses it,
	// patch --fuzz applies it.
	fuzzy := diffOf(t, numbered(40, func(i int) string {
		if i == 18 || i == 19 || i == 21 || i == 22 {
			return " changed"
		}
		return ""
	}), numbered(40, func(i int) string {
		switch i {
		case 18, 19, 21, 22:
			return " changed"
		case 20:
			return " fixed"
		}
		return ""
	}))
	// Two hunks: the first applies, the second targets text the file does not have.
	partial := diffOf(t, baseText+"tail a\ntail b\ntail c\ntail d\n", fixedText+"tail a\ntail B\ntail c\ntail d\n")
	partial = strings.ReplaceAll(partial, "-tail b", "-tail x")
	partial = strings.ReplaceAll(partial, " tail a", " tail y")
	partial = strings.ReplaceAll(partial, " tail c", " tail z")
	breaks := diffOf(t, baseText, strings.Replace(baseText, "line 5\n", "line 5 broken\n", 1))

	spoof := `(echo "PASSED t.py::test_fix"; echo "PASSED t.py::test_other"; exit 1)`
	tests := []struct {
		name         string
		patch        string
		tests        string
		timeout      time.Duration
		startErr     error
		execErr      map[string]error
		wantOutcome  Outcome
		wantKind     ErrorKind
		wantApplied  bool // report.json's patch_successfully_applied
		wantStarted  bool
		wantInOutput string
		wantLog      []string // in run_instance.log
		repoText     string   // calc.txt in the image, when not baseText
	}{
		{name: "git apply", patch: fix, wantOutcome: Resolved, wantApplied: true, wantStarted: true, wantInOutput: "M calc.txt",
			wantLog: []string{">>>>> Applied Patch (git apply --verbose /tmp/patch.diff)"}},
		{name: "patch with fuzz after git apply fails", patch: fuzzy, wantOutcome: Resolved, wantApplied: true, wantStarted: true,
			wantLog: []string{"Failed to apply patch to container (exit 1): git apply --verbose /tmp/patch.diff", "Failed to apply patch to container (exit 1): git apply --verbose --reject", ">>>>> Applied Patch (patch --batch --forward --fuzz=5 -p1 -i /tmp/patch.diff)"}},
		{name: "already applied patch is accepted", patch: fix, repoText: fixedText, wantOutcome: Resolved, wantApplied: true, wantStarted: true,
			wantLog: []string{"verified already applied"}},
		{name: "wrong patch applies but does not fix", patch: breaks, wantOutcome: Unresolved, wantApplied: true, wantStarted: true},
		{name: "hunk that applies nowhere", patch: partial, wantOutcome: Error, wantKind: KindPatchApplyFailed, wantStarted: true,
			wantLog: []string{"--reject", "patch --batch", ">>>>> Patch Apply Failed"}},
		{name: "not a diff", patch: "I fixed it by editing calc.txt", wantOutcome: Error, wantKind: KindNotADiff},
		{name: "empty patch is not run", patch: "", wantOutcome: EmptyPatch},
		{name: "spoofed PASSED lines with failing exit code", patch: fix, tests: spoof, wantOutcome: Unresolved, wantApplied: false, wantStarted: true},
		{name: "timeout kills the eval script", patch: fix, tests: "echo started; sleep 60", timeout: time.Second, wantOutcome: Error, wantKind: KindTimeout, wantStarted: true, wantInOutput: "Timeout error: 1 seconds exceeded."},
		{name: "image missing", patch: fix, startErr: fmt.Errorf("pull x: %w", ErrImageNotFound), wantOutcome: Error, wantKind: KindImageMissing, wantStarted: true},
		{name: "container fails to start", patch: fix, startErr: errors.New("daemon said no"), wantOutcome: Error, wantKind: KindContainer, wantStarted: true},
		{name: "container dies during tests", patch: fix, execErr: map[string]error{"eval.sh": errors.New("container exited")}, wantOutcome: Error, wantKind: KindContainer, wantStarted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.repoText == "" {
				tt.repoText = baseText
			}
			repo := testRepo(t, tt.repoText)
			out := t.TempDir()
			st := &fakeStarter{t: t, repo: repo, err: tt.startErr, execErr: tt.execErr}
			ev, err := New(Options{OutDir: out, RunID: "r1", Starter: st, Timeout: tt.timeout})
			if err != nil {
				t.Fatal(err)
			}
			inst := testInstance("o__r-1", tt.tests)
			res, err := ev.Evaluate(context.Background(), inst, pred(inst.InstanceID, tt.patch))
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tt.wantOutcome || res.ErrorKind != tt.wantKind {
				t.Fatalf("got %s/%s (%s), want %s/%s", res.Outcome, res.ErrorKind, res.Reason, tt.wantOutcome, tt.wantKind)
			}
			if got := len(st.started) > 0; got != tt.wantStarted {
				t.Errorf("container started: got %t, want %t", got, tt.wantStarted)
			}
			for _, b := range st.boxes {
				if !b.closed {
					t.Error("container not closed")
				}
			}
			dir := filepath.Join(out, inst.InstanceID)
			if tt.wantOutcome == Resolved || tt.wantOutcome == Unresolved {
				rep, _, err := ReadReport(filepath.Join(dir, "report.json"))
				if err != nil {
					t.Fatal(err)
				}
				if rep.PatchSuccessfullyApplied != tt.wantApplied || rep.Resolved != (tt.wantOutcome == Resolved) {
					t.Errorf("report: got applied=%t resolved=%t, want applied=%t resolved=%t", rep.PatchSuccessfullyApplied, rep.Resolved, tt.wantApplied, tt.wantOutcome == Resolved)
				}
				script, _ := os.ReadFile(filepath.Join(dir, "eval.sh"))
				if got, want := string(script), EvalScript(inst.EvalScript); got != want {
					t.Errorf("eval.sh: got %q, want %q", got, want)
				}
				patch, _ := os.ReadFile(filepath.Join(dir, "patch.diff"))
				if string(patch) != tt.patch {
					t.Errorf("patch.diff: got %q, want the prediction's patch", patch)
				}
			} else if _, err := os.Stat(filepath.Join(dir, "report.json")); err == nil {
				t.Error("report.json written for an instance that was not graded")
			}
			ilog, _ := os.ReadFile(filepath.Join(dir, "run_instance.log"))
			for _, w := range tt.wantLog {
				if !strings.Contains(string(ilog), w) {
					t.Errorf("run_instance.log: got %q, want it to contain %q", ilog, w)
				}
			}
			if tt.wantInOutput != "" {
				got, _ := os.ReadFile(filepath.Join(dir, "test_output.txt"))
				if !strings.Contains(string(got), tt.wantInOutput) {
					t.Errorf("test_output.txt: got %q, want it to contain %q", got, tt.wantInOutput)
				}
			}
		})
	}
}

func TestEvaluateInterruptedIsNotGraded(t *testing.T) {
	fix := diffOf(t, baseText, fixedText)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &fakeStarter{t: t, repo: testRepo(t, baseText), before: func(cmd string) {
		if strings.Contains(cmd, "eval.sh") {
			cancel() // Ctrl-C while the tests run
		}
	}}
	out := t.TempDir()
	ev, err := New(Options{OutDir: out, RunID: "r", Starter: st})
	if err != nil {
		t.Fatal(err)
	}
	inst := testInstance("o__r-1", "sleep 30; echo PASSED t.py::test_fix")
	_, err = ev.Evaluate(ctx, inst, pred(inst.InstanceID, fix))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(out, inst.InstanceID, "report.json")); err == nil {
		t.Error("an interrupted evaluation was graded")
	}
	for _, b := range st.boxes {
		if !b.closed {
			t.Error("container not removed after interruption")
		}
	}
}
