package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

// nopSandbox answers every command with its text.
type nopSandbox struct{ closed *bool }

func (s nopSandbox) Exec(_ context.Context, cmd string, _ time.Duration) (string, int, bool, error) {
	return cmd, 0, false, nil
}
func (nopSandbox) WriteFile(context.Context, string, []byte) error { return nil }
func (s nopSandbox) Close(context.Context) error                   { *s.closed = true; return nil }

type nopStarter struct {
	mu     sync.Mutex
	images []string
	closed []*bool
}

func (s *nopStarter) Start(_ context.Context, inst dataset.Instance, image string) (Sandbox, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if image == "missing:image" {
		return nil, fmt.Errorf("%w: %s", ErrImageNotFound, image)
	}
	s.images = append(s.images, image)
	c := new(bool)
	s.closed = append(s.closed, c)
	return nopSandbox{closed: c}, nil
}

// stubGrader grades "fix" patches resolved and everything else unresolved, writing verdict.txt;
// it refuses instances whose id says so.
type stubGrader struct {
	mu       sync.Mutex
	graded   []string
	finished map[string]family.Verdict
}

func (g *stubGrader) Check(insts []dataset.Instance) error {
	for _, inst := range insts {
		if strings.Contains(inst.InstanceID, "refused") {
			return fmt.Errorf("instance %s: no assets", inst.InstanceID)
		}
	}
	return nil
}

func (g *stubGrader) Reuse(inst dataset.Instance, pred Prediction, dir string) (family.Verdict, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "verdict.txt"))
	if err != nil {
		return family.Verdict{}, false
	}
	return family.Graded(string(data) == "resolved", nil), true
}

func (g *stubGrader) Grade(ctx context.Context, env family.GradeEnv, sb family.Sandbox, inst dataset.Instance, pred Prediction, dir string) (family.Verdict, error) {
	g.mu.Lock()
	g.graded = append(g.graded, inst.InstanceID)
	g.mu.Unlock()
	out, _, _, err := sb.Exec(ctx, "run tests", env.Timeout)
	if err != nil {
		return family.Errorf(family.KindContainer, "%v", err), nil
	}
	fmt.Fprintf(env.Log, "ran: %s\n", out)
	v := family.Graded(pred.Patch() == "fix", nil)
	return v, os.WriteFile(filepath.Join(dir, "verdict.txt"), []byte(v.Outcome), 0o644)
}

func (g *stubGrader) Regrade(inst dataset.Instance, pred Prediction, logDirs []string, dir string) (family.Verdict, bool, error) {
	for _, d := range logDirs {
		if data, err := os.ReadFile(filepath.Join(d, inst.InstanceID, "verdict.txt")); err == nil {
			return family.Graded(string(data) == "resolved", nil), true, os.WriteFile(filepath.Join(dir, "verdict.txt"), data, 0o644)
		}
	}
	return family.Verdict{}, false, nil
}

func (g *stubGrader) Finish(outDir string, preds map[string]Prediction, verdicts map[string]family.Verdict) error {
	g.finished = verdicts
	return nil
}

func strp(s string) *string { return &s }

