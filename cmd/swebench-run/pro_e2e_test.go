package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/family/pro"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The SWE-bench Pro demo (demo/pro): two rows of SWE-bench Pro's columns, the image
// scripts/build-pro-image.sh builds in Pro's layout (/app, ENTRYPOINT /bin/bash), and per-instance
// run_script.sh and parser.py in the harness's shape, given as the scripts folder.
const (
	proImage    = "swebench-run-demo/sweap-pro:calc"
	proResolved = "instance_swebench-run__calc-d2a0b2b2c54de872c341e0e2ebf9f64323469071-vnan"
	proFailed   = "instance_swebench-run__calc-fcced6b2c95fcb83f10c0d1aa96edbe91c223877-vnan"
)

func proDemo(t *testing.T) (split, scripted string) {
	t.Helper()
	testenv.RequireImage(t, testenv.Docker(t), proImage)
	root := testenv.RepoRoot(t)
	t.Setenv(envProScripts, filepath.Join(root, "demo", "pro", "run_scripts"))
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	return filepath.Join(root, "demo", "pro", "dataset.jsonl"), filepath.Join(root, "demo", "pro", "scripted.yaml")
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// run with the scripted model and --eval: the agent works in /app on the task with its
// requirements; grading runs the harness's entry script, keeps stdout and stderr apart, and
// writes the harness's files and eval_results.json (one resolved, one unresolved); the
// predictions are exported as the harness's patches file. Then eval of that file, eval
// --from-logs of the harness-shaped folder, compare, report and stats agree.
func TestProEndToEnd(t *testing.T) {
	split, scripted := proDemo(t)
	out := t.TempDir()
	common := []string{"--split", split, "--image-template", proImage, "--pull", "never"}
	code, stdout, stderr := runCLI(t, append([]string{"run", "--model", "scripted:" + scripted, "--workers", "2",
		"-o", out, "--eval", "--progress", "lines"}, common...)...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "1 resolved, 1 unresolved, 0 empty patches, 0 errors") {
		t.Errorf("run --eval summary:\n%s", stdout)
	}

	// The agent: in /app, at the base commit with the bug, given the composed task.
	traj, err := results.ReadTrajectory(filepath.Join(out, proResolved, proResolved+".traj.json"))
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := json.Marshal(traj.Messages)
	for _, want := range []string{`\n\nRequirements:\n- `, `\n\nNew interfaces introduced:\nNo new interfaces are introduced`,
		`/app\nc7a871f calc: small arithmetic helpers`, `return a - b`} {
		if !strings.Contains(string(msgs), want) {
			t.Errorf("the trajectory of %s lacks %q", proResolved, want)
		}
	}

	// Grading: the harness's files, named after the prefix (the model's name).
	evalDir := filepath.Join(out, "eval")
	var verdicts map[string]bool
	readJSONFile(t, filepath.Join(evalDir, pro.EvalResultsFile), &verdicts)
	if len(verdicts) != 2 || !verdicts[proResolved] || verdicts[proFailed] {
		t.Errorf("eval_results.json: %v", verdicts)
	}
	inst := filepath.Join(evalDir, proResolved)
	files := map[string]string{}
	for _, f := range []string{"patch.diff", "entryscript.sh", "stdout.log", "stderr.log", "output.json"} {
		data, err := os.ReadFile(filepath.Join(inst, "scripted_"+f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(data)
	}
	if !strings.Contains(files["stdout.log"], "tests/test_add.py::test_add PASSED") || strings.Contains(files["stdout.log"], "run_script.sh: running") {
		t.Errorf("stdout.log:\n%s", files["stdout.log"])
	}
	if !strings.Contains(files["stderr.log"], "run_script.sh: running 2 test file(s)") || strings.Contains(files["stderr.log"], "PASSED") {
		t.Errorf("stderr.log:\n%s", files["stderr.log"])
	}
	if want := `{"tests": [{"name": "tests/test_add.py::test_add", "status": "PASSED"}, {"name": "tests/test_add.py::test_add_negative", "status": "PASSED"}, {"name": "tests/test_basic.py::test_version", "status": "PASSED"}]}`; files["output.json"] != want {
		t.Errorf("output.json:\n%s\nwant\n%s", files["output.json"], want)
	}
	if !strings.Contains(files["entryscript.sh"], "bash /workspace/run_script.sh tests/test_add.py,tests/test_basic.py > /workspace/stdout.log 2> /workspace/stderr.log\n") ||
		!strings.Contains(files["entryscript.sh"], "\ngit checkout d2a0b2b2c54de872c341e0e2ebf9f64323469071 -- tests/test_add.py\n") {
		t.Errorf("entryscript.sh:\n%s", files["entryscript.sh"])
	}
	var failed struct {
		Tests []struct{ Name, Status string } `json:"tests"`
	}
	readJSONFile(t, filepath.Join(evalDir, proFailed, "scripted_output.json"), &failed)
	if fmt.Sprint(failed.Tests) != "[{tests/test_mul.py::test_mul FAILED} {tests/test_basic.py::test_version PASSED}]" {
		t.Errorf("the unresolved instance's output.json: %v", failed.Tests)
	}

	// The harness's patches file, beside preds.json.
	var patches []struct {
		InstanceID string `json:"instance_id"`
		Patch      string `json:"patch"`
		Prefix     string `json:"prefix"`
	}
	readJSONFile(t, filepath.Join(out, pro.PatchesFile), &patches)
	var preds map[string]results.Prediction
	readJSONFile(t, filepath.Join(out, results.PredsFile), &preds)
	if len(patches) != 2 || patches[0].Prefix != "scripted" || patches[0].Patch != preds[patches[0].InstanceID].ModelPatch || !strings.Contains(patches[0].Patch, "+    return a + b") {
		t.Errorf("%s: %+v", pro.PatchesFile, patches)
	}

	// eval of the harness's own patches file, in a folder of the harness's layout.
	harness := t.TempDir()
	code, stdout, stderr = runCLI(t, append([]string{"eval", "--predictions", filepath.Join(out, pro.PatchesFile), "-o", harness, "--workers", "2"}, common...)...)
	if code != 0 || !strings.Contains(stdout, "evaluated 2 of 2 instances: 1 resolved, 1 unresolved") {
		t.Fatalf("eval of the patches file: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// --from-logs regrades that folder without containers.
	regraded := t.TempDir()
	code, stdout, stderr = runCLI(t, append([]string{"eval", "--predictions", filepath.Join(out, pro.PatchesFile), "-o", regraded, "--from-logs", harness}, common...)...)
	if code != 0 || !strings.Contains(stdout, "1 resolved, 1 unresolved") {
		t.Fatalf("eval --from-logs: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var again map[string]bool
	readJSONFile(t, filepath.Join(regraded, pro.EvalResultsFile), &again)
	if fmt.Sprint(again) != fmt.Sprint(verdicts) {
		t.Errorf("regraded eval_results.json %v, want %v", again, verdicts)
	}

	// compare: the run against the harness's verdicts of the same patches: no flips, by repository.
	code, stdout, stderr = runCLI(t, "compare", "run="+out, "harness="+filepath.Join(harness, pro.EvalResultsFile), "--json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	var cmp struct {
		Inputs []struct {
			Name string `json:"name"`
			Runs []struct {
				Kind string `json:"kind"`
			} `json:"runs"`
			Resolved float64 `json:"resolved"`
		} `json:"inputs"`
		Pairs []struct {
			NewlyResolved []string `json:"newly_resolved"`
			Regressed     []string `json:"regressed"`
			Repos         []struct {
				Repo string `json:"repo"`
			} `json:"repos"`
		} `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, stdout)
	}
	if len(cmp.Inputs) != 2 || cmp.Inputs[0].Resolved != 1 || cmp.Inputs[1].Resolved != 1 || cmp.Inputs[1].Runs[0].Kind != "family_report" ||
		len(cmp.Pairs) != 1 || len(cmp.Pairs[0].NewlyResolved)+len(cmp.Pairs[0].Regressed) != 0 {
		t.Errorf("compare: %s", stdout)
	}
	if len(cmp.Pairs) == 1 && (len(cmp.Pairs[0].Repos) != 1 || cmp.Pairs[0].Repos[0].Repo != "swebench-run/calc") {
		t.Errorf("compare by repository: %+v", cmp.Pairs[0].Repos)
	}

	// stats and report of the run.
	code, stdout, stderr = runCLI(t, "stats", out)
	if code != 0 || !strings.Contains(stdout, "resolved: 1 of 2 instances (50.0%); 2 evaluated (SWE-bench Pro output_dir layout)") {
		t.Errorf("stats: exit %d\n%s\n%s", code, stdout, stderr)
	}
	site := t.TempDir()
	code, _, stderr = runCLI(t, "report", out, "harness="+filepath.Join(harness, pro.EvalResultsFile), "-o", site)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	summary, err := os.ReadFile(filepath.Join(site, "data", "summary.js"))
	if err != nil || strings.Count(string(summary), `"verdicts":{"resolved":1,"unresolved":1}`) < 2 {
		t.Errorf("report summary (%v):\n%.2000s", err, summary)
	}
	for _, id := range []string{proResolved, proFailed} {
		if pages, _ := filepath.Glob(filepath.Join(site, "data", "i", "*", id+".js")); len(pages) != 2 {
			t.Errorf("report: %d instance pages of %s, want one per input", len(pages), id)
		}
		// The run's page lists the tests of the instance's output.json: all passed when resolved.
		page := readReportPage(t, site, 0, id)
		g := page.Eval.Tests["tests"]
		if !page.Eval.HasTests || len(g.Success) == 0 || (id == proResolved) != (len(g.Failure) == 0) || !strings.HasSuffix(page.Eval.OutputFile, "_stdout.log") {
			t.Errorf("report page of %s: %+v", id, page)
		}
	}
}

// The published runs' eval_results.json (the harness's repository, traj/<run>/) are inputs of
// compare and report as they are.
func TestProPublishedVerdicts(t *testing.T) {
	a := fixtureDir(t, "more-datasets", "swe-bench-pro", "traj", "claude-45sonnet-10132025", "eval_results.json")
	b := fixtureDir(t, "more-datasets", "swe-bench-pro", "traj", "gpt-5-250-turns-10132025", "eval_results.json")
	code, stdout, stderr := runCLI(t, "compare", "sonnet45="+a, "gpt5="+b)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"sonnet45  family_report", "319", "265", "NodeBB/NodeBB"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, stdout)
		}
	}
	site := t.TempDir()
	if code, _, stderr := runCLI(t, "report", "sonnet45="+a, "gpt5="+b, "-o", site); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
}

// --split pro reads its rows as SWE-bench Pro's: a hub serving SWE-bench rows under
// ScaleAI/SWE-bench_Pro is refused before anything runs, naming the columns a Pro row has.
func TestProRefusesRowsOfAnotherFamily(t *testing.T) {
	lite, err := os.ReadFile(fixtureDir(t, "datasets", "SWE-bench_Lite.dev.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	const sha = "1111111111111111111111111111111111111111"
	file := "data/test-00000-of-00001.parquet"
	sum := sha256.Sum256(lite)
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/datasets/ScaleAI/SWE-bench_Pro":
			fmt.Fprintf(w, `{"sha": %q, "siblings": [{"rfilename": %q, "size": %d, "lfs": {"sha256": %q, "size": %d}}]}`,
				sha, file, len(lite), hex.EncodeToString(sum[:]), len(lite))
		case "/datasets/ScaleAI/SWE-bench_Pro/resolve/" + sha + "/" + file:
			w.Write(lite)
		default:
			http.NotFound(w, r)
		}
	}))
	defer hub.Close()
	t.Setenv("HF_ENDPOINT", hub.URL)
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	code, _, stderr := runCLI(t, "run", "--split", "pro", "--model", "scripted", "--dry-run")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailure, stderr)
	}
	for _, want := range []string{`field "before_repo_set_cmd": missing: a SWE-bench Pro row has it`, `field "selected_test_files_to_run"`, "row 1 (instance "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
