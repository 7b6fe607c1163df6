package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// Each family's harness folder, as the harness writes it and its leaderboard publishes it,
// compared through the built binary with this tool's own evaluation of the same predictions:
// compare reads the harness's folder in its layout, says so, and finds no flip.

// runBinary runs the built swebench-run binary.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(binary(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// harnessCompare is what compare --json says of two inputs, ours and the harness's.
type harnessCompare struct {
	Inputs []struct {
		Name     string         `json:"name"`
		Resolved float64        `json:"resolved"`
		Covered  int            `json:"covered"`
		Verdicts map[string]int `json:"verdicts"`
		Runs     []struct {
			Kind          string         `json:"kind"`
			ReportLayouts map[string]int `json:"report_layouts"`
		} `json:"runs"`
	} `json:"inputs"`
	Pairs []struct {
		Common    int      `json:"common"`
		AOnly     []string `json:"a_only"`
		BOnly     []string `json:"b_only"`
		Newly     []string `json:"newly_resolved"`
		Regressed []string `json:"regressed"`
	} `json:"pairs"`
}

// compareNoFlips compares ours with the harness's folder (or file) and checks that they have
// common instances and no flip, and that the harness's input was read in the layout named; it
// returns the comparison.
func compareNoFlips(t *testing.T, ours, harness string, common int, layout string) harnessCompare {
	t.Helper()
	code, stdout, stderr := runBinary(t, "compare", "--json", "ours="+ours, "harness="+harness)
	if code != 0 {
		t.Fatalf("compare %s: exit %d\n%s", harness, code, stderr)
	}
	var c harnessCompare
	if err := json.Unmarshal([]byte(stdout), &c); err != nil || len(c.Inputs) != 2 || len(c.Pairs) != 1 {
		t.Fatalf("compare --json: %v\n%.3000s", err, stdout)
	}
	p := c.Pairs[0]
	if p.Common != common || len(p.Newly)+len(p.Regressed) != 0 {
		t.Errorf("compare %s: %d common, flips %v / %v; want %d common and no flips", harness, p.Common, p.Newly, p.Regressed, common)
	}
	h := c.Inputs[1]
	if len(h.Runs) != 1 || h.Runs[0].ReportLayouts[layout] == 0 {
		t.Errorf("compare %s: the harness's input read as %+v, want the %s layout", harness, h.Runs, layout)
	}
	t.Logf("%s (%s layout): %d common instances, %v resolved by ours, %v by the harness, 0 flips", filepath.Base(harness), layout, p.Common, c.Inputs[0].Resolved, h.Resolved)
	return c
}

