package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/report/reporttest"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sweep"
	"github.com/swebench-run/swebench-run/testutil/browsertest"
)

// demoScript reads the demo's script (every instance solved with its gold patch).
func demoScript(t *testing.T, split string) map[string][]model.ScriptedTurn {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(filepath.Dir(split), "scripted.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var script map[string][]model.ScriptedTurn
	if err := yaml.Unmarshal(data, &script); err != nil {
		t.Fatal(err)
	}
	return script
}

// writeScript writes a script file.
func writeScript(t *testing.T, path string, script map[string][]model.ScriptedTurn) {
	t.Helper()
	data, err := yaml.Marshal(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// partialScript is the demo's script where only the instances of solved keep their gold patch;
// the others submit a patch that changes a source file without fixing anything (unresolved).
func partialScript(t *testing.T, split string, solved map[string]bool) map[string][]model.ScriptedTurn {
	t.Helper()
	script := demoScript(t, split)
	for id := range script {
		if solved[id] {
			continue
		}
		script[id] = []model.ScriptedTurn{
			{Content: "A guess without reading the tests.", Commands: []string{
				`f=$(git ls-files '*.py' | grep -v test | head -1) && echo '# guessed' >> "$f" && git diff > /tmp/patch.txt`}},
			{Content: "Submitting.", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat /tmp/patch.txt"}},
		}
	}
	return script
}

// sweepFolder returns the only sweep folder under out.
func sweepFolder(t *testing.T, out string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(out, "*", compare.SweepFile))
	if len(matches) != 1 {
		t.Fatalf("sweep folders under %s: %v, want one", out, matches)
	}
	return filepath.Dir(matches[0])
}

func readCompareJSON(t *testing.T, dir string) *compare.Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, sweep.CompareJSON))
	if err != nil {
		t.Fatal(err)
	}
	var res compare.Result
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("compare.json: %v", err)
	}
	return &res
}

func historyLines(t *testing.T, path string) []compare.HistoryEntry {
	t.Helper()
	es, torn, err := compare.ReadHistory(path)
	if err != nil || torn {
		t.Fatalf("history %s: %v (torn %v)", path, err, torn)
	}
	return es
}

// positions maps the demo's instance ids to their place in the dataset.
func positions(insts []dataset.Instance) map[string]int {
	pos := map[string]int{}
	for k, inst := range insts {
		pos[inst.InstanceID] = k
	}
	return pos
}

