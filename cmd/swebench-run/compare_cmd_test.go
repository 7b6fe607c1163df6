package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/eval"
)

// harnessReport writes a run report whose first `resolved` ids of ids are resolved.
func harnessReport(t *testing.T, path string, ids []string, resolved map[string]bool) string {
	t.Helper()
	rep := eval.RunReport{SchemaVersion: 2, TotalInstances: len(ids), SubmittedInstances: len(ids), ResolvedIDs: []string{}, UnresolvedIDs: []string{}}
	for _, id := range ids {
		rep.CompletedIDs = append(rep.CompletedIDs, id)
		rep.SubmittedIDs = append(rep.SubmittedIDs, id)
		if resolved[id] {
			rep.ResolvedIDs = append(rep.ResolvedIDs, id)
		} else {
			rep.UnresolvedIDs = append(rep.UnresolvedIDs, id)
		}
	}
	rep.ResolvedInstances = len(rep.ResolvedIDs)
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// regressionReports writes a baseline and a candidate over 100 instances: 21 regressed and 5
// newly resolved (McNemar p = 0.0025).
func regressionReports(t *testing.T) (base, cand string) {
	dir := t.TempDir()
	var ids []string
	a, b := map[string]bool{}, map[string]bool{}
	for k := range 100 {
		id := fmt.Sprintf("django__django-%d", 1000+k)
		ids = append(ids, id)
		switch {
		case k < 40:
			a[id], b[id] = true, true
		case k < 61:
			a[id] = true
		case k < 66:
			b[id] = true
		}
	}
	return harnessReport(t, filepath.Join(dir, "m.base.json"), ids, a), harnessReport(t, filepath.Join(dir, "m.cand.json"), ids, b)
}

func TestCompareCommand(t *testing.T) {
	kimi := fixtureDir(t, "reports", "swe-bench_lite__dev__kimi-k25-baseline.json")
	opus := fixtureDir(t, "reports", "swe-bench_lite__dev__opus-46-baseline.json")
	base, cand := regressionReports(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"two sb-cli reports", []string{"compare", kimi, opus}, 0,
			[]string{"opus-46-baseline against kimi-k25-baseline", "3 newly resolved, 0 regressed", "p = 0.25", "+33.3 points", "pvlib__pvlib-python-1707"}, ""},
		{"labels and a gate that passes", []string{"compare", "k=" + kimi, "o=" + opus, "--baseline", "k", "--fail-on-regression"}, 0,
			[]string{"o vs k: no significant change: +33.3 points"}, ""},
		{"a significant regression", []string{"compare", "base=" + base, "cand=" + cand, "--baseline", "base", "--fail-on-regression"}, exitRegression,
			[]string{"cand vs base: regression: −16.0 points"},
			"cand vs base: regression: −16.0 points, 95% CI [−26.0, −6.5], McNemar p = 0.00249, 21 regressed / 5 newly resolved, 0 flaky ignored"},
		{"the same without --fail-on-regression", []string{"compare", "base=" + base, "cand=" + cand, "--baseline", "base"}, 0, []string{"regression: −16.0"}, ""},
		{"a stricter alpha", []string{"compare", "base=" + base, "cand=" + cand, "--baseline", "base", "--fail-on-regression", "--alpha", "0.001"}, 0,
			[]string{"no significant change: −16.0 points, 99.9% CI"}, ""},
		{"markdown", []string{"compare", kimi, opus, "--markdown"}, 0, []string{"### swebench-run compare", "| resolved | 4 (44.4%) | 7 (77.8%) |"}, ""},
		{"mini-swe-agent output with its logs", []string{"compare", "mini=" + fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output"),
			"--eval-logs", "mini=" + fixtureDir(t, "runs", "deepseek-chat-lite-dev", "eval-logs"), opus}, 0,
			[]string{"mini_swe_agent (harness layout)  deepseek/deepseek-chat", "26.1%", "opus-46-baseline against mini"}, ""},
		{"mini-swe-agent output without logs", []string{"compare", fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output"), opus}, exitFailure, nil, "--eval-logs"},
		{"unrecognised input", []string{"compare", os.Args[0], opus}, exitFailure, nil, "unrecognised input"},
		{"unknown baseline", []string{"compare", kimi, opus, "--baseline", "nope"}, exitFailure, nil, `baseline "nope" names no input`},
		{"no input", []string{"compare"}, exitUsage, nil, "at least one input"},
		{"gate without baseline", []string{"compare", kimi, opus, "--fail-on-regression"}, exitUsage, nil, "--fail-on-regression needs --baseline"},
		{"two formats", []string{"compare", kimi, opus, "--json", "--csv"}, exitUsage, nil, "exclusive"},
		{"alpha out of range", []string{"compare", kimi, opus, "--alpha", "1.5"}, exitUsage, nil, "--alpha"},
		{"eval logs for no input", []string{"compare", kimi, opus, "--eval-logs", "x=/tmp"}, exitUsage, nil, `no input is labelled or located "x"`},
		{"eval logs unnamed among several", []string{"compare", kimi, opus, "--eval-logs", "/tmp"}, exitUsage, nil, "name the input"},
		{"history without a file", []string{"compare", kimi, opus, "--history", "3"}, exitUsage, nil, "--history needs a history file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr = %q, want %q", stderr, tt.stderr)
			}
		})
	}
}

