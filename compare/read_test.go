package compare

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

func fixture(t *testing.T, rel string) string {
	t.Helper()
	return testenv.Fixtures(t, filepath.FromSlash(rel))
}

func readOne(t *testing.T, src Source) *Run {
	t.Helper()
	runs, err := Read(src, ReadOptions{})
	if err != nil {
		t.Fatalf("Read(%+v): %v", src, err)
	}
	if len(runs) != 1 {
		t.Fatalf("Read(%+v) gave %d runs, want 1", src, len(runs))
	}
	return runs[0]
}

func counts(r *Run) map[Verdict]int {
	m := map[Verdict]int{}
	for _, in := range r.Instances {
		m[in.Verdict]++
	}
	return m
}

func idsWith(r *Run, v Verdict) []string {
	var out []string
	for _, in := range r.Instances {
		if in.Verdict == v {
			out = append(out, in.ID)
		}
	}
	return out
}

// The counts below were checked by hand against the fixture files' lists.
func TestReadReportFixtures(t *testing.T) {
	tests := []struct {
		file   string
		kind   Kind
		label  string
		counts map[Verdict]int
		total  int
		warn   string
	}{
		{"reports/gold.fresh-verified.json", KindHarnessReport, "gold.fresh-verified", map[Verdict]int{Resolved: 500}, 500, ""},
		{"reports/gold.jest-gold.json", KindHarnessReport, "gold.jest-gold", map[Verdict]int{Resolved: 12, Error: 288}, 300, ""},
		{"reports/gold.seaborn-gold.json", KindHarnessReport, "gold.seaborn-gold", map[Verdict]int{Resolved: 22, Error: 2272}, 2294, ""},
		// An evaluation restricted to one instance of 300 predictions.
		{"reports/gold.validate-gold.json", KindHarnessReport, "gold.validate-gold", map[Verdict]int{Resolved: 1}, 1, "299 submitted ids lie outside"},
		{"reports/agentless.lite_eval_20_with_test_patch.json", KindHarnessReport, "agentless.lite_eval_20_with_test_patch", map[Verdict]int{Resolved: 4, Unresolved: 14, NotSubmitted: 282}, 300, ""},
		{"reports/swe-bench_lite__dev__kimi-k25-baseline.json", KindSBCLIReport, "kimi-k25-baseline", map[Verdict]int{Resolved: 4, Unresolved: 5, NotSubmitted: 14}, 23, ""},
		{"reports/swe-bench_lite__dev__opus-46-baseline.json", KindSBCLIReport, "opus-46-baseline", map[Verdict]int{Resolved: 8, Unresolved: 2, NotSubmitted: 13}, 23, ""},
		{"reports/swe-bench_lite__dev__partial-kimi-multiagent-reviewer.json", KindSBCLIReport, "partial-kimi-multiagent-reviewer", map[Verdict]int{Resolved: 3, Unresolved: 2, NotSubmitted: 18}, 23, ""},
		{"runs/deepseek-chat-lite-dev/summary-reports/deepseek__deepseek-chat.deepseek_chat_dev.json", KindHarnessReport, "deepseek__deepseek-chat.deepseek_chat_dev", map[Verdict]int{Resolved: 8, Unresolved: 15}, 23, ""},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			r := readOne(t, Source{Path: fixture(t, tt.file)})
			if r.Kind != tt.kind || r.Label != tt.label || r.Total != tt.total {
				t.Errorf("kind %s label %q total %d, want %s %q %d", r.Kind, r.Label, r.Total, tt.kind, tt.label, tt.total)
			}
			if got := counts(r); !reflect.DeepEqual(got, tt.counts) {
				t.Errorf("verdicts = %v, want %v", got, tt.counts)
			}
			if w := strings.Join(r.Warnings, "\n"); (tt.warn == "") != (w == "") || !strings.Contains(w, tt.warn) {
				t.Errorf("warnings = %q, want %q", w, tt.warn)
			}
			if tt.kind == KindSBCLIReport && r.Dataset != "swe-bench_lite:dev" {
				t.Errorf("dataset = %q, want swe-bench_lite:dev from the file name", r.Dataset)
			}
		})
	}
	r := readOne(t, Source{Path: fixture(t, "reports/agentless.lite_eval_20_with_test_patch.json"), Label: "agentless"})
	want := []string{"django__django-13710", "pytest-dev__pytest-5227", "scikit-learn__scikit-learn-13241", "scikit-learn__scikit-learn-25500"}
	if got := idsWith(r, Resolved); r.Label != "agentless" || !reflect.DeepEqual(got, want) {
		t.Errorf("label %q resolved %v, want agentless %v", r.Label, got, want)
	}
}

