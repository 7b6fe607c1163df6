package smith

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Lines of an evaluation's test output, as SWE-smith's harness (and SWE-bench's constants) write
// them.
const (
	MarkerStart      = ">>>>> Start Test Output"
	MarkerEnd        = ">>>>> End Test Output"
	MarkerApplyFail  = ">>>>> Patch Apply Failed"
	MarkerTimedOut   = ">>>>> Tests Timed Out"
	markerStartTrace = "+ : '" + MarkerStart + "'"
	markerEndTrace   = "+ : '" + MarkerEnd + "'"
)

// ErrMarkersOrder is returned for a test output whose end marker comes before its start.
var ErrMarkersOrder = errors.New("invalid test output: start and end markers are not in order")

// ReadTestOutput is the harness's read_test_output: the text between the xtrace lines of the
// start and end markers, and whether there is any (not after a failed patch or a timeout, nor
// without both markers).
func ReadTestOutput(content string) (string, bool, error) {
	if strings.Contains(content, MarkerApplyFail) || strings.Contains(content, MarkerTimedOut) {
		return "", false, nil
	}
	if !strings.Contains(content, MarkerStart) || !strings.Contains(content, MarkerEnd) {
		return content, false, nil
	}
	start, end := pyFind(content, markerStartTrace), pyFind(content, markerEndTrace)
	if start > end {
		return "", false, ErrMarkersOrder
	}
	return pySlice(pySlice(content, start, end), len(markerStartTrace), len(content)), true, nil
}

// pyFind is Python's str.find over bytes: the index, or -1.
func pyFind(s, sub string) int { return strings.Index(s, sub) }

// pySlice is Python's s[i:j] over byte offsets, negative indices counting from the end.
func pySlice(s string, i, j int) string {
	norm := func(k int) int {
		if k < 0 {
			k += len(s)
		}
		return max(0, min(k, len(s)))
	}
	i, j = norm(i), norm(j)
	if i >= j {
		return ""
	}
	return s[i:j]
}

// Results is one category of a report's tests_status.
type Results struct {
	Success []string `json:"success"`
	Failure []string `json:"failure"`
}

// TestsStatus is a report's tests_status, in the harness's key order.
type TestsStatus struct {
	FailToPass Results `json:"FAIL_TO_PASS"`
	PassToPass Results `json:"PASS_TO_PASS"`
	FailToFail Results `json:"FAIL_TO_FAIL"`
	PassToFail Results `json:"PASS_TO_FAIL"`
}

func emptyResults() Results { return Results{Success: []string{}, Failure: []string{}} }

// testPassed and testFailed are the harness's rules: a test passes when the log says PASSED or
// XFAIL, and fails when the log does not mention it or says FAILED or ERROR (SKIPPED is neither).
func testPassed(t string, sm *logparse.Map) bool {
	s, ok := sm.Get(t)
	return ok && (s == passed || s == xfail)
}

func testFailed(t string, sm *logparse.Map) bool {
	s, ok := sm.Get(t)
	return !ok || s == failed || s == errored
}

func sortTests(tests []string, sm *logparse.Map) Results {
	r := emptyResults()
	for _, t := range tests {
		switch {
		case testPassed(t, sm):
			r.Success = append(r.Success, t)
		case testFailed(t, sm):
			r.Failure = append(r.Failure, t)
		}
	}
	return r
}

// EvalTestsReport is the harness's get_eval_tests_report for FAIL_TO_PASS and PASS_TO_PASS
// (FAIL_TO_FAIL and PASS_TO_FAIL stay empty, as the harness's evaluation leaves them).
func EvalTestsReport(sm *logparse.Map, f2p, p2p []string) TestsStatus {
	return TestsStatus{FailToPass: sortTests(f2p, sm), PassToPass: sortTests(p2p, sm), FailToFail: emptyResults(), PassToFail: emptyResults()}
}

// fullyResolved is SWE-bench's get_resolution_status == FULL: every F2P and P2P test that is a
// success or a failure is a success (an empty category counts as all successes).
func fullyResolved(ts TestsStatus) bool {
	all := func(r Results) bool { return len(r.Failure) == 0 }
	return all(ts.FailToPass) && all(ts.PassToPass)
}

// KeyModel is the report key the harness adds the prediction's model under.
const KeyModel = "model_name_or_path"

// Report is an instance's report.json as SWE-smith's harness writes it:
// {"patch_exists", "resolved", "tests_status", "model_name_or_path"}, or {"timed_out": true,
// "timeout": N} when the tests outlived the profile's timeout. Reports of older harness versions
// ({"patch_is_None", "patch_exists", "patch_successfully_applied", "resolved", …}) read too.
type Report struct {
	PatchExists bool
	Resolved    bool
	TestsStatus *TestsStatus
	Model       string
	TimedOut    bool
	Timeout     int // seconds
	// PatchIsNone and PatchSuccessfullyApplied are kept from reports of older harness versions.
	PatchIsNone, PatchSuccessfullyApplied *bool
}

// Grade is the harness's get_eval_report: no patch (null) is not resolved and has no tests; a test
// output without usable results (failed patch, timeout, markers missing) is not resolved; else
// the profile's parser reads it and the instance is resolved iff every FAIL_TO_PASS and
// PASS_TO_PASS test passed (SKIPPED tests count neither way). An error means the parser raised
// or the markers are out of order, where the harness writes no report.
func Grade(p Profile, patchIsNull bool, content string, f2p, p2p []string) (Report, error) {
	r := Report{}
	if patchIsNull {
		return r, nil
	}
	r.PatchExists = true
	out, found, err := ReadTestOutput(content)
	if err != nil || !found {
		return r, err
	}
	parse, err := ParserNamed(p.Parser)
	if err != nil {
		return r, err
	}
	sm, err := parse(out)
	if err != nil {
		return r, err
	}
	ts := EvalTestsReport(sm, f2p, p2p)
	r.TestsStatus = &ts
	r.Resolved = fullyResolved(ts)
	return r, nil
}

// MarshalJSON writes the report in the harness's key order.
func (r Report) MarshalJSON() ([]byte, error) {
	if r.TimedOut {
		return json.Marshal(struct {
			TimedOut bool `json:"timed_out"`
			Timeout  int  `json:"timeout"`
		}{true, r.Timeout})
	}
	type current struct {
		PatchExists bool         `json:"patch_exists"`
		Resolved    bool         `json:"resolved"`
		TestsStatus *TestsStatus `json:"tests_status,omitempty"`
		Model       *string      `json:"model_name_or_path,omitempty"`
	}
	c := current{PatchExists: r.PatchExists, Resolved: r.Resolved, TestsStatus: r.TestsStatus}
	if r.Model != "" {
		c.Model = &r.Model
	}
	return json.Marshal(c)
}

// UnmarshalJSON reads a report of the current or an older harness version.
func (r *Report) UnmarshalJSON(data []byte) error {
	var raw struct {
		PatchIsNone              *bool        `json:"patch_is_None"`
		PatchExists              *bool        `json:"patch_exists"`
		PatchSuccessfullyApplied *bool        `json:"patch_successfully_applied"`
		Resolved                 *bool        `json:"resolved"`
		TestsStatus              *TestsStatus `json:"tests_status"`
		Model                    string       `json:"model_name_or_path"`
		TimedOut                 bool         `json:"timed_out"`
		Timeout                  int          `json:"timeout"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw.TimedOut {
		*r = Report{TimedOut: true, Timeout: raw.Timeout}
		return nil
	}
	if raw.Resolved == nil {
		return errors.New(`not a SWE-smith report: no "resolved" (nor "timed_out")`)
	}
	*r = Report{Resolved: *raw.Resolved, TestsStatus: raw.TestsStatus, Model: raw.Model,
		PatchIsNone: raw.PatchIsNone, PatchSuccessfullyApplied: raw.PatchSuccessfullyApplied}
	if raw.PatchExists != nil {
		r.PatchExists = *raw.PatchExists
	}
	return nil
}

// Marshal encodes r as the harness writes report.json: json.dumps(…, indent=4), ASCII only.
func (r Report) Marshal() ([]byte, error) { return pytext.JSONDumps(r, 4, true) }

// RunReport is the harness's report.json of a whole evaluation run.
type RunReport struct {
	Resolved      int      `json:"resolved"`
	Unresolved    int      `json:"unresolved"`
	Total         int      `json:"total"`
	IDsResolved   []string `json:"ids_resolved"`
	IDsUnresolved []string `json:"ids_unresolved"`
}

// Marshal encodes the run report as the harness writes it (indent 4, ASCII only).
func (r RunReport) Marshal() ([]byte, error) { return pytext.JSONDumps(r, 4, true) }

// ValidReport is the harness's get_valid_report: how each test's status changed between two
// validation runs (SWE-smith's "pre-gold" and "post-gold" logs), for the tests both runs parsed,
// in the order of the second.
type ValidReport struct {
	FailToPass []string `json:"FAIL_TO_PASS"`
	PassToPass []string `json:"PASS_TO_PASS"`
	FailToFail []string `json:"FAIL_TO_FAIL"`
	PassToFail []string `json:"PASS_TO_FAIL"`
}

// Validate compares the test outputs of two validation runs, parsed with the profile's parser; a
// run without usable results contributes no tests.
func Validate(p Profile, preGold, postGold string) (ValidReport, error) {
	r := ValidReport{FailToPass: []string{}, PassToPass: []string{}, FailToFail: []string{}, PassToFail: []string{}}
	parse, err := ParserNamed(p.Parser)
	if err != nil {
		return r, err
	}
	statusMap := func(content string) (*logparse.Map, error) {
		out, found, err := ReadTestOutput(content)
		if err != nil || !found {
			return logparse.NewMap(), err
		}
		return parse(out)
	}
	pre, err := statusMap(preGold)
	if err != nil {
		return r, fmt.Errorf("pre-gold log: %w", err)
	}
	post, err := statusMap(postGold)
	if err != nil {
		return r, fmt.Errorf("post-gold log: %w", err)
	}
	for _, t := range post.Keys() {
		before, ok := pre.Get(t)
		if !ok {
			continue
		}
		after, _ := post.Get(t)
		switch {
		case before == passed && after == passed:
			r.PassToPass = append(r.PassToPass, t)
		case before == failed && after == passed:
			r.FailToPass = append(r.FailToPass, t)
		case before == failed && after == failed:
			r.FailToFail = append(r.FailToFail, t)
		case before == passed && after == failed:
			r.PassToFail = append(r.PassToFail, t)
		}
	}
	return r, nil
}
