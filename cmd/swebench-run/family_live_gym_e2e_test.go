package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/family/gym"
	"github.com/swebench-run/swebench-run/family/live"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

var liveGymImages sync.Once

// familyRows builds the family's test images (scripts/build-live-gym-images.sh, cached by input
// hash) and loads its test rows, family/<name>/testdata/e2e/rows.jsonl, as the family's
// instances. It returns the rows file, the scripted model's file and the instances.
func familyRows(t *testing.T, name string) (string, string, []dataset.Instance) {
	t.Helper()
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	root := testenv.RepoRoot(t)
	var buildErr error
	var buildOut []byte
	liveGymImages.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		buildOut, buildErr = exec.CommandContext(ctx, filepath.Join(root, "scripts", "build-live-gym-images.sh")).CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("scripts/build-live-gym-images.sh: %v\n%s", buildErr, buildOut)
	}
	dir := filepath.Join(root, "family", name, "testdata", "e2e")
	split := filepath.Join(dir, "rows.jsonl")
	reg := families()
	l, err := dataset.Load(context.Background(), split, dataset.LoadOptions{Require: dataset.RequireRun | dataset.RequireEval, Families: reg.Families(), Named: reg.Named()})
	if err != nil {
		t.Fatal(err)
	}
	for _, inst := range l.Instances {
		if inst.Family != name {
			t.Fatalf("row %s is read as family %q, want %q", inst.InstanceID, inst.Family, name)
		}
		testenv.RequireImage(t, e, inst.Image)
	}
	return split, filepath.Join(dir, "scripted.yaml"), l.Instances
}