// TestCompareSBCLIReports compares the Lite dev sb-cli reports with partial submissions. By hand:
// kimi covers 9 instances (4 resolved), opus covers the same 9 plus pvlib-1707; on the 9, opus
// resolves kimi's 4 and sqlfluff-1625, -1733, -1763 (3 newly resolved, none regressed); both
// leave marshmallow-1359 and sqlfluff-1517 unresolved. McNemar: 2·(1/2)³ = 0.25.
func TestCompareSBCLIReports(t *testing.T) {
	runs, err := ReadAll([]Source{
		{Path: fixture(t, "reports/swe-bench_lite__dev__kimi-k25-baseline.json")},
		{Path: fixture(t, "reports/swe-bench_lite__dev__opus-46-baseline.json")},
	}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(runs, Options{Baseline: "kimi-k25-baseline"})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Pairs[0]
	if p.Common != 9 || len(p.AOnly) != 0 || !reflect.DeepEqual(p.BOnly, []string{"pvlib__pvlib-python-1707"}) {
		t.Errorf("common %d, a only %v, b only %v", p.Common, p.AOnly, p.BOnly)
	}
	if p.ResolvedA != 4 || p.ResolvedB != 7 || p.Both != 4 || p.Neither != 2 {
		t.Errorf("resolved %v → %v, both %d neither %d; want 4 → 7, 4, 2", p.ResolvedA, p.ResolvedB, p.Both, p.Neither)
	}
	wantNewly := []string{"sqlfluff__sqlfluff-1625", "sqlfluff__sqlfluff-1733", "sqlfluff__sqlfluff-1763"}
	if !reflect.DeepEqual(p.Newly, wantNewly) || len(p.Regressed) != 0 {
		t.Errorf("newly %v regressed %v, want %v and none", p.Newly, p.Regressed, wantNewly)
	}
	if p.McNemarP != 0.25 || math.Abs(*p.Difference-3.0/9) > 1e-12 {
		t.Errorf("p = %v, difference %v; want 0.25, 3/9", p.McNemarP, *p.Difference)
	}
	if res.Gate.Regression || res.Gate.Verdicts[0].Outcome != OutcomeNoChange {
		t.Errorf("gate = %+v, want no significant change", res.Gate)
	}
}

var deepseekResolved = []string{"marshmallow-code__marshmallow-1343", "marshmallow-code__marshmallow-1359", "pydicom__pydicom-1256",
	"pydicom__pydicom-1694", "sqlfluff__sqlfluff-1733", "sqlfluff__sqlfluff-2419"}

func TestReadMiniWithHarnessLogs(t *testing.T) {
	out := fixture(t, "runs/deepseek-chat-lite-dev/output")
	logs := fixture(t, "runs/deepseek-chat-lite-dev/eval-logs")
	r := readOne(t, Source{Path: out, EvalLogs: logs})
	if r.Kind != KindMini || r.Label != "output" || r.Model != "deepseek/deepseek-chat" {
		t.Errorf("kind %s label %q model %q", r.Kind, r.Label, r.Model)
	}
	if got := counts(r); !reflect.DeepEqual(got, map[Verdict]int{Resolved: 6, Unresolved: 17}) {
		t.Errorf("verdicts = %v, want 6 resolved, 17 unresolved (the fixture's eval-logs)", got)
	}
	if got := idsWith(r, Resolved); !reflect.DeepEqual(got, deepseekResolved) {
		t.Errorf("resolved = %v, want %v", got, deepseekResolved)
	}
	total, steps := 0.0, 0
	for _, in := range r.Instances {
		if in.ExitStatus != "Submitted" {
			t.Errorf("%s exit status %q, want Submitted", in.ID, in.ExitStatus)
		}
		total += *in.Cost
		steps += *in.Steps
	}
	// The sum of the 23 trajectories' info.model_stats.instance_cost and api_calls.
	if !r.HasCost || math.Abs(total-1.461844636) > 1e-6 || steps != 1961 {
		t.Errorf("cost %v steps %d (has cost %v), want 1.461844636 and 1961", total, steps, r.HasCost)
	}
	// The fixture's exit-status file has 4 ids misspelt ("asteroid"): reported, left out.
	if w := strings.Join(r.Warnings, "\n"); !strings.Contains(w, "4 ids with neither a prediction nor a trajectory") || !strings.Contains(w, "pylint-dev__asteroid-1196") {
		t.Errorf("warnings = %q", w)
	}

	_, err := Read(Source{Path: out}, ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "--eval-logs") || !strings.Contains(err.Error(), out) {
		t.Errorf("mini output without logs: err = %v, want one naming the input and --eval-logs", err)
	}
}

// TestCompareMiniWithRerunReport compares the mini-swe-agent run (graded by its eval-logs) with
// the harness report of a rerun of the same model: by hand, the rerun resolves astroid-1196,
// -1333 and -1866 in addition and loses sqlfluff-1733; McNemar 2·(1+4)/16 = 0.625.
func TestCompareMiniWithRerunReport(t *testing.T) {
	runs, err := ReadAll([]Source{
		{Label: "mini", Path: fixture(t, "runs/deepseek-chat-lite-dev/output"), EvalLogs: fixture(t, "runs/deepseek-chat-lite-dev/eval-logs")},
		{Label: "rerun", Path: fixture(t, "runs/deepseek-chat-lite-dev/summary-reports/deepseek__deepseek-chat.deepseek_chat_dev_rerun.json")},
	}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Pairs[0]
	wantNewly := []string{"pylint-dev__astroid-1196", "pylint-dev__astroid-1333", "pylint-dev__astroid-1866"}
	if p.Common != 23 || !reflect.DeepEqual(p.Newly, wantNewly) || !reflect.DeepEqual(p.Regressed, []string{"sqlfluff__sqlfluff-1733"}) {
		t.Errorf("common %d newly %v regressed %v", p.Common, p.Newly, p.Regressed)
	}
	if p.McNemarP != 0.625 || p.ResolvedA != 6 || p.ResolvedB != 8 {
		t.Errorf("p %v resolved %v → %v, want 0.625, 6 → 8", p.McNemarP, p.ResolvedA, p.ResolvedB)
	}
}

func TestReadReportFolderAndSingleReport(t *testing.T) {
	r := readOne(t, Source{Path: fixture(t, "runs/deepseek-chat-lite-dev/eval-logs")})
	if r.Kind != KindReportDir || len(r.Instances) != 23 || !reflect.DeepEqual(idsWith(r, Resolved), deepseekResolved) {
		t.Errorf("kind %s, %d instances, resolved %v", r.Kind, len(r.Instances), idsWith(r, Resolved))
	}
	one := readOne(t, Source{Path: fixture(t, "runs/deepseek-chat-lite-dev/eval-logs/pydicom__pydicom-1256/report.json")})
	if len(one.Instances) != 1 || one.Instances[0].ID != "pydicom__pydicom-1256" || one.Instances[0].Verdict != Resolved {
		t.Errorf("single report = %+v", one.Instances)
	}
}

func TestReadExperimentsResults(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "evaluation", "lite", "20240402_sweagent_x")
	writeFile(t, filepath.Join(sub, "preds.json"), `{}`)
	writeJSON(t, filepath.Join(sub, "results", "results.json"), map[string][]string{
		"resolved": {"o__r-1", "o__r-2"}, "no_generation": {"o__r-3"}, "no_logs": {"o__r-4"},
	})
	for _, path := range []string{sub, filepath.Join(sub, "results", "results.json")} {
		r := readOne(t, Source{Path: path})
		if r.Kind != KindExperiments || r.Label != "20240402_sweagent_x" || r.Total != 300 || !r.ImpliedUnresolved || r.Dataset != "princeton-nlp/SWE-bench_Lite:test" {
			t.Errorf("%s: kind %s label %q total %d implied %v dataset %q", path, r.Kind, r.Label, r.Total, r.ImpliedUnresolved, r.Dataset)
		}
		if got := counts(r); !reflect.DeepEqual(got, map[Verdict]int{Resolved: 2, EmptyPatch: 1, Error: 1}) {
			t.Errorf("verdicts = %v", got)
		}
	}
	old := filepath.Join(root, "old.json")
	writeJSON(t, old, map[string][]string{"resolved": {"o__r-1"}, "no_generation": {}, "generated": {"o__r-1", "o__r-2"}, "no_apply": {"o__r-2"}, "applied": {"o__r-1"}})
	r := readOne(t, Source{Path: old})
	if in, _ := r.Get("o__r-2"); in == nil || in.Verdict != Error || in.Detail != "patch did not apply" {
		t.Errorf("older results.json: o__r-2 = %+v, want an error (patch did not apply)", in)
	}
}

func TestReadUnrecognised(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, path, want string
	}{
		{"unknown JSON", writeFile(t, filepath.Join(dir, "x.json"), `{"foo": 1}`), "none of the known keys"},
		{"not JSON", writeFile(t, filepath.Join(dir, "notes.txt"), "hello"), "not a JSON object"},
		{"a list", writeFile(t, filepath.Join(dir, "preds.jsonl.json"), `[{"instance_id": "a"}]`), "not a JSON object"},
		{"empty folder", mkdir(t, filepath.Join(dir, "empty")), "none of the files of a known form"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(Source{Path: tt.path}, ReadOptions{})
			if !errors.Is(err, ErrUnrecognised) || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "expected") {
				t.Errorf("err = %v, want ErrUnrecognised naming %s, %q and what was expected", err, tt.path, tt.want)
			}
		})
	}
	if _, err := Read(Source{Path: filepath.Join(dir, "missing")}, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing path: err = %v", err)
	}
	v3 := writeFile(t, filepath.Join(dir, "v3.json"), `{"total_instances": 1, "resolved_ids": ["a"], "schema_version": 3}`)
	if _, err := Read(Source{Path: v3}, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "schema_version 3") {
		t.Errorf("schema_version 3: err = %v", err)
	}
	bad := filepath.Join(dir, "badlogs")
	writeFile(t, filepath.Join(bad, "o__r-1", "report.json"), `{"o__r-1": {"resolved": true}}`)
	writeFile(t, filepath.Join(bad, "o__r-2", "report.json"), `{"o__r-2": `)
	if _, err := Read(Source{Path: bad}, ReadOptions{}); err == nil || !strings.Contains(err.Error(), filepath.Join(bad, "o__r-2", "report.json")) {
		t.Errorf("torn report.json: err = %v, want one naming it", err)
	}
}

