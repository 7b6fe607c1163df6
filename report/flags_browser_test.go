package report_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/report"
	"github.com/swebench-run/swebench-run/report/reporttest"
	"github.com/swebench-run/swebench-run/testutil/browsertest"
)

// The report of the fixture run marks its one flagged instance (sqlfluff-1625, whose agent ran
// git log --all --grep at step 22): a badge in the list, the flags filter, and on its page the
// flag listed and its step highlighted.
func TestReportFlagsInBrowser(t *testing.T) {
	out, logs, split := fixtureRun(t)
	b := browsertest.Start(t)
	rep, err := report.Load(context.Background(), []compare.Source{{Path: out, EvalLogs: logs}}, report.Options{Dataset: split, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	const id = "sqlfluff__sqlfluff-1625"
	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	reporttest.Goto(t, p, "#/instances?flagged=1", `document.getElementById('shown-count')`, "the flagged instances")
	if rows := reporttest.Rows(t, p); len(rows) != 1 || rows[0] != id {
		t.Errorf("flagged=1 shows %v, want [%s]", rows, id)
	}
	if n := browsertest.Eval[int](p, `document.querySelectorAll('#rows [data-k="flagged"].revealed').length`); n != 1 {
		t.Errorf("%d revealed-flag badges in the flagged rows, want 1", n)
	}
	reporttest.Goto(t, p, "#/instances?flagged=0", `document.getElementById('shown-count')`, "the unflagged instances")
	if rows := reporttest.Rows(t, p); len(rows) != 22 {
		t.Errorf("flagged=0 shows %d rows, want 22", len(rows))
	}
	if n := browsertest.Eval[int](p, `document.querySelectorAll('#rows [data-k="flagged"]').length`); n != 0 {
		t.Errorf("%d flag badges among the unflagged rows", n)
	}
	p.Screenshot("flagged-list")

	reporttest.Goto(t, p, "#/i/"+id+"?r=0", `document.querySelector('#trajectory .step')`, "the flagged instance")
	if n := browsertest.Eval[int](p, `document.querySelectorAll('#flags li').length`); n != 1 {
		t.Errorf("the flags box lists %d flags, want 1", n)
	}
	if got := browsertest.Eval[string](p, `[...document.querySelectorAll('.step.flagged')].map(s => s.dataset.step).join(',')`); got != "22" {
		t.Errorf("flagged steps %q, want 22", got)
	}
	if got := browsertest.Eval[string](p, `document.querySelector('.step.flagged .flagnote').dataset.flag`); got != "history" {
		t.Errorf("the flag note says %q, want history", got)
	}
	p.Screenshot("flagged-instance")
	reporttest.NoConsoleErrors(t, p)
}
