package rebenchv2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/family"
)

// The folder scripts/eval.py runs in, as it leaves it (SWE-rebench/SWE-rebench-V2 at
// c71902a8cf8d2b725f63d51f199f4d3e56f68d2d: run_task writes logs/<instance_id>_log.txt,
// build_report_item the items, main eval_report.json, indented by two): a resolved instance, an
// unresolved one, one whose task raised (its error) and an empty prediction ("Task … missing
// patch/test_patch."); each instance's log_path is its test output. eval_report.json alone reads
// the same verdicts.
func TestReadHarnessFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"o__r-1", "o__r-2"} {
		if err := os.WriteFile(filepath.Join(dir, "logs", id+"_log.txt"), []byte("PASSED t\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	report := `{
  "max_workers": 4,
  "total": 4,
  "all_ok": false,
  "items": [
    {"instance_id": "o__r-1", "from_fail_to_pass": ["t"], "failed_from_pass_to_pass": [], "passed_match": true, "exit_code": 0, "log_path": "logs/o__r-1_log.txt", "error": ""},
    {"instance_id": "o__r-2", "from_fail_to_pass": [], "failed_from_pass_to_pass": ["u"], "passed_match": false, "exit_code": 1, "log_path": "logs/o__r-2_log.txt", "error": ""},
    {"instance_id": "o__r-3", "from_fail_to_pass": [], "failed_from_pass_to_pass": ["u"], "error": "Command '['docker', 'run']' timed out after 1800 seconds"},
    {"instance_id": "o__r-4", "from_fail_to_pass": [], "failed_from_pass_to_pass": [], "error": "Task o__r-4 missing patch/test_patch."}
  ]
}`
	if err := os.WriteFile(filepath.Join(dir, ReportFile), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]family.Outcome{"o__r-1": family.Resolved, "o__r-2": family.Unresolved, "o__r-3": family.Error, "o__r-4": family.EmptyPatch}
	fv, ok, err := reports{}.ReadEvalFolder(dir)
	if err != nil || !ok || fv.Format != FormatEvalReport {
		t.Fatalf("ok %v, err %v, format %q", ok, err, fv.Format)
	}
	for id, o := range want {
		if fv.Verdicts[id].Outcome != o {
			t.Errorf("%s: %+v, want %s", id, fv.Verdicts[id], o)
		}
	}
	if got := fv.Verdicts["o__r-2"].Log; got != filepath.Join(dir, "logs", "o__r-2_log.txt") {
		t.Errorf("o__r-2: log %q", got)
	}
	if fv.Verdicts["o__r-3"].Log != "" {
		t.Errorf("o__r-3: a log it does not have: %q", fv.Verdicts["o__r-3"].Log)
	}
	alone, ok, err := reports{}.ReadReportFile(filepath.Join(dir, ReportFile), []byte(report))
	if err != nil || !ok || alone.Format != FormatEvalReport || len(alone.Verdicts) != 4 {
		t.Errorf("eval_report.json alone: ok %v, err %v, %+v", ok, err, alone)
	}
}