func TestParseSource(t *testing.T) {
	dir := t.TempDir()
	odd := mkdir(t, filepath.Join(dir, "a=b"))
	tests := []struct {
		arg  string
		want Source
	}{
		{"runs/x", Source{Path: "runs/x"}},
		{"base=runs/x", Source{Label: "base", Path: "runs/x"}},
		{odd, Source{Path: odd}},
		{"=runs/x", Source{Path: "=runs/x"}},
	}
	for _, tt := range tests {
		if got := ParseSource(tt.arg); got != tt.want {
			t.Errorf("ParseSource(%q) = %+v, want %+v", tt.arg, got, tt.want)
		}
	}
}

// runDir builds a swebench-run output directory with the results and eval packages.
type runDir struct {
	t     *testing.T
	path  string
	d     *results.Dir
	model string
	runID string
}

func newRunDir(t *testing.T, path string, selected int) *runDir {
	t.Helper()
	d, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	rd := &runDir{t: t, path: path, d: d, model: "openai/gpt-x", runID: "run-1"}
	ds, _ := json.Marshal(dataset.Manifest{Source: dataset.Source{Kind: "named", Name: "lite-dev", HFRepo: "princeton-nlp/SWE-bench_Lite", Split: "dev", ResolvedSHA: "6ec7bb89b9342f664a54a6e0a6ea6501d3437cc2"}, Instances: selected})
	man := results.Manifest{Tool: "swebench-run", RunID: rd.runID, Model: rd.model, Dataset: ds, Instances: selected,
		Config: map[string]any{"model": map[string]any{"model_name": rd.model}, "agent": map[string]any{"step_limit": 250}}, Created: time.Unix(0, 0).UTC()}
	if err := d.WriteJSON(results.ManifestFile, man); err != nil {
		t.Fatal(err)
	}
	return rd
}

