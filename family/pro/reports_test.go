package pro

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The harness's --output_dir as swe_bench_pro_eval.py writes it (scaleapi/SWE-bench_Pro-os at
// ca10a60a5fcae51e6948ffe1485d4153d421e6c5: prepare_run, write_patch_snapshot,
// collect_outputs_local, save_entryscript_copy, the final eval_results.json): an instance graded
// (<prefix>_output.json), one whose tests left no output.json (false, an Error), and one the
// harness could not start (false, no folder); and the published runs' traj/<run>/ folders,
// which hold eval_results.json alone.
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
	write("instance_a/m_patch.diff", "diff --git a/x b/x\n")
	write("instance_a/m_entryscript.sh", "#!/bin/bash\n")
	write("instance_a/m_stdout.log", "ok\n")
	write("instance_a/m_stderr.log", "")
	write("instance_a/m_output.json", `{"tests": [{"name": "t1", "status": "PASSED"}, {"name": "t2", "status": "FAILED"}]}`)
	write("instance_b/m_patch.diff", "diff --git a/x b/x\n")
	write("instance_b/m_stdout.log", "")
	write("instance_b/m_stderr.log", "Traceback\n")
	write(EvalResultsFile, `{"instance_a": true, "instance_b": false, "instance_c": false}`)
	fv, ok, err := reports{}.ReadEvalFolder(dir)
	if err != nil || !ok || fv.Format != FormatOutputDir {
		t.Fatalf("ok %v, err %v, format %q", ok, err, fv.Format)
	}
	want := map[string]family.Outcome{"instance_a": family.Resolved, "instance_b": family.Error, "instance_c": family.Unresolved}
	for id, o := range want {
		if fv.Verdicts[id].Outcome != o {
			t.Errorf("%s: %+v, want %s", id, fv.Verdicts[id], o)
		}
	}
	if v := fv.Verdicts["instance_a"]; filepath.Base(v.Log) != "m_stdout.log" || len(v.Tests["tests"].Success) != 1 || len(v.Tests["tests"].Failure) != 1 {
		t.Errorf("instance_a: %+v", v)
	}

	for _, run := range []string{"gpt-4o-paper", "claude-45sonnet-10132025"} {
		p := testenv.Fixtures(t, "more-datasets", "swe-bench-pro", "traj", run, EvalResultsFile)
		fv, ok, err := reports{}.ReadEvalFolder(filepath.Dir(p))
		if err != nil || !ok || fv.Format != FormatEvalResults || len(fv.Verdicts) == 0 {
			t.Errorf("traj/%s: ok %v, err %v, format %q, %d instances", run, ok, err, fv.Format, len(fv.Verdicts))
		}
	}
}
