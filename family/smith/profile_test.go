package smith

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

func TestProfileRows(t *testing.T) {
	p := FamilyProfile{}
	bug := "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-good\n+bad\n"
	inst := dataset.Instance{InstanceID: "mewwts__addict.75284f95.x", Repo: "swesmith/mewwts__addict.75284f95", Patch: bug, Image: "swesmith.x86_64.mewwts__addict.75284f95"}
	if !p.Match(&inst) || p.Match(&dataset.Instance{Repo: "a/b"}) {
		t.Error("Match")
	}
	if !p.Match(&dataset.Instance{Image: "jyangballin/swesmith.x86_64.x"}) {
		t.Error("Match by image_name")
	}
	if err := p.Prepare(&inst); err != nil {
		t.Fatal(err)
	}
	if inst.Image != "swebench/swesmith.x86_64.mewwts_1776_addict.75284f95" || inst.WorkDir != "/testbed" ||
		len(inst.PreAgentCommands) != 1 || !strings.Contains(inst.PreAgentCommands[0], "git checkout -q 'mewwts__addict.75284f95.x'") {
		t.Errorf("Prepare: %+v", inst)
	}
	if !strings.Contains(inst.Patch, "-bad\n+good") || inst.Extra[BugPatchColumn] != bug {
		t.Errorf("Prepare: the patch is not the fix: %q", inst.Patch)
	}
	if err := p.Prepare(&inst); err != nil || !strings.Contains(inst.Patch, "-bad\n+good") {
		t.Errorf("a second Prepare reverses the patch again: %v %q", err, inst.Patch)
	}
	if err := p.Prepare(&dataset.Instance{InstanceID: "acme__acme.12345678.x"}); err == nil || !strings.Contains(err.Error(), "repo") {
		t.Errorf("Prepare of an instance without a profile: %v", err)
	}
}

func TestReportReaders(t *testing.T) {
	write := func(dir, rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A folder in the layout of swesmith/harness/eval.py (SWE-bench/SWE-smith at cf2e649):
	// <id>/report.json (get_eval_report's, or {"timed_out", "timeout"} after a timeout), an
	// instance whose test output was missing (run_instance.log but no report.json), and the
	// run's report.json, which lists only the instances with a report.
	dir := t.TempDir()
	write(dir, "a/report.json", `{"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": false, "resolved": true, "tests_status": {}, "model_name_or_path": "m"}`)
	write(dir, "a/test_output.txt", "+ : '>>>>> Start Test Output'\n")
	write(dir, "b/report.json", `{"timed_out": true, "timeout": 90}`)
	write(dir, "c/report.json", `{"c": {"resolved": true}}`) // SWE-bench's, not SWE-smith's
	write(dir, "e/run_instance.log", "Failed to get report for e.\n")
	write(dir, "report.json", `{"resolved": 1, "unresolved": 2, "total": 4, "ids_resolved": ["a"], "ids_unresolved": ["b", "d"]}`)
	fv, ok, err := reports{}.ReadEvalFolder(dir)
	if err != nil || !ok || fv.Format != FormatRunEvaluation {
		t.Fatal(ok, err, fv.Format)
	}
	want := map[string]family.Outcome{"a": family.Resolved, "b": family.Unresolved, "d": family.Unresolved, "e": family.Error}
	if len(fv.Verdicts) != len(want) {
		t.Errorf("got %+v", fv.Verdicts)
	}
	for id, o := range want {
		if fv.Verdicts[id].Outcome != o {
			t.Errorf("%s: %+v, want %s", id, fv.Verdicts[id], o)
		}
	}
	if filepath.Base(fv.Verdicts["a"].Log) != TestOutputFile {
		t.Errorf("a: log %q", fv.Verdicts["a"].Log)
	}
	if _, ok, _ := (reports{}).ReadReportFile("x.json", []byte(`{"resolved": true}`)); ok {
		t.Error("ReadReportFile took an instance report for a run report")
	}
	run, ok, _ := (reports{}).ReadReportFile("report.json", []byte(`{"resolved": 1, "unresolved": 0, "total": 1, "ids_resolved": ["a"], "ids_unresolved": []}`))
	if !ok || run.Format != FormatRunReport || run.Verdicts["a"].Outcome != family.Resolved {
		t.Errorf("run report alone: %+v", run)
	}

	// Without the run report, reports in sb-cli's layout are left to SWE-bench's reader (a
	// folder of sb-cli reports is not SWE-smith's); only what SWE-smith alone writes is taken.
	sbcli := t.TempDir()
	write(sbcli, "django__django-1/report.json", `{"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": true, "tests_status": {}}`)
	write(sbcli, "django__django-1/test_output.txt", "")
	if fv, ok, err := (reports{}).ReadEvalFolder(sbcli); ok || err != nil {
		t.Errorf("a folder of sb-cli reports taken: %+v, %v", fv, err)
	}
	write(sbcli, "x/report.json", `{"timed_out": true, "timeout": 90}`)
	fv, ok, _ = (reports{}).ReadEvalFolder(sbcli)
	if !ok || len(fv.Verdicts) != 1 || fv.Verdicts["x"].Outcome != family.Unresolved {
		t.Errorf("a timed-out report: %+v", fv.Verdicts)
	}
}

// SWE-smith's published evaluation folder (tests/test_logs/run_evaluation of SWE-bench/SWE-smith
// at cf2e649: four instance folders and the run's report.json of 53, 3 resolved) is read in the
// harness's layout, as the run report counts it.
func TestReadPublishedRunEvaluation(t *testing.T) {
	dir := filepath.Dir(testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "run_evaluation", "report.json"))
	for _, id := range []string{"getmoto__moto.694ce1f4.pr_7331", "pandas-dev__pandas.95280573.pr_53652", "pandas-dev__pandas.95280573.pr_53856", "pydantic__pydantic.acb0f10f.pr_8316"} {
		testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "run_evaluation", id, ReportFile)
		testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "run_evaluation", id, TestOutputFile)
	}
	fv, ok, err := reports{}.ReadEvalFolder(dir)
	if err != nil || !ok || fv.Format != FormatRunEvaluation {
		t.Fatal(ok, err, fv.Format)
	}
	n := map[family.Outcome]int{}
	for _, v := range fv.Verdicts {
		n[v.Outcome]++
	}
	if len(fv.Verdicts) != 53 || n[family.Resolved] != 3 || n[family.Unresolved] != 50 {
		t.Errorf("%d instances %v, want the run report's 53: 3 resolved, 50 unresolved", len(fv.Verdicts), n)
	}
	if v := fv.Verdicts["pandas-dev__pandas.95280573.pr_53652"]; v.Outcome != family.Resolved || v.Tests == nil || filepath.Base(v.Log) != TestOutputFile {
		t.Errorf("pandas-dev__pandas.95280573.pr_53652: %+v", v)
	}
}
