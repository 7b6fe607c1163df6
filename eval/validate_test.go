package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/validation"
)

// failingStarter fails the start of the instances it names, and otherwise starts as next.
type failingStarter struct {
	next *fakeStarter
	fail map[string]bool
}

func (s *failingStarter) Start(ctx context.Context, inst dataset.Instance, image string) (Sandbox, error) {
	if s.fail[inst.InstanceID] {
		return nil, errors.New("container died at start")
	}
	return s.next.Start(ctx, inst, image)
}

// Test scripts of the fake instances: each prints pytest's -rA summary lines for the row's two
// tests (t.py::test_fix, needing the fix; t.py::test_other).
const (
	scriptMissingDep = `echo "ERROR t.py - ModuleNotFoundError: No module named 'yaml'"`
	scriptCrash      = `bash -c 'kill -SEGV $$'`
	scriptNoBug      = `echo "PASSED t.py::test_fix"; echo "PASSED t.py::test_other"`
)

// scriptFlaky fails t.py::test_other on every other run of each tree (with and without the fix),
// by a counter kept outside the sandboxes (the test's temporary folder): each run takes the next
// number by creating its folder (atomic, so concurrent runs never take the same one).
func scriptFlaky(counterDir string) string {
	return `if grep -q "line 20 fixed" calc.txt; then key=fixed; else key=base; fi
n=0; while ! mkdir ` + counterDir + `/$key.$n 2>/dev/null; do n=$((n+1)); done
if grep -q "line 20 fixed" calc.txt; then echo "PASSED t.py::test_fix"; else echo "FAILED t.py::test_fix - AssertionError"; fi
if [ $((n % 2)) = 0 ]; then echo "PASSED t.py::test_other"; else echo "FAILED t.py::test_other - random"; fi`
}

func validationInstances(t *testing.T) []dataset.Instance {
	fix := diffOf(t, baseText, fixedText)
	counters := t.TempDir()
	var insts []dataset.Instance
	for _, c := range []struct{ id, script string }{
		{"o__ok-1", ""}, {"o__dep-2", scriptMissingDep}, {"o__crash-3", scriptCrash}, {"o__nobug-4", scriptNoBug},
		{"o__flaky-5", scriptFlaky(counters)}, {"o__infra-6", ""},
	} {
		inst := testInstance(c.id, c.script)
		inst.Patch = fix
		insts = append(insts, inst)
	}
	return insts
}

