package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// msbDemo returns the Multi-SWE-bench demo dataset (two rows in the harness's format, graded with
// jq's parser) and checks that its images, built by scripts/build-msb-demo-images.sh, are there.
func msbDemo(t *testing.T) (string, []dataset.Instance) {
	t.Helper()
	e := testenv.Docker(t)
	path := filepath.Join(testenv.RepoRoot(t), "family", "multiswebench", "testdata", "demo", "dataset.jsonl")
	l, err := dataset.Load(context.Background(), path, dataset.LoadOptions{Families: all.New(all.Options{}).Families()})
	if err != nil {
		t.Fatal(err)
	}
	for _, inst := range l.Instances {
		testenv.RequireImage(t, e, inst.Image)
	}
	return path, l.Instances
}

// TestMultiSWEbenchEndToEnd runs the scripted model on the Multi-SWE-bench demo instances in
// their images (repository in /home/jq), grades the predictions as the harness does (fix-run.sh
// with the prediction as /home/fix.patch, jq's parser, report.py's checks against the rows'
// reference runs), exports them in the harness's patch format, regrades the harness's own log
// layout, and compares and reports the run: one resolved, one unresolved.
func TestMultiSWEbenchEndToEnd(t *testing.T) {
	split, insts := msbDemo(t)
	if len(insts) != 2 || insts[0].Family != "multiswebench" || insts[0].WorkDir != "/home/jq" {
		t.Fatalf("demo instances: %+v", insts)
	}
	const resolved, unresolved = "jqlang__jq-990001", "jqlang__jq-990002"
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	code, stdout, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "2", "-o", out, "--eval", "--progress", "lines")
	if code != 0 && code != exitFailedInsts {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// The agent worked in /home/jq, without the gold and test patches the image carries.
	traj, err := os.ReadFile(filepath.Join(out, resolved, resolved+".traj.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(traj), "fix-run.sh\\nfix.patch") || !strings.Contains(string(traj), "fix-run.sh") {
		t.Errorf("the agent's `ls /home` should list fix-run.sh but not fix.patch:\n%.2000s", traj)
	}

	// The harness's per-instance files and final_report.json.
	evalDir := filepath.Join(out, "eval")
	for _, id := range []string{resolved, unresolved} {
		for _, f := range []string{"fix.patch", "fix-patch-run.log", "report.json"} {
			if _, err := os.Stat(filepath.Join(evalDir, id, f)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
	var final struct {
		Resolved   []string `json:"resolved_ids"`
		Unresolved []string `json:"unresolved_ids"`
		Errors     []string `json:"error_ids"`
	}
	data, err := os.ReadFile(filepath.Join(evalDir, "final_report.json"))
	if err != nil {
		t.Fatalf("final_report.json: %v\n%s", err, stderr)
	}
	if err := json.Unmarshal(data, &final); err != nil {
		t.Fatal(err)
	}
	if strings.Join(final.Resolved, ",") != "jqlang/jq:pr-990001" || strings.Join(final.Unresolved, ",") != "jqlang/jq:pr-990002" || len(final.Errors) != 0 {
		t.Errorf("final_report.json:\n%s", data)
	}
	var rep struct {
		Valid    bool   `json:"valid"`
		ErrorMsg string `json:"error_msg"`
	}
	data, _ = os.ReadFile(filepath.Join(evalDir, unresolved, "report.json"))
	if json.Unmarshal(data, &rep) != nil || rep.Valid || !strings.Contains(rep.ErrorMsg, "no test cases transitioned from failed to passed") {
		t.Errorf("%s report.json: %s", unresolved, data)
	}

	// The predictions in the harness's patch format, which eval takes as they are.
	patches := filepath.Join(out, "multi_swe_bench_patches.jsonl")
	data, err = os.ReadFile(patches)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(string(data), `"org":"jqlang","repo":"jq","number":990001,"fix_patch":"diff --git a/jqlite.py b/jqlite.py`) {
		t.Errorf("patch file:\n%s", data)
	}

	// The harness's own log layout (<workdir>/<org>/<repo>/evals/pr-<n>/fix-patch-run.log),
	// regraded without containers from the harness's patch file: the same verdicts.
	harness := filepath.Join(dir, "harness-workdir")
	for _, id := range []string{resolved, unresolved} {
		n := strings.TrimPrefix(id, "jqlang__jq-")
		d := filepath.Join(harness, "jqlang", "jq", "evals", "pr-"+n)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		log, _ := os.ReadFile(filepath.Join(evalDir, id, "fix-patch-run.log"))
		if err := os.WriteFile(filepath.Join(d, "fix-patch-run.log"), log, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	regraded := filepath.Join(dir, "regraded")
	code, stdout, stderr = runCLI(t, "eval", "--predictions", patches, "--split", split, "--from-logs", harness, "-o", regraded, "--run-id", "regrade")
	if code != 0 && code != exitFailedInsts {
		t.Fatalf("regrade: exit %d\n%s\n%s", code, stdout, stderr)
	}
	data, _ = os.ReadFile(filepath.Join(regraded, "final_report.json"))
	if !strings.Contains(string(data), `"resolved_ids": [
        "jqlang/jq:pr-990001"
    ]`) || !strings.Contains(string(data), `"unresolved_ids": [
        "jqlang/jq:pr-990002"
    ]`) {
		t.Errorf("regraded final_report.json:\n%s\n%s", data, stderr)
	}

	// compare and report read the run and its verdicts.
	code, stdout, stderr = runCLI(t, "compare", "run="+out, "--json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, resolved) || !strings.Contains(stdout, `"resolved": 1`) {
		t.Errorf("compare --json:\n%.3000s", stdout)
	}
	site := filepath.Join(dir, "site")
	code, stdout, stderr = runCLI(t, "report", out, "-o", site)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	summary, err := os.ReadFile(filepath.Join(site, "data", "summary.js"))
	if err != nil || !strings.Contains(string(summary), unresolved) || !strings.Contains(string(summary), resolved) {
		t.Errorf("the report's data/summary.js (%v) does not list both instances", err)
	}
	// The instance pages show the harness's test output: the fix run's log.
	for _, id := range []string{resolved, unresolved} {
		log := string(readFileT(t, filepath.Join(evalDir, id, "fix-patch-run.log")))
		page := readReportPage(t, site, 0, id)
		if page.Eval.OutputFile != "fix-patch-run.log" || page.Eval.Output == "" || !strings.HasPrefix(log, page.Eval.Output[:min(len(page.Eval.Output), 200)]) {
			t.Errorf("report page of %s: test output %q from %q, want the start of fix-patch-run.log", id, page.Eval.Output, page.Eval.OutputFile)
		}
	}
}
