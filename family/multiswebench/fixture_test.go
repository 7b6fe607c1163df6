package multiswebench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// javaRows are the 50 real Multi-SWE-bench rows of 8 Java repositories in the corpus (from the
// multi-swe-bench repository, pull 39): each row's test sets were made by the harness's
// gen_report from its three reference runs.
var javaRows = []string{
	"alibaba__fastjson2_dataset.jsonl",
	"apache__dubbo_dataset.jsonl",
	"fasterxml__jackson-core_dataset.jsonl",
	"fasterxml__jackson-dataformat-xml_dataset.jsonl",
	"google__gson_dataset.jsonl",
	"google__guava_dataset.jsonl",
	"googlecontainertools__jib_dataset.jsonl",
	"mockito__mockito_dataset.jsonl",
}

func fixtureFile(t *testing.T, name string) string {
	t.Helper()
	return testenv.Fixtures(t, "more-datasets", "multi-swe-bench", "pr39_seal-research", "mswebench_dataset", "java", name)
}

func loadJavaRows(t *testing.T) []*Row {
	t.Helper()
	var rows []*Row
	for _, name := range javaRows {
		path := fixtureFile(t, name)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for line := 1; sc.Scan(); line++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			r, err := ParseRow(sc.Bytes())
			if err != nil {
				t.Fatalf("%s line %d: %v", name, line, err)
			}
			rows = append(rows, r)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return rows
}

// TestJavaRowsReportRules rebuilds every row's report from its run_result, test_patch_result and
// fix_patch_result: the harness put the row in the dataset because that report was valid, and
// the row's fixed, p2p, f2p, s2p and n2p tests (names and the three statuses of each) are that
// report's. Grading the row's own fix run in evaluation mode must then resolve it.
func TestJavaRowsReportRules(t *testing.T) {
	rows := loadJavaRows(t)
	if len(rows) != 50 {
		t.Fatalf("got %d rows, want the corpus's 50", len(rows))
	}
	for _, row := range rows {
		t.Run(row.ID(), func(t *testing.T) {
			rep := NewReport(row.Org, row.Repo, row.Number, row.RunResult, row.TestPatchResult, row.FixPatchResult)
			if !rep.Valid {
				t.Fatalf("report invalid: %s", rep.ErrorMsg)
			}
			for _, c := range []struct {
				name      string
				got, want map[string]Test
			}{
				{"fixed_tests", rep.Fixed, row.FixedTests},
				{"p2p_tests", rep.P2P, row.P2PTests},
				{"f2p_tests", rep.F2P, row.F2PTests},
				{"s2p_tests", rep.S2P, row.S2PTests},
				{"n2p_tests", rep.N2P, row.N2PTests},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s: got %d tests, want the row's %d", c.name, len(c.got), len(c.want))
					for n, w := range c.want {
						if g, ok := c.got[n]; !ok || g != w {
							t.Errorf("  %s: got %+v (present %v), want %+v", n, g, ok, w)
						}
					}
				}
			}
			ev := Judge(row, row.FixPatchResult)
			if !ev.Resolved {
				t.Errorf("the row's own fix run is not resolved: %s", ev.Reason)
			}
		})
	}
}

// TestJavaRowsBrokenFix grades each row against fix runs that must not resolve it: the test
// patch's run again (the f2p tests still fail, or, for rows whose tests only appear with the
// fix, nothing changes), and the fix run without its first f2p (or n2p) test.
func TestJavaRowsBrokenFix(t *testing.T) {
	for _, row := range loadJavaRows(t) {
		t.Run(row.ID(), func(t *testing.T) {
			if ev := Judge(row, row.TestPatchResult); ev.Resolved {
				t.Errorf("the test patch's own run resolves the row")
			}
			target := sortedKeys(row.F2PTests)
			if len(target) == 0 {
				target = sortedKeys(row.N2PTests)
			}
			drop := target[0]
			passed := row.FixPatchResult.Passed()
			var kept []string
			for _, p := range passed {
				if p != drop {
					kept = append(kept, p)
				}
			}
			fix, err := NewTestResult(kept, append(row.FixPatchResult.Failed(), drop), row.FixPatchResult.Skipped())
			if err != nil {
				t.Fatal(err)
			}
			ev := Judge(row, fix)
			if ev.Resolved {
				t.Fatalf("resolved with %s failing", drop)
			}
			if ev.Reason == "" {
				t.Error("no reason given")
			}
		})
	}
}