func writePreds(t *testing.T, path string, patches map[string]string) {
	t.Helper()
	preds := map[string]map[string]any{}
	for id, p := range patches {
		preds[id] = map[string]any{"model_name_or_path": "m/nofix", "instance_id": id, "model_patch": p}
	}
	data, _ := json.Marshal(preds)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareVerdicts runs compare --json on the inputs and returns each input's verdict counts.
func compareVerdicts(t *testing.T, inputs ...string) []map[string]int {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"compare", "--json"}, inputs...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	var res struct {
		Inputs []struct {
			Verdicts map[string]int `json:"verdicts"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, stdout)
	}
	var out []map[string]int
	for _, in := range res.Inputs {
		out = append(out, in.Verdicts)
	}
	return out
}

const unhelpfulPatch = "diff --git a/NOTES.txt b/NOTES.txt\nnew file mode 100644\n--- /dev/null\n+++ b/NOTES.txt\n@@ -0,0 +1 @@\n+applies, fixes nothing\n"

// SWE-bench-Live end to end, in an image of its layout (family/live/testdata/e2e: a MultiLang-
// style row with its commands and a Python log_parser, and a Python-style row graded by the
// pytest parser): the scripted model solves both; the harness's evaluation resolves them and
// writes its files; a patch that fixes nothing and an empty patch are graded as the harness
// grades them; regrading the logs (ours and the harness's layout) gives the same reports;
// compare, stats and report read every form.
func TestLiveEndToEnd(t *testing.T) {
	split, script, insts := familyRows(t, live.Name)
	t.Setenv(envPythonImage, testenv.BaseImage)
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	code, stdout, stderr := runCLI(t, "run", "--split", split, "--model", "scripted:"+script, "--workers", "2", "-o", run, "--eval", "--progress", "lines")
	if code != 0 {
		t.Fatalf("run --eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var preds map[string]eval.Prediction
	readJSONFile(t, filepath.Join(run, "preds.json"), &preds)
	for _, inst := range insts {
		if got := preds[inst.InstanceID].Patch(); got != inst.Patch {
			t.Errorf("preds.json (the harness's input) of %s: got %q, want the gold patch", inst.InstanceID, got)
		}
		idir := filepath.Join(run, "eval", inst.InstanceID)
		data, err := os.ReadFile(filepath.Join(idir, live.ReportFile))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := live.ReadReport(data)
		if err != nil || !rep.Resolved || !reflect.DeepEqual(rep.FailToPass.Success, inst.FailToPass) || len(rep.PassToPass.Success) != len(inst.PassToPass) {
			t.Errorf("%s report.json: %+v, %v", inst.InstanceID, rep, err)
		}
		row, _ := live.RowOf(&inst)
		if got, _ := os.ReadFile(filepath.Join(idir, live.ScriptFile)); string(got) != live.Script(row) {
			t.Errorf("%s: eval.sh is not live.Script of the row:\n%s", inst.InstanceID, got)
		}
		for _, f := range []string{live.PostPatchLogFile, live.StatusFile, live.TestOutputFile} {
			if _, err := os.Stat(filepath.Join(idir, f)); err != nil {
				t.Errorf("%s: %v", inst.InstanceID, err)
			}
		}
	}
	// The MultiLang-style row prints its log from $REPORTS_DIR, which only the image's
	// ~/.bashrc sets: the harness's interactive shell read it.
	if log, _ := os.ReadFile(filepath.Join(run, "eval", insts[0].InstanceID, live.PostPatchLogFile)); !strings.Contains(string(log), "test_mean_of_nothing (tests.test_stats.StatsTest.test_mean_of_nothing) ... ok") {
		t.Errorf("post_patch_log.txt of %s lacks the unittest output:\n%s", insts[0].InstanceID, log)
	}
	var results live.Results
	readJSONFile(t, filepath.Join(run, "eval", live.ResultsFile), &results)
	if results.Success != 2 || results.Submitted != 2 {
		t.Errorf("results.json: %+v", results)
	}

	// A patch that fixes nothing, and an empty one.
	predsPath := filepath.Join(dir, "nofix.json")
	writePreds(t, predsPath, map[string]string{insts[0].InstanceID: unhelpfulPatch, insts[1].InstanceID: ""})
	nofix := filepath.Join(dir, "nofix")
	code, stdout, stderr = runCLI(t, "eval", "--predictions", predsPath, "--split", split, "-o", nofix, "--run-id", "nofix")
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(nofix, insts[0].InstanceID, live.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := live.ReadReport(data)
	if err != nil || rep.Resolved || !reflect.DeepEqual(rep.FailToPass.Failure, insts[0].FailToPass) || len(rep.PassToPass.Failure) != 0 {
		t.Errorf("unhelpful patch: report %+v, %v; want FAIL_TO_PASS failing, PASS_TO_PASS passing", rep, err)
	}
	readJSONFile(t, filepath.Join(nofix, live.ResultsFile), &results)
	if !reflect.DeepEqual(results.FailureIDs, []string{insts[0].InstanceID}) || !reflect.DeepEqual(results.EmptyPatchIDs, []string{insts[1].InstanceID}) {
		t.Errorf("results.json: %+v", results)
	}

	// Regrading our logs, then the harness's layout (post_patch_log.txt and status.json only).
	regraded := filepath.Join(dir, "regraded")
	code, _, stderr = runCLI(t, "eval", "--predictions", filepath.Join(run, "preds.json"), "--split", split, "--from-logs", filepath.Join(run, "eval"), "-o", regraded, "--run-id", "regrade")
	if code != 0 {
		t.Fatalf("eval --from-logs: exit %d\n%s", code, stderr)
	}
	harness := filepath.Join(dir, "harness-logs")
	for _, inst := range insts {
		want, _ := os.ReadFile(filepath.Join(run, "eval", inst.InstanceID, live.ReportFile))
		if got, _ := os.ReadFile(filepath.Join(regraded, inst.InstanceID, live.ReportFile)); string(got) != string(want) {
			t.Errorf("%s: regraded report.json differs:\n%s\nwant:\n%s", inst.InstanceID, got, want)
		}
		if err := os.MkdirAll(filepath.Join(harness, inst.InstanceID), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{live.PostPatchLogFile, live.StatusFile} {
			b, _ := os.ReadFile(filepath.Join(run, "eval", inst.InstanceID, f))
			if err := os.WriteFile(filepath.Join(harness, inst.InstanceID, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	fromHarness := filepath.Join(dir, "from-harness")
	code, stdout, stderr = runCLI(t, "eval", "--predictions", filepath.Join(run, "preds.json"), "--split", split, "--from-logs", harness, "-o", fromHarness, "--run-id", "harness")
	if code != 0 || !strings.Contains(stdout, "2 resolved") {
		t.Errorf("eval --from-logs on the harness's layout: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// compare, stats and report read the run, the evaluation folders and results.json alone.
	got := compareVerdicts(t, run, nofix, filepath.Join(nofix, live.ResultsFile))
	want := []map[string]int{{"resolved": 2}, {"unresolved": 1, "empty_patch": 1}, {"unresolved": 1, "empty_patch": 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("compare verdicts: got %v, want %v", got, want)
	}
	if code, stdout, stderr := runCLI(t, "stats", run); code != 0 || !strings.Contains(stdout, "resolved: 2 of 2 instances") {
		t.Errorf("stats: exit %d\n%s\n%s", code, stdout, stderr)
	}
	site := filepath.Join(dir, "site")
	if code, _, stderr := runCLI(t, "report", run, nofix, "-o", site); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil {
		t.Error(err)
	}
}

// SWE-Gym end to end, in an image of SWE-bench's layout (/testbed, /opt/miniconda3's testbed
// environment): the eval script is the one SWE-Gym's fork builds from the repository's
// specification, the gold patch resolves, a patch that fixes nothing does not, one that does not
// apply is an error; regrading, compare, stats and report read the results.
func TestGymEndToEnd(t *testing.T) {
	split, script, insts := familyRows(t, gym.Name)
	inst := insts[0]
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	code, stdout, stderr := runCLI(t, "run", "--split", split, "--model", "scripted:"+script, "-o", run, "--eval", "--progress", "lines")
	if code != 0 {
		t.Fatalf("run --eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	idir := filepath.Join(run, "eval", inst.InstanceID)
	rep, _, err := eval.ReadReport(filepath.Join(idir, gym.ReportFile))
	if err != nil || !rep.Resolved || rep.TestsStatus == nil || !reflect.DeepEqual(rep.TestsStatus.FailToPass.Success, inst.FailToPass) {
		t.Errorf("report.json: %+v, %v", rep, err)
	}
	wantScript, _ := gym.EvalScript(&inst)
	if got, _ := os.ReadFile(filepath.Join(idir, gym.ScriptFile)); string(got) != wantScript {
		t.Errorf("eval.sh is not the fork's script:\n%s", got)
	}
	if out, _ := os.ReadFile(filepath.Join(idir, gym.TestOutputFile)); !strings.Contains(string(out), "+ pytest -n0 -rA tests/test_units.py\n") {
		t.Errorf("the fork's test command did not run:\n%s", out)
	}

	broken := "diff --git a/nope.py b/nope.py\n--- a/nope.py\n+++ b/nope.py\n@@ -1,3 +1,3 @@\n-this line\n+is not there\n context\n"
	for _, tt := range []struct {
		name, patch string
		wantCode    int
		wantOutcome string
	}{
		{"unhelpful", unhelpfulPatch, 0, "unresolved"},
		{"broken", broken, exitFailedInsts, "error"},
	} {
		predsPath := filepath.Join(dir, tt.name+".json")
		writePreds(t, predsPath, map[string]string{inst.InstanceID: tt.patch})
		out := filepath.Join(dir, tt.name)
		code, stdout, stderr := runCLI(t, "eval", "--predictions", predsPath, "--split", split, "-o", out, "--run-id", tt.name)
		if code != tt.wantCode {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", tt.name, code, tt.wantCode, stdout, stderr)
		}
		// The engine's run report (the fork's run report format) holds every verdict, errors too.
		if got := compareVerdicts(t, filepath.Join(out, "m__nofix."+tt.name+".json")); got[0][tt.wantOutcome] != 1 {
			t.Errorf("%s: compare verdicts %v, want one %s", tt.name, got, tt.wantOutcome)
		}
	}
	rep, _, err = eval.ReadReport(filepath.Join(dir, "unhelpful", inst.InstanceID, gym.ReportFile))
	if err != nil || rep.Resolved || !reflect.DeepEqual(rep.TestsStatus.FailToPass.Failure, inst.FailToPass) {
		t.Errorf("unhelpful patch: report %+v, %v", rep, err)
	}

	regraded := filepath.Join(dir, "regraded")
	if code, _, stderr := runCLI(t, "eval", "--predictions", filepath.Join(run, "preds.json"), "--split", split, "--from-logs", filepath.Join(run, "eval"), "-o", regraded, "--run-id", "regrade"); code != 0 {
		t.Fatalf("eval --from-logs: exit %d\n%s", code, stderr)
	}
	want, _ := os.ReadFile(filepath.Join(idir, gym.ReportFile))
	if got, _ := os.ReadFile(filepath.Join(regraded, inst.InstanceID, gym.ReportFile)); string(got) != string(want) {
		t.Errorf("regraded report.json differs:\n%s", got)
	}
	if code, stdout, stderr := runCLI(t, "stats", run); code != 0 || !strings.Contains(stdout, "resolved: 1 of 1 instances") {
		t.Errorf("stats: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := compareVerdicts(t, run, filepath.Join(dir, "unhelpful")); !reflect.DeepEqual(got, []map[string]int{{"resolved": 1}, {"unresolved": 1}}) {
		t.Errorf("compare verdicts: %v", got)
	}
	site := filepath.Join(dir, "site")
	if code, _, stderr := runCLI(t, "report", run, filepath.Join(dir, "unhelpful"), "-o", site); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil {
		t.Error(err)
	}
}

// The families are listed by `datasets` with their hub ids and splits.
func TestDatasetsListsLiveAndGym(t *testing.T) {
	code, stdout, stderr := runCLI(t, "datasets")
	if code != 0 {
		t.Fatalf("datasets: exit %d\n%s", code, stderr)
	}
	for _, want := range [][]string{
		{"live-verified", "SWE-bench-Live", live.HubPython, "verified"},
		{"live-multilang-rust", "SWE-bench-Live", live.HubMultiLang, "rust"},
		{"gym", "SWE-Gym", gym.Hub, "train"},
		{"gym-lite", "SWE-Gym", gym.HubLite, "train"},
	} {
		found := false
		for _, line := range strings.Split(stdout, "\n") {
			f := strings.Fields(line)
			if len(f) >= 4 && f[0] == want[0] && f[1] == want[1] && f[2] == want[2] && f[3] == want[3] {
				found = true
			}
		}
		if !found {
			t.Errorf("datasets lists no %v:\n%s", want, stdout)
		}
	}
	reg := all.New(all.Options{})
	for _, name := range []string{live.Name, gym.Name} {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("the registry has no %s family", name)
		}
	}
}
