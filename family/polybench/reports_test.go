package polybench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The harness's --result-path and its result.json as SWE-PolyBench writes them
// (amazon-science/SWE-PolyBench at 9c836c5d7f3cb991934132b77d29e6941d912a07: scoring.py's
// store_instance_level_output writes <id>_result.json and <id>_metrics.json into the result path,
// aggregate_logs result.json into the folder it runs in), and the published PB-Verified
// submission (the submission branch's evaluation/PBVerified/20260430_kodah_gpt-5-mini: logs/
// beside all_preds.jsonl), each read in its layout.
func TestReadHarnessLayouts(t *testing.T) {
	result := func(id string, resolved, generation, applied bool) string {
		b := func(v bool) string {
			if v {
				return "true"
			}
			return "false"
		}
		return `{
    "instance_id": "` + id + `",
    "patch_applied": ` + b(applied) + `,
    "generation": ` + b(generation) + `,
    "with_logs": ` + b(applied) + `,
    "all_f2p_passed": ` + b(resolved) + `,
    "no_p2p_failed": ` + b(resolved) + `,
    "resolved": ` + b(resolved) + `,
    "passed_tests": [],
    "failed_tests": []
}`
	}
	dir := t.TempDir()
	resultPath := filepath.Join(dir, "results")
	writeFiles(t, resultPath, map[string]string{
		"o__r-1_result.json":  result("o__r-1", true, true, true),
		"o__r-1_metrics.json": `{"instance_id": "o__r-1", "file_retrieval_metrics": {"recall": 1, "precision": 1, "f1": 1}}`,
		"o__r-2_result.json":  result("o__r-2", false, true, false),
		"o__r-3_result.json":  result("o__r-3", false, false, false),
		"o__r-4_result.json":  result("o__r-4", false, true, true),
	})
	// aggregate_logs over those four results.
	writeFiles(t, dir, map[string]string{AggregateFile: `{
    "resolved": ["o__r-1"],
    "patch_applied": ["o__r-1", "o__r-4"],
    "with_logs": ["o__r-1", "o__r-4"],
    "generation": ["o__r-1", "o__r-2", "o__r-4"],
    "no_generation": ["o__r-3"],
    "not_resolved": ["o__r-2", "o__r-3", "o__r-4"],
    "total_empty_patch_instances": 1,
    "total_instances": 4,
    "total_resolved": 1,
    "total_unresolved": 3,
    "file_retrieval": [],
    "node_retrieval": null
}`})
	want := map[string]family.Outcome{"o__r-1": family.Resolved, "o__r-2": family.Unresolved, "o__r-3": family.EmptyPatch, "o__r-4": family.Unresolved}
	check := func(what string, fv family.FolderVerdicts, format string) {
		t.Helper()
		if fv.Format != format || len(fv.Verdicts) != len(want) {
			t.Errorf("%s: format %q, %+v", what, fv.Format, fv.Verdicts)
		}
		for id, o := range want {
			if fv.Verdicts[id].Outcome != o {
				t.Errorf("%s: %s is %+v, want %s", what, id, fv.Verdicts[id], o)
			}
		}
		if d := fv.Verdicts["o__r-2"].Detail; d != "patch not applied" {
			t.Errorf("%s: o__r-2 detail %q", what, d)
		}
	}
	fv, ok, err := reports{}.ReadEvalFolder(resultPath)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	check("result path", fv, FormatResultPath)
	fv, ok, err = reports{}.ReadEvalFolder(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	check("the folder of result.json", fv, FormatAggregate)
	data, _ := os.ReadFile(filepath.Join(dir, AggregateFile))
	fv, ok, err = reports{}.ReadReportFile(filepath.Join(dir, AggregateFile), data)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	check("result.json alone", fv, FormatAggregate)
	if _, ok, _ := (reports{}).ReadReportFile("results.json", []byte(`{"resolved": [], "no_generation": [], "no_logs": []}`)); ok {
		t.Error("SWE-bench's experiments results.json taken for SWE-PolyBench's result.json")
	}

	sub := testenv.Fixtures(t, "more-datasets", "swe-polybench", "evaluation", "PBVerified", "20260430_kodah_gpt-5-mini", "logs", "angular__angular-37561_result.json")
	fv, ok, err = reports{}.ReadEvalFolder(filepath.Dir(filepath.Dir(sub)))
	if err != nil || !ok || fv.Format != FormatSubmission || fv.Verdicts["angular__angular-37561"].Outcome == "" {
		t.Errorf("the published submission: ok %v, err %v, format %q", ok, err, fv.Format)
	}
	fv, _, _ = reports{}.ReadEvalFolder(filepath.Dir(sub))
	if fv.Format != FormatResultPath {
		t.Errorf("its logs/: format %q", fv.Format)
	}
}