// surefire2Log renders a run as Surefire 2 prints it for google/guava's build: after Maven's
// header, each class's "Running" line and its summary right under it, failing classes marked
// "<<< FAILURE!".
func surefire2Log(r *TestResult) string {
	var b strings.Builder
	b.WriteString("[INFO] Scanning for projects...\n-------------------------------------------------------\n T E S T S\n-------------------------------------------------------\n")
	for _, c := range r.Passed() {
		fmt.Fprintf(&b, "Running %s\nTests run: 4, Failures: 0, Errors: 0, Skipped: 1, Time elapsed: 0.051 sec\n", c)
	}
	for _, c := range r.Failed() {
		fmt.Fprintf(&b, "Running %s\nTests run: 4, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 1.2 sec <<< FAILURE!\n", c)
	}
	for _, c := range r.Skipped() {
		fmt.Fprintf(&b, "Running %s\nTests run: 2, Failures: 0, Errors: 0, Skipped: 2, Time elapsed: 0 sec\n", c)
	}
	b.WriteString("\nResults :\n\n")
	return b.String()
}

// TestGuavaRows takes the corpus's google/guava rows (multi-swe-bench/multi-swe-bench pull 39,
// from the seal-research fork, whose parse_log reads them; rows without instance_id, named by org,
// repo and number) as the other repositories' rows are taken: they load for a run and for an
// evaluation, their gold run resolves them, and each row's fix_patch_result — the harness's own
// parse of its gold run — is what the repository's parser reads back from that run printed as
// Surefire 2 prints it (the fork's parse_log, run by python3 on the same logs, gives the same
// sets).
func TestGuavaRows(t *testing.T) {
	l, err := dataset.Load(context.Background(), fixtureFile(t, "google__guava_dataset.jsonl"),
		dataset.LoadOptions{Families: []dataset.Family{Profile{}}, Require: dataset.RequireRun | dataset.RequireEval})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Instances) != 2 {
		t.Fatalf("got %d rows, want the corpus's 2", len(l.Instances))
	}
	if err := (grader{}).Check(l.Instances); err != nil {
		t.Errorf("Check: %v", err)
	}
	for _, inst := range l.Instances {
		t.Run(inst.InstanceID, func(t *testing.T) {
			row, err := rowOf(&inst)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("google__guava-%d", row.Number); inst.InstanceID != want || inst.Image != fmt.Sprintf("mswebench/google_m_guava:pr-%d", row.Number) || inst.WorkDir != "/home/guava" {
				t.Errorf("instance %s, image %s, workdir %s", inst.InstanceID, inst.Image, inst.WorkDir)
			}
			got, err := ParseLog(row.Org, row.Repo, row.Number, surefire2Log(row.FixPatchResult))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Passed(), row.FixPatchResult.Passed()) || !reflect.DeepEqual(got.Failed(), row.FixPatchResult.Failed()) || !reflect.DeepEqual(got.Skipped(), row.FixPatchResult.Skipped()) {
				t.Errorf("parsed %d/%d/%d passed/failed/skipped, want fix_patch_result's %d/%d/%d",
					len(got.Passed()), len(got.Failed()), len(got.Skipped()), len(row.FixPatchResult.Passed()), len(row.FixPatchResult.Failed()), len(row.FixPatchResult.Skipped()))
			}
			if ev := Judge(row, got); !ev.Resolved {
				t.Errorf("the gold run is not resolved: %s", ev.Reason)
			}
		})
	}
}