func TestCompareCommandJSONAndCSV(t *testing.T) {
	kimi := fixtureDir(t, "reports", "swe-bench_lite__dev__kimi-k25-baseline.json")
	opus := fixtureDir(t, "reports", "swe-bench_lite__dev__opus-46-baseline.json")
	code, stdout, stderr := runCLI(t, "compare", kimi, opus, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res compare.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.SchemaVersion != compare.SchemaVersion || len(res.Pairs) != 1 || len(res.Pairs[0].Newly) != 3 || res.Pairs[0].McNemarP != 0.25 {
		t.Errorf("JSON: %+v", res.Pairs)
	}
	code, stdout, stderr = runCLI(t, "compare", kimi, opus, "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// 23 instances in each report (covered or not).
	if len(recs) != 1+46 || strings.Join(recs[0], ",") != strings.Join(compare.CSVHeader, ",") {
		t.Errorf("CSV: %d rows, header %v", len(recs)-1, recs[0])
	}
}

// A sweep folder with the history file beside it: the trend of the last nights, and the flaky
// instance the history reveals left out of the gate.
func TestCompareCommandSweepHistory(t *testing.T) {
	root := t.TempDir()
	ids := []string{"astropy__astropy-1", "astropy__astropy-2", "django__django-3"}
	sweep := func(name string, resolved map[string]bool) string {
		dir := filepath.Join(root, name)
		harnessReport(t, filepath.Join(dir, "x", "eval", "m.r.json"), ids, resolved)
		if err := os.WriteFile(filepath.Join(dir, "x", "run.json"), []byte(`{"model": "m", "run_id": "r", "config": {"k": 1}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		s := &compare.Sweep{SchemaVersion: 1, Name: name, Created: time.Now(), Cells: []compare.Cell{
			{Name: "x-1", Variant: "x", Dir: "x", Model: "m", ConfigHash: "abc", Dataset: "d", DatasetRevision: "r1", Repeat: 1}}}
		if err := compare.WriteSweep(dir, s); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	n1 := sweep("nightly-1", map[string]bool{"astropy__astropy-1": true, "django__django-3": true})
	n2 := sweep("nightly-2", map[string]bool{"astropy__astropy-1": true})
	hist := filepath.Join(root, compare.HistoryFile)
	for k, d := range []string{n1, n2} {
		runs, err := compare.ReadAll([]compare.Source{{Path: d}}, compare.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e := compare.NewHistoryEntry(runs[0], time.Date(2026, 8, 11+k, 3, 0, 0, 0, time.UTC))
		if err := compare.AppendHistory(hist, []compare.HistoryEntry{e}); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "compare", n2, "--baseline", n1, "--fail-on-regression", "--history", "5")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, s := range []string{"nightly-2/x against nightly-1/x", "flaky: django__django-3", "1 flaky ignored",
		"x        2       2026-08-11 66.7%, 2026-08-12 33.3%  33.3%  −33.3 points"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
}
