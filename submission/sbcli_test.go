package submission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/eval"
)

// sbcliFolder holds 10 per-instance reports in sb-cli's layout (a bare object, named by its
// folder) from the published artifacts of the Verified bash-only submission
// 20251118_mini-v1.15.0_gemini-3-pro-preview-20251118: all its logs/<id>/ keep.
const sbcliFolder = "reports/sb-cli-per-instance"

// sbcliResolved are the instances those reports resolve (all but django__django-11477, read off
// the files by hand).
var sbcliResolved = []string{"astropy__astropy-12907", "django__django-13128", "django__django-14349", "django__django-15572",
	"django__django-17087", "pydata__xarray-3151", "scikit-learn__scikit-learn-10844", "sphinx-doc__sphinx-8120", "sympy__sympy-15599"}

// publishedFolder lays out a submission folder as published ones are: logs/<id>/report.json only
// (the corpus's sb-cli reports) and the predictions of those instances (their patches are not in
// the corpus: a placeholder diff written here, touching no test file).
func publishedFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "evaluation", "verified", "20251118_mini-v1.15.0_gemini-3-pro-preview-20251118")
	src := fixture(t, sbcliFolder)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name(), "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, LogsDir, e.Name(), "report.json"), string(data))
		line, _ := json.Marshal(map[string]string{"instance_id": e.Name(), "model_name_or_path": "gemini-3-pro-preview",
			"model_patch": "diff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n"})
		lines = append(lines, string(line))
	}
	writeFile(t, filepath.Join(dir, PredsFile), strings.Join(lines, "\n")+"\n")
	return dir
}

// `submission --check` of a folder as published — per instance only report.json in sb-cli's
// layout — computes the resolved count from those reports and says so in a note; it does not
// report them as missing logs. A missing log, an unreadable report and a report in another
// instance's folder are other findings.
func TestCheckPublishedSBCLIFolder(t *testing.T) {
	dir := publishedFolder(t)
	opts := CheckOptions{Split: mustSplit(t, "verified", false), Dataset: loadDataset(t, fixture(t, "datasets/SWE-bench_Verified.test.parquet"))}
	rep, err := Check(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Computed.Results.Resolved; !reflect.DeepEqual(got, sbcliResolved) {
		t.Errorf("resolved = %v, want the 9 the reports resolve: %v", got, sbcliResolved)
	}
	if len(rep.Computed.FromReports) != 10 || rep.Computed.FromReports["django__django-11477"] != eval.LayoutSBCLI {
		t.Errorf("graded from reports: %v, want all 10 in sb-cli's layout", rep.Computed.FromReports)
	}
	if len(rep.Computed.Results.NoGeneration) != 490 {
		t.Errorf("no_generation lists %d, want the 490 instances without a prediction", len(rep.Computed.Results.NoGeneration))
	}
	note, ok := find(rep.Findings, CheckLogs, Note)
	if !ok || !strings.Contains(note.Message, "10 instances are graded from their logs/<id>/report.json (sb-cli layout), 9 of them resolved") {
		t.Errorf("no note saying the instances were graded from their sb-cli reports: %v", rep.Findings)
	}
	if f, ok := find(rep.Findings, CheckLogs, Warn); ok {
		t.Errorf("a warning about the logs of a folder that has them all: %v", f)
	}
	if s := rep.Computed.Summary(rep.Folder, "verified"); !strings.Contains(s, "Resolved 9 instances (1.8%)") {
		t.Errorf("summary:\n%s", s)
	}

	// Damage: no log for one instance, a report in another instance's folder, a torn report.
	os.RemoveAll(filepath.Join(dir, LogsDir, "sympy__sympy-15599"))
	moved := filepath.Join(dir, LogsDir, "django__django-13128", "report.json")
	data, _ := os.ReadFile(filepath.Join(fixture(t, sbcliFolder), "django__django-13128", "report.json"))
	harness := map[string]json.RawMessage{"django__django-14349": data}
	b, _ := json.Marshal(harness)
	writeFile(t, moved, string(b))
	writeFile(t, filepath.Join(dir, LogsDir, "astropy__astropy-12907", "report.json"), `{"resolved": `)
	rep, err = Check(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	var noLog, unreadable bool
	for _, f := range rep.Findings {
		if f.Check != CheckLogs || f.Severity != Warn {
			continue
		}
		switch {
		case strings.Contains(f.Message, "no evaluation log") && reflect.DeepEqual(f.IDs, []string{"astropy__astropy-12907", "django__django-13128", "sympy__sympy-15599"}):
			noLog = true
		case strings.Contains(f.Message, "cannot be read") && strings.Contains(f.Message, moved) &&
			strings.Contains(f.Message, "django__django-14349") && strings.Contains(f.Message, "named django__django-13128"):
			unreadable = true
		}
	}
	if !noLog || !unreadable {
		t.Errorf("want a warning of the three logs without a usable report (one missing, two unreadable) and one naming the misplaced report and both instances: %v", rep.Findings)
	}
	if got := len(rep.Computed.Results.Resolved); got != 6 {
		t.Errorf("resolved = %d, want 6 after losing three resolved reports", got)
	}
}

// A run whose evaluation kept only sb-cli's report.json files builds a folder that keeps them
// the same way (no patch.diff passed off as the evaluated one) and grades from them: the
// fixture run's harness reports, rewritten in sb-cli's layout without test output, give the
// harness's 6 resolved.
func TestBuildFromSBCLIReports(t *testing.T) {
	out, logs := fixtureCopy(t)
	entries, err := os.ReadDir(logs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		d := filepath.Join(logs, e.Name())
		var rep map[string]json.RawMessage
		readJSON(t, filepath.Join(d, "report.json"), &rep)
		writeFile(t, filepath.Join(d, "report.json"), string(rep[e.Name()]))
		for _, name := range []string{"patch.diff", "test_output.txt", "eval.sh", "run_instance.log"} {
			os.Remove(filepath.Join(d, name))
		}
	}
	in, err := OpenInput(out, logs)
	if err != nil {
		t.Fatal(err)
	}
	if need := in.NeedsEvaluation(); len(need) != 0 {
		t.Errorf("%d predictions need an evaluation though their report.json is there", len(need))
	}
	b, err := Build(context.Background(), in, t.TempDir(), buildOpts(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(b.Computed.Results.Resolved); got != 6 || len(b.Computed.FromReports) != 23 {
		t.Errorf("resolved %d, graded from reports %d; want 6 and 23", got, len(b.Computed.FromReports))
	}
	const id = "pydicom__pydicom-1256"
	if _, err := os.Stat(filepath.Join(b.Dir, LogsDir, id, "patch.diff")); err == nil {
		t.Errorf("the folder has a patch.diff for %s, whose evaluation kept none", id)
	}
	if _, layout, err := eval.ReadReport(filepath.Join(b.Dir, LogsDir, id, "report.json")); err != nil || layout != eval.LayoutSBCLI {
		t.Errorf("the folder's report of %s: layout %q, %v; want sb-cli's, copied", id, layout, err)
	}
	if _, ok := find(b.Findings, CheckLogs, Note); !ok {
		t.Errorf("no note that the instances are graded from their reports: %v", b.Findings)
	}
}
