package compare

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// Each family's harness folder, as the harness writes it and its leaderboard publishes it, is read
// in its layout, which the form column and report_layouts name, as SWE-bench's report.json
// layouts are: Multi-SWE-bench's workdir (family/multiswebench/testdata/harness, graded by the
// harness's gen_report.py) and its final_report.json alone (read as its harness ids mapped to
// org__repo-N, not as the SWE-bench harness's run report whose keys it shares), the SWE-bench-java
// submission multi-swe-bench/experiments keeps (results/results.json: not SWE-bench's
// experiments results.json), SWE-smith's published run_evaluation folder (not sb-cli's layout),
// SWE-bench Pro's published eval_results.json and SWE-PolyBench's published submission; and
// SWE-bench's harness logs, unchanged.
func TestReadHarnessFolders(t *testing.T) {
	msb := filepath.Join(testenv.RepoRoot(t), "family", "multiswebench", "testdata", "harness", "workdir")
	java := filepath.Dir(filepath.Dir(fixture(t, "more-datasets/multi-swe-bench/legacy_swe-bench-java_experiments/evaluation/java/verified/20240825_SWE-agent_deepseek-chat-v2/results/results.json")))
	smith := filepath.Dir(fixture(t, "more-datasets/swe-smith/tests/test_logs/run_evaluation/report.json"))
	for _, id := range []string{"getmoto__moto.694ce1f4.pr_7331", "pandas-dev__pandas.95280573.pr_53652", "pandas-dev__pandas.95280573.pr_53856", "pydantic__pydantic.acb0f10f.pr_8316"} {
		fixture(t, "more-datasets/swe-smith/tests/test_logs/run_evaluation/"+id+"/report.json")
	}
	pro := fixture(t, "more-datasets/swe-bench-pro/traj/gpt-4o-paper/eval_results.json")
	poly := filepath.Dir(filepath.Dir(fixture(t, "more-datasets/swe-polybench/evaluation/PBVerified/20260430_kodah_gpt-5-mini/logs/angular__angular-37561_result.json")))
	for _, c := range []struct {
		name, path string
		kind       Kind
		layouts    map[string]int
		want       map[Verdict]int
		form       string
	}{
		{"Multi-SWE-bench workdir", msb, KindFamilyReport, map[string]int{"Multi-SWE-bench workdir": 2},
			map[Verdict]int{Resolved: 1, Unresolved: 1}, "family_report (Multi-SWE-bench workdir layout)"},
		{"final_report.json", filepath.Join(msb, "final_report.json"), KindFamilyReport, map[string]int{"Multi-SWE-bench final_report.json": 2},
			map[Verdict]int{Resolved: 1, Unresolved: 1}, "family_report (Multi-SWE-bench final_report.json layout)"},
		{"SWE-bench-java submission", java, KindFamilyReport, map[string]int{"SWE-bench-java results.json": 91},
			map[Verdict]int{Resolved: 9, Unresolved: 74, EmptyPatch: 7, Error: 1}, "family_report (SWE-bench-java results.json layout)"},
		{"SWE-bench-java results.json", filepath.Join(java, "results", "results.json"), KindFamilyReport, map[string]int{"SWE-bench-java results.json": 91},
			map[Verdict]int{Resolved: 9, Unresolved: 74, EmptyPatch: 7, Error: 1}, "family_report (SWE-bench-java results.json layout)"},
		{"SWE-smith run_evaluation", smith, KindFamilyReport, map[string]int{"SWE-smith run_evaluation": 53},
			map[Verdict]int{Resolved: 3, Unresolved: 50}, "family_report (SWE-smith run_evaluation layout)"},
		{"SWE-bench Pro eval_results.json", pro, KindFamilyReport, map[string]int{"SWE-bench Pro eval_results.json": 619},
			map[Verdict]int{Resolved: 36, Unresolved: 583}, "family_report (SWE-bench Pro eval_results.json layout)"},
		{"SWE-PolyBench submission", poly, KindFamilyReport, map[string]int{"SWE-PolyBench submission": 382},
			map[Verdict]int{Resolved: 107, Unresolved: 226, EmptyPatch: 49}, "family_report (SWE-PolyBench submission layout)"},
		{"SWE-bench harness logs", fixture(t, "runs/deepseek-chat-lite-dev/eval-logs"), KindReportDir, map[string]int{"harness": 23},
			map[Verdict]int{Resolved: 6, Unresolved: 17}, "report_dir (harness layout)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := readOne(t, Source{Path: c.path})
			if r.Kind != c.kind || !reflect.DeepEqual(r.ReportLayouts, c.layouts) {
				t.Errorf("kind %s, layouts %v; want %s, %v", r.Kind, r.ReportLayouts, c.kind, c.layouts)
			}
			if got := counts(r); !reflect.DeepEqual(got, c.want) {
				t.Errorf("verdicts %v, want %v", got, c.want)
			}
			if got := kindsOf(Input{Runs: []RunInfo{{Kind: r.Kind, ReportLayouts: r.ReportLayouts}}}); got != c.form {
				t.Errorf("form %q, want %q", got, c.form)
			}
		})
	}
	r := readOne(t, Source{Path: msb})
	if in, _ := r.Get("jqlang__jq-990002"); in == nil || in.FamilyLayout != "Multi-SWE-bench workdir" || filepath.Base(in.Log) != "fix-patch-run.log" || len(in.Tests) == 0 {
		t.Errorf("jqlang__jq-990002: %+v", in)
	}
}

// A Multi-SWE-bench harness folder compared with this tool's evaluation of the same predictions
// in its own layout (<instance_id>/ folders and final_report.json): the same instances, no flips.
func TestCompareHarnessWorkdirWithOurLayout(t *testing.T) {
	harness := filepath.Join(testenv.RepoRoot(t), "family", "multiswebench", "testdata", "harness", "workdir")
	ours := t.TempDir()
	for _, n := range []string{"990001", "990002"} {
		for _, f := range []string{"fix.patch", "fix-patch-run.log", "report.json"} {
			data, err := os.ReadFile(filepath.Join(harness, "jqlang", "jq", "evals", "pr-"+n, f))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(ours, "jqlang__jq-"+n, f), string(data))
		}
	}
	data, err := os.ReadFile(filepath.Join(harness, "final_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ours, "final_report.json"), string(data))
	runs, err := ReadAll([]Source{{Label: "ours", Path: ours}, {Label: "harness", Path: harness}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 1 {
		t.Fatalf("pairs %+v", res.Pairs)
	}
	if p := res.Pairs[0]; p.Common != 2 || len(p.AOnly)+len(p.BOnly) != 0 || len(p.Newly)+len(p.Regressed) != 0 || p.Both != 1 || p.Neither != 1 {
		t.Errorf("pair %+v, want 2 common instances, one resolved by both, no flips", p)
	}
	if got := runs[0].ReportLayouts; !reflect.DeepEqual(got, map[string]int{"Multi-SWE-bench final_report.json": 2}) {
		t.Errorf("our layout: %v", got)
	}
}
