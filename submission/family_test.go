package submission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

func copyDir(t *testing.T, src, dst string) {
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

func findingOf(rep *CheckReport, check string, sev Severity, text string) bool {
	for _, f := range rep.Findings {
		if f.Check == check && f.Severity == sev && strings.Contains(f.Message, text) {
			return true
		}
	}
	return false
}

// A Multi-SWE-bench submission as multi-swe-bench/experiments' README lays it out
// (evaluation/<language>/verified/<date>_<name>/: all_preds.jsonl, logs/ holding the harness
// workdir's <org>/<repo> folders, results/results.json the run's final_report.json,
// metadata.yaml), built from the harness folder of family/multiswebench/testdata/harness (graded
// by the harness's gen_report.py): --check reads it in that layout and passes; results that
// disagree with the logs, predictions without verdicts and a missing metadata.yaml are findings.
// The published SWE-PolyBench submission passes as its layout.
func TestCheckFamilyFolders(t *testing.T) {
	harness := filepath.Join(testenv.RepoRoot(t), "family", "multiswebench", "testdata", "harness")
	build := func(t *testing.T) string {
		sub := filepath.Join(t.TempDir(), "evaluation", "c", "verified", "20261201_scripted")
		copyDir(t, filepath.Join(harness, "workdir", "jqlang"), filepath.Join(sub, "logs", "jqlang"))
		if err := os.MkdirAll(filepath.Join(sub, "results"), 0o755); err != nil {
			t.Fatal(err)
		}
		final, _ := os.ReadFile(filepath.Join(harness, "workdir", "final_report.json"))
		preds, _ := os.ReadFile(filepath.Join(harness, "patches.jsonl"))
		writeFiles(t, sub, map[string]string{"results/results.json": string(final), PredsFile: string(preds), MetadataFile: "name: scripted\noss: true\n"})
		return sub
	}
	sub := build(t)
	rep, res, ok, err := CheckFamily(sub)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if res.Instances != 2 || res.Resolved != 1 || res.Unresolved != 1 || res.Layouts["Multi-SWE-bench experiments"] != 2 {
		t.Errorf("results %+v", res)
	}
	if err := rep.Err(false); err != nil {
		t.Errorf("the folder fails: %v\n%v", err, rep.Findings)
	}
	if !strings.Contains(res.Summary(rep.Folder), "20261201_scripted (Multi-SWE-bench experiments layout)\nresolved: 1 of 2 instances (50.0%)") {
		t.Errorf("summary %q", res.Summary(rep.Folder))
	}

	// results.json calling the unresolved instance resolved; a prediction without a verdict; no
	// metadata.yaml.
	bad := build(t)
	final, _ := os.ReadFile(filepath.Join(bad, "results", "results.json"))
	edited := strings.Replace(strings.Replace(string(final), `"resolved_ids": [
        "jqlang/jq:pr-990001"
    ]`, `"resolved_ids": [
        "jqlang/jq:pr-990001",
        "jqlang/jq:pr-990002"
    ]`, 1), `"unresolved_ids": [
        "jqlang/jq:pr-990002"
    ]`, `"unresolved_ids": []`, 1)
	if edited == string(final) {
		t.Fatal("the edit of results.json did not apply")
	}
	preds, _ := os.ReadFile(filepath.Join(bad, PredsFile))
	writeFiles(t, bad, map[string]string{"results/results.json": edited,
		PredsFile: string(preds) + `{"org":"jqlang","repo":"jq","number":990003,"fix_patch":"diff --git a/x b/x\n"}` + "\n"})
	if err := os.Remove(filepath.Join(bad, MetadataFile)); err != nil {
		t.Fatal(err)
	}
	rep, _, _, err = CheckFamily(bad)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ check, text string }{
		{CheckResults, "resolved whose report.json in logs/ the harness found invalid: jqlang__jq-990002"},
		{CheckLogs, "1 predictions have no verdict: jqlang__jq-990003"},
		{CheckMetadata, "no metadata.yaml"},
	} {
		if !findingOf(rep, c.check, Warn, c.text) {
			t.Errorf("no %s warning %q in %v", c.check, c.text, rep.Findings)
		}
	}
	if rep.Err(false) == nil {
		t.Error("the folder passes")
	}

	poly := filepath.Dir(filepath.Dir(testenv.Fixtures(t, "more-datasets", "swe-polybench", "evaluation", "PBVerified", "20260430_kodah_gpt-5-mini", "logs", "angular__angular-37561_result.json")))
	testenv.Fixtures(t, "more-datasets", "swe-polybench", "evaluation", "PBVerified", "20260430_kodah_gpt-5-mini", "all_preds.jsonl")
	rep, res, ok, err = CheckFamily(poly)
	if err != nil || !ok || res.Resolved != 107 || res.Instances != 382 || res.Layouts["SWE-PolyBench submission"] != 382 {
		t.Fatalf("PolyBench: ok %v, err %v, %+v", ok, err, res)
	}
	if err := rep.Err(false); err != nil {
		t.Errorf("the published PolyBench submission fails: %v", err)
	}

	// A SWE-bench submission folder is not another family's.
	if _, _, ok, err := CheckFamily(testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "eval-logs")); ok || err != nil {
		t.Errorf("SWE-bench logs taken for another family's: %v", err)
	}
}

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
