package multiswebench

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func mustResult(t *testing.T, passed, failed, skipped []string) *TestResult {
	t.Helper()
	r, err := NewTestResult(passed, failed, skipped)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReportChecks(t *testing.T) {
	run := mustResult(t, []string{"a", "b", "c"}, nil, []string{"s"})
	test := mustResult(t, []string{"a", "b"}, []string{"f"}, []string{"s"})
	for _, c := range []struct {
		name      string
		fix       *TestResult
		valid     bool
		errPrefix string
		fixed     []string
		p2p, f2p  []string
		s2p, n2p  []string
	}{
		{name: "valid: f2p, s2p, n2p and p2p", fix: mustResult(t, []string{"a", "b", "f", "s", "n"}, nil, nil),
			valid: true, fixed: []string{"f", "n", "s"}, p2p: []string{"a", "b"}, f2p: []string{"f"}, s2p: []string{"s"}, n2p: []string{"n"}},
		{name: "no tests in the fix run", fix: mustResult(t, nil, nil, nil),
			errPrefix: "After applying the fix patch, no test results were captured"},
		{name: "a test passing with the test patch fails with the fix", fix: mustResult(t, []string{"f"}, []string{"b"}, nil),
			errPrefix: "Before applying the fix patch, the test passed; however, after applying the fix patch, the test failed."},
		{name: "nothing fixed", fix: mustResult(t, []string{"a", "b"}, []string{"f"}, nil),
			errPrefix: "After applying the fix patch, no test cases transitioned from failed to passed."},
		// c passed without patches, is absent with the test patch and fails with the fix.
		{name: "anomalous pattern", fix: mustResult(t, []string{"a", "b", "f"}, []string{"c"}, nil),
			errPrefix: "By comparing the test results before and after applying the fix patch, an anomalous pattern was detected.",
			fixed:     []string{"f"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := NewReport("org", "repo", 7, run, test, c.fix)
			if r.Valid != c.valid || !strings.HasPrefix(r.ErrorMsg, c.errPrefix) || (c.valid && r.ErrorMsg != "") {
				t.Fatalf("got valid=%v %q, want valid=%v, message starting %q", r.Valid, r.ErrorMsg, c.valid, c.errPrefix)
			}
			for _, s := range []struct {
				name string
				got  map[string]Test
				want []string
			}{{"fixed", r.Fixed, c.fixed}, {"p2p", r.P2P, c.p2p}, {"f2p", r.F2P, c.f2p}, {"s2p", r.S2P, c.s2p}, {"n2p", r.N2P, c.n2p}} {
				if got := strings.Join(sortedKeys(s.got), ","); got != strings.Join(s.want, ",") {
					t.Errorf("%s: got %s, want %s", s.name, got, strings.Join(s.want, ","))
				}
			}
		})
	}
}

// TestReportMessages checks the exact text of a message: the summary of counts and Python's
// rendering of the offending test.
func TestReportMessages(t *testing.T) {
	run := mustResult(t, []string{"x"}, nil, nil)
	r := NewReport("o", "r", 1, run, run, mustResult(t, nil, []string{"x"}, nil))
	want := "Before applying the fix patch, the test passed; however, after applying the fix patch, the test failed. A brief summary is as follows: Test Result Summary:\n" +
		"Stage Descriptions:\n" +
		"  run  : Execute the test command without any patches applied.\n" +
		"  test : Execute the test command after applying the test patch.\n" +
		"  fix  : Execute the test command after applying both the test patch and the fix patch.\n" +
		"Each stage is reported as (pass, fail, skip), representing the number of tests that passed, failed, or were skipped, respectively.\n\n" +
		"Results:\n" +
		"  run  = (1, 0, 0)\n" +
		"  test = (1, 0, 0)\n" +
		"  fix  = (0, 1, 0). `x`: Test(run=<TestStatus.PASS: 'PASS'>, test=<TestStatus.PASS: 'PASS'>, fix=<TestStatus.FAIL: 'FAIL'>)"
	if r.ErrorMsg != want {
		t.Errorf("got\n%s\nwant\n%s", r.ErrorMsg, want)
	}
}

// TestReportJSON checks report.json against what Python's json.dumps(ensure_ascii=False) writes
// for the harness's Report (field order of the dataclass, ", " and ": " separators, only control
// characters escaped).
func TestReportJSON(t *testing.T) {
	run := mustResult(t, []string{"é"}, nil, nil)
	test := mustResult(t, []string{"é"}, []string{"t\"1\x1b"}, nil)
	fix := mustResult(t, []string{"é", "t\"1\x1b"}, nil, nil)
	b, err := json.Marshal(NewReport("org", "repo", 12, run, test, fix))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"org": "org", "repo": "repo", "number": 12, "valid": true, "error_msg": "", ` +
		`"fixed_tests": {"t\"1\u001b": {"run": "NONE", "test": "FAIL", "fix": "PASS"}}, ` +
		`"p2p_tests": {"é": {"run": "PASS", "test": "PASS", "fix": "PASS"}}, ` +
		`"f2p_tests": {"t\"1\u001b": {"run": "NONE", "test": "FAIL", "fix": "PASS"}}, "s2p_tests": {}, "n2p_tests": {}, ` +
		`"run_result": {"passed_count": 1, "failed_count": 0, "skipped_count": 0, "passed_tests": ["é"], "failed_tests": [], "skipped_tests": []}, ` +
		`"test_patch_result": {"passed_count": 1, "failed_count": 1, "skipped_count": 0, "passed_tests": ["é"], "failed_tests": ["t\"1\u001b"], "skipped_tests": []}, ` +
		`"fix_patch_result": {"passed_count": 2, "failed_count": 0, "skipped_count": 0, "passed_tests": ["t\"1\u001b", "é"], "failed_tests": [], "skipped_tests": []}}`
	// json.Marshal compacts and escapes a Marshaler's output; the bytes written to report.json are
	// MarshalJSON's own.
	raw, _ := NewReport("org", "repo", 12, run, test, fix).MarshalJSON()
	if string(raw) != want {
		t.Errorf("got\n%s\nwant\n%s", raw, want)
	}
	var round map[string]any
	if err := json.Unmarshal(b, &round); err != nil {
		t.Fatal(err)
	}
}

func TestFinalReportJSON(t *testing.T) {
	f := &FinalReport{
		Resolved:   []Instance{{"a", "x", 2}, {"b", "y", 1}},
		Unresolved: []Instance{{"a", "x", 10}},
		Errors:     []Instance{{"a", "x", 3}},
	}
	b, _ := f.MarshalJSON()
	want := `{
    "total_instances": 4,
    "submitted_instances": 4,
    "completed_instances": 3,
    "incomplete_instances": 1,
    "resolved_instances": 2,
    "unresolved_instances": 1,
    "empty_patch_instances": 0,
    "error_instances": 1,
    "submitted_ids": [
        "b/y:pr-1",
        "a/x:pr-2",
        "a/x:pr-10",
        "a/x:pr-3"
    ],
    "completed_ids": [
        "b/y:pr-1",
        "a/x:pr-2",
        "a/x:pr-10"
    ],
    "incomplete_ids": [
        "a/x:pr-3"
    ],
    "resolved_ids": [
        "b/y:pr-1",
        "a/x:pr-2"
    ],
    "unresolved_ids": [
        "a/x:pr-10"
    ],
    "empty_patch_ids": [],
    "error_ids": [
        "a/x:pr-3"
    ]
}`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func TestTestResultJSON(t *testing.T) {
	for _, c := range []struct {
		name, in, wantErr string
	}{
		{"valid", `{"passed_count": 1, "failed_count": 0, "skipped_count": 0, "passed_tests": ["a"], "failed_tests": [], "skipped_tests": []}`, ""},
		{"count differs", `{"passed_count": 2, "failed_count": 0, "skipped_count": 0, "passed_tests": ["a", "a"], "failed_tests": [], "skipped_tests": []}`, "invalid passed_count: `2`, passed_tests: `1`"},
		{"overlap", `{"passed_count": 1, "failed_count": 1, "skipped_count": 0, "passed_tests": ["a"], "failed_tests": ["a"], "skipped_tests": []}`, "Passed tests and failed tests should not have common items"},
		{"missing", `{"passed_count": 1, "failed_count": 0, "passed_tests": ["a"], "failed_tests": [], "skipped_tests": []}`, "field skipped_count is missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r TestResult
			err := json.Unmarshal([]byte(c.in), &r)
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if out, _ := r.MarshalJSON(); string(out) != c.in {
					t.Errorf("round trip: got %s", out)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("got %v, want %q", err, c.wantErr)
			}
		})
	}
}

func TestParseRowErrors(t *testing.T) {
	ok := `{"org": "o", "repo": "r", "number": 1, "state": "closed", "title": "t", "body": null, "base": {"label": "", "ref": "main", "sha": "abc"}, "resolved_issues": [], "fix_patch": "", "test_patch": "",` +
		` "run_result": {"passed_count": 0, "failed_count": 0, "skipped_count": 0, "passed_tests": [], "failed_tests": [], "skipped_tests": []},` +
		` "test_patch_result": {"passed_count": 0, "failed_count": 0, "skipped_count": 0, "passed_tests": [], "failed_tests": [], "skipped_tests": []},` +
		` "fix_patch_result": {"passed_count": 0, "failed_count": 0, "skipped_count": 0, "passed_tests": [], "failed_tests": [], "skipped_tests": []}}`
	if _, err := ParseRow([]byte(ok)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, in, wantErr string }{
		{"a SWE-bench row", `{"instance_id": "a__b-1", "problem_statement": "x"}`, "field org is missing or null: this is not a Multi-SWE-bench row"},
		{"number as text", strings.Replace(ok, `"number": 1`, `"number": "1"`, 1), "field number: a JSON string"},
		{"bad run", strings.Replace(ok, `"run_result": {"passed_count": 0`, `"run_result": {"passed_count": 3`, 1), "field run_result: invalid passed_count"},
		{"bad test status", strings.Replace(ok, `"fix_patch": ""`, `"fix_patch": "", "f2p_tests": {"t": {"run": "OK", "test": "FAIL", "fix": "PASS"}}`, 1), `field f2p_tests: field run: "OK" is not a TestStatus`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRow([]byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("got %v, want %q", err, c.wantErr)
			}
		})
	}
}

func TestEvaluate(t *testing.T) {
	row := &Row{Org: "cli", Repo: "cli", Number: 5,
		RunResult:       mustResult(t, []string{"TestA"}, nil, nil),
		TestPatchResult: mustResult(t, []string{"TestA"}, []string{"TestB"}, nil),
		P2PTests:        map[string]Test{"TestA": {Pass, Pass, Pass}},
		F2PTests:        map[string]Test{"TestB": {None, Fail, Pass}},
	}
	for _, c := range []struct {
		name, log string
		resolved  bool
		reason    string
	}{
		{"resolved", "--- PASS: TestA (0.00s)\n--- PASS: TestB (0.00s)\n", true, ""},
		{"f2p still failing", "--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\n", false, "Invalid report for cli/cli:pr-5"},
		// Valid (TestC is fixed) but the row's f2p test is missing from the run.
		{"f2p missing", "--- PASS: TestA (0.00s)\n--- PASS: TestC (0.00s)\n", false, "Invalid f2p_tests for cli/cli:pr-5: missing TestB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev, err := Evaluate(row, c.log)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Resolved != c.resolved || !strings.HasPrefix(ev.Reason, c.reason) {
				t.Errorf("got resolved=%v %q, want %v %q", ev.Resolved, ev.Reason, c.resolved, c.reason)
			}
		})
	}
	if _, err := Evaluate(row, "--- PASS: TestA\n--- FAIL: TestA/x\n--- PASS: TestA/y\n"); err != nil {
		t.Errorf("cli reads subtests by name: %v", err)
	}
}

func TestInstanceLayout(t *testing.T) {
	body := "It breaks.\r\nReally."
	r := &Row{Org: "BurntSushi", Repo: "ripgrep", Number: 2209, ResolvedIssues: []ResolvedIssue{{Number: 1, Title: "Bug", Body: &body}, {Number: 2, Title: "Other"}}}
	if got := r.Image(); got != "mswebench/burntsushi_m_ripgrep:pr-2209" {
		t.Errorf("image %q", got)
	}
	if r.InstanceID() != "BurntSushi__ripgrep-2209" || r.ID() != "BurntSushi/ripgrep:pr-2209" || r.Workdir() != "/home/ripgrep" {
		t.Errorf("id %q, harness id %q, workdir %q", r.InstanceID(), r.ID(), r.Workdir())
	}
	if got := r.ProblemStatement(); got != "Bug\nIt breaks.\r\nReally." {
		t.Errorf("task %q", got)
	}
	if py := (&Row{Org: "django", Repo: "django", Number: 1}); py.Workdir() != "/testbed" {
		t.Errorf("mini's Python images keep SWE-bench's /testbed, got %q", py.Workdir())
	}
	line, _ := PredictionLine(r, "diff\n")
	if string(line) != `{"org":"BurntSushi","repo":"ripgrep","number":2209,"fix_patch":"diff\n"}`+"\n" {
		t.Errorf("prediction line %s", line)
	}
}

// fakeBox answers a fix run with fixed output.
type fakeBox struct {
	written  map[string]string
	out      string
	timedOut bool
}

func (b *fakeBox) WriteFile(_ context.Context, path string, data []byte) error {
	b.written[path] = string(data)
	return nil
}

func (b *fakeBox) Exec(_ context.Context, cmd string, _ time.Duration) (string, int, bool, error) {
	if cmd != FixRunCommand {
		return "", 127, false, nil
	}
	return b.out, 0, b.timedOut, nil
}

func TestRunFix(t *testing.T) {
	box := &fakeBox{written: map[string]string{}, out: "PASS: tests/a\n"}
	out, err := RunFix(context.Background(), box, "diff\n", time.Minute)
	if err != nil || out != box.out || box.written[FixPatchPath] != "diff\n" {
		t.Fatalf("got %q %v, wrote %q", out, err, box.written)
	}
	box.timedOut = true
	if _, err := RunFix(context.Background(), box, "diff\n", time.Second); !errors.Is(err, ErrFixTimeout) {
		t.Errorf("timeout: got %v", err)
	}
}
