package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swebench-run/swebench-run/family/polybench"
	"github.com/swebench-run/swebench-run/family/rebenchv2"
	"github.com/swebench-run/swebench-run/family/smith"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The SWE-rebench-V2, SWE-PolyBench and SWE-smith demo datasets (demo/rebench-v2, demo/polybench,
// demo/smith) run end to end on images built here in each dataset's layout
// (scripts/build-rebench-polybench-smith-images.sh): the scripted model fixes the first instance
// of each and botches the second; evaluation in the harness's way resolves exactly the first
// and writes the harness's files; gold predictions resolve both; regrading the logs, compare,
// report and stats agree.

var buildFamilyImagesOnce sync.Once

// familyDemo builds (or finds up to date) the demo images and returns the dataset file of demo
// dir.
func familyDemo(t *testing.T, dir string) string {
	t.Helper()
	testenv.Docker(t)
	root := testenv.RepoRoot(t)
	var buildErr error
	var out []byte
	buildFamilyImagesOnce.Do(func() {
		cmd := exec.Command(filepath.Join(root, "scripts", "build-rebench-polybench-smith-images.sh"))
		out, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building the demo images: %v\n%s", buildErr, out)
	}
	return filepath.Join(root, "demo", dir, "dataset.jsonl")
}

// familyRun runs the scripted model with --eval over a demo dataset and checks the run's own
// files; it returns the output directory.
func familyRun(t *testing.T, split string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "2", "-o", out, "--eval", "--run-id", "demo")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var preds map[string]any
	if err := json.Unmarshal(readFileT(t, filepath.Join(out, "preds.json")), &preds); err != nil || len(preds) != 2 {
		t.Fatalf("preds.json: %d predictions, %v", len(preds), err)
	}
	return out
}

func readFileT(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstObservation is the output of the agent's first command in an instance's trajectory.
func firstObservation(t *testing.T, out, id string) string {
	t.Helper()
	var traj struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(readFileT(t, filepath.Join(out, id, id+".traj.json")), &traj); err != nil {
		t.Fatal(err)
	}
	seenAssistant := false
	for _, m := range traj.Messages {
		if m.Role == "assistant" {
			seenAssistant = true
			continue
		}
		if seenAssistant && (m.Role == "user" || m.Role == "tool") {
			b, _ := json.Marshal(m.Content)
			return string(b)
		}
	}
	t.Fatalf("%s: no observation after the first action", id)
	return ""
}

// checkAgreement regrades the run's logs and evaluates gold predictions, and checks that compare,
// report and stats read the three: 1, 1 and 2 resolved.
func checkAgreement(t *testing.T, split, out string) {
	t.Helper()
	dir := filepath.Dir(out)
	regraded := filepath.Join(dir, "regraded")
	code, stdout, stderr := runCLI(t, "eval", "--predictions", filepath.Join(out, "preds.json"), "--split", split,
		"--from-logs", filepath.Join(out, "eval"), "-o", regraded, "--run-id", "demo")
	if code != 0 {
		t.Fatalf("eval --from-logs: exit %d\n%s\n%s", code, stdout, stderr)
	}
	gold := filepath.Join(dir, "gold")
	code, stdout, stderr = runCLI(t, "eval", "--predictions", "gold", "--split", split, "-o", gold, "--run-id", "gold", "--workers", "2")
	if code != 0 || !strings.Contains(stdout, "resolved rate: 100.0%") {
		t.Errorf("gold eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "compare", "--json", "run="+out, "regraded="+regraded, "gold="+gold)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var cmp struct {
		Inputs []struct {
			Name     string  `json:"name"`
			Resolved float64 `json:"resolved"`
			Covered  int     `json:"covered"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, stdout)
	}
	want := map[string]float64{"run": 1, "regraded": 1, "gold": 2}
	for _, in := range cmp.Inputs {
		if in.Resolved != want[in.Name] || in.Covered != 2 {
			t.Errorf("compare: %s resolved %v of %d covered, want %v of 2", in.Name, in.Resolved, in.Covered, want[in.Name])
		}
	}
	if len(cmp.Inputs) != 3 {
		t.Errorf("compare read %d inputs, want 3:\n%s", len(cmp.Inputs), stdout)
	}
	code, stdout, stderr = runCLI(t, "stats", out)
	if code != 0 || !strings.Contains(stdout, "resolved: 1 of 2 instances (50.0%)") {
		t.Errorf("stats: exit %d\n%s\n%s", code, stdout, stderr)
	}
	site := filepath.Join(dir, "site")
	code, stdout, stderr = runCLI(t, "report", out, gold, "-o", site)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil {
		t.Errorf("report: %v", err)
	}
}

func TestRebenchV2Demo(t *testing.T) {
	split := familyDemo(t, "rebench-v2")
	out := familyRun(t, split)
	if obs := firstObservation(t, out, "swebench-run__tallykit-1"); !strings.Contains(obs, "/tallykit") {
		t.Errorf("the agent does not work in /tallykit: %s", obs)
	}
	var rep rebenchv2.EvalReport
	if err := json.Unmarshal(readFileT(t, filepath.Join(out, "eval", rebenchv2.ReportFile)), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, it := range rep.Items {
		got[it.InstanceID] = it.Resolved()
	}
	if !got["swebench-run__tallykit-1"] || got["swebench-run__tallykit-2"] || rep.Total != 2 || rep.AllOK {
		t.Errorf("eval_report.json: %+v", rep)
	}
	for _, f := range []string{rebenchv2.LogFile("swebench-run__tallykit-1"), rebenchv2.ItemFile} {
		if _, err := os.Stat(filepath.Join(out, "eval", "swebench-run__tallykit-1", f)); err != nil {
			t.Error(err)
		}
	}
	var patches []map[string]string
	if err := json.Unmarshal(readFileT(t, filepath.Join(out, rebenchv2.PatchesFile)), &patches); err != nil || len(patches) != 2 {
		t.Errorf("%s: %d patches, %v", rebenchv2.PatchesFile, len(patches), err)
	}
	checkAgreement(t, split, out)
}

func TestPolyBenchDemo(t *testing.T) {
	split := familyDemo(t, "polybench")
	out := familyRun(t, split)
	if obs := firstObservation(t, out, "yt-dlp__yt-dlp-90001"); !strings.Contains(obs, "/repo") {
		t.Errorf("the agent does not work in the image's WORKDIR /repo: %s", obs)
	}
	for id, resolved := range map[string]bool{"yt-dlp__yt-dlp-90001": true, "yt-dlp__yt-dlp-90002": false} {
		o, err := polybench.ReadResult(polybench.ResultPath(filepath.Join(out, "eval", id), id))
		if err != nil {
			t.Fatal(err)
		}
		if o.Resolved != resolved || !o.PatchApplied || !o.WithLogs {
			t.Errorf("%s: %+v", id, o)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "eval", polybench.AggregateFile)); err != nil {
		t.Error(err)
	}
	if lines := strings.Count(string(readFileT(t, filepath.Join(out, polybench.PredictionsFile))), "\n"); lines != 2 {
		t.Errorf("%s: %d lines, want 2", polybench.PredictionsFile, lines)
	}
	checkAgreement(t, split, out)
}

func TestSmithDemo(t *testing.T) {
	split := familyDemo(t, "smith")
	out := familyRun(t, split)
	// The agent starts on the instance's branch: its first command sees the bug, which the
	// image's clean checkout does not have.
	const fixed, buggy = "mewwts__addict.75284f95.func_pm_op_swap__demo1", "mewwts__addict.75284f95.func_pm_ctrl_invert_if__demo2"
	if obs := firstObservation(t, out, fixed); !strings.Contains(obs, fixed) || !strings.Contains(obs, "out = dict(update)") {
		t.Errorf("the agent's first command does not see the bug of %s: %s", fixed, obs)
	}
	if obs := firstObservation(t, out, buggy); !strings.Contains(obs, "return node\\n        node = node[key]") {
		t.Errorf("the agent's first command does not see the bug of %s: %s", buggy, obs)
	}
	for id, resolved := range map[string]bool{fixed: true, buggy: false} {
		r, err := smith.ReadReport(filepath.Join(out, "eval", id, smith.ReportFile))
		if err != nil {
			t.Fatal(err)
		}
		if r.Resolved != resolved || !r.PatchExists || r.TestsStatus == nil || r.Model != "scripted" {
			t.Errorf("%s: %+v", id, r)
		}
	}
	var run smith.RunReport
	if err := json.Unmarshal(readFileT(t, filepath.Join(out, "eval", smith.ReportFile)), &run); err != nil {
		t.Fatal(err)
	}
	if run.Resolved != 1 || run.Total != 2 || run.IDsResolved[0] != fixed {
		t.Errorf("run report.json: %+v", run)
	}
	checkAgreement(t, split, out)
}

// The published SWE-PolyBench Verified submission (amazon-science/SWE-PolyBench,
// evaluation/PBVerified/20260430_kodah_gpt-5-mini: the harness's 382 logs/<id>_result.json, and
// metadata.yaml, which says "pass_rate: 28.01% (107/382)") read by compare, report and stats.
func TestPolyBenchPublishedSubmission(t *testing.T) {
	sub := testenv.Fixtures(t, "more-datasets", "swe-polybench", "evaluation", "PBVerified", "20260430_kodah_gpt-5-mini")
	if meta := string(readFileT(t, filepath.Join(sub, "metadata.yaml"))); !strings.Contains(meta, "(107/382)") {
		t.Fatalf("metadata.yaml: %s", meta)
	}
	logs := filepath.Join(sub, "logs")
	var code int
	var stdout, stderr string
	for _, dir := range []string{logs, sub} { // the logs folder, and the submission folder holding it
		code, stdout, stderr = runCLI(t, "compare", "--json", dir)
		if code != 0 {
			t.Fatalf("compare %s: exit %d\n%s", dir, code, stderr)
		}
		var cmp struct {
			Inputs []struct {
				Resolved float64        `json:"resolved"`
				Covered  int            `json:"covered"`
				Verdicts map[string]int `json:"verdicts"`
			} `json:"inputs"`
		}
		if err := json.Unmarshal([]byte(stdout), &cmp); err != nil || len(cmp.Inputs) != 1 {
			t.Fatalf("compare --json: %v\n%s", err, stdout)
		}
		if in := cmp.Inputs[0]; in.Resolved != 107 || in.Covered != 382 || in.Verdicts["error"] != 0 {
			t.Errorf("compare %s: %v resolved of %d covered, want 107 of 382 and no errors (%v)", dir, in.Resolved, in.Covered, in.Verdicts)
		}
		code, stdout, stderr = runCLI(t, "stats", dir)
		if code != 0 || !strings.Contains(stdout, "resolved: 107 of 382 instances (28.0%)") {
			t.Errorf("stats %s: exit %d\n%s\n%s", dir, code, stdout, stderr)
		}
	}
	site := filepath.Join(t.TempDir(), "site")
	if code, _, stderr = runCLI(t, "report", sub, "-o", site); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	pages, _ := filepath.Glob(filepath.Join(site, "data", "i", "*", "*.js"))
	if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil || len(pages) != 382 {
		t.Errorf("report: %d instance pages, want 382 (%v)", len(pages), err)
	}
	// An instance page shows the tests the harness's result lists.
	page := readReportPage(t, site, 0, "Significant-Gravitas__AutoGPT-4652")
	if g := page.Eval.Tests["tests"]; page.Verdict != "unresolved" || !page.Eval.HasTests || len(g.Success) != 0 ||
		len(g.Failure) != 1 || g.Failure[0] != "tests/unit/test_message_history.py:None:test_message_history_batch_summary" {
		t.Errorf("instance page: %+v, want the one failed test of its _result.json", page)
	}
}

// `eval --from-logs` on SWE-smith's own evaluation folder (tests/test_logs/run_evaluation of
// SWE-bench/SWE-smith: <id>/test_output.txt in the harness's layout) regrades the instance whose
// dataset row is published with it (pandas-dev__pandas.95280573.pr_53652) as the harness did:
// resolved, with a report.json in the harness's form.
func TestSmithRegradeHarnessLogs(t *testing.T) {
	base := []string{"more-datasets", "swe-smith", "tests", "test_logs"}
	row := readFileT(t, testenv.Fixtures(t, append(base, "pandas-dev__pandas.95280573.pr_53652.json")...))
	logs := filepath.Dir(testenv.Fixtures(t, append(base, "run_evaluation", "pandas-dev__pandas.95280573.pr_53652", "test_output.txt")...))
	dir := t.TempDir()
	split := filepath.Join(dir, "row.jsonl")
	var compact bytes.Buffer
	if err := json.Compact(&compact, row); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(split, []byte(compact.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "regraded")
	code, stdout, stderr := runCLI(t, "eval", "--predictions", "gold", "--split", split, "--from-logs", filepath.Dir(logs), "-o", out, "--run-id", "r")
	if code != 0 || !strings.Contains(stdout, "1 resolved") {
		t.Fatalf("eval --from-logs: exit %d\n%s\n%s", code, stdout, stderr)
	}
	r, err := smith.ReadReport(filepath.Join(out, "pandas-dev__pandas.95280573.pr_53652", smith.ReportFile))
	if err != nil || !r.Resolved || r.TestsStatus == nil || len(r.TestsStatus.FailToPass.Success) != 2 || len(r.TestsStatus.PassToPass.Success) != 9 {
		t.Errorf("report.json: %+v, %v", r, err)
	}
}