func TestValidate(t *testing.T) {
	insts := validationInstances(t)
	fake := &fakeStarter{t: t, repo: testRepo(t, baseText)}
	st := &failingStarter{next: fake, fail: map[string]bool{"o__infra-6": true}}
	logs := t.TempDir()
	var mu sync.Mutex
	got := map[string]validation.Record{}
	started := 0
	err := Validate(context.Background(), insts, ValidateOptions{
		LogDir: logs, RunID: "v1", Starter: st, Workers: 3, Repeat: 4,
		OnStart: func(dataset.Instance) { started++ },
		OnRecord: func(inst dataset.Instance, rec validation.Record) error {
			mu.Lock()
			defer mu.Unlock()
			got[inst.InstanceID] = rec
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]validation.Outcome{
		"o__ok-1": validation.OK, "o__dep-2": validation.GoldFails, "o__crash-3": validation.GoldFails,
		"o__nobug-4": validation.EmptyPasses, "o__flaky-5": validation.Flaky, "o__infra-6": validation.Infrastructure,
	}
	for id, w := range want {
		r := got[id]
		if r.Outcome != w {
			t.Errorf("%s: %s (%s), want %s", id, r.Outcome, r.Reason, w)
		}
		if len(r.Gradings) != 8 || r.Repeats != 4 || r.Gradings[0].Patch != validation.PatchGold || r.Gradings[1].Patch != validation.PatchEmpty {
			t.Errorf("%s: %d gradings (repeats %d), first %+v", id, len(r.Gradings), r.Repeats, r.Gradings[0])
		}
	}
	if started != len(insts) {
		t.Errorf("OnStart called %d times, want %d", started, len(insts))
	}
	if got, want := len(fake.started), 5*8; got != want {
		t.Errorf("containers started: %d, want %d (two patches, four repeats, five instances that start)", got, want)
	}
	dep := got["o__dep-2"]
	wantTests := []validation.Test{
		{Name: "t.py::test_fix", Group: validation.GroupFailToPass, Patch: validation.PatchGold, Status: validation.StatusMissing},
		{Name: "t.py::test_other", Group: validation.GroupPassToPass, Patch: validation.PatchGold, Status: validation.StatusMissing},
	}
	if !reflect.DeepEqual(dep.Tests, wantTests) {
		t.Errorf("gold fails: tests %+v, want %+v", dep.Tests, wantTests)
	}
	if crash := got["o__crash-3"]; !strings.Contains(crash.Reason, "collected no test") || !strings.Contains(crash.Reason, "signal 11") {
		t.Errorf("runner crash: reason %q", crash.Reason)
	}
	if nb := got["o__nobug-4"]; len(nb.Tests) != 1 || nb.Tests[0].Name != "t.py::test_fix" {
		t.Errorf("empty passes: tests %+v", nb.Tests)
	}
	fl := got["o__flaky-5"]
	if len(fl.Tests) != 1 || fl.Tests[0].Name != "t.py::test_other" || count(fl.Tests[0].Statuses, validation.StatusPassed) != 2 || count(fl.Tests[0].Statuses, validation.StatusFailed) != 2 {
		t.Errorf("flaky: tests %+v (%s), want t.py::test_other passing twice and failing twice", fl.Tests, fl.Reason)
	}
	// The gradings are kept in eval's layout, one folder per patch and repeat.
	for _, f := range []string{"gold-1/o__ok-1/report.json", "empty-4/o__ok-1/test_output.txt", "empty-1/o__ok-1/patch.diff"} {
		if _, err := os.Stat(filepath.Join(logs, f)); err != nil {
			t.Error(err)
		}
	}

	// A validation interrupted after its gradings resumes them: nothing starts again.
	fake2 := &fakeStarter{t: t, err: errors.New("no containers here")}
	again := map[string]validation.Outcome{}
	err = Validate(context.Background(), insts[:5], ValidateOptions{LogDir: logs, RunID: "v2", Starter: fake2, Repeat: 4,
		OnRecord: func(inst dataset.Instance, rec validation.Record) error {
			again[inst.InstanceID] = rec.Outcome
			return nil
		}})
	if err != nil || len(fake2.started) != 0 {
		t.Fatalf("resumed validation: %v, %d containers started", err, len(fake2.started))
	}
	for id, o := range again {
		if o != want[id] {
			t.Errorf("resumed %s: %s, want %s", id, o, want[id])
		}
	}
	// Redo grades again.
	fake3 := &fakeStarter{t: t, repo: fake.repo}
	err = Validate(context.Background(), insts[:1], ValidateOptions{LogDir: logs, RunID: "v3", Starter: fake3, Redo: func(string) bool { return true }})
	if err != nil || len(fake3.started) != 2 {
		t.Errorf("redo: %v, %d containers started, want 2", err, len(fake3.started))
	}
}

func TestEnvironmentMarks(t *testing.T) {
	insts := validationInstances(t)[:4] // ok, missing dependency, crash, no bug
	fix := insts[0].Patch
	noFix := diffOf(t, baseText, strings.Replace(baseText, "line 30\n", "line 30 touched\n", 1))
	gold := func(tests map[string]string) validation.Record {
		n := len(tests)
		return validation.Record{Outcome: validation.GoldFails, Source: validation.SourceValidate,
			Gradings: []validation.Grading{{Patch: validation.PatchGold, Repeat: 1, Verdict: validation.VerdictUnresolved, Tests: tests, Collected: &n}}}
	}
	records := map[string]validation.Record{
		"o__ok-1":  {Outcome: validation.OK, Source: validation.SourceValidate},
		"o__dep-2": gold(map[string]string{"t.py::test_fix": validation.StatusMissing, "t.py::test_other": validation.StatusMissing}),
	}
	preds := map[string]Prediction{}
	for _, inst := range insts {
		preds[inst.InstanceID] = pred(inst.InstanceID, noFix)
	}
	preds["o__nobug-4"] = pred("o__nobug-4", fix)
	out := t.TempDir()
	ev, err := New(Options{OutDir: out, RunID: "env", Starter: &fakeStarter{t: t, repo: testRepo(t, baseText)}, Workers: 2,
		Validation: func(id string) (validation.Record, bool) { r, ok := records[id]; return r, ok }})
	if err != nil {
		t.Fatal(err)
	}
	rep, results, err := ev.Run(context.Background(), insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	// The harness's figures are unchanged: every unfixed instance is unresolved.
	if got := strings.Join(rep.UnresolvedIDs, ","); got != "o__crash-3,o__dep-2,o__ok-1" {
		t.Errorf("unresolved = %s", got)
	}
	if got := strings.Join(rep.EnvironmentIDs, ","); got != "o__crash-3,o__dep-2" || rep.EnvironmentInstances != 2 {
		t.Errorf("environment = %s (%d), want the crash (no validation, no test collected) and the missing dependency (as under gold)", got, rep.EnvironmentInstances)
	}
	for _, r := range results {
		if r.InstanceID == "o__dep-2" && (r.Environment == nil || len(r.Environment.Tests) != 2 || !r.Environment.Validated) {
			t.Errorf("missing dependency: %+v", r.Environment)
		}
	}
	if ev := rep.EnvironmentEvidence["o__dep-2"]; !strings.Contains(ev, "fail the same way under the gold patch") || !strings.Contains(ev, "t.py::test_fix (missing)") {
		t.Errorf("evidence = %q", ev)
	}
	if ev := rep.EnvironmentEvidence["o__crash-3"]; !strings.Contains(ev, "collected no test") || !strings.Contains(ev, "exited 139") {
		t.Errorf("evidence = %q", ev)
	}
	data, err := os.ReadFile(filepath.Join(out, "org__model.env.json"))
	if err != nil {
		t.Fatal(err)
	}
	keys := topKeys(t, data)
	if k := keys[len(keys)-3:]; strings.Join(k, ",") != "environment_instances,environment_ids,environment_evidence" {
		t.Errorf("run report keys end with %v", k)
	}
	// Regrading the logs just written marks the same instances.
	regraded, _, err := RegradeFromLogs(RegradeOptions{LogsDir: out, OutDir: t.TempDir(), RunID: "env",
		Validation: func(id string) (validation.Record, bool) { r, ok := records[id]; return r, ok }}, insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(regraded.EnvironmentIDs, ","); got != "o__crash-3,o__dep-2" {
		t.Errorf("regraded: environment = %s", got)
	}

	// The validation of the crash says the gold patch collects tests: the failure is the patch's.
	records["o__crash-3"] = gold(map[string]string{"t.py::test_fix": validation.StatusFailed, "t.py::test_other": validation.StatusPassed})
	// A prediction that fails a test the gold patch passes is not the environment's.
	records["o__dep-2"] = gold(map[string]string{"t.py::test_fix": validation.StatusMissing})
	rep, _, err = ev.Run(context.Background(), insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.EnvironmentIDs) != 0 {
		t.Errorf("environment = %v (%v), want none", rep.EnvironmentIDs, rep.EnvironmentEvidence)
	}
	if raw, _ := os.ReadFile(filepath.Join(out, "org__model.env.json")); strings.Contains(string(raw), "environment") {
		t.Errorf("a report without environment marks names them:\n%s", raw)
	}

	// A maintainers' list marks every failure of the instance.
	records["o__ok-1"] = validation.KnownEntry{InstanceID: "o__ok-1", Outcome: validation.KnownBad, Note: "flaky upstream"}.Record("bad.txt")
	rep, _, _ = ev.Run(context.Background(), insts, preds)
	if ev := rep.EnvironmentEvidence["o__ok-1"]; !strings.Contains(ev, "listed broken by bad.txt: flaky upstream") {
		t.Errorf("known-bad evidence = %q", ev)
	}
}

func TestRepeatListsFlakyVerdicts(t *testing.T) {
	insts := validationInstances(t)
	insts = []dataset.Instance{insts[0], insts[4]} // ok, flaky
	preds := map[string]Prediction{}
	for _, inst := range insts {
		preds[inst.InstanceID] = pred(inst.InstanceID, inst.Patch)
	}
	out := filepath.Join(t.TempDir(), "eval")
	st := &fakeStarter{t: t, repo: testRepo(t, baseText)}
	ev, err := New(Options{OutDir: out, RunID: "rep", Starter: st, Repeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := ev.Run(context.Background(), insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.started) != 6 {
		t.Errorf("containers started: %d, want 6", len(st.started))
	}
	if strings.Join(rep.FlakyIDs, ",") != "o__flaky-5" || rep.GradingRepeats != 3 ||
		strings.Join(rep.FlakyVerdicts["o__flaky-5"], ",") != "resolved,unresolved,resolved" { // one worker: the repeats run in order
		t.Errorf("flaky %v, repeats %d, verdicts %v", rep.FlakyIDs, rep.GradingRepeats, rep.FlakyVerdicts)
	}
	if _, err := os.Stat(filepath.Join(out+"-repeats", "3", "o__flaky-5", "report.json")); err != nil {
		t.Error(err)
	}
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}
