package multiswebench

import (
	"encoding/json"
	"fmt"
)

// Test is one test's status in the three runs the harness compares: without patches (run), with
// the test patch (test) and with the test and fix patches (fix).
type Test struct {
	Run  Status `json:"run"`
	Test Status `json:"test"`
	Fix  Status `json:"fix"`
}

// pyRepr renders the Test as Python prints the harness's Test dataclass (in error messages).
func (t Test) pyRepr() string {
	e := func(s Status) string { return fmt.Sprintf("<TestStatus.%s: '%s'>", s, s) }
	return fmt.Sprintf("Test(run=%s, test=%s, fix=%s)", e(t.Run), e(t.Test), e(t.Fix))
}

func (t Test) pyValue() pyObject {
	return pyObject{{"run", string(t.Run)}, {"test", string(t.Test)}, {"fix", string(t.Fix)}}
}

// UnmarshalJSON reads a Test and refuses a status the harness does not know.
func (t *Test) UnmarshalJSON(data []byte) error {
	var j struct{ Run, Test, Fix *Status }
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		s    *Status
	}{{"run", j.Run}, {"test", j.Test}, {"fix", j.Fix}} {
		if f.s == nil {
			return fmt.Errorf("field %s is missing or null", f.name)
		}
		switch *f.s {
		case Pass, Fail, Skip, None, "PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL":
		default:
			return fmt.Errorf("field %s: %q is not a TestStatus", f.name, *f.s)
		}
	}
	*t = Test{Run: *j.Run, Test: *j.Test, Fix: *j.Fix}
	return nil
}

// Report is the harness's per-instance report (report.py's Report): the three runs, whether the
// fix is valid (and why not), and the tests the fix changed, classified by their status before it.
type Report struct {
	Org    string
	Repo   string
	Number int

	Valid    bool
	ErrorMsg string

	Fixed map[string]Test // tests not passing with the test patch and passing with the fix
	P2P   map[string]Test // passing with the test patch and with the fix
	F2P   map[string]Test // failing with the test patch, passing with the fix
	S2P   map[string]Test // skipped with the test patch, passing with the fix
	N2P   map[string]Test // absent with the test patch, passing with the fix

	RunResult, TestPatchResult, FixPatchResult *TestResult

	tests map[string]Test
}

// ID is the harness's name of an instance: "org/repo:pr-number".
func ID(org, repo string, number int) string { return fmt.Sprintf("%s/%s:pr-%d", org, repo, number) }

// ID is the instance's harness id.
func (r *Report) ID() string { return ID(r.Org, r.Repo, r.Number) }

// NewReport compares the three runs and checks the fix as report.py's Report does.
func NewReport(org, repo string, number int, run, testPatch, fix *TestResult) *Report {
	r := &Report{
		Org: org, Repo: repo, Number: number,
		Fixed: map[string]Test{}, P2P: map[string]Test{}, F2P: map[string]Test{}, S2P: map[string]Test{}, N2P: map[string]Test{},
		RunResult: run, TestPatchResult: testPatch, FixPatchResult: fix,
		tests: map[string]Test{},
	}
	for _, res := range []*TestResult{run, testPatch, fix} {
		for _, set := range []nameSet{res.passed, res.failed, res.skipped} {
			for name := range set {
				r.tests[name] = Test{Run: run.Status(name), Test: testPatch.Status(name), Fix: fix.Status(name)}
			}
		}
	}
	r.check()
	return r
}

// check is report.py's Report.check. The harness walks the tests in the order of a Python set (no
// defined order), so when several tests break a rule, which one its message names is arbitrary;
// here it is the first in sorted order.
func (r *Report) check() {
	names := sortedKeys(r.tests)
	// 1. The fix run reported tests.
	if r.FixPatchResult.Count() == 0 {
		r.ErrorMsg = "After applying the fix patch, no test results were captured when executing the test command. A brief summary is as follows: " + r.ShortReport()
		return
	}
	// 2. No test that passed with the test patch fails with the fix.
	for _, n := range names {
		if t := r.tests[n]; t.Test == Pass && t.Fix == Fail {
			r.ErrorMsg = fmt.Sprintf("Before applying the fix patch, the test passed; however, after applying the fix patch, the test failed. A brief summary is as follows: %s. `%s`: %s", r.ShortReport(), n, t.pyRepr())
			return
		}
	}
	// 3. The fix makes some test pass.
	for _, n := range names {
		if t := r.tests[n]; t.Test != Pass && t.Fix == Pass {
			r.Fixed[n] = t
		}
	}
	if len(r.Fixed) == 0 {
		r.ErrorMsg = "After applying the fix patch, no test cases transitioned from failed to passed. A brief summary is as follows: " + r.ShortReport()
		return
	}
	// 4. No test that passed without patches and was absent or skipped with the test patch fails
	// with the fix.
	for _, n := range names {
		if t := r.tests[n]; (t.Test == None || t.Test == Skip) && t.Fix == Fail && t.Run == Pass {
			r.ErrorMsg = fmt.Sprintf("By comparing the test results before and after applying the fix patch, an anomalous pattern was detected. A brief summary is as follows: %s. `%s`: %s", r.ShortReport(), n, t.pyRepr())
			return
		}
	}
	for _, n := range names {
		t := r.tests[n]
		if t.Fix != Pass {
			continue
		}
		switch t.Test {
		case Pass:
			r.P2P[n] = t
		case Fail:
			r.F2P[n] = t
		case Skip:
			r.S2P[n] = t
		case None:
			r.N2P[n] = t
		}
	}
	r.Valid = true
}

// ShortReport is the harness's summary of the three runs' counts.
func (r *Report) ShortReport() string {
	c := func(t *TestResult) string {
		return fmt.Sprintf("(%d, %d, %d)", len(t.passed), len(t.failed), len(t.skipped))
	}
	return "Test Result Summary:\n" +
		"Stage Descriptions:\n" +
		"  run  : Execute the test command without any patches applied.\n" +
		"  test : Execute the test command after applying the test patch.\n" +
		"  fix  : Execute the test command after applying both the test patch and the fix patch.\n" +
		"Each stage is reported as (pass, fail, skip), representing the number of tests that passed, failed, or were skipped, respectively.\n\n" +
		"Results:\n" +
		"  run  = " + c(r.RunResult) + "\n" +
		"  test = " + c(r.TestPatchResult) + "\n" +
		"  fix  = " + c(r.FixPatchResult)
}

func testsValue(m map[string]Test) pyObject {
	o := pyObject{}
	for _, n := range sortedKeys(m) {
		o = append(o, pyKV{n, m[n].pyValue()})
	}
	return o
}

// MarshalJSON writes the report as the harness writes report.json: one line, Python's
// separators, fields in the harness's order (test sets and dicts sorted by name, where Python's
// order is arbitrary).
func (r *Report) MarshalJSON() ([]byte, error) {
	return []byte(pyDumps(pyObject{
		{"org", r.Org},
		{"repo", r.Repo},
		{"number", r.Number},
		{"valid", r.Valid},
		{"error_msg", r.ErrorMsg},
		{"fixed_tests", testsValue(r.Fixed)},
		{"p2p_tests", testsValue(r.P2P)},
		{"f2p_tests", testsValue(r.F2P)},
		{"s2p_tests", testsValue(r.S2P)},
		{"n2p_tests", testsValue(r.N2P)},
		{"run_result", r.RunResult.pyValue()},
		{"test_patch_result", r.TestPatchResult.pyValue()},
		{"fix_patch_result", r.FixPatchResult.pyValue()},
	}, 0)), nil
}
