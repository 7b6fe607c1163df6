package multiswebench

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
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

// The demo dataset (testdata/demo) has two rows in Multi-SWE-bench's format, graded with jq's
// parser (automake's test driver) in images built by scripts/build-msb-demo-images.sh.

func demoRows(t *testing.T) []*Row {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "demo", "dataset.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []*Row
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		r, err := ParseRow(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestDemoRows checks the demo rows against their sources: the patches are the files the images
// are built from, and each row's test sets are those its reference runs give.
func TestDemoRows(t *testing.T) {
	rows := demoRows(t)
	if len(rows) != 2 {
		t.Fatalf("got %d demo rows", len(rows))
	}
	for _, r := range rows {
		for _, f := range []struct{ file, got string }{{"fix", r.FixPatch}, {"test", r.TestPatch}} {
			b, err := os.ReadFile(filepath.Join("testdata", "demo", "jq-"+itoa(r.Number)+"."+f.file+".patch"))
			if err != nil || string(b) != f.got {
				t.Errorf("%s: the row's %s_patch is not %s.patch (%v)", r.ID(), f.file, f.file, err)
			}
		}
		rep := NewReport(r.Org, r.Repo, r.Number, r.RunResult, r.TestPatchResult, r.FixPatchResult)
		if !rep.Valid || !reflect.DeepEqual(rep.F2P, r.F2PTests) || !reflect.DeepEqual(rep.P2P, r.P2PTests) || !reflect.DeepEqual(rep.Fixed, r.FixedTests) {
			t.Errorf("%s: the row's sets are not its runs' report: %+v", r.ID(), rep)
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
// and judged against the row. It also checks that the images' run.sh and test-run.sh give the
// row's reference runs.
func TestDemoFixRuns(t *testing.T) {
	engine := testenv.Docker(t)
	rows := demoRows(t)
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
		for _, c := range []struct {
			name     string
			patch    string
			resolved bool
			reason   string
		}{
			{"gold fix", r.FixPatch, true, ""},
			{"a patch that fixes nothing", notAFix, false, "After applying the fix patch, no test cases transitioned"},
			{"a patch that does not apply", "diff --git a/jqlite.py b/jqlite.py\n--- a/jqlite.py\n+++ b/jqlite.py\n@@ -1,1 +1,1 @@\n-nothing like this\n+x\n", false, "no test results were captured"},
			{"an empty patch", "", false, "no test results were captured"},
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
				if ev.Resolved != c.resolved || !strings.Contains(ev.Reason, c.reason) {
					t.Errorf("got resolved=%v %q, want %v %q\n%s", ev.Resolved, ev.Reason, c.resolved, c.reason, log)
				}
			})
		}
	}
}
