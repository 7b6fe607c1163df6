package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// msbDemo returns the Multi-SWE-bench demo dataset (five rows in the harness's format, graded
// with jq's parser; three of them with empty test sets or without an instance_id column, as
// published rows have them) and checks that its images, built by
// scripts/build-msb-demo-images.sh, are there.
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
// layout, and compares and reports the run: three resolved; two unresolved, 990002's fix missing
// the case and 990004's, a row without tests, fixing what the issue asks while its tests
// passed before as after (as the harness grades the gold patch there).
func TestMultiSWEbenchEndToEnd(t *testing.T) {
	split, insts := msbDemo(t)
	if len(insts) != 5 || insts[0].Family != "multiswebench" || insts[0].WorkDir != "/home/jq" {
		t.Fatalf("demo instances: %+v", insts)
	}
	const resolved, unresolved = "jqlang__jq-990001", "jqlang__jq-990002"
	ids := []string{resolved, unresolved, "jqlang__jq-990003", "jqlang__jq-990004", "jqlang__jq-990005"}
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
	for _, id := range ids {
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
	if strings.Join(final.Resolved, ",") != "jqlang/jq:pr-990005,jqlang/jq:pr-990003,jqlang/jq:pr-990001" ||
		strings.Join(final.Unresolved, ",") != "jqlang/jq:pr-990004,jqlang/jq:pr-990002" || len(final.Errors) != 0 {
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
	for _, id := range ids {
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
        "jqlang/jq:pr-990005",
        "jqlang/jq:pr-990003",
        "jqlang/jq:pr-990001"
    ]`) || !strings.Contains(string(data), `"unresolved_ids": [
        "jqlang/jq:pr-990004",
        "jqlang/jq:pr-990002"
    ]`) {
		t.Errorf("regraded final_report.json:\n%s\n%s", data, stderr)
	}

	// compare and report read the run and its verdicts.
	code, stdout, stderr = runCLI(t, "compare", "run="+out, "--json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, resolved) || !strings.Contains(stdout, `"resolved": 3`) {
		t.Errorf("compare --json:\n%.3000s", stdout)
	}
	site := filepath.Join(dir, "site")
	code, stdout, stderr = runCLI(t, "report", out, "-o", site)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	summary, err := os.ReadFile(filepath.Join(site, "data", "summary.js"))
	for _, id := range ids {
		if err != nil || !strings.Contains(string(summary), id) {
			t.Errorf("the report's data/summary.js (%v) does not list %s", err, id)
		}
	}
	// The instance pages show the harness's test output: the fix run's log.
	for _, id := range ids {
		log := string(readFileT(t, filepath.Join(evalDir, id, "fix-patch-run.log")))
		page := readReportPage(t, site, 0, id)
		if page.Eval.OutputFile != "fix-patch-run.log" || page.Eval.Output == "" || !strings.HasPrefix(log, page.Eval.Output[:min(len(page.Eval.Output), 200)]) {
			t.Errorf("report page of %s: test output %q from %q, want the start of fix-patch-run.log", id, page.Eval.Output, page.Eval.OutputFile)
		}
	}
}

// msbHarnessRun is the output folder of Multi-SWE-bench's own harness (multi-swe-bench at
// 24f493f8a103e72312ded4f6b9c89f081d69cb09, run_evaluation in evaluation mode) on the demo rows'
// gold patches in the demo images; its README says how it was run.
func msbHarnessRun(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "family", "multiswebench", "testdata", "harness-run")
}

// msbHarnessVerdicts reads final_report.json's resolved and unresolved ids ("org/repo:pr-n") as
// instance ids, with "resolved" or "unresolved".
func msbHarnessVerdicts(t *testing.T, path string) map[string]string {
	t.Helper()
	var final struct {
		Resolved   []string `json:"resolved_ids"`
		Unresolved []string `json:"unresolved_ids"`
		Errors     []string `json:"error_ids"`
	}
	if err := json.Unmarshal(readFileT(t, path), &final); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for verdict, ids := range map[string][]string{"resolved": final.Resolved, "unresolved": final.Unresolved, "error": final.Errors} {
		for _, id := range ids {
			org, rest, _ := strings.Cut(id, "/")
			repo, n, _ := strings.Cut(rest, ":pr-")
			out[org+"__"+repo+"-"+n] = verdict
		}
	}
	return out
}

// canonicalJSON decodes a report.json with its lists of names sorted: the harness writes its
// sets in Python's (arbitrary) set order.
func canonicalJSON(t *testing.T, path string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(readFileT(t, path), &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			names := true
			for _, e := range x {
				_, ok := e.(string)
				names = names && ok
			}
			if names {
				slices.SortFunc(x, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
			}
		}
		return v
	}
	return walk(v)
}

// TestMultiSWEbenchGoldAsTheHarness grades the demo rows' gold patches through the user's path
// (`eval --predictions gold --split <demo>`, in the demo images) and checks them against the
// harness's own run on the same rows and images: every row gets to grading with the harness's
// verdict (the rows with p2p_tests {} and without an instance_id column resolved, the row
// without tests unresolved), the same fix-patch-run.log and the same report.json (but for set
// order); `eval --from-logs` of the harness's folder regrades it to the harness's verdicts; and
// `compare` of our evaluation with the harness's folder shows no flip.
func TestMultiSWEbenchGoldAsTheHarness(t *testing.T) {
	split, insts := msbDemo(t)
	harness := msbHarnessRun(t)
	want := msbHarnessVerdicts(t, filepath.Join(harness, "final_report.json"))
	if len(want) != len(insts) {
		t.Fatalf("the harness graded %d instances, the demo has %d", len(want), len(insts))
	}
	dir := t.TempDir()
	ours := filepath.Join(dir, "ours")
	code, stdout, stderr := runCLI(t, "eval", "--predictions", "gold", "--split", split, "-o", ours, "--workers", "2")
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := msbHarnessVerdicts(t, filepath.Join(ours, "final_report.json")); !maps.Equal(got, want) {
		t.Errorf("our verdicts %v, the harness's %v", got, want)
	}
	for _, inst := range insts {
		n := strings.TrimPrefix(inst.InstanceID, "jqlang__jq-")
		theirs := filepath.Join(harness, "jqlang", "jq", "evals", "pr-"+n)
		mine := filepath.Join(ours, inst.InstanceID)
		if got, want := canonicalJSON(t, filepath.Join(mine, "report.json")), canonicalJSON(t, filepath.Join(theirs, "report.json")); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: report.json\n%s\nthe harness's:\n%s", inst.InstanceID, readFileT(t, filepath.Join(mine, "report.json")), readFileT(t, filepath.Join(theirs, "report.json")))
		}
		for _, f := range []string{"fix-patch-run.log", "fix.patch"} {
			if got, want := string(readFileT(t, filepath.Join(mine, f))), string(readFileT(t, filepath.Join(theirs, f))); got != want {
				t.Errorf("%s: %s\n%s\nthe harness's:\n%s", inst.InstanceID, f, got, want)
			}
		}
	}

	// The harness's folder (its workdir, <org>/<repo>/evals/pr-<n>/fix-patch-run.log), regraded
	// without containers.
	regraded := filepath.Join(dir, "regraded")
	code, stdout, stderr = runCLI(t, "eval", "--predictions", "gold", "--split", split, "--from-logs", harness, "-o", regraded, "--run-id", "regrade")
	if code != 0 {
		t.Fatalf("eval --from-logs: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := msbHarnessVerdicts(t, filepath.Join(regraded, "final_report.json")); !maps.Equal(got, want) {
		t.Errorf("regraded verdicts %v, the harness's %v", got, want)
	}

	// The same instance folders as a leaderboard submission publishes them
	// (multi-swe-bench/experiments: <submission>/logs/<org>/<repo>/evals/pr-<n>/).
	published := filepath.Join(dir, "submission")
	if err := os.CopyFS(filepath.Join(published, "logs"), os.DirFS(harness)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"final_report.json", "README.md", "logs"} {
		if err := os.RemoveAll(filepath.Join(published, "logs", f)); err != nil {
			t.Fatal(err)
		}
	}
	// The run's report goes to results/results.json (the experiments repository's README); the
	// instances' report.json alone cannot say resolved without the dataset's test lists.
	if err := os.MkdirAll(filepath.Join(published, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(published, "results", "results.json"), readFileT(t, filepath.Join(harness, "final_report.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	// The submission's logs/ regrade as the harness's folder does.
	regraded = filepath.Join(dir, "regraded-submission")
	code, stdout, stderr = runCLI(t, "eval", "--predictions", "gold", "--split", split, "--from-logs", published, "-o", regraded, "--run-id", "regrade")
	if code != 0 {
		t.Fatalf("eval --from-logs %s: exit %d\n%s\n%s", published, code, stdout, stderr)
	}
	if got := msbHarnessVerdicts(t, filepath.Join(regraded, "final_report.json")); !maps.Equal(got, want) {
		t.Errorf("verdicts regraded from the submission's logs/ %v, the harness's %v", got, want)
	}
	// compare reads the harness's folder as it wrote it (final_report.json beside the instances'
	// folders) and as the submission publishes it (logs/ and results/results.json).
	for _, c := range []struct{ name, folder string }{{"the harness's folder", harness}, {"a submission", published}} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "compare", "ours="+ours, "harness="+c.folder, "--json")
			if code != 0 {
				t.Fatalf("compare: exit %d\n%s\n%s", code, stdout, stderr)
			}
			var cmp struct {
				Pairs []struct {
					Common        int      `json:"common"`
					NewlyResolved []string `json:"newly_resolved"`
					Regressed     []string `json:"regressed"`
				} `json:"pairs"`
				Instances []struct {
					ID       string     `json:"id"`
					Verdicts [][]string `json:"verdicts"`
				} `json:"instance_verdicts"`
			}
			if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
				t.Fatalf("compare --json: %v\n%s", err, stdout)
			}
			if len(cmp.Pairs) != 1 || cmp.Pairs[0].Common != len(want) || len(cmp.Pairs[0].NewlyResolved)+len(cmp.Pairs[0].Regressed) != 0 {
				t.Errorf("compare: want %d instances in common and no flip, got %+v", len(want), cmp.Pairs)
			}
			for _, iv := range cmp.Instances {
				if len(iv.Verdicts) != 2 || !slices.Equal(iv.Verdicts[0], []string{want[iv.ID]}) || !slices.Equal(iv.Verdicts[1], []string{want[iv.ID]}) {
					t.Errorf("%s: verdicts %v, the harness's %s", iv.ID, iv.Verdicts, want[iv.ID])
				}
			}
		})
	}
}

// TestMultiSWEbenchRealJavaRowsLoad: every real Java row of the corpus (50 rows of 8 repositories
// from multi-swe-bench's pull 39, 14 with p2p_tests {}, google__guava's without an instance_id
// column) gets past loading through `eval --predictions gold --from-logs <empty folder>` and is
// reported as having no log, instance by instance (google/guava's parser is the seal-research
// fork's, whose pull request these rows come from).
func TestMultiSWEbenchRealJavaRowsLoad(t *testing.T) {
	empty := t.TempDir()
	for _, name := range []string{
		"alibaba__fastjson2_dataset.jsonl", "apache__dubbo_dataset.jsonl", "fasterxml__jackson-core_dataset.jsonl",
		"fasterxml__jackson-dataformat-xml_dataset.jsonl", "google__gson_dataset.jsonl", "google__guava_dataset.jsonl",
		"googlecontainertools__jib_dataset.jsonl", "mockito__mockito_dataset.jsonl",
	} {
		t.Run(name, func(t *testing.T) {
			split := testenv.Fixtures(t, "more-datasets", "multi-swe-bench", "pr39_seal-research", "mswebench_dataset", "java", name)
			rows := strings.Count(strings.TrimSpace(string(readFileT(t, split))), "\n") + 1
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := runCLI(t, "eval", "--predictions", "gold", "--split", split, "--from-logs", empty, "-o", out, "--run-id", "load")
			if code != exitFailedInsts {
				t.Fatalf("eval: exit %d, want %d (every instance without a log)\n%s\n%s", code, exitFailedInsts, stdout, stderr)
			}
			if !strings.Contains(stdout, fmt.Sprintf("evaluated %d of %d instances: 0 resolved, 0 unresolved, 0 empty patches, %d errors", rows, rows, rows)) {
				t.Errorf("eval:\n%s\n%s", stdout, stderr)
			}
			if n := strings.Count(stdout+stderr, "no_test_output: no log of "); n != rows {
				t.Errorf("%d instances reported without a log, want %d:\n%s\n%s", n, rows, stdout, stderr)
			}
		})
	}
}