// record appends an attempt; patch nil writes no prediction.
func (rd *runDir) record(id, status, category string, cost float64, steps int, patch *string) {
	rd.t.Helper()
	rec := results.Record{InstanceID: id, ExitStatus: status, Category: category, ModelName: rd.model, Cost: cost, Steps: steps,
		Tokens: results.Tokens{Input: 100 * steps, Output: 10 * steps}, Queued: 1000, End: 1000 + float64(10*steps)}
	var pred *results.Prediction
	if patch != nil {
		rec.PatchBytes = len(*patch)
		pred = &results.Prediction{ModelNameOrPath: rd.model, InstanceID: id, ModelPatch: *patch}
	}
	if err := rd.d.Record(rec, pred); err != nil {
		rd.t.Fatal(err)
	}
}

func (rd *runDir) report(id string, resolved bool) {
	rd.t.Helper()
	data, err := eval.MarshalReport(eval.InstanceReport{InstanceID: id, PatchExists: true, PatchSuccessfullyApplied: true, Resolved: resolved})
	if err != nil {
		rd.t.Fatal(err)
	}
	writeFile(rd.t, filepath.Join(rd.path, "eval", id, "report.json"), string(data))
}

func strp(s string) *string { return &s }

func TestReadRunDir(t *testing.T) {
	rd := newRunDir(t, filepath.Join(t.TempDir(), "r1"), 8)
	const model, infra = results.CategoryModel, results.CategoryInfrastructure
	diff := strp("diff --git a/x b/x\n")
	rd.record("django__django-1", "EngineDown", infra, 0.5, 2, nil)
	rd.record("django__django-1", "Submitted", model, 1.0, 7, diff)
	rd.report("django__django-1", true)
	rd.record("django__django-2", "Submitted", model, 0.25, 3, diff)
	rd.report("django__django-2", false)
	rd.record("sympy__sympy-3", "LimitsExceeded", model, 3, 250, strp(""))
	rd.record("sympy__sympy-4", "Submitted", model, 0.1, 4, diff)
	writeFile(t, filepath.Join(rd.path, "eval", "sympy__sympy-4", "run_instance.log"), "patch apply failed\n")
	rd.record("sympy__sympy-5", "ContainerDied", infra, 0.2, 1, nil)
	// Cut by the run-wide budget (issue 20): status RunBudgetExhausted in category
	// "unfinished"; any category but "model" leaves the instance unfinished.
	rd.record("astropy__astropy-6", "RunBudgetExhausted", "unfinished", 0.3, 2, nil)
	rd.record("astropy__astropy-7", "Submitted", model, 0.4, 5, diff)
	preds := map[string]eval.Prediction{}
	for id, p := range rd.d.Predictions() {
		patch := p.ModelPatch
		preds[id] = eval.Prediction{InstanceID: id, ModelNameOrPath: p.ModelNameOrPath, ModelPatch: &patch}
	}
	rep := eval.BuildRunReport(nil, nil, nil)
	rep.ErrorIDs, rep.ErrorReasons = []string{"sympy__sympy-4"}, map[string]string{"sympy__sympy-4": "patch_apply_failed: hunk 1 failed"}
	rep.ResolvedIDs, rep.UnresolvedIDs, rep.EmptyPatchIDs = []string{"django__django-1"}, []string{"django__django-2"}, []string{"sympy__sympy-3"}
	// An instance of the evaluated selection the ledger has no record of.
	rep.IncompleteIDs = []string{"astropy__astropy-8"}
	if _, err := eval.WriteRunReport(filepath.Join(rd.path, "eval"), rd.model, rd.runID, rep); err != nil {
		t.Fatal(err)
	}

	r := readOne(t, Source{Path: rd.path})
	if r.Kind != KindRunDir || r.Model != "openai/gpt-x" || r.Dataset != "princeton-nlp/SWE-bench_Lite:dev" || r.DatasetRevision != "6ec7bb89b9342f664a54a6e0a6ea6501d3437cc2" || len(r.ConfigHash) != 12 {
		t.Errorf("run = kind %s model %q dataset %q@%q hash %q", r.Kind, r.Model, r.Dataset, r.DatasetRevision, r.ConfigHash)
	}
	want := map[string]struct {
		v      Verdict
		detail string
	}{
		"django__django-1":   {Resolved, ""},
		"django__django-2":   {Unresolved, ""},
		"sympy__sympy-3":     {EmptyPatch, ""},
		"sympy__sympy-4":     {Error, "patch_apply_failed: hunk 1 failed"},
		"sympy__sympy-5":     {NotSubmitted, "unfinished: ContainerDied"},
		"astropy__astropy-6": {NotSubmitted, "unfinished: RunBudgetExhausted"},
		"astropy__astropy-7": {NotSubmitted, "not evaluated"},
		"astropy__astropy-8": {NotSubmitted, "no prediction"},
	}
	if len(r.Instances) != len(want) {
		t.Errorf("%d instances, want %d", len(r.Instances), len(want))
	}
	for id, w := range want {
		in, ok := r.Get(id)
		if !ok || in.Verdict != w.v || in.Detail != w.detail {
			t.Errorf("%s = %+v, want %s %q", id, in, w.v, w.detail)
		}
	}
	in, _ := r.Get("django__django-1")
	if *in.Cost != 1.5 || *in.Steps != 7 || in.Tokens.Input != 900 || *in.Seconds != 70 || in.ExitStatus != "Submitted" || in.Repo != "django/django" {
		t.Errorf("django-1 metrics = %+v, want cost 1.5 over both attempts, the last attempt's 7 steps and 70 s", in)
	}
	if !r.HasAttempts || in.Attempts != 2 {
		t.Errorf("django-1: %d attempts (recorded: %v), want 2", in.Attempts, r.HasAttempts)
	}
	// The input shows its attempts: 8 over the 7 instances of the ledger, django-1 retried.
	res, err := Compare([]*Run{r}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Inputs[0].Attempts; a == nil || a.Total != 8 || strings.Join(a.Retried, ",") != "django__django-1" {
		t.Errorf("input attempts = %+v, want 8 in all, django__django-1 retried", a)
	}
	var csv strings.Builder
	if err := WriteCSV(&csv, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), ",false,2\n") || !strings.Contains(csv.String(), "django__django-2,django/django,r1,r1,,unresolved,Submitted,,0.250000,3,300,30,30.000,false,1\n") {
		t.Errorf("CSV lacks the attempts per instance:\n%s", csv.String())
	}
	w := strings.Join(r.Warnings, "\n")
	if !strings.Contains(w, "1 finished instances are not evaluated") || !strings.Contains(w, "1 of the 8 selected instances have no record yet") {
		t.Errorf("warnings = %q", w)
	}
	if _, err := Read(Source{Path: filepath.Join(rd.path, "run.json")}, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "pass the folder") {
		t.Errorf("run.json given as a file: err = %v", err)
	}
}

