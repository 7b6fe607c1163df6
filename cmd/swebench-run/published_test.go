package main

// Real leaderboard folders as they are published: per instance only logs/<id>/report.json in
// sb-cli's layout (the test corpus keeps 10 of a Verified bash-only submission,
// 20251118_mini-v1.15.0_gemini-3-pro-preview-20251118), and runs whose figures are partly
// unknown. Every command that reads per-instance reports takes them and says which layout it
// read; unknown figures are never shown or averaged as zeros.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sbcliResolvedIDs are the instances the corpus's sb-cli reports resolve (all but
// django__django-11477, read off the files by hand).
var sbcliResolvedIDs = []string{"astropy__astropy-12907", "django__django-13128", "django__django-14349", "django__django-15572",
	"django__django-17087", "pydata__xarray-3151", "scikit-learn__scikit-learn-10844", "sphinx-doc__sphinx-8120", "sympy__sympy-15599"}

// sbcliIDs are all 10 instances of those reports.
func sbcliIDs() []string {
	return append(append([]string(nil), sbcliResolvedIDs...), "django__django-11477")
}

// writeJSONFile writes v as JSON at p.
func writeJSONFile(t *testing.T, p string, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The sb-cli run report of the same run, restricted to the corpus's 10 instances, in sb-cli's
// get-report shape (as the corpus's swe-bench_lite__dev__*.json) with the published verdicts;
// compare against the folder of its per-instance reports finds no flip.
func TestCompareCommandSBCLIRunReportAndItsReports(t *testing.T) {
	all := sbcliIDs()
	report := writeJSONFile(t, filepath.Join(t.TempDir(), "swe-bench_verified__test__gemini-3-pro.json"), map[string]any{
		"total_instances": 10, "submitted_instances": 10, "completed_instances": 10, "pending_instances": 0, "failed_instances": 0,
		"resolved_instances": 9, "unresolved_instances": 1, "error_instances": 0,
		"completed_ids": all, "incomplete_ids": []string{}, "submitted_ids": all, "error_ids": []string{},
		"resolved_ids": sbcliResolvedIDs, "unresolved_ids": []string{"django__django-11477"},
		"pending_ids": []string{}, "failed_ids": []string{}, "schema_version": 2,
	})
	logs := fixtureDir(t, "reports", "sb-cli-per-instance")
	code, stdout, stderr := runCLI(t, "compare", "run="+report, "logs="+logs, "--baseline", "run", "--fail-on-regression")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, s := range []string{"report_dir (sb-cli layout)", "10 in common", "0 newly resolved, 0 regressed; both 9, neither 1", "logs vs run: no significant change"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
}

// publishedSubmission lays out a submission folder as published: logs/<id>/report.json only and
// the predictions of those instances (their patches are not in the corpus: a placeholder diff,
// written here).
func publishedSubmission(t *testing.T) string {
	t.Helper()
	src := fixtureDir(t, "reports", "sb-cli-per-instance")
	dir := filepath.Join(t.TempDir(), "evaluation", "verified", "20251118_mini-v1.15.0_gemini-3-pro-preview-20251118")
	var lines []string
	for _, id := range sbcliIDs() {
		data, err := os.ReadFile(filepath.Join(src, id, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "logs", id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "logs", id, "report.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(map[string]string{"instance_id": id, "model_name_or_path": "gemini-3-pro-preview", "model_patch": "diff --git a/src/x.py b/src/x.py\n"})
		lines = append(lines, string(line))
	}
	if err := os.WriteFile(filepath.Join(dir, "all_preds.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// submission --check of a published folder counts the resolved instances from its reports, and
// says in a note that it did; the reports are not reported as missing logs.
func TestSubmissionCheckPublishedFolder(t *testing.T) {
	dir := publishedSubmission(t)
	ds := fixtureDir(t, "datasets", "SWE-bench_Verified.test.parquet")
	code, stdout, stderr := runCLI(t, "submission", "--check", dir, "--dataset", ds)
	// The folder lacks trajectories and metadata.yaml: it fails, but its logs are read.
	if code != exitChecksFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitChecksFailed, stdout, stderr)
	}
	for _, s := range []string{"Resolved 9 instances (1.8%)", "note    logs: 10 instances are graded from their logs/<id>/report.json (sb-cli layout), 9 of them resolved"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	if strings.Contains(stdout, "no evaluation log") {
		t.Errorf("the reports are reported as missing logs:\n%s", stdout)
	}
}

// eval --from-logs of a folder of sb-cli reports keeps their verdicts and says so.
func TestEvalFromLogsSBCLIReports(t *testing.T) {
	logs := fixtureDir(t, "reports", "sb-cli-per-instance")
	ds := fixtureDir(t, "datasets", "SWE-bench_Verified.test.parquet")
	preds := map[string]map[string]string{}
	for _, id := range sbcliIDs() {
		preds[id] = map[string]string{"instance_id": id, "model_name_or_path": "gemini-3-pro-preview", "model_patch": "diff --git a/src/x.py b/src/x.py\n"}
	}
	dir := t.TempDir()
	predsPath := writeJSONFile(t, filepath.Join(dir, "preds.json"), preds)
	out := filepath.Join(dir, "eval")
	code, stdout, stderr := runCLI(t, "eval", "--predictions", predsPath, "--split", ds, "--instance-ids", strings.Join(sbcliIDs(), ","),
		"--from-logs", logs, "--run-id", "published", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, s := range []string{"evaluated 10 of 10 instances: 9 resolved, 1 unresolved", "note: 10 verdicts are those of their report.json (sb-cli layout), not regraded"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
}

// stats of a mini-swe-agent run with 3 of its 23 trajectories missing, evaluated into eval/ in
// sb-cli's layout: cost and steps are over the 20 known, the unknown duration is "–", and the
// resolved count comes from the sb-cli reports, whose layout it names.
func TestStatsUnknownFiguresAndSBCLIReports(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(out, os.DirFS(fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output"))); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"pvlib__pvlib-python-1072", "pydicom__pydicom-901", "sqlfluff__sqlfluff-1517"} {
		if err := os.RemoveAll(filepath.Join(out, id)); err != nil {
			t.Fatal(err)
		}
	}
	// The harness's reports of the run, rewritten in sb-cli's layout (the object without its key).
	logs := fixtureDir(t, "runs", "deepseek-chat-lite-dev", "eval-logs")
	entries, err := os.ReadDir(logs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(logs, e.Name(), "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep map[string]json.RawMessage
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		writeJSONFile(t, filepath.Join(out, "eval", e.Name(), "report.json"), rep[e.Name()])
	}
	code, stdout, stderr := runCLI(t, "stats", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, s := range []string{"23 instances, 20 attempts", "(no trajectory)  3", "20 of 23", "duration (s)  –       –       –       –       –       0 of 23",
		"tokens: – (no usage recorded)", "resolved: 6 of 23 instances (26.1%); 23 evaluated (report.json: sb-cli layout)"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "stats", "--json", out)
	var st struct {
		Cost    map[string]any `json:"cost"`
		Seconds map[string]any `json:"duration_seconds"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); code != 0 || err != nil {
		t.Fatalf("stats --json: exit %d, %v", code, err)
	}
	if st.Cost["n"] != 20.0 || st.Seconds["n"] != 0.0 || st.Seconds["mean"] != nil {
		t.Errorf("stats --json: cost %v, duration %v; want cost over 20, duration null", st.Cost, st.Seconds)
	}
}
