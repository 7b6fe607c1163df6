package multiswebench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The demo dataset (testdata/demo) has five rows in Multi-SWE-bench's format, graded with jq's
// parser (automake's test driver) in images built by scripts/build-msb-demo-images.sh, in the
// shapes of the published rows: jqlang__jq-990001, 990002 with p2p and f2p tests; 990003 with
// p2p_tests {} and only n2p tests (the test patch alone leaves the test run without results, as
// google__gson-1787's and google__guava-2945's); 990004 with no tests at all; 990005 without an
// instance_id column and with a tag (google__guava_dataset.jsonl's columns).

func demoRows(t *testing.T) []*Row {
	t.Helper()
	var rows []*Row
	for _, line := range demoLines(t) {
		r, err := ParseRow(line)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func demoLines(t *testing.T) [][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "demo", "dataset.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		lines = append(lines, l)
	}
	return lines
}

// TestDemoRows checks the demo rows against their sources: the patches are the files the images
// are built from, and each row's test sets are those its reference runs give (report.py's
// classification), except jqlang__jq-990004's, a row without tests as some published rows are:
// its runs' report is invalid (the test the pull request adds passes before the fix), so it has
// no sets to give.
func TestDemoRows(t *testing.T) {
	rows := demoRows(t)
	if len(rows) != 5 {
		t.Fatalf("got %d demo rows", len(rows))
	}
	for k, r := range rows {
		for _, f := range []struct{ file, got string }{{"fix", r.FixPatch}, {"test", r.TestPatch}} {
			b, err := os.ReadFile(filepath.Join("testdata", "demo", "jq-"+itoa(r.Number)+"."+f.file+".patch"))
			if err != nil || string(b) != f.got {
				t.Errorf("%s: the row's %s_patch is not %s.patch (%v)", r.ID(), f.file, f.file, err)
			}
		}
		rep := NewReport(r.Org, r.Repo, r.Number, r.RunResult, r.TestPatchResult, r.FixPatchResult)
		noTests := len(r.FixedTests)+len(r.P2PTests)+len(r.F2PTests)+len(r.S2PTests)+len(r.N2PTests) == 0
		switch {
		case r.Number == 990004:
			if !noTests || rep.Valid {
				t.Errorf("%s: want a row without tests whose runs' report is invalid, got %d fixed tests, report valid %v", r.ID(), len(r.FixedTests), rep.Valid)
			}
		case !rep.Valid || !reflect.DeepEqual(rep.F2P, r.F2PTests) || !reflect.DeepEqual(rep.P2P, r.P2PTests) ||
			!reflect.DeepEqual(rep.N2P, r.N2PTests) || !reflect.DeepEqual(rep.S2P, r.S2PTests) || !reflect.DeepEqual(rep.Fixed, r.FixedTests):
			t.Errorf("%s: the row's sets are not its runs' report: %+v", r.ID(), rep)
		}
		if r.Number == 990003 && (len(r.P2PTests)+len(r.F2PTests)+len(r.S2PTests) != 0 || len(r.N2PTests) == 0 || r.TestPatchResult.Count() != 0) {
			t.Errorf("%s: want only n2p tests and a test-patch run without results", r.ID())
		}
		var cols map[string]json.RawMessage
		if err := json.Unmarshal(demoLines(t)[k], &cols); err != nil {
			t.Fatal(err)
		}
		_, hasID := cols["instance_id"]
		_, hasTag := cols["tag"]
		if wantID := r.Number != 990005; hasID != wantID || hasTag == wantID {
			t.Errorf("%s: instance_id column %v, tag column %v; want instance_id on every row but 990005, which has a tag instead", r.ID(), hasID, hasTag)
		}
		if got, want := r.Image(), "mswebench/jqlang_m_jq:pr-"+itoa(r.Number); got != want {
			t.Errorf("image %q, want %q", got, want)
		}
		if r.InstanceID() != "jqlang__jq-"+itoa(r.Number) || r.Workdir() != "/home/jq" {
			t.Errorf("instance id %q, workdir %q", r.InstanceID(), r.Workdir())
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// sandboxBox runs a fix in a sandbox, as the evaluation does.
type sandboxBox struct {
	sb  sandbox.Sandbox
	cwd string
}

func (b sandboxBox) WriteFile(ctx context.Context, path string, data []byte) error {
	return b.sb.WriteFile(ctx, path, data)
}

func (b sandboxBox) Exec(ctx context.Context, cmd string, timeout time.Duration) (string, int, bool, error) {
	res, err := b.sb.Exec(ctx, cmd, sandbox.ExecOptions{Timeout: timeout, Cwd: b.cwd, MaxOutput: 64 << 20})
	if err != nil {
		return "", 0, false, err
	}
	return res.Output, res.ExitCode, res.TimedOut, nil
}

// TestDemoFixRuns grades predictions in real containers of the demo images, as the harness
// does: the prediction is /home/fix.patch, fix-run.sh runs, its log is parsed with jq's parser
// and judged against the row. The gold patches' verdicts and reports are the harness's own, from
// its run on these images (testdata/harness-run, see its README). It also checks that the
// images' run.sh and test-run.sh give the row's reference runs.
func TestDemoFixRuns(t *testing.T) {
	engine := testenv.Docker(t)
	rows := demoRows(t)
	harness := readHarnessRun(t)
	rnd := make([]byte, 4)
	rand.Read(rnd)
	runID := "test-msb-" + hex.EncodeToString(rnd)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		engine.Sweep(ctx, sandbox.Selector{RunID: runID})
	})
	start := func(t *testing.T, r *Row) sandboxBox {
		t.Helper()
		testenv.RequireImage(t, engine, r.Image())
		sb, err := engine.Start(context.Background(), sandbox.Spec{Image: r.Image(), RunID: runID, InstanceID: r.InstanceID(), Role: "eval", Cwd: r.Workdir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sb.Remove(context.Background()) })
		return sandboxBox{sb, r.Workdir()}
	}
	notAFix := "diff --git a/NOTES b/NOTES\nnew file mode 100644\n--- /dev/null\n+++ b/NOTES\n@@ -0,0 +1 @@\n+applies, fixes nothing\n"
	for _, r := range rows {
		t.Run(r.ID()+" reference runs", func(t *testing.T) {
			box := start(t, r)
			for _, c := range []struct {
				script string
				want   *TestResult
			}{{"run.sh", r.RunResult}, {"test-run.sh", r.TestPatchResult}} {
				out, _, _, err := box.Exec(context.Background(), "bash /home/"+c.script, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				got, err := ParseLog(r.Org, r.Repo, r.Number, out)
				if err != nil || !reflect.DeepEqual(got, c.want) {
					t.Errorf("%s: got %+v (%v), want the row's %+v\n%s", c.script, got, err, c.want, out)
				}
			}
		})
		t.Run(r.ID()+" gold fix", func(t *testing.T) {
			log, err := RunFix(context.Background(), start(t, r), r.FixPatch, 2*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := Evaluate(r, log)
			if err != nil {
				t.Fatal(err)
			}
			h, ok := harness[r.ID()]
			if !ok {
				t.Fatalf("the harness's run has no verdict for %s", r.ID())
			}
			if ev.Resolved != h.resolved || ev.Report.Valid != h.report.Valid || ev.Report.ErrorMsg != h.report.ErrorMsg {
				t.Errorf("got resolved=%v, report valid=%v %q; the harness: resolved=%v, valid=%v %q\n%s",
					ev.Resolved, ev.Report.Valid, ev.Report.ErrorMsg, h.resolved, h.report.Valid, h.report.ErrorMsg, log)
			}
			if log != h.log {
				t.Errorf("fix-patch-run.log differs from the harness's:\n%s\nthe harness's:\n%s", log, h.log)
			}
		})
		// What report.py makes of fix runs the harness's run did not make: without a fix, 990003's
		// tests do not run at all (its test patch needs the fix), the others' give the reference
		// run's results again.
		nothingFixed := "After applying the fix patch, no test cases transitioned"
		if r.Number == 990003 {
			nothingFixed = "no test results were captured"
		}
		for _, c := range []struct {
			name   string
			patch  string
			reason string
		}{
			{"a patch that fixes nothing", notAFix, nothingFixed},
			{"a patch that does not apply", "diff --git a/jqlite.py b/jqlite.py\n--- a/jqlite.py\n+++ b/jqlite.py\n@@ -1,1 +1,1 @@\n-nothing like this\n+x\n", "no test results were captured"},
			{"an empty patch", "", "no test results were captured"},
		} {
			t.Run(r.ID()+" "+c.name, func(t *testing.T) {
				log, err := RunFix(context.Background(), start(t, r), c.patch, 2*time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				ev, err := Evaluate(r, log)
				if err != nil {
					t.Fatal(err)
				}
				if ev.Resolved || !strings.Contains(ev.Reason, c.reason) {
					t.Errorf("got resolved=%v %q, want unresolved: %q\n%s", ev.Resolved, ev.Reason, c.reason, log)
				}
			})
		}
	}
}