func TestReadRunDirUnevaluated(t *testing.T) {
	rd := newRunDir(t, filepath.Join(t.TempDir(), "r2"), 2)
	rd.record("o__r-1", "Submitted", results.CategoryModel, 1, 3, strp("diff"))
	rd.record("o__r-2", "Interrupted", results.CategoryInfrastructure, 1, 3, nil)
	_, err := Read(Source{Path: rd.path}, ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "not evaluated") || !strings.Contains(err.Error(), "swebench-run eval") || !strings.Contains(err.Error(), rd.path) {
		t.Errorf("err = %v, want one saying the run is not evaluated and how to evaluate it", err)
	}
	runs, err := Read(Source{Path: rd.path}, ReadOptions{AllowUnevaluated: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := counts(runs[0]); !reflect.DeepEqual(got, map[Verdict]int{NotSubmitted: 2}) {
		t.Errorf("verdicts = %v, want 2 not submitted", got)
	}
}

func TestReadSweep(t *testing.T) {
	root := filepath.Join(t.TempDir(), "nightly-1")
	s := &Sweep{SchemaVersion: 1, Name: "nightly-1", Created: time.Date(2026, 8, 12, 2, 0, 0, 0, time.UTC), Cells: []Cell{
		{Name: "a-r1", Variant: "a", Dir: "a-r1", Model: "openai/gpt-x", ConfigHash: "aaaaaaaaaaaa", Dataset: "lite:dev", DatasetRevision: "rev", Repeat: 1},
		{Name: "a-r2", Variant: "a", Dir: "a-r2", Model: "openai/gpt-x", ConfigHash: "aaaaaaaaaaaa", Dataset: "lite:dev", DatasetRevision: "rev", Repeat: 2},
		{Name: "b-r1", Variant: "b", Dir: "cells/b", Model: "openai/gpt-y", ConfigHash: "bbbbbbbbbbbb", Dataset: "lite:dev", DatasetRevision: "rev", Repeat: 1},
		{Name: "c-r1", Variant: "c", Dir: "c-r1", Model: "openai/gpt-z", ConfigHash: "cccccccccccc", Dataset: "lite:dev", DatasetRevision: "rev", Repeat: 1},
	}}
	if err := WriteSweep(root, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSweep(root)
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("ReadSweep = %+v, %v; want what was written", got, err)
	}
	diff := strp("diff")
	for _, c := range []struct {
		dir      string
		resolved []bool
	}{{"a-r1", []bool{true, false}}, {"a-r2", []bool{true, true}}, {"cells/b", []bool{false, false}}} {
		rd := newRunDir(t, filepath.Join(root, c.dir), 2)
		for k, res := range c.resolved {
			id := []string{"o__r-1", "o__r-2"}[k]
			rd.record(id, "Submitted", results.CategoryModel, 1, 2, diff)
			rd.report(id, res)
		}
	}
	runs, err := ReadAll([]Source{{Path: root}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range runs {
		labels = append(labels, r.Label)
		if r.Kind != KindSweepCell || r.Sweep != "nightly-1" {
			t.Errorf("%s: kind %s sweep %q", r.Label, r.Kind, r.Sweep)
		}
	}
	if want := []string{"a#1", "a#2", "b", "c"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels = %v, want %v", labels, want)
	}
	if r := runs[2]; r.Model != "openai/gpt-y" || r.ConfigHash != "bbbbbbbbbbbb" || r.Repeat != 1 {
		t.Errorf("cell b = model %q hash %q repeat %d: sweep.json's record wins", r.Model, r.ConfigHash, r.Repeat)
	}
	if w := strings.Join(runs[3].Warnings, ""); !strings.Contains(w, "has not started") {
		t.Errorf("cell c warnings = %q", w)
	}
	res, err := Compare(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range res.Inputs {
		names = append(names, in.Name)
	}
	if !reflect.DeepEqual(names, []string{"a", "b", "c"}) || res.Inputs[0].Repeats != 2 || !reflect.DeepEqual(res.Inputs[0].Flaky, []string{"o__r-2"}) {
		t.Errorf("inputs %v, a: %d repeats, flaky %v", names, res.Inputs[0].Repeats, res.Inputs[0].Flaky)
	}
	// Labelled, the cells are prefixed.
	runs, err = ReadAll([]Source{{Path: root, Label: "tonight"}}, ReadOptions{})
	if err != nil || runs[0].Label != "tonight/a#1" || runs[0].Group != "tonight/a" {
		t.Errorf("labelled sweep: %v %q %q", err, runs[0].Label, runs[0].Group)
	}
}

func TestSweepValidation(t *testing.T) {
	good := func() Sweep {
		return Sweep{SchemaVersion: 1, Name: "s", Cells: []Cell{{Name: "a", Variant: "v", Dir: "a", Repeat: 1}, {Name: "b", Variant: "v", Dir: "b", Repeat: 2}}}
	}
	tests := []struct {
		name   string
		change func(*Sweep)
		want   string
	}{
		{"schema", func(s *Sweep) { s.SchemaVersion = 3 }, "schema_version is 3"},
		{"no name", func(s *Sweep) { s.Name = "" }, "name is empty"},
		{"no cells", func(s *Sweep) { s.Cells = nil }, "cells is empty"},
		{"duplicate name", func(s *Sweep) { s.Cells[1].Name = "a" }, `cells[1]: duplicate cell name "a"`},
		{"absolute dir", func(s *Sweep) { s.Cells[0].Dir = "/tmp/x" }, "must be a relative path"},
		{"escaping dir", func(s *Sweep) { s.Cells[0].Dir = "../x" }, "must be a relative path"},
		{"shared dir", func(s *Sweep) { s.Cells[1].Dir = "a/" }, `also the dir of cell "a"`},
		{"repeat 0", func(s *Sweep) { s.Cells[0].Repeat = 0 }, "repeats count from 1"},
		{"repeat twice", func(s *Sweep) { s.Cells[1].Repeat = 1 }, "has repeat 1 twice"},
		{"no variant", func(s *Sweep) { s.Cells[0].Variant = "" }, "variant is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good()
			tt.change(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if err := WriteSweep(t.TempDir(), &s); err == nil {
				t.Errorf("WriteSweep accepted an invalid sweep")
			}
		})
	}
	s := good()
	if err := s.Validate(); err != nil {
		t.Errorf("valid sweep: %v", err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, SweepFile), `{"schema_version": 1, "name": "s", "cells": [], "colour": "red"}`)
	if _, err := ReadSweep(dir); err == nil || !strings.Contains(err.Error(), "colour") || !strings.Contains(err.Error(), filepath.Join(dir, SweepFile)) {
		t.Errorf("unknown key: err = %v", err)
	}
}

func TestConfigHash(t *testing.T) {
	a := ConfigHash(map[string]any{"model": map[string]any{"name": "x", "temperature": 0.0}, "agent": map[string]any{"step_limit": 250}})
	b := ConfigHash(map[string]any{"agent": map[string]any{"step_limit": 250}, "model": map[string]any{"temperature": 0.0, "name": "x"}})
	c := ConfigHash(map[string]any{"agent": map[string]any{"step_limit": 250}, "model": map[string]any{"temperature": 0.7, "name": "x"}})
	// The launcher carries commands as exec does: a run made before the key existed hashes alike.
	withLauncher := map[string]any{"agent": map[string]any{"step_limit": 250}, "model": map[string]any{"temperature": 0.0, "name": "x"}, "environment": map[string]any{"launcher": "auto"}}
	without := map[string]any{"agent": map[string]any{"step_limit": 250}, "model": map[string]any{"temperature": 0.0, "name": "x"}, "environment": map[string]any{}}
	if ConfigHash(withLauncher) != ConfigHash(without) || withLauncher["environment"].(map[string]any)["launcher"] != "auto" {
		t.Errorf("environment.launcher changes the config hash, or ConfigHash changed its argument")
	}
	// environment.history changes what the agent reads: past and none are their own settings;
	// as-is is what runs made before the key saw.
	hist := func(mode string) string {
		return ConfigHash(map[string]any{"agent": map[string]any{"step_limit": 250}, "model": map[string]any{"temperature": 0.0, "name": "x"}, "environment": map[string]any{"launcher": "auto", "history": mode}})
	}
	if hist("past") == ConfigHash(without) || hist("none") == hist("past") || hist("none") == ConfigHash(without) || hist("as-is") != ConfigHash(without) {
		t.Errorf("history hashes: past %s, none %s, as-is %s, before the key %s; want past and none apart, as-is as before", hist("past"), hist("none"), hist("as-is"), ConfigHash(without))
	}
	if a != b || a == c || len(a) != 12 || ConfigHash(nil) != "" {
		t.Errorf("hashes %q %q %q: key order must not matter, values must", a, b, c)
	}
}

func TestUniqueLabels(t *testing.T) {
	runs := []*Run{{Label: "x"}, {Label: "y"}, {Label: "x"}, {Label: "x"}}
	uniqueLabels(runs)
	var got []string
	for _, r := range runs {
		got = append(got, r.Label)
	}
	sort.Strings(got)
	if want := []string{"x", "x (2)", "x (3)", "y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("labels = %v, want %v", got, want)
	}
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
}

func mkdir(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