// Instances of a family with a grader are graded by it in a fresh sandbox of their image, the
// others the built-in way; the grader's verdicts make the run report, its Finish sees them, a
// rerun reuses them, and --from-logs regrades through it.
func TestFamilyGrader(t *testing.T) {
	g := &stubGrader{}
	graders := func(name string) family.Grader {
		if name == "stub" {
			return g
		}
		return nil
	}
	insts := []dataset.Instance{
		{InstanceID: "s__a-1", Family: "stub", Image: "stub:1", WorkDir: "/app"},
		{InstanceID: "s__a-2", Family: "stub", Image: "stub:2"},
		{InstanceID: "s__a-3", Family: "stub", Image: "missing:image"},
		{InstanceID: "s__a-4", Family: "stub", Image: "stub:4"},
	}
	preds := map[string]Prediction{
		"s__a-1": {InstanceID: "s__a-1", ModelNameOrPath: "m", ModelPatch: strp("fix")},
		"s__a-2": {InstanceID: "s__a-2", ModelNameOrPath: "m", ModelPatch: strp("nope")},
		"s__a-3": {InstanceID: "s__a-3", ModelNameOrPath: "m", ModelPatch: strp("fix")},
		"s__a-4": {InstanceID: "s__a-4", ModelNameOrPath: "m", ModelPatch: strp("")},
	}
	out := t.TempDir()
	st := &nopStarter{}
	ev, err := New(Options{OutDir: out, RunID: "r1", Starter: st, Workers: 2, Graders: graders})
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := ev.Run(context.Background(), insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rep.ResolvedIDs, rep.UnresolvedIDs, rep.ErrorIDs, rep.EmptyPatchIDs) != "[s__a-1] [s__a-2] [s__a-3] [s__a-4]" {
		t.Errorf("report: resolved %v unresolved %v errors %v empty %v", rep.ResolvedIDs, rep.UnresolvedIDs, rep.ErrorIDs, rep.EmptyPatchIDs)
	}
	if !strings.HasPrefix(rep.ErrorReasons["s__a-3"], "image_missing: ") {
		t.Errorf("error reason %q", rep.ErrorReasons["s__a-3"])
	}
	sort.Strings(st.images)
	if fmt.Sprint(st.images) != "[stub:1 stub:2]" {
		t.Errorf("sandboxes of %v", st.images)
	}
	for _, c := range st.closed {
		if !*c {
			t.Error("a sandbox was not closed")
		}
	}
	if len(g.finished) != 4 || g.finished["s__a-1"].Outcome != family.Resolved || g.finished["s__a-4"].Outcome != family.EmptyPatch {
		t.Errorf("Finish saw %v", g.finished)
	}
	log, _ := os.ReadFile(filepath.Join(out, "s__a-1", instanceLog))
	if !strings.Contains(string(log), "Starting container from stub:1\nran: run tests\n") || !strings.Contains(string(log), "Result for s__a-1: resolved: true") {
		t.Errorf("run_instance.log:\n%s", log)
	}

	// A rerun reuses the verdicts, --redo grades again.
	g.graded = nil
	if _, _, err := ev.Run(context.Background(), insts[:2], preds); err == nil {
		t.Error("predictions outside the dataset were accepted")
	}
	rep, _, err = ev.Run(context.Background(), insts, preds)
	if err != nil || len(g.graded) != 0 || len(rep.ResolvedIDs) != 1 {
		t.Errorf("rerun graded %v (%v, %v)", g.graded, rep.ResolvedIDs, err)
	}

	// Check runs before any sandbox starts.
	refused := append(insts, dataset.Instance{InstanceID: "s__refused-1", Family: "stub"})
	preds["s__refused-1"] = Prediction{InstanceID: "s__refused-1", ModelNameOrPath: "m", ModelPatch: strp("fix")}
	n := len(st.images)
	if _, _, err := ev.Run(context.Background(), refused, preds); err == nil || !strings.Contains(err.Error(), "no assets") {
		t.Errorf("refused instance: %v", err)
	}
	if len(st.images) != n {
		t.Error("a sandbox started before the check")
	}
	delete(preds, "s__refused-1")

	// Regrade from the folder just written.
	dst := t.TempDir()
	rep, _, err = RegradeFromLogs(RegradeOptions{LogsDir: out, OutDir: dst, RunID: "r2", Graders: graders}, insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rep.ResolvedIDs, rep.UnresolvedIDs, rep.ErrorIDs) != "[s__a-1] [s__a-2] [s__a-3]" {
		t.Errorf("regrade: %v %v %v", rep.ResolvedIDs, rep.UnresolvedIDs, rep.ErrorIDs)
	}
	var kinds []string
	_, res, _ := RegradeFromLogs(RegradeOptions{LogsDir: out, OutDir: dst, RunID: "r2", Graders: graders}, insts, preds)
	for _, r := range res {
		kinds = append(kinds, string(r.ErrorKind))
	}
	if !strings.Contains(strings.Join(kinds, ","), string(KindNoTestOutput)) {
		t.Errorf("an instance without a log: kinds %v", kinds)
	}
}

// A cancelled evaluation of a family's instance is an error of the run, not a verdict.
func TestFamilyGraderCancelled(t *testing.T) {
	g := &stubGrader{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ev, err := New(Options{OutDir: t.TempDir(), RunID: "r", Starter: &nopStarter{}, Graders: func(string) family.Grader { return g }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ev.Evaluate(ctx, dataset.Instance{InstanceID: "s__a-1", Family: "stub", Image: "stub:1"},
		Prediction{InstanceID: "s__a-1", ModelNameOrPath: "m", ModelPatch: strp("fix")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