// SWE-bench: the official harness's logs of the deepseek run on Lite dev
// (runs/deepseek-chat-lite-dev/eval-logs: <id>/report.json, test_output.txt) regraded by
// eval --from-logs from their test output, compared with the harness's reports: 23 common, no
// flips.
func TestHarnessFolderSWEbench(t *testing.T) {
	logs := fixtureDir(t, "runs", "deepseek-chat-lite-dev", "eval-logs")
	preds := filepath.Join(fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output"), "preds.json")
	split := fixtureDir(t, "datasets", "SWE-bench_Lite.dev.parquet")
	ours := filepath.Join(t.TempDir(), "ours")
	code, stdout, stderr := runBinary(t, "eval", "--predictions", preds, "--split", split, "--from-logs", logs, "-o", ours, "--run-id", "regraded")
	if code != 0 && code != exitFailedInsts {
		t.Fatalf("eval --from-logs: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "not regraded") {
		t.Errorf("the harness's logs were not regraded from their test output:\n%s", stdout)
	}
	c := compareNoFlips(t, ours, logs, 23, "harness")
	if c.Inputs[1].Resolved != 6 {
		t.Errorf("the harness's logs: %v resolved, want 6", c.Inputs[1].Resolved)
	}
}

// SWE-smith: its published evaluation folder (SWE-bench/SWE-smith tests/test_logs/run_evaluation:
// <id>/report.json and test_output.txt, the run's report.json of 53) and the gold evaluation of the
// one instance whose row it publishes (pandas-dev__pandas.95280573.pr_53652), regraded from its
// test_output.txt: read in the SWE-smith run_evaluation layout (not sb-cli's), no flip.
func TestHarnessFolderSWEsmith(t *testing.T) {
	base := []string{"more-datasets", "swe-smith", "tests", "test_logs"}
	const id = "pandas-dev__pandas.95280573.pr_53652"
	row := readFileT(t, testenv.Fixtures(t, append(base, id+".json")...))
	harness := filepath.Dir(testenv.Fixtures(t, append(base, "run_evaluation", "report.json")...))
	for _, other := range []string{"getmoto__moto.694ce1f4.pr_7331", id, "pandas-dev__pandas.95280573.pr_53856", "pydantic__pydantic.acb0f10f.pr_8316"} {
		testenv.Fixtures(t, append(base, "run_evaluation", other, "report.json")...)
		testenv.Fixtures(t, append(base, "run_evaluation", other, "test_output.txt")...)
	}
	dir := t.TempDir()
	var compact bytes.Buffer
	if err := json.Compact(&compact, row); err != nil {
		t.Fatal(err)
	}
	split := filepath.Join(dir, "row.jsonl")
	if err := os.WriteFile(split, append(compact.Bytes(), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	ours := filepath.Join(dir, "ours")
	code, stdout, stderr := runBinary(t, "eval", "--predictions", "gold", "--split", split, "--from-logs", harness, "-o", ours, "--run-id", "gold")
	if code != 0 || !strings.Contains(stdout, "1 resolved") {
		t.Fatalf("eval --from-logs: exit %d\n%s\n%s", code, stdout, stderr)
	}
	c := compareNoFlips(t, ours, harness, 1, "SWE-smith run_evaluation")
	if h := c.Inputs[1]; h.Covered != 53 || h.Resolved != 3 || h.Runs[0].Kind != "family_report" {
		t.Errorf("the harness's folder: %+v, want 53 instances, 3 resolved", h)
	}
	code, stdout, _ = runBinary(t, "stats", harness)
	if code != 0 || !strings.Contains(stdout, "53 instances (SWE-smith run_evaluation layout, no run ledger)") {
		t.Errorf("stats: exit %d\n%s", code, stdout)
	}
}

// Multi-SWE-bench: the harness's folders of family/multiswebench/testdata/harness (the demo
// rows' predictions, patches.jsonl, graded by the harness's gen_report.py at 24f493f8; see its
// README) — the workdir, the same run laid out as a multi-swe-bench/experiments submission, and
// final_report.json alone — compared with this tool's regrade of the workdir's logs
// (eval --from-logs) and, where the demo images are built, with its own evaluation of the
// predictions in them (eval): no flips; stats, report and submission --check say the layout.
func TestHarnessFolderMultiSWEbench(t *testing.T) {
	root := testenv.RepoRoot(t)
	harness := filepath.Join(root, "family", "multiswebench", "testdata", "harness")
	workdir := filepath.Join(harness, "workdir")
	patches := filepath.Join(harness, "patches.jsonl")
	split := filepath.Join(root, "family", "multiswebench", "testdata", "demo", "dataset.jsonl")
	dir := t.TempDir()

	// The experiments submission: logs/ holds the workdir's <org>/<repo>, results/results.json
	// its final report, beside all_preds.jsonl and metadata.yaml (multi-swe-bench/experiments'
	// README).
	sub := filepath.Join(dir, "evaluation", "c", "verified", "20261201_scripted")
	copyDirT(t, filepath.Join(workdir, "jqlang"), filepath.Join(sub, "logs", "jqlang"))
	for dst, src := range map[string]string{
		filepath.Join(sub, "results", "results.json"): filepath.Join(workdir, "final_report.json"),
		filepath.Join(sub, "all_preds.jsonl"):         patches,
	} {
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, readFileT(t, src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sub, "metadata.yaml"), []byte("name: scripted\noss: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	harnessForms := []struct{ path, layout string }{
		{workdir, "Multi-SWE-bench workdir"},
		{sub, "Multi-SWE-bench experiments"},
		{filepath.Join(workdir, "final_report.json"), "Multi-SWE-bench final_report.json"},
	}
	regraded := filepath.Join(dir, "regraded")
	code, stdout, stderr := runBinary(t, "eval", "--predictions", patches, "--split", split, "--from-logs", workdir, "-o", regraded, "--run-id", "regrade")
	if code != 0 && code != exitFailedInsts {
		t.Fatalf("eval --from-logs: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, h := range harnessForms {
		c := compareNoFlips(t, regraded, h.path, 2, h.layout)
		if c.Inputs[1].Resolved != 1 || c.Inputs[0].Resolved != 1 {
			t.Errorf("%s: %v and %v resolved, want 1 and 1", h.path, c.Inputs[0].Resolved, c.Inputs[1].Resolved)
		}
	}

	code, stdout, _ = runBinary(t, "stats", sub)
	if code != 0 || !strings.Contains(stdout, "2 instances (Multi-SWE-bench experiments layout, no run ledger)") || !strings.Contains(stdout, "resolved: 1 of 2 instances (50.0%)") {
		t.Errorf("stats: exit %d\n%s", code, stdout)
	}
	code, stdout, stderr = runBinary(t, "submission", "--check", sub)
	if code != 0 || !strings.Contains(stdout, "read in the Multi-SWE-bench experiments layout: 2 instances") || !strings.Contains(stdout, "passes the checks") {
		t.Errorf("submission --check: exit %d\n%s\n%s", code, stdout, stderr)
	}
	site := filepath.Join(dir, "site")
	if code, _, stderr = runBinary(t, "report", "regraded="+regraded, "harness="+workdir, "-o", site); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	page := readReportPage(t, site, 1, "jqlang__jq-990002")
	if page.Verdict != "unresolved" || page.Eval.OutputFile != "fix-patch-run.log" || !page.Eval.HasTests {
		t.Errorf("the harness's instance page: %+v, want its report.json's tests and fix-patch-run.log", page)
	}

	// This tool's own evaluation of the predictions in the demo images (built by
	// scripts/build-msb-demo-images.sh; without a Docker engine this part skips, unless CI is set).
	msbDemo(t)
	ours := filepath.Join(dir, "ours")
	code, stdout, stderr = runBinary(t, "eval", "--predictions", patches, "--split", split, "-o", ours, "--run-id", "ours", "--workers", "2")
	if code != 0 && code != exitFailedInsts {
		t.Fatalf("eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, h := range harnessForms {
		compareNoFlips(t, ours, h.path, 2, h.layout)
	}
}

func copyDirT(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
