package live

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/family"
)

// The harness's --output_dir as evaluation/evaluation.py writes it (microsoft/SWE-bench-Live at
// 70ec57e852e3f2d195790fe71f553e272c691833: evaluate_instance writes post_patch_log.txt and
// status.json, run_instance report.json, run_instances results.json, each json.dump with
// indent=True): a resolved and an unresolved instance, one whose grading raised after the tests
// ran (error_ids, no report.json), an empty patch (no folder) and one left incomplete by
// --collect-only; and results.json and one report.json given on their own.
func TestReadHarnessOutputDir(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	report := func(id string, resolved bool) string {
		r := "false"
		if resolved {
			r = "true"
		}
		return `{
 "instance_id": "` + id + `",
 "resolved": ` + r + `,
 "PASS_TO_PASS": {
  "success": ["t_p2p"],
  "failure": []
 },
 "FAIL_TO_PASS": {
  "success": [` + map[bool]string{true: `"t_f2p"`, false: ``}[resolved] + `],
  "failure": [` + map[bool]string{true: ``, false: `"t_f2p"`}[resolved] + `]
 }
}`
	}
	for _, id := range []string{"o__r-1", "o__r-2", "o__r-3"} {
		write(id+"/post_patch_log.txt", "PASSED t_p2p\n")
		write(id+"/status.json", "{\n \"t_p2p\": \"pass\"\n}")
	}
	write("o__r-1/report.json", report("o__r-1", true))
	write("o__r-2/report.json", report("o__r-2", false))
	results := `{
 "submitted": 5,
 "submitted_ids": ["o__r-1", "o__r-2", "o__r-3", "o__r-4", "o__r-5"],
 "empty_patch": 1,
 "empty_patch_ids": ["o__r-4"],
 "success_ids": ["o__r-1"],
 "failure_ids": ["o__r-2"],
 "error_ids": ["o__r-3"],
 "incomplete_ids": ["o__r-5"],
 "success": 1,
 "failure": 1,
 "error": 1,
 "incomplete": 1
}`
	write("results.json", results)
	fv, ok, err := reports{}.ReadEvalFolder(dir)
	if err != nil || !ok || fv.Format != FormatOutputDir {
		t.Fatalf("ok %v, err %v, format %q", ok, err, fv.Format)
	}
	want := map[string]family.Outcome{"o__r-1": family.Resolved, "o__r-2": family.Unresolved, "o__r-3": family.Error, "o__r-4": family.EmptyPatch, "o__r-5": family.Error}
	if len(fv.Verdicts) != len(want) {
		t.Errorf("got %+v", fv.Verdicts)
	}
	for id, o := range want {
		if fv.Verdicts[id].Outcome != o {
			t.Errorf("%s: %+v, want %s", id, fv.Verdicts[id], o)
		}
	}
	for _, id := range []string{"o__r-1", "o__r-3"} {
		if filepath.Base(fv.Verdicts[id].Log) != PostPatchLogFile {
			t.Errorf("%s: log %q", id, fv.Verdicts[id].Log)
		}
	}
	if g := fv.Verdicts["o__r-2"].Tests["FAIL_TO_PASS"]; len(g.Failure) != 1 {
		t.Errorf("o__r-2: tests %+v", fv.Verdicts["o__r-2"].Tests)
	}

	// Without results.json, the folder without report.json is still an Error.
	if err := os.Remove(filepath.Join(dir, "results.json")); err != nil {
		t.Fatal(err)
	}
	fv, _, _ = reports{}.ReadEvalFolder(dir)
	if len(fv.Verdicts) != 3 || fv.Verdicts["o__r-3"].Outcome != family.Error {
		t.Errorf("without results.json: %+v", fv.Verdicts)
	}

	for name, c := range map[string]struct{ data, format string }{
		"results.json": {results, FormatResults},
		"report.json":  {report("o__r-1", true), FormatReport},
	} {
		fv, ok, err := reports{}.ReadReportFile(name, []byte(c.data))
		if err != nil || !ok || fv.Format != c.format || fv.Verdicts["o__r-1"].Outcome != family.Resolved {
			t.Errorf("%s alone: ok %v, err %v, %+v", name, ok, err, fv)
		}
	}
}
