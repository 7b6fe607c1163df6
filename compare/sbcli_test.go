package compare

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sbcliFolder is the corpus folder of 10 per-instance reports in sb-cli's layout (a bare object
// named by its folder), from the published artifacts of the SWE-bench bash-only submission
// 20251118_mini-v1.15.0_gemini-3-pro-preview-20251118 on Verified.
const sbcliFolder = "reports/sb-cli-per-instance"

// sbcliResolved are the instances those reports resolve: all but django__django-11477 (read off
// the files by hand).
var sbcliResolved = []string{"astropy__astropy-12907", "django__django-13128", "django__django-14349", "django__django-15572",
	"django__django-17087", "pydata__xarray-3151", "scikit-learn__scikit-learn-10844", "sphinx-doc__sphinx-8120", "sympy__sympy-15599"}

// writeSBCLIRunReport writes the sb-cli run report of the same run, restricted to the 10 instances
// of the corpus, in the shape of sb-cli's get-report output (the corpus's
// swe-bench_lite__dev__*.json show it: *_instances counts, *_ids lists, pending and failed ids,
// schema_version 2) with the verdicts the submission published for them.
func writeSBCLIRunReport(t *testing.T, dir string) string {
	t.Helper()
	all := append(append([]string(nil), sbcliResolved...), "django__django-11477")
	p := filepath.Join(dir, "swe-bench_verified__test__gemini-3-pro.json")
	writeJSON(t, p, map[string]any{
		"total_instances": 10, "submitted_instances": 10, "completed_instances": 10, "pending_instances": 0, "failed_instances": 0,
		"resolved_instances": 9, "unresolved_instances": 1, "error_instances": 0,
		"completed_ids": all, "incomplete_ids": []string{}, "submitted_ids": all, "error_ids": []string{},
		"resolved_ids": sbcliResolved, "unresolved_ids": []string{"django__django-11477"},
		"pending_ids": []string{}, "failed_ids": []string{}, "schema_version": 2,
	})
	return p
}

// The published folder of sb-cli reports reads as a report folder, says it read sb-cli's layout,
// and gives the published verdicts; one of its files given alone is the instance its folder names.
func TestReadSBCLIPerInstanceReports(t *testing.T) {
	dir := fixture(t, sbcliFolder)
	r := readOne(t, Source{Path: dir})
	if r.Kind != KindReportDir || len(r.Instances) != 10 {
		t.Fatalf("kind %s with %d instances, want report_dir with 10", r.Kind, len(r.Instances))
	}
	if got := idsWith(r, Resolved); !reflect.DeepEqual(got, sbcliResolved) {
		t.Errorf("resolved = %v, want %v", got, sbcliResolved)
	}
	if got := idsWith(r, Unresolved); !reflect.DeepEqual(got, []string{"django__django-11477"}) {
		t.Errorf("unresolved = %v, want [django__django-11477]", got)
	}
	if !reflect.DeepEqual(r.ReportLayouts, map[string]int{"sb-cli": 10}) {
		t.Errorf("layouts = %v, want 10 in sb-cli's", r.ReportLayouts)
	}
	one := readOne(t, Source{Path: filepath.Join(dir, "django__django-11477", "report.json")})
	if len(one.Instances) != 1 || one.Instances[0].ID != "django__django-11477" || one.Instances[0].Verdict != Unresolved {
		t.Errorf("single sb-cli report = %+v, want django__django-11477 unresolved", one.Instances)
	}

	// mini-swe-agent output graded by a folder of sb-cli reports (--eval-logs).
	out := t.TempDir()
	writeFile(t, filepath.Join(out, "preds.json"), `{"django__django-11477": {"instance_id": "django__django-11477", "model_name_or_path": "m", "model_patch": "diff"},
		"sympy__sympy-15599": {"instance_id": "sympy__sympy-15599", "model_name_or_path": "m", "model_patch": "diff"}}`)
	mini := readOne(t, Source{Path: out, EvalLogs: dir})
	if got := counts(mini); !reflect.DeepEqual(got, map[Verdict]int{Resolved: 1, Unresolved: 1}) || mini.ReportLayouts["sb-cli"] != 10 {
		t.Errorf("mini graded by sb-cli reports: verdicts %v, layouts %v", got, mini.ReportLayouts)
	}
}

// The sb-cli run report and the per-instance reports of the same run agree: no flip.
func TestCompareSBCLIRunReportWithItsPerInstanceReports(t *testing.T) {
	runs, err := ReadAll([]Source{{Label: "run-report", Path: writeSBCLIRunReport(t, t.TempDir())}, {Label: "logs", Path: fixture(t, sbcliFolder)}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(runs, Options{Baseline: "run-report"})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Pairs[0]
	if p.Common != 10 || len(p.Newly) != 0 || len(p.Regressed) != 0 || p.Both != 9 || p.Neither != 1 || len(p.AOnly)+len(p.BOnly) != 0 {
		t.Errorf("pair: common %d, newly %v, regressed %v, both %d, neither %d; want 10 in common, no flip, 9 both, 1 neither", p.Common, p.Newly, p.Regressed, p.Both, p.Neither)
	}
	if res.Gate.Regression {
		t.Errorf("gate = %+v", res.Gate)
	}
	var text bytes.Buffer
	if err := WriteText(&text, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "report_dir (sb-cli layout)") || !strings.Contains(text.String(), "0 newly resolved, 0 regressed") {
		t.Errorf("the text output does not name the layout read or the flips:\n%s", text.String())
	}
}

// A folder mixing both layouts says how many of each it read; a report naming another instance
// than its folder is an error naming both and the file.
func TestReportFolderLayoutsAndMismatch(t *testing.T) {
	src := fixture(t, sbcliFolder)
	dir := t.TempDir()
	for _, id := range []string{"django__django-11477", "sympy__sympy-15599"} {
		data, err := os.ReadFile(filepath.Join(src, id, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, id, "report.json"), string(data))
	}
	writeFile(t, filepath.Join(dir, "o__r-1", "report.json"), `{"o__r-1": {"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": true}}`)
	r := readOne(t, Source{Path: dir})
	if !reflect.DeepEqual(r.ReportLayouts, map[string]int{"sb-cli": 2, "harness": 1}) || len(r.Instances) != 3 {
		t.Errorf("layouts %v, %d instances; want 2 sb-cli, 1 harness, 3 instances", r.ReportLayouts, len(r.Instances))
	}
	res, err := Compare([]*Run{r}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	WriteText(&text, res)
	if !strings.Contains(text.String(), "report_dir (1 in the harness layout, 2 in the sb-cli layout)") {
		t.Errorf("the form column does not count the layouts:\n%s", text.String())
	}

	bad := filepath.Join(dir, "o__r-2", "report.json")
	writeFile(t, bad, `{"o__r-9": {"resolved": false}}`)
	_, err = Read(Source{Path: dir}, ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "o__r-9") || !strings.Contains(err.Error(), "o__r-2") {
		t.Errorf("err = %v, want one naming %s, the instance it reports (o__r-9) and its folder's (o__r-2)", err, bad)
	}
}
