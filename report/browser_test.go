package report_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/report"
	"github.com/swebench-run/swebench-run/report/reporttest"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/browsertest"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// fixtureRun is the real mini-swe-agent run on SWE-bench Lite dev with its harness logs.
func fixtureRun(t *testing.T) (out, logs, split string) {
	t.Helper()
	return testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output"),
		testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "eval-logs"),
		testenv.Fixtures(t, "datasets", "SWE-bench_Lite.dev.parquet")
}

func problems(t *testing.T, split string) map[string]string {
	t.Helper()
	loaded, err := dataset.Load(context.Background(), split, dataset.LoadOptions{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, in := range loaded.Instances {
		out[in.InstanceID] = in.ProblemStatement
	}
	return out
}

// The static report of the fixture mini-swe-agent run, opened from file:// in Chromium: no
// console errors; the overview's figures equal compare's and stats'; a word only one trajectory
// holds finds that instance; a filter and a sort work; an instance page shows the diff and the
// per-test verdicts of report.json; the compare page says one input has nothing to compare. A
// screenshot of each page is kept.
func TestReportFixtureInBrowser(t *testing.T) {
	out, logs, split := fixtureRun(t)
	b := browsertest.Start(t)
	srcs := []compare.Source{{Path: out, EvalLogs: logs}}
	rep, err := report.Load(context.Background(), srcs, report.Options{Dataset: split, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	st, err := rep.Write(context.Background(), site)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %d files, %d bytes, %d instance files (%d bytes), index %d bytes in %d shards",
		st.Files, st.Bytes, st.InstanceFiles, st.InstanceBytes, st.IndexBytes, st.IndexShards)
	runs, err := compare.ReadAll(srcs, compare.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := compare.Compare(runs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := results.ComputeStats(out, eval.ReportVerdict)
	if err != nil {
		t.Fatal(err)
	}

	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	reporttest.CheckOverview(t, p, res)
	reporttest.CheckStats(t, p, 0, stats)
	p.Screenshot("overview")

	trajs := reporttest.Trajectories(t, out)
	word, id := reporttest.UniqueWord(t, trajs, problems(t, split))
	t.Logf("searching %q, only in the trajectory of %s", word, id)
	reporttest.CheckSearchUnique(t, p, word, id)
	p.Screenshot("search")
	// The problem statement is searchable too: a word of one problem's title.
	if got := reporttest.Search(t, p, "fuentes"); len(got) != 1 || got[0] != "pvlib__pvlib-python-1072" {
		t.Errorf("searching fuentes finds %v, want [pvlib__pvlib-python-1072]", got)
	}
	if got := reporttest.Search(t, p, "astroid-19"); len(got) != 1 || got[0] != "pylint-dev__astroid-1978" {
		t.Errorf("searching an id part finds %v", got)
	}

	reporttest.CheckFilterAndSort(t, p, "R", int(res.Inputs[0].Resolved), "cost")
	p.Screenshot("instances")

	const inst = "marshmallow-code__marshmallow-1343"
	reporttest.CheckInstance(t, p, inst, 0, filepath.Join(logs, inst, "report.json"), reporttest.Patch(t, filepath.Join(out, "preds.json"), inst))
	p.Screenshot("instance")
	// An unresolved instance: failing tests are listed as failures.
	const failed = "pvlib__pvlib-python-1072"
	reporttest.CheckInstance(t, p, failed, 0, filepath.Join(logs, failed, "report.json"), reporttest.Patch(t, filepath.Join(out, "preds.json"), failed))

	reporttest.Goto(t, p, "#/compare", `document.querySelector('h1') && document.querySelector('h1').textContent === 'Compare'`, "the compare page")
	p.Screenshot("compare")
	reporttest.NoConsoleErrors(t, p)
}

// Two inputs: the fixture run against a harness run report of another model on the same split.
// The compare page lists the flips compare finds, and an instance opens side by side.
func TestReportCompareInBrowser(t *testing.T) {
	out, logs, split := fixtureRun(t)
	reports := testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "summary-reports")
	matches, _ := filepath.Glob(filepath.Join(reports, "*.json"))
	if len(matches) == 0 {
		t.Fatal("no summary reports in the fixture")
	}
	b := browsertest.Start(t)
	srcs := []compare.Source{{Label: "deepseek", Path: out, EvalLogs: logs}, {Label: "other", Path: matches[0]}, {Label: "mini-again", Path: out, EvalLogs: logs}}
	rep, err := report.Load(context.Background(), srcs, report.Options{Dataset: split, Baseline: "deepseek"})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	runs, _ := compare.ReadAll(srcs, compare.ReadOptions{})
	res, err := compare.Compare(runs, compare.Options{Baseline: "deepseek"})
	if err != nil {
		t.Fatal(err)
	}
	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	reporttest.CheckOverview(t, p, res)
	p.Screenshot("overview")
	reporttest.Goto(t, p, "#/compare", `document.querySelector('.pair')`, "the compare page")
	for n, pr := range res.Pairs {
		sel := `document.querySelector('.pair[data-pair="` + strconv.Itoa(n) + `"] [data-k="%s"]').textContent`
		reporttest.Equal(t, pr.B+" newly resolved", browsertest.Eval[string](p, strings.Replace(sel, "%s", "newly", 1)), float64(len(pr.Newly)), 1)
		reporttest.Equal(t, pr.B+" regressed", browsertest.Eval[string](p, strings.Replace(sel, "%s", "regressed", 1)), float64(len(pr.Regressed)), 1)
		if pr.Difference != nil {
			reporttest.Equal(t, pr.B+" difference", browsertest.Eval[string](p, strings.Replace(sel, "%s", "difference", 1)), *pr.Difference, 100)
		}
	}
	disagree := 0
	for _, row := range res.Rows {
		seen := map[bool]bool{}
		for _, vs := range row.Verdicts {
			for _, v := range vs {
				if v.Covered() {
					seen[v == compare.Resolved] = true
				}
			}
		}
		if len(seen) == 2 {
			disagree++
		}
	}
	reporttest.Equal(t, "matrix rows", browsertest.Eval[string](p, `document.querySelector('[data-k="matrix-rows"]').textContent`), float64(disagree), 1)
	p.Screenshot("compare")
	// Side by side: the same instance in two runs.
	reporttest.Goto(t, p, "#/i/pvlib__pvlib-python-1072?r=0&vs=2", `document.querySelectorAll('.pane #trajectory').length === 2`, "two panes")
	p.Screenshot("side-by-side")
	reporttest.NoConsoleErrors(t, p)
}

// With a history file, the overview draws the nightly trend of every variant.
func TestReportTrendInBrowser(t *testing.T) {
	out, logs, _ := fixtureRun(t)
	b := browsertest.Start(t)
	runs, err := compare.ReadAll([]compare.Source{{Path: out, EvalLogs: logs}}, compare.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hist := filepath.Join(t.TempDir(), compare.HistoryFile)
	var entries []compare.HistoryEntry
	for night, drop := range []int{3, 1, 0} {
		for _, variant := range []string{"deepseek", "other"} {
			e := compare.NewHistoryEntry(runs[0], time.Date(2026, 8, 10+night, 2, 0, 0, 0, time.UTC))
			e.Variant = variant
			if variant == "other" {
				drop = 4 - drop
			}
			e.ResolvedIDs = e.ResolvedIDs[drop:]
			e.Counts.Resolved = len(e.ResolvedIDs)
			entries = append(entries, e)
		}
	}
	if err := compare.AppendHistory(hist, entries); err != nil {
		t.Fatal(err)
	}
	rep, err := report.Load(context.Background(), []compare.Source{{Path: out, EvalLogs: logs}}, report.Options{HistoryFile: hist})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	p.WaitFor(`[...document.querySelectorAll('.chart h3')].some(h => h.textContent.startsWith('Nightly trend'))`, "the trend chart", reporttest.Wait)
	lines := browsertest.Eval[[]string](p, `[...document.querySelectorAll('.chart polyline')].map(l => l.getAttribute('points'))`)
	if len(lines) != 2 {
		t.Fatalf("the trend chart draws %d lines, want one per variant (2)", len(lines))
	}
	for _, l := range lines {
		if n := len(strings.Fields(l)); n != 3 {
			t.Errorf("a variant's line has %d points, want 3 nights", n)
		}
	}
	labels := browsertest.Eval[string](p, `[...document.querySelectorAll('.chart text.lbl')].map(t => t.textContent).join('|')`)
	if !strings.Contains(labels, "deepseek +13.0") || !strings.Contains(labels, "other −13.0") {
		t.Errorf("trend labels %q lack each variant's change (deepseek +13.0, other −13.0 points)", labels)
	}
	p.Screenshot("overview")
	reporttest.NoConsoleErrors(t, p)
}

// A mini-swe-agent run whose trajectories are partly missing, and one whose trajectories are all
// missing: unknown steps and cost are not zeros. The overview takes its means over the instances
// whose figures are known and says over how many ("over 20 of 23"), or shows "–" when none is;
// the instance table and the instance page show "–" for an instance without a trajectory.
func TestReportMissingTrajectoriesInBrowser(t *testing.T) {
	out, logs, split := fixtureRun(t)
	missing := []string{"pvlib__pvlib-python-1072", "pydicom__pydicom-901", "sqlfluff__sqlfluff-1517"}
	partial, none := filepath.Join(t.TempDir(), "partial"), filepath.Join(t.TempDir(), "none")
	for _, dir := range []string{partial, none} {
		if err := os.CopyFS(dir, os.DirFS(out)); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range missing {
		if err := os.RemoveAll(filepath.Join(partial, id)); err != nil {
			t.Fatal(err)
		}
	}
	trajs, _ := filepath.Glob(filepath.Join(none, "*", "*.traj.json"))
	for _, p := range trajs {
		if err := os.RemoveAll(filepath.Dir(p)); err != nil {
			t.Fatal(err)
		}
	}
	b := browsertest.Start(t)
	srcs := []compare.Source{{Label: "partial", Path: partial, EvalLogs: logs}, {Label: "none", Path: none, EvalLogs: logs}}
	rep, err := report.Load(context.Background(), srcs, report.Options{Dataset: split})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	runs, err := compare.ReadAll(srcs, compare.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := compare.Compare(runs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Inputs[0].Metrics; m.Steps.N != 20 || m.Steps.Of != 23 || m.Cost.N != 20 {
		t.Fatalf("compare: steps %+v cost %+v, want 20 of 23 known", m.Steps, m.Cost)
	}

	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	reporttest.CheckOverview(t, p, res)
	field := func(k int, key string) string {
		return browsertest.Eval[string](p, `(document.querySelector('[data-input="`+strconv.Itoa(k)+`"] [data-k="`+key+`"]') || {textContent: '<missing>'}).textContent`)
	}
	for _, key := range []string{"cost-over", "steps-over"} {
		if got := field(0, key); got != " · over 20 of 23" {
			t.Errorf("partial %s: %q, want \" · over 20 of 23\"", key, got)
		}
	}
	for _, key := range []string{"cost", "steps", "cost-per-resolved"} {
		if got := field(1, key); got != "–" {
			t.Errorf("none %s: %q, want –", key, got)
		}
	}
	if got := browsertest.Eval[[]string](p, `[...document.querySelectorAll('[data-input="1"] [data-k="unknown"]')].map(e => e.textContent)`); len(got) != 2 || got[0] != "not known for any of the 23 instances" {
		t.Errorf("none: the cost and steps tiles say %q, want that they are known for none of the 23 instances", got)
	}
	p.Screenshot("overview")

	// The instance table: the missing instances show "–" for steps and cost, the others numbers.
	reporttest.Goto(t, p, "#/instances?input=0", `document.getElementById('shown-count')`, "the instances table")
	cells := browsertest.Eval[map[string][]string](p, `Object.fromEntries([...document.querySelectorAll('#rows tr')].map(tr => [tr.dataset.id, [tr.querySelector('[data-k="steps"]').textContent, tr.querySelector('[data-k="cost"]').textContent]]))`)
	if len(cells) != 23 {
		t.Fatalf("the table shows %d rows, want 23", len(cells))
	}
	isMissing := map[string]bool{}
	for _, id := range missing {
		isMissing[id] = true
	}
	for id, c := range cells {
		unknown := c[0] == "–" && c[1] == "–"
		if unknown != isMissing[id] {
			t.Errorf("%s: steps %q, cost %q; want \"–\" exactly for the instances without a trajectory", id, c[0], c[1])
		}
	}
	p.Screenshot("instances")

	// The instance page of a missing instance, and of one with its trajectory.
	for _, tc := range []struct {
		id          string
		steps, cost string
	}{{missing[0], "–", "–"}, {"pvlib__pvlib-python-1154", "79", "$0.054"}} {
		reporttest.Goto(t, p, "#/i/"+tc.id+"?r=0", `document.querySelector('#trajectory') && document.querySelector('[data-k="steps"]')`, "the page of "+tc.id)
		steps := browsertest.Eval[string](p, `document.querySelector('.pane [data-k="steps"]').textContent`)
		cost := browsertest.Eval[string](p, `document.querySelector('.pane [data-k="cost"]').textContent`)
		if steps != tc.steps || cost != tc.cost {
			t.Errorf("%s page: steps %q, cost %q; want %q and %q", tc.id, steps, cost, tc.steps, tc.cost)
		}
		if tc.steps == "–" {
			p.Screenshot("instance-missing")
		}
	}
	reporttest.NoConsoleErrors(t, p)
}

// The published per-instance reports in sb-cli's layout, as a report input: the overview says it
// read sb-cli's layout, and an instance page shows the per-test verdicts of its report.json.
func TestReportSBCLIReportsInBrowser(t *testing.T) {
	dir := testenv.Fixtures(t, "reports", "sb-cli-per-instance")
	b := browsertest.Start(t)
	srcs := []compare.Source{{Path: dir}}
	rep, err := report.Load(context.Background(), srcs, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	runs, err := compare.ReadAll(srcs, compare.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := compare.Compare(runs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	reporttest.CheckOverview(t, p, res)
	if meta := browsertest.Eval[string](p, `document.querySelector('.input-card .meta').textContent`); !strings.Contains(meta, "report.json folder (sb-cli layout)") {
		t.Errorf("the card says %q, want the form and the layout read", meta)
	}
	p.Screenshot("overview")
	const id = "django__django-11477" // unresolved: 2 FAIL_TO_PASS tests fail
	reporttest.CheckInstance(t, p, id, 0, filepath.Join(dir, id, "report.json"), "")
	if got := browsertest.Eval[string](p, `document.querySelector('#verdict .sec-title small').textContent`); !strings.Contains(got, "report.json in the sb-cli layout") {
		t.Errorf("the evaluation card says %q, want the layout its report.json was read in", got)
	}
	p.Screenshot("instance")
	reporttest.NoConsoleErrors(t, p)
}

// A run folder whose ledger shows an instance retried: the instances table has an Attempts
// column (sortable), and that instance's page says how many attempts it took.
func TestReportAttemptsInBrowser(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v any) {
		t.Helper()
		data, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(results.ManifestFile, results.Manifest{Tool: "swebench-run", RunID: "r1", Model: "m", Instances: 2,
		Config: map[string]any{"model": map[string]any{"model_name": "m"}}})
	var ledger strings.Builder
	for _, r := range []results.Record{
		{InstanceID: "a__b-1", Attempt: 1, ExitStatus: "Submitted", Category: results.CategoryModel, Steps: 3, PatchBytes: 10, Queued: 100, End: 160},
		{InstanceID: "a__b-2", Attempt: 1, ExitStatus: "EngineDown", Category: results.CategoryInfrastructure, Steps: 1, Queued: 100, End: 110},
		{InstanceID: "a__b-2", Attempt: 2, ExitStatus: "Submitted", Category: results.CategoryModel, Steps: 4, PatchBytes: 10, Queued: 120, End: 180},
	} {
		line, _ := json.Marshal(r)
		ledger.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, results.LedgerFile), []byte(ledger.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	write(results.PredsFile, map[string]results.Prediction{
		"a__b-1": {InstanceID: "a__b-1", ModelNameOrPath: "m", ModelPatch: "diff --git a/x b/x\n"},
		"a__b-2": {InstanceID: "a__b-2", ModelNameOrPath: "m", ModelPatch: "diff --git a/y b/y\n"},
	})
	b := browsertest.Start(t)
	rep, err := report.Load(context.Background(), []compare.Source{{Path: dir}}, report.Options{Version: "test", AllowUnevaluated: true})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	p := b.Open(t, "file://"+filepath.Join(site, "index.html"))
	reporttest.Goto(t, p, "#/instances?sort=attempts", `document.getElementById('shown-count') && document.querySelector('th[data-sort="attempts"]')`, "the Attempts column")
	got := browsertest.Eval[string](p, `[...document.querySelectorAll('#rows tr')].map(tr => tr.dataset.id + '=' + tr.querySelector('td[data-k="attempts"]').textContent).join(' ')`)
	if got != "a__b-2=2 a__b-1=1" {
		t.Errorf("attempts column sorted descending: %q, want a__b-2=2 a__b-1=1", got)
	}
	reporttest.Goto(t, p, "#/i/a__b-2?r=0", `document.querySelector('.facts [data-k="attempts"]')`, "the attempts of a__b-2")
	if got := browsertest.Eval[string](p, `document.querySelector('.facts [data-k="attempts"]').textContent`); got != "2" {
		t.Errorf("a__b-2's page says %q attempts, want 2", got)
	}
	p.Screenshot("attempts")
	reporttest.NoConsoleErrors(t, p)
}

// Harness folders of other dataset families, as their harnesses write them: the Multi-SWE-bench
// workdir (family/multiswebench/testdata/harness: <org>/<repo>/evals/pr-<n>/ and final_report.json,
// graded by the harness's gen_report.py) and SWE-smith's published run_evaluation folder (whose
// per-instance reports SWE-bench's reader would take for sb-cli's). Each input card names the
// layout read, and an instance's evaluation card says its verdict was read in that layout.
func TestReportHarnessFoldersInBrowser(t *testing.T) {
	msb := filepath.Join(testenv.RepoRoot(t), "family", "multiswebench", "testdata", "harness", "workdir")
	smith := filepath.Dir(testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "run_evaluation", "report.json"))
	const smithID = "pandas-dev__pandas.95280573.pr_53652"
	testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "run_evaluation", smithID, "report.json")
	testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "run_evaluation", smithID, "test_output.txt")
	b := browsertest.Start(t)
	srcs := []compare.Source{{Label: "msb", Path: msb}, {Label: "smith", Path: smith}}
	rep, err := report.Load(context.Background(), srcs, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	metas := browsertest.Eval[[]string](p, `Array.from(document.querySelectorAll('.input-card .meta')).map((e) => e.textContent)`)
	want := []string{"harness verdicts (Multi-SWE-bench workdir layout)", "harness verdicts (SWE-smith run_evaluation layout)"}
	if len(metas) != 2 || !strings.Contains(metas[0], want[0]) || !strings.Contains(metas[1], want[1]) {
		t.Errorf("the cards say %q, want %q", metas, want)
	}
	for _, c := range []struct {
		id     string
		run    int
		layout string
	}{{"jqlang__jq-990002", 0, "Multi-SWE-bench workdir"}, {smithID, 1, "SWE-smith run_evaluation"}} {
		reporttest.Goto(t, p, "#/i/"+c.id+"?r="+strconv.Itoa(c.run), `document.querySelector('#verdict .sec-title small')`, "the page of "+c.id)
		if got := browsertest.Eval[string](p, `document.querySelector('#verdict .sec-title small').textContent`); !strings.Contains(got, "read in the "+c.layout+" layout") {
			t.Errorf("%s: the evaluation card says %q, want the layout its verdict was read in", c.id, got)
		}
	}
	p.Screenshot("instance")
	reporttest.NoConsoleErrors(t, p)
}
