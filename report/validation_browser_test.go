package report_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/report"
	"github.com/swebench-run/swebench-run/report/reporttest"
	"github.com/swebench-run/swebench-run/testutil/browsertest"
	"github.com/swebench-run/swebench-run/validation"
)

// The report of the fixture run with a validation of three of its instances: a badge on the
// ones whose environment is not ok, the environment filter, and the validation on the
// instance page.
func TestReportValidationInBrowser(t *testing.T) {
	out, logs, split := fixtureRun(t)
	const gold, flaky, ok = "sqlfluff__sqlfluff-1625", "pydicom__pydicom-901", "marshmallow-code__marshmallow-1343"
	recs := map[string]validation.Record{
		gold:  {InstanceID: gold, Outcome: validation.GoldFails, Reason: "2 tests do not pass under the gold patch: test/a.py::t (error)"},
		flaky: {InstanceID: flaky, Outcome: validation.Flaky, Reason: "the gold patch's verdict differs between 5 repeats"},
		ok:    {InstanceID: ok, Outcome: validation.OK, Reason: "the gold patch resolves the instance every time, the empty patch never"},
	}
	b := browsertest.Start(t)
	var seen []*compare.Run
	rep, err := report.Load(context.Background(), []compare.Source{{Path: out, EvalLogs: logs}}, report.Options{Dataset: split, Version: "test",
		Validation: func(runs []*compare.Run) (map[string]validation.Record, string, error) {
			seen = runs
			return recs, "test store", nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Fatalf("the validation was asked for %d runs, want the one read", len(seen))
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"broken", []string{gold}},
		{"flaky", []string{flaky}},
		{"ok", []string{ok}},
	} {
		reporttest.Goto(t, p, "#/instances?env="+tc.filter, `document.getElementById('shown-count')`, "env="+tc.filter)
		if rows := reporttest.Rows(t, p); len(rows) != len(tc.want) || rows[0] != tc.want[0] {
			t.Errorf("env=%s shows %v, want %v", tc.filter, rows, tc.want)
		}
	}
	reporttest.Goto(t, p, "#/instances?env=none", `document.getElementById('shown-count')`, "env=none")
	if rows := reporttest.Rows(t, p); len(rows) != 20 {
		t.Errorf("env=none shows %d rows, want the 20 not validated", len(rows))
	}
	reporttest.Goto(t, p, "#/instances", `document.getElementById('shown-count')`, "every instance")
	if got := browsertest.Eval[string](p, `[...document.querySelectorAll('#rows [data-k="env"]')].map(e => e.closest('tr').dataset.id + '=' + e.dataset.v).sort().join(',')`); got != flaky+"=flaky,"+gold+"=gold_fails" {
		t.Errorf("environment badges %q", got)
	}
	p.Screenshot("validation-list")
	reporttest.Goto(t, p, "#/i/"+gold+"?r=0", `document.getElementById('env')`, "the instance whose gold patch fails")
	if got := browsertest.Eval[string](p, `document.getElementById('env').textContent`); got != "Environment: gold fails — 2 tests do not pass under the gold patch: test/a.py::t (error)" {
		t.Errorf("environment box %q", got)
	}
	p.Screenshot("validation-instance")
	reporttest.NoConsoleErrors(t, p)
}
