package multiswebench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// copyTree copies the folder src into dst.
func copyTree(t *testing.T, src, dst string) {
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

func outcomes(fv family.FolderVerdicts) map[string]family.Outcome {
	got := map[string]family.Outcome{}
	for id, v := range fv.Verdicts {
		got[id] = v.Outcome
	}
	return got
}

func sameOutcomes(t *testing.T, what string, got, want map[string]family.Outcome) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
		return
	}
	for id, o := range want {
		if got[id] != o {
			t.Errorf("%s: %s is %s, want %s (all: %v)", what, id, got[id], o, got)
		}
	}
}

// The harness's own folders (testdata/harness: gen_report.py of multi-swe-bench/multi-swe-bench
// at 24f493f8 graded them; see its README) in each layout the harness writes and its leaderboard
// publishes, read as the harness decided: final_report.json's verdicts, the instances' tests and
// fix-patch-run.log from <org>/<repo>/evals/pr-<n>/, the ids org/repo:pr-N and pr-<n> folders
// mapped to org__repo-N.
func TestReadHarnessFolders(t *testing.T) {
	harness := filepath.Join("testdata", "harness")
	const one, two = "jqlang__jq-990001", "jqlang__jq-990002"
	resolvedOne := map[string]family.Outcome{one: family.Resolved, two: family.Unresolved}

	// The workdir as run_evaluation.py leaves it (output_dir = workdir), with the images/ folder
	// its image builds write beside evals/ and a folder gen_report.py does not take for an
	// instance (not pr-<number>).
	workdir := filepath.Join(t.TempDir(), "workdir")
	copyTree(t, filepath.Join(harness, "workdir"), workdir)
	for _, d := range []string{"jqlang/jq/images/pr-990001", "jqlang/jq/evals/pr-latest", "jqlang/jq/instances/pr-990001"} {
		if err := os.MkdirAll(filepath.Join(workdir, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// The same run as a submission folder of multi-swe-bench/experiments, laid out as its README
	// says: logs/ holds the workdir's <org>/<repo> folders, results/results.json the run's
	// final_report.json, beside all_preds.jsonl and metadata.yaml.
	sub := filepath.Join(t.TempDir(), "20261201_scripted")
	copyTree(t, filepath.Join(harness, "workdir", "jqlang"), filepath.Join(sub, "logs", "jqlang"))
	if err := os.MkdirAll(filepath.Join(sub, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	final, err := os.ReadFile(filepath.Join(harness, "workdir", "final_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"results/results.json": final,
		"all_preds.jsonl":      []byte("{}\n"),
		"metadata.yaml":        []byte("name: scripted\n"),
	} {
		if err := os.WriteFile(filepath.Join(sub, filepath.FromSlash(name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The workdir without final_report.json (the output_dir was elsewhere): each folder's files
	// give what they can.
	bare := filepath.Join(t.TempDir(), "workdir")
	copyTree(t, filepath.Join(harness, "workdir"), bare)
	if err := os.Remove(filepath.Join(bare, "final_report.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(bare, "jqlang", "jq", "evals", "pr-990003"), 0o755); err != nil {
		t.Fatal(err)
	}

	// The output_dir holding only final_report.json.
	outDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(outDir, "final_report.json"), final, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name, dir, format string
		want              map[string]family.Outcome
		withFiles         bool // the instances carry their fix-patch-run.log and tests
	}{
		{"workdir", workdir, FormatWorkdir, resolvedOne, true},
		{"experiments submission", sub, FormatExperiments, resolvedOne, true},
		{"workdir with a failed report", filepath.Join(harness, "workdir-error"), FormatWorkdir,
			map[string]family.Outcome{one: family.Error, two: family.Unresolved}, false},
		{"workdir without final_report.json", bare, FormatWorkdir,
			map[string]family.Outcome{one: family.Error, two: family.Unresolved, "jqlang__jq-990003": family.Error}, true},
		{"output_dir", outDir, FormatFinalReport, resolvedOne, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fv, ok, err := (reports{}).ReadEvalFolder(c.dir)
			if err != nil || !ok {
				t.Fatalf("ok %v, err %v", ok, err)
			}
			if fv.Format != c.format {
				t.Errorf("format %q, want %q", fv.Format, c.format)
			}
			sameOutcomes(t, c.name, outcomes(fv), c.want)
			if !c.withFiles {
				return
			}
			v := fv.Verdicts[two]
			if filepath.Base(v.Log) != "fix-patch-run.log" || !strings.Contains(filepath.ToSlash(v.Log), "jqlang/jq/evals/pr-990002/") {
				t.Errorf("%s: log %q", two, v.Log)
			}
			g := v.Tests["fix_patch_result"]
			if strings.Join(g.Failure, ",") != "tests/length_null" || len(g.Success) != 3 {
				t.Errorf("%s: tests %+v, want report.json's fix_patch_result", two, v.Tests)
			}
			if !strings.Contains(v.Detail, "no test cases transitioned from failed to passed") {
				t.Errorf("%s: detail %q, want report.json's error_msg", two, v.Detail)
			}
		})
	}
	fv, _, _ := (reports{}).ReadEvalFolder(bare)
	if d := fv.Verdicts[one].Detail; !strings.Contains(d, "final_report.json") {
		t.Errorf("a valid report without final_report.json: %q", d)
	}
	if d := fv.Verdicts["jqlang__jq-990003"].Detail; !strings.Contains(d, "no report.json") {
		t.Errorf("a folder without report.json: %q", d)
	}

	// final_report.json and results/results.json given on their own.
	for _, p := range []string{filepath.Join(harness, "workdir", "final_report.json"), filepath.Join(sub, "results", "results.json")} {
		data, _ := os.ReadFile(p)
		fv, ok, err := (reports{}).ReadReportFile(p, data)
		if err != nil || !ok || fv.Format != FormatFinalReport {
			t.Fatalf("%s: ok %v, err %v, format %q", p, ok, err, fv.Format)
		}
		sameOutcomes(t, p, outcomes(fv), resolvedOne)
	}
	data, _ := os.ReadFile(filepath.Join(harness, "workdir-error", "final_report.json"))
	fv, _, _ = (reports{}).ReadReportFile("final_report.json", data)
	if v := fv.Verdicts[one]; v.Outcome != family.Error || !strings.Contains(v.Detail, "error_ids") {
		t.Errorf("error_ids: %+v", v)
	}
}

// A file or folder of another harness with the same keys is left to its reader: the SWE-bench
// harness's run report (schema_version, org__repo-N ids), final_report.json keys with ids that are
// not the harness's, the SWE-bench experiments results.json, a SWE-bench log folder.
func TestReadOtherFilesLeft(t *testing.T) {
	for name, data := range map[string]string{
		"SWE-bench run report": `{"total_instances": 1, "submitted_instances": 1, "completed_instances": 1, "incomplete_instances": 0, "resolved_instances": 1,
			"unresolved_instances": 0, "empty_patch_instances": 0, "error_instances": 0, "submitted_ids": ["a__b-1"], "completed_ids": ["a__b-1"],
			"incomplete_ids": [], "resolved_ids": ["a__b-1"], "unresolved_ids": [], "empty_patch_ids": [], "error_ids": [], "schema_version": 2}`,
		"other ids":                 `{"incomplete_instances": 0, "submitted_ids": ["a__b-1"], "resolved_ids": ["a__b-1"]}`,
		"experiments results.json":  `{"resolved": ["a__b-1"], "no_generation": [], "no_logs": []}`,
		"SWE-smith run report.json": `{"resolved": 1, "unresolved": 0, "total": 1, "ids_resolved": ["a"], "ids_unresolved": []}`,
	} {
		if _, ok, err := (reports{}).ReadReportFile("x.json", []byte(data)); ok || err != nil {
			t.Errorf("%s: taken (%v)", name, err)
		}
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "django__django-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "django__django-1", "report.json"), []byte(`{"django__django-1": {"resolved": true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := (reports{}).ReadEvalFolder(dir); ok || err != nil {
		t.Errorf("a SWE-bench log folder taken (%v)", err)
	}
}

// The results/results.json of the SWE-bench-java submissions multi-swe-bench/experiments keeps
// (evaluation/java/verified/20240825_*, at 89888f16): the SWE-bench-java harness's run report
// with resolved_ids published as "resolved". Each reads to the counts the file states, as a
// file and as its submission folder.
func TestReadSWEbenchJavaResults(t *testing.T) {
	for _, name := range []string{
		"20240825_SWE-agent_deepseek-chat-v2", "20240825_SWE-agent_deepseek-coder-v2", "20240825_SWE-agent_doubao-pro-128k",
		"20240825_SWE-agent_gpt-4o-2024-05-13", "20240825_SWE-agent_gpt-4o-mini-2024-07-18",
	} {
		p := testenv.Fixtures(t, "more-datasets", "multi-swe-bench", "legacy_swe-bench-java_experiments", "evaluation", "java", "verified", name, "results", "results.json")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var counts struct {
			Resolved   int `json:"resolved_instances"`
			Unresolved int `json:"unresolved_instances"`
			Empty      int `json:"empty_patch_instances"`
			Errors     int `json:"error_instances"`
		}
		if err := json.Unmarshal(data, &counts); err != nil {
			t.Fatal(err)
		}
		fv, ok, err := (reports{}).ReadReportFile(p, data)
		if err != nil || !ok || fv.Format != FormatJavaResults {
			t.Fatalf("%s: ok %v, err %v, format %q", name, ok, err, fv.Format)
		}
		got := map[family.Outcome]int{}
		for _, v := range fv.Verdicts {
			got[v.Outcome]++
		}
		want := map[family.Outcome]int{family.Resolved: counts.Resolved, family.Unresolved: counts.Unresolved, family.EmptyPatch: counts.Empty, family.Error: counts.Errors}
		for o, n := range want {
			if got[o] != n {
				t.Errorf("%s: %d %s, the file says %d", name, got[o], o, n)
			}
		}
		folder := filepath.Dir(filepath.Dir(p))
		ffv, ok, err := (reports{}).ReadEvalFolder(folder)
		if err != nil || !ok || ffv.Format != FormatJavaResults || len(ffv.Verdicts) != len(fv.Verdicts) {
			t.Errorf("%s as a folder: ok %v, err %v, format %q, %d instances", name, ok, err, ffv.Format, len(ffv.Verdicts))
		}
	}
}

func TestInstanceIDOfHarnessID(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"jqlang/jq:pr-990001", "jqlang__jq-990001", true},
		{"fasterxml/jackson-dataformat-xml:pr-544", "fasterxml__jackson-dataformat-xml-544", true},
		{"mui/material-ui:pr-007", "mui__material-ui-7", true},
		{"jqlang__jq-1", "", false},
		{"a/b/c:pr-1", "", false},
		{"a/b:pr-x", "", false},
	} {
		got, ok := InstanceIDOfHarnessID(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: got %q %v, want %q %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