// A sweep of two scripted models (one solves every demo instance, one half of them) with two
// repeats and evaluation: every cell is an ordinary, complete, evaluated run directory, run in
// paired order; the comparison finds exactly the planted flips; the history has a line per cell;
// a resumed sweep redoes nothing; a changed matrix is refused; the regression gate fails.
func TestSweepDemo(t *testing.T) {
	split, insts := demoInstances(t)
	dir := t.TempDir()
	solved := map[string]bool{"demo__confparse-31": true, "demo__moneyfmt-7": true, "demo__queuekit-4": true}
	var planted []string
	for _, inst := range insts {
		if !solved[inst.InstanceID] {
			planted = append(planted, inst.InstanceID)
		}
	}
	writeScript(t, filepath.Join(dir, "partial.yaml"), partialScript(t, split, solved))
	out := filepath.Join(dir, "sweeps")
	file := filepath.Join(dir, "nightly.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`name: nightly-{date}
output: %s
datasets:
  - name: demo
    split: %s
models:
  - name: full
    model: scripted
  - name: partial
    model: scripted:partial.yaml   # beside this file
repeats: 2
workers: 3
eval: true
baseline: full
`, out, split)), 0o644); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runCLI(t, "sweep", "-c", file, "--progress", "json")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, stderr)
	}
	folder := sweepFolder(t, out)
	man, err := compare.ReadSweep(folder)
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, c := range man.Cells {
		cells = append(cells, c.Name)
	}
	if want := []string{"full-r1", "full-r2", "partial-r1", "partial-r2"}; !reflect.DeepEqual(cells, want) {
		t.Fatalf("cells %v, want %v", cells, want)
	}

	// Every cell is an ordinary run directory: ledger, predictions, evaluations, run report.
	pos := positions(insts)
	type queued struct {
		at  float64
		pos int
	}
	var order []queued
	for _, c := range man.Cells {
		cell := filepath.Join(folder, c.Dir)
		recs := readLedger(t, cell)
		if len(recs) != len(insts) {
			t.Errorf("%s: %d ledger records, want %d", c.Name, len(recs), len(insts))
		}
		for _, r := range recs {
			if r.ExitStatus != "Submitted" || r.Category != results.CategoryModel {
				t.Errorf("%s: %s ended %s/%s", c.Name, r.InstanceID, r.ExitStatus, r.Category)
			}
			order = append(order, queued{r.Queued, pos[r.InstanceID]})
		}
		for _, inst := range insts {
			if _, err := os.Stat(filepath.Join(cell, "eval", inst.InstanceID, "report.json")); err != nil {
				t.Errorf("%s: no evaluation of %s: %v", c.Name, inst.InstanceID, err)
			}
		}
		if reports, _ := filepath.Glob(filepath.Join(cell, "eval", "scripted.*.json")); len(reports) != 1 {
			t.Errorf("%s: run reports %v, want one", c.Name, reports)
		}
		// sweep.json records the config as compare reads it from the cell's run.json.
		runs, err := compare.Read(compare.Source{Path: cell}, compare.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if runs[0].ConfigHash != c.ConfigHash || runs[0].Dataset != c.Dataset || runs[0].DatasetRevision != c.DatasetRevision || c.ConfigHash == "" {
			t.Errorf("%s: sweep.json says %s/%s/%s, the run directory %s/%s/%s", c.Name, c.ConfigHash, c.Dataset, c.DatasetRevision,
				runs[0].ConfigHash, runs[0].Dataset, runs[0].DatasetRevision)
		}
		code, js, msg := runCLI(t, "stats", "--json", cell)
		var st results.Stats
		if code != 0 || json.Unmarshal([]byte(js), &st) != nil || st.Eval == nil {
			t.Fatalf("stats of %s: exit %d\n%s", c.Name, code, msg)
		}
		wantResolved := len(insts)
		if c.Variant == "partial" {
			wantResolved = len(solved)
		}
		if st.Eval.Resolved != wantResolved {
			t.Errorf("stats of %s: %d resolved, want %d", c.Name, st.Eval.Resolved, wantResolved)
		}
	}
	// Paired order: sorted by the time they were queued, the instances of all cells go through
	// the dataset's positions in order.
	sort.Slice(order, func(i, j int) bool { return order[i].at < order[j].at })
	for k := 1; k < len(order); k++ {
		if order[k].pos < order[k-1].pos {
			t.Errorf("instance at position %d queued after position %d: the scheduling is not paired", order[k].pos, order[k-1].pos)
			break
		}
	}
	// --progress json: events carry the cell.
	if !strings.Contains(stderr, `"cell":"partial-r2"`) || !strings.Contains(stderr, `"phase":"evaluated"`) || !strings.Contains(stderr, `"event":"cells"`) {
		t.Errorf("json progress lacks the cells:\n%.2000s", stderr)
	}

	// The comparison: exactly the planted flips, a gate against the baseline.
	res := readCompareJSON(t, folder)
	if len(res.Pairs) != 1 {
		t.Fatalf("compare.json has %d pairs, want 1 (partial against full)", len(res.Pairs))
	}
	p := res.Pairs[0]
	if p.A != "full" || p.B != "partial" || !reflect.DeepEqual(p.Regressed, planted) || len(p.Newly) != 0 || len(p.Flaky) != 0 {
		t.Errorf("pair %s → %s: regressed %v newly %v flaky %v; want regressed %v, nothing else", p.A, p.B, p.Regressed, p.Newly, p.Flaky, planted)
	}
	if res.Gate == nil || !res.Gate.Regression {
		t.Errorf("gate %+v, want a regression of partial against full", res.Gate)
	}
	for _, in := range res.Inputs {
		if in.Repeats != 2 || in.Pass == nil {
			t.Errorf("input %s: %d repeats (pass@k %v), want 2", in.Name, in.Repeats, in.Pass)
		}
	}
	if _, err := os.Stat(filepath.Join(folder, sweep.CompareMD)); err != nil {
		t.Error(err)
	}
	if !strings.Contains(stdout, "partial against full") {
		t.Errorf("stdout lacks the comparison:\n%s", stdout)
	}
	history := filepath.Join(out, compare.HistoryFile)
	hist := historyLines(t, history)
	if len(hist) != 4 {
		t.Fatalf("history has %d lines, want 4 (one per cell)", len(hist))
	}
	for _, e := range hist {
		want := len(insts)
		if e.Variant == "partial" {
			want = len(solved)
		}
		if e.Sweep != man.Name || e.Counts.Resolved != want || len(e.EvaluatedIDs) != len(insts) {
			t.Errorf("history line %s: sweep %s, %d resolved of %d evaluated; want %d of %d", e.Cell, e.Sweep, e.Counts.Resolved, len(e.EvaluatedIDs), want, len(insts))
		}
	}

	// Resumed: nothing runs again, nothing new in the history.
	code, _, stderr = runCLI(t, "sweep", "-c", file, "--progress", "lines")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, fmt.Sprintf("running 0 instances (%d already finished", 4*len(insts))) {
		t.Errorf("resume did not skip everything:\n%s", stderr)
	}
	for _, c := range man.Cells {
		if n := len(readLedger(t, filepath.Join(folder, c.Dir))); n != len(insts) {
			t.Errorf("resume: %s has %d ledger records, want %d", c.Name, n, len(insts))
		}
	}
	if n := len(historyLines(t, history)); n != 4 {
		t.Errorf("resume: history has %d lines, want still 4", n)
	}

	// The regression gate in CI, and the history of the nights.
	if code, out, msg := runCLI(t, "compare", folder, "--baseline", "full", "--fail-on-regression", "--markdown"); code != exitRegression || !strings.Contains(msg, "partial vs full: regression") {
		t.Errorf("compare --fail-on-regression: exit %d, want %d\n%s\n%s", code, exitRegression, out, msg)
	}
	if code, out, msg := runCLI(t, "compare", folder, "--history", "3"); code != 0 || !strings.Contains(out, "partial") {
		t.Errorf("compare --history: exit %d\n%s\n%s", code, out, msg)
	}

	// Another matrix in the same folder is refused, naming what changed.
	code, _, stderr = runCLI(t, "sweep", "-c", file, "--progress", "none", "--run-config", "agent.step_limit=30")
	if code != exitFailure || !strings.Contains(stderr, "another matrix") || !strings.Contains(stderr, "cell full-r1: config_hash") {
		t.Errorf("changed matrix: exit %d\n%s", code, stderr)
	}
	for _, c := range man.Cells {
		if m, err := results.ReadManifest(filepath.Join(folder, c.Dir)); err != nil || m == nil {
			t.Errorf("%s: run.json: %v", c.Name, err)
		} else {
			assertNoContainers(t, m.RunID)
		}
	}
}

// A sweep cut by its deadline leaves every cell on the same instances: each has the first two
// finished and the third cut (retried on resume), none started further.
func TestSweepDeadlineKeepsCellsPaired(t *testing.T) {
	split, insts := demoInstances(t)
	dir := t.TempDir()
	script := map[string][]model.ScriptedTurn{}
	for k, inst := range insts {
		turns := []model.ScriptedTurn{
			{Content: "look", Commands: []string{"git status --short"}},
			{Content: "submit", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}},
		}
		if k >= 2 {
			turns[0].Delay = 10 * time.Minute // far beyond the deadline
		}
		script[inst.InstanceID] = turns
	}
	writeScript(t, filepath.Join(dir, "slow.yaml"), script)
	out := filepath.Join(dir, "sweeps")
	code, _, stderr := runCLI(t, "sweep", "--split", split, "--model", "a=scripted:"+filepath.Join(dir, "slow.yaml"),
		"--model", "b=scripted:"+filepath.Join(dir, "slow.yaml"), "--workers", "2", "--max-duration", "45s",
		"-o", out, "--name", "cut", "--progress", "lines")
	if code != exitInterrupted || !strings.Contains(stderr, "max_duration 45s reached") {
		t.Fatalf("exit %d, want %d after the deadline\n%s", code, exitInterrupted, stderr)
	}
	folder := filepath.Join(out, "cut")
	var sets []string
	for _, cell := range []string{"a", "b"} {
		var finished, cut []string
		for id, r := range lastRecords(t, filepath.Join(folder, cell)) {
			if r.Category == results.CategoryModel {
				finished = append(finished, id)
			} else {
				cut = append(cut, id)
			}
		}
		sort.Strings(finished)
		sort.Strings(cut)
		want := []string{insts[0].InstanceID, insts[1].InstanceID}
		if !reflect.DeepEqual(finished, want) || !reflect.DeepEqual(cut, []string{insts[2].InstanceID}) {
			t.Errorf("cell %s: finished %v, cut %v; want %v finished and %s cut", cell, finished, cut, want, insts[2].InstanceID)
		}
		sets = append(sets, strings.Join(finished, ","))
	}
	if sets[0] != sets[1] {
		t.Errorf("the cells stopped on different instances: %s and %s", sets[0], sets[1])
	}
	// Still compared, on those instances.
	res := readCompareJSON(t, folder)
	if len(res.Pairs) != 1 || res.Pairs[0].Common != 2 || len(res.Pairs[0].AOnly)+len(res.Pairs[0].BOnly) != 0 {
		t.Errorf("compare.json pairs %+v, want a and b on the same 2 instances", res.Pairs)
	}
}

// A cell whose model has a bad API key (the provider answers 401) stops alone, with the reason,
// while the other finishes; the key reaches no file.
func TestSweepBadKeyStopsCellAlone(t *testing.T) {
	split, insts := demoInstances(t)
	var calls atomic.Int64
	srv := fakeOpenAI(t, split, insts, http.StatusUnauthorized, &calls)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", testAPIKey)
	dir := t.TempDir()
	file := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`name: keys
output: %s
datasets: [%s]
models:
  - name: good
    model: scripted
  - name: badkey
    model: openai/gpt-4o-mini
    config: [model.base_url=%s/v1]
workers: 2
`, filepath.Join(dir, "sweeps"), split, srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "sweep", "-c", file, "--progress", "lines")
	if code != exitFailure || !strings.Contains(stderr, "1 cells stopped on a fatal model error") || !strings.Contains(stderr, "badkey: openai: HTTP 401") {
		t.Fatalf("exit %d, want 1 naming the stopped cell and the 401\n%s", code, stderr)
	}
	folder := filepath.Join(dir, "sweeps", "keys")
	good := lastRecords(t, filepath.Join(folder, "good"))
	if len(good) != len(insts) {
		t.Errorf("the good cell finished %d instances, want %d", len(good), len(insts))
	}
	for id, r := range good {
		if r.ExitStatus != "Submitted" {
			t.Errorf("good cell, %s: %s", id, r.ExitStatus)
		}
	}
	bad := readLedger(t, filepath.Join(folder, "badkey"))
	if len(bad) == 0 || len(bad) > 2 {
		t.Errorf("the bad cell recorded %d instances, want 1 or 2 (those already started)", len(bad))
	}
	for _, r := range bad {
		if r.ExitStatus != model.StatusAuthentication || r.Category != results.CategoryInfrastructure {
			t.Errorf("bad cell, %s: %s/%s, want %s, an infrastructure failure", r.InstanceID, r.ExitStatus, r.Category, model.StatusAuthentication)
		}
	}
	if n := calls.Load(); n > 2 {
		t.Errorf("the provider saw %d calls; a refused key stops the cell at once", n)
	}
	if _, err := os.Stat(filepath.Join(folder, sweep.CompareJSON)); err != nil {
		t.Errorf("no comparison after a stopped cell: %v", err)
	}
	assertKeyAbsent(t, folder)
}

// Cost limits of a sweep, against an OpenAI-compatible provider whose every call costs $1.05
// (3 calls an instance): model a has its own limit of $5, the sweep one of $15. Each holds
// within the documented bound (the limit plus the calls in flight), cut instances are unfinished
// (never LimitsExceeded), and the limits hold across a resume: with a larger sweep limit, a
// starts nothing more while b finishes everything.
func TestSweepCostLimits(t *testing.T) {
	const callCost, workers = 1.05, 2
	split, ids := baseTasks(t, 8, 1, 0)
	var calls atomic.Int64
	srv := costlyOpenAI(t, 3, callCost, 50*time.Millisecond, &calls)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", testAPIKey)
	dir := t.TempDir()
	file := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`name: costs
output: %s
datasets: [%s]
config: [environment.cwd=/tmp]
models:
  - {name: a, model: openai/gpt-4o-mini, max_cost: 5}
  - {name: b, model: openai/gpt-4o-mini}
max_cost: 15
workers: %d
`, filepath.Join(dir, "sweeps"), split, workers)), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "sweeps", "costs")
	code, _, stderr := runCLI(t, "sweep", "-c", file, "--progress", "none")
	if code != exitFailure || !strings.Contains(stderr, "a cost limit is spent") {
		t.Fatalf("first run: exit %d, want 1 with the cost limit message\n%s", code, stderr)
	}
	spentA, spentB := ledgerCost(t, filepath.Join(folder, "a")), ledgerCost(t, filepath.Join(folder, "b"))
	if bound := 5 + workers*callCost; spentA > bound+1e-9 {
		t.Errorf("model a spent $%.2f, over its bound $%.2f", spentA, bound)
	}
	if bound := 15 + workers*callCost; spentA+spentB > bound+1e-9 {
		t.Errorf("the sweep spent $%.2f, over its bound $%.2f", spentA+spentB, bound)
	}
	recordsA := len(readLedger(t, filepath.Join(folder, "a")))
	for _, cell := range []string{"a", "b"} {
		for id, r := range lastRecords(t, filepath.Join(folder, cell)) {
			if r.ExitStatus == model.StatusLimitsExceeded {
				t.Errorf("%s, %s ended LimitsExceeded: a budget is not the instance's own limit", cell, id)
			}
			if r.ExitStatus == model.StatusRunBudgetExhausted && r.Category != results.CategoryUnfinished {
				t.Errorf("%s, %s: category %s, want unfinished", cell, id, r.Category)
			}
		}
	}
	t.Logf("first run: a $%.2f, b $%.2f, %d calls", spentA, spentB, calls.Load())

	// Resumed with a larger sweep limit: a's own limit still holds (what it spent counts), b
	// finishes.
	code, _, stderr = runCLI(t, "sweep", "-c", file, "--progress", "none", "--max-cost", "100")
	if code != exitFailure || !strings.Contains(stderr, "cells a stopped") || !strings.Contains(stderr, "cost limit of a $5.00") {
		t.Errorf("resume: exit %d, want 1 with a still over its limit\n%s", code, stderr)
	}
	if n := len(readLedger(t, filepath.Join(folder, "a"))); n != recordsA {
		t.Errorf("resume ran %d instances of a, whose limit is spent", n-recordsA)
	}
	last := lastRecords(t, filepath.Join(folder, "b"))
	for _, id := range ids {
		if r := last[id]; r.ExitStatus != "Submitted" {
			t.Errorf("b, %s: %s after the resume, want Submitted", id, r.ExitStatus)
		}
	}
}

// A night over two benchmarks: models good (the scripted gold fixes) and smithgood (good on the
// SWE-smith demo, a guess on every instance of the demo dataset) on both datasets, two repeats,
// evaluated, against the baseline good. compare.json pairs the models within each dataset only,
// pools them over both, and the gate fails on the demo dataset alone; the history has a line per
// model × dataset × repeat; runs of the two files called dataset.jsonl given by hand are two
// datasets too.
func TestSweepOverDatasets(t *testing.T) {
	demoSplit, demoInsts := demoInstances(t)
	smithSplit := familyDemo(t, "smith")
	dir := t.TempDir()
	// smithgood: the demo's instances get a guess; SWE-smith's both get a fix (the demo script
	// fixes the first and spoils the second).
	script := partialScript(t, demoSplit, nil)
	smithScript := demoScript(t, smithSplit)
	const swap, invert = "mewwts__addict.75284f95.func_pm_op_swap__demo1", "mewwts__addict.75284f95.func_pm_ctrl_invert_if__demo2"
	script[swap] = smithScript[swap]
	script[invert] = []model.ScriptedTurn{
		{Content: "What does deep_get return for a missing key?", Commands: []string{"cat addict/__init__.py"}},
		{Content: "A missing key must give the default.", Commands: []string{
			`sed -i 's/^            return node$/            return default/' addict/__init__.py && git diff -- addict/__init__.py > patch.txt`}},
		{Content: "Submitting the fix.", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"}},
	}
	writeScript(t, filepath.Join(dir, "smithgood.yaml"), script)
	out := filepath.Join(dir, "sweeps")
	file := filepath.Join(dir, "nightly.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`name: night
output: %s
datasets:
  - {name: demo, split: %s}
  - {name: smith, split: %s}
models:
  - {name: good, model: scripted}
  - {name: smithgood, model: "scripted:smithgood.yaml"}
repeats: 2
workers: 3
eval: true
baseline: good
`, out, demoSplit, smithSplit)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "sweep", "-c", file, "--progress", "none")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, stderr)
	}
	folder := filepath.Join(out, "night")
	man, err := compare.ReadSweep(folder)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range man.Cells {
		if want := c.Variant + "-" + c.DatasetName + fmt.Sprintf("-r%d", c.Repeat); c.Name != want || (c.Variant != "good" && c.Variant != "smithgood") {
			t.Errorf("cell %s: variant %s on %s, want the model's name and the cell %s", c.Name, c.Variant, c.DatasetName, want)
		}
	}

	ids := map[string][]string{"demo": nil, "smith": {invert, swap}}
	for _, inst := range demoInsts {
		ids["demo"] = append(ids["demo"], inst.InstanceID)
	}
	res := readCompareJSON(t, folder)
	if res.SchemaVersion != 2 || len(res.Datasets) != 2 || res.Datasets[0].Name != "demo" || res.Datasets[1].Name != "smith" {
		t.Fatalf("compare.json: schema %d, datasets %+v; want 2, demo and smith", res.SchemaVersion, res.Datasets)
	}
	inputDataset := map[string]map[string]bool{}
	for _, in := range res.Inputs {
		if inputDataset[in.Name] == nil {
			inputDataset[in.Name] = map[string]bool{}
		}
		inputDataset[in.Name][in.Dataset] = true
		if in.Repeats != 2 {
			t.Errorf("input %s on %s: %d repeats, want 2", in.Name, in.Dataset, in.Repeats)
		}
	}
	pairs := map[string]compare.Pair{}
	for _, p := range res.Pairs {
		pairs[p.Dataset] = p
		if !inputDataset[p.A][p.Dataset] || !inputDataset[p.B][p.Dataset] || p.Common != len(ids[p.Dataset]) || len(p.AOnly)+len(p.BOnly) != 0 {
			t.Errorf("pair %s vs %s on %s: %d common (%d/%d alone): a pair across datasets", p.B, p.A, p.Dataset, p.Common, len(p.AOnly), len(p.BOnly))
		}
		if p.A != "good" || p.B != "smithgood" {
			t.Errorf("pair on %s: %s vs %s, want smithgood vs good", p.Dataset, p.B, p.A)
		}
	}
	if d := pairs["demo"]; len(res.Pairs) != 2 || !reflect.DeepEqual(d.Regressed, ids["demo"]) || len(d.Newly) != 0 || *d.Difference != -1 || d.Bootstrap == nil || d.Bootstrap.CIHigh != -1 {
		t.Errorf("demo pair: regressed %v newly %v difference %v bootstrap %+v; want all %d regressed, −100 points", d.Regressed, d.Newly, d.Difference, d.Bootstrap, len(ids["demo"]))
	}
	if s := pairs["smith"]; !reflect.DeepEqual(s.Newly, []string{invert}) || len(s.Regressed) != 0 || s.Both != 1 || *s.Difference != 0.5 {
		t.Errorf("smith pair: newly %v regressed %v both %d difference %v; want %s newly resolved", s.Newly, s.Regressed, s.Both, s.Difference, invert)
	}
	// Pooled: 1 newly resolved and 6 regressed over 8 paired instances. Reference
	// (compare/testdata/reference_stats.py, pooled([(0, 6, 6), (1, 0, 2)])): by instance −0.625
	// [−0.871607414685005, −0.03078855981442774], macro −0.25 [−0.7432148293700102,
	// 0.189843258551185], McNemar p 0.125.
	if len(res.Pooled) != 1 {
		t.Fatalf("pooled: %+v, want one line", res.Pooled)
	}
	po := res.Pooled[0]
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if po.A != "good" || po.B != "smithgood" || !reflect.DeepEqual(po.Datasets, []string{"demo", "smith"}) || po.Paired != 8 || po.Newly != 1 || po.Regressed != 6 ||
		!near(po.ByInstance.Difference, -0.625) || !near(po.ByInstance.CILow, -0.871607414685005) || !near(po.ByInstance.CIHigh, -0.03078855981442774) ||
		!near(po.Macro.Difference, -0.25) || !near(po.Macro.CILow, -0.7432148293700102) || !near(po.Macro.CIHigh, 0.189843258551185) || po.McNemarP != 0.125 ||
		po.RateA != 7.0/8 || po.RateB != 2.0/8 || po.MacroRateA != 0.75 || po.MacroRateB != 0.5 || po.Bootstrap == nil {
		t.Errorf("pooled %+v (by instance %+v, macro %+v)", po, po.ByInstance, po.Macro)
	}
	if len(res.Variants) != 2 || res.Variants[0].Name != "good" || res.Variants[0].ResolvedRate != 7.0/8 || res.Variants[1].MacroRate != 0.5 {
		t.Errorf("variants %+v", res.Variants)
	}
	// The gate: a regression on demo, not on smith, corrected for the two datasets.
	if g := res.Gate; g == nil || !g.Regression || len(g.Verdicts) != 2 || !g.Verdicts[0].Regression || g.Verdicts[0].Dataset != "demo" ||
		g.Verdicts[1].Regression || g.Verdicts[1].Dataset != "smith" || g.Verdicts[0].Tests != 2 {
		t.Errorf("gate %+v, want a regression on demo only, over 2 datasets", res.Gate)
	}
	for _, w := range res.Warnings {
		t.Errorf("warning %q: the sweep's datasets are neither revisions of one nor compared across", w)
	}
	for _, s := range []string{"== dataset demo:", "== dataset smith:", "== over 2 datasets ==", "smithgood vs good on demo: regression", "smithgood vs good on smith: no significant change", "smithgood vs good pooled (not gated)"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("the terminal table lacks %q:\n%s", s, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(folder, sweep.CompareMD))
	if err != nil || !strings.Contains(string(md), "#### Dataset `smith`") || !strings.Contains(string(md), "❌ `smithgood` vs `good` on `demo`") {
		t.Errorf("compare.md (%v) is not grouped by dataset:\n%s", err, md)
	}

	// One history line per model × dataset × repeat, naming its dataset.
	hist := historyLines(t, filepath.Join(out, compare.HistoryFile))
	if len(hist) != 8 {
		t.Fatalf("history has %d lines, want 8", len(hist))
	}
	for _, e := range hist {
		if e.Variant+"-"+e.DatasetName+fmt.Sprintf("-r%d", e.Repeat) != e.Cell || len(e.EvaluatedIDs) != len(ids[e.DatasetName]) {
			t.Errorf("history line %s: variant %s on %s, %d evaluated", e.Cell, e.Variant, e.DatasetName, len(e.EvaluatedIDs))
		}
	}

	// The gate in CI names the dataset that regressed.
	code, _, msg := runCLI(t, "compare", folder, "--baseline", "good", "--fail-on-regression")
	if code != exitRegression || !strings.Contains(msg, "smithgood vs good on demo: regression: −100.0 points") || strings.Contains(msg, "on smith") {
		t.Errorf("compare --fail-on-regression: exit %d, want %d naming demo only\n%s", code, exitRegression, msg)
	}
	// By hand, the cells of the two dataset.jsonl files are two datasets as well.
	code, js, msg := runCLI(t, "compare", "--json", filepath.Join(folder, "good-demo-r1"), filepath.Join(folder, "smithgood-demo-r1"),
		filepath.Join(folder, "good-smith-r1"), filepath.Join(folder, "smithgood-smith-r1"))
	var byHand compare.Result
	if code != 0 || json.Unmarshal([]byte(js), &byHand) != nil {
		t.Fatalf("compare by hand: exit %d\n%s", code, msg)
	}
	var got []string
	for _, p := range byHand.Pairs {
		got = append(got, fmt.Sprintf("%s: %s vs %s, %d common", p.Dataset, p.B, p.A, p.Common))
	}
	demoName, smithName := "dataset.jsonl@"+revPrefix(man, "demo"), "dataset.jsonl@"+revPrefix(man, "smith")
	if want := []string{demoName + ": smithgood-demo-r1 vs good-demo-r1, 6 common", smithName + ": smithgood-smith-r1 vs good-smith-r1, 2 common"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pairs by hand %q, want %q", got, want)
	}
	if w := strings.Join(byHand.Warnings, "\n"); !strings.Contains(w, "compared as separate datasets") || strings.Contains(w, "tests may differ") {
		t.Errorf("warnings by hand: %s", w)
	}

	// The report of the night in Chromium: the overview and the compare page grouped by dataset,
	// with compare.json's figures.
	b := browsertest.Start(t)
	site := filepath.Join(t.TempDir(), "site")
	if code, _, msg := runCLI(t, "report", folder, "--baseline", "good", "-o", site); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, msg)
	}
	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	reporttest.CheckOverview(t, p, res)
	if heads := browsertest.Eval[[]string](p, `[...document.querySelectorAll('h2.dataset-head')].map(h => h.dataset.dataset)`); !reflect.DeepEqual(heads, []string{"demo", "smith"}) {
		t.Errorf("the overview's datasets %v, want demo and smith", heads)
	}
	p.Screenshot("overview")
	reporttest.Goto(t, p, "#/compare", `document.querySelector('section.dataset .pair')`, "the compare page")
	for _, ds := range []string{"demo", "smith"} {
		sec := `document.querySelector('section.dataset[data-dataset="` + ds + `"]')`
		pr := pairs[ds]
		reporttest.Equal(t, ds+": difference", browsertest.Eval[string](p, sec+`.querySelector('.pair [data-k="difference"]').textContent`), pr.Bootstrap.Difference, 100)
		reporttest.Equal(t, ds+": regressed", browsertest.Eval[string](p, sec+`.querySelector('.pair [data-k="regressed"]').textContent`), float64(len(pr.Regressed)), 1)
		reporttest.Equal(t, ds+": newly resolved", browsertest.Eval[string](p, sec+`.querySelector('.pair [data-k="newly"]').textContent`), float64(len(pr.Newly)), 1)
		gateText := browsertest.Eval[string](p, sec+`.querySelector('.gate').textContent`)
		if want := "smithgood vs good on " + ds + ": "; !strings.HasPrefix(gateText, want) || strings.Contains(gateText, "regression") != (ds == "demo") {
			t.Errorf("%s: gate line %q", ds, gateText)
		}
		if n := browsertest.Eval[int](p, sec+`.querySelectorAll('.matrix tbody tr').length`); n != map[string]int{"demo": 6, "smith": 1}[ds] {
			t.Errorf("%s: the matrix shows %d instances where the inputs disagree", ds, n)
		}
	}
	if got := browsertest.Eval[string](p, `document.querySelector('.pooled-card [data-k="pooled-p"]').textContent`); got != "0.125" {
		t.Errorf("pooled McNemar p on the page %q, want 0.125", got)
	}
	if got := browsertest.Eval[string](p, `document.querySelector('.pooled-card [data-k="by-instance"]').textContent`); !strings.HasPrefix(got, "−62.5") {
		t.Errorf("pooled difference by instance on the page %q, want −62.5", got)
	}
	p.Screenshot("compare")
	reporttest.NoConsoleErrors(t, p)
}

// revPrefix is the short revision of a sweep dataset, as the comparison names it.
func revPrefix(man *compare.Sweep, dataset string) string {
	for _, c := range man.Cells {
		if c.DatasetName == dataset {
			return strings.TrimPrefix(c.DatasetRevision, "sha256:")[:8]
		}
	}
	return ""
}
