package eval

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval/logparse"
)

// Lines the eval script and the harness write into a test log.
const (
	// MarkerStart and MarkerEnd enclose the test command's output; the eval script contains
	// `: '>>>>> Start Test Output'`, which `set -x` echoes into the log.
	MarkerStart = ">>>>> Start Test Output"
	MarkerEnd   = ">>>>> End Test Output"
	// MarkerExitCode precedes the test command's own exit status, which the eval script records
	// after MarkerEnd (harness v5) so that a patch printing fake PASSED lines is caught.
	MarkerExitCode = ">>>>> Test Exit Code"

	markerApplyFailed  = ">>>>> Patch Apply Failed"
	markerResetFailed  = ">>>>> Reset Failed"
	markerTestsErrored = ">>>>> Tests Errored"
	markerTimedOut     = ">>>>> Tests Timed Out"

	// exitCodeVar is the shell variable the eval script keeps the test command's $? in.
	exitCodeVar = "SWEBENCH_TEST_EXIT_CODE"
)

// Eval types of a dataset row (column eval_type).
const (
	EvalPassAndFail = "pass_and_fail"
	EvalFailOnly    = "fail_only"
)

// suiteRan is evidence in a log that a test runner executed at least one test; it tells "ran with
// no failures recorded" apart from "never ran" when a parser finds no tests (parsers of fail_only
// rows record failures only). Every count must be non-zero.
var suiteRan = regexp.MustCompile(`(?m)` +
	`Executed [1-9]\d* of \d+` +
	`|TOTAL: [1-9]\d* (?:SUCCESS|FAILED)` +
	`|[1-9]\d* passing` +
	`|Tests:\s+[1-9]\d*` +
	`|Test Suites:\s+(?:\d+ \w+, )*[1-9]\d* total` +
	`|^# tests [1-9]\d*` +
	`|[1-9]\d* specs?, \d+ failures?` +
	`|': ok$`)

var exitCodeLine = regexp.MustCompile(regexp.QuoteMeta(MarkerExitCode) + `:\s*(-?\d+)`)

// TestsStatus lists, for each category of expected tests, which passed and which failed.
// FAIL_TO_FAIL and PASS_TO_FAIL are always empty, as in the harness.
type TestsStatus struct {
	FailToPass TestResults `json:"FAIL_TO_PASS"`
	PassToPass TestResults `json:"PASS_TO_PASS"`
	FailToFail TestResults `json:"FAIL_TO_FAIL"`
	PassToFail TestResults `json:"PASS_TO_FAIL"`
}

// TestResults is one category of TestsStatus. A test whose status is neither a pass nor a failure
// (a parser's odd token) appears in neither list, as in the harness.
type TestResults struct {
	Success []string `json:"success"`
	Failure []string `json:"failure"`
}

// InstanceReport is the grade of one prediction, written as report.json in the harness's format:
// {"<instance_id>": {"patch_is_None": …, "patch_exists": …, "patch_successfully_applied": …,
// "resolved": …, "tests_status": {…}}}. TestsStatus is nil (and the key absent) when the log held
// no usable test results.
type InstanceReport struct {
	InstanceID               string       `json:"-"`
	PatchIsNone              bool         `json:"patch_is_None"`
	PatchExists              bool         `json:"patch_exists"`
	PatchSuccessfullyApplied bool         `json:"patch_successfully_applied"`
	Resolved                 bool         `json:"resolved"`
	TestsStatus              *TestsStatus `json:"tests_status,omitempty"`
}

// Grade grades the output of an instance's eval script (the whole test_output.txt) exactly as the
// SWE-bench harness does for a prediction with a non-empty patch:
//
//   - a log carrying one of the harness's failure markers (patch apply failed, reset failed,
//     tests errored, tests timed out), or lacking the start/end markers, has no usable results:
//     patch_successfully_applied is false and the instance is not resolved;
//   - the text between the markers is parsed with the row's log_parser, falling back to the whole
//     log when that finds no test; for fail_only rows, finding none and no sign that the suite
//     ran (a runner's non-zero summary) is unusable too. For pass_and_fail rows such a log is
//     graded with every expected test failing, as the harness graded the reference reports
//     in ../shared/fixtures (the newest harness marks it not applied; the verdict is the same);
//   - when the eval script recorded a non-zero exit status for the test command but the parsed
//     log reports no FAILED or ERROR test, the log is not trusted (a patch printing fake PASSED
//     lines) and is unusable;
//   - otherwise each FAIL_TO_PASS and PASS_TO_PASS test is a success or a failure: PASSED and XFAIL
//     pass; a test missing from the log fails; a SKIPPED test fails in FAIL_TO_PASS and is kept in
//     PASS_TO_PASS; a truncated parametrised id matches by prefix when all candidates agree; rows of
//     eval_type fail_only fail a test only when the log says FAILED.
//
// Resolved means every FAIL_TO_PASS and every PASS_TO_PASS test succeeded. Grade returns an error
// when the row cannot be graded at all: unknown log_parser or eval_type, or a log the harness's
// parser would reject.
//
// Families whose harness is a fork of this one (SWE-rebench's) grade with rules of their own
// through a Harness (see HarnessGrader), built from the exported pieces below: TestOutput,
// IsPassing, NewTestsStatus, FullyResolved.
func Grade(inst dataset.Instance, testOutput string) (InstanceReport, error) {
	r := InstanceReport{InstanceID: inst.InstanceID, PatchExists: true}
	evalType, err := evalTypeOf(inst)
	if err != nil {
		return r, err
	}
	parse, err := parserOf(inst)
	if err != nil {
		return r, err
	}
	sm, ok, err := statusMapFromLog(parse, inst.InstanceID, testOutput, evalType == EvalFailOnly)
	if err != nil {
		return r, fmt.Errorf("instance %s: %s: %w", inst.InstanceID, inst.LogParser, err)
	}
	if !ok {
		return r, nil
	}
	r.PatchSuccessfullyApplied = true
	ts := gradeTests(sm, inst.FailToPass, inst.PassToPass, evalType)
	r.TestsStatus = &ts
	r.Resolved = FullyResolved(ts)
	return r, nil
}

func evalTypeOf(inst dataset.Instance) (string, error) {
	switch inst.EvalType {
	case "", EvalPassAndFail:
		return EvalPassAndFail, nil
	case EvalFailOnly:
		return EvalFailOnly, nil
	}
	return "", fmt.Errorf("instance %s: unknown eval_type %q: use %q or %q", inst.InstanceID, inst.EvalType, EvalPassAndFail, EvalFailOnly)
}

// universalNewlines converts \r\n and lone \r to \n, as Python does when the harness reads a log.
func universalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// TestExitCode returns the test command's exit status recorded in a log by a harness-v5 eval
// script, and whether one was recorded.
func TestExitCode(log string) (int, bool) {
	g := exitCodeLine.FindStringSubmatch(log)
	if g == nil {
		return 0, false
	}
	n, err := strconv.Atoi(g[1])
	if err != nil {
		return 0, false
	}
	return n, true
}

// TestOutput is the first step of the harness's get_logs_eval: the part of a test log between
// the start and end markers (line endings read as Python reads the file), and whether the log
// is usable at all. A log carrying one of the harness's failure markers (patch apply failed,
// reset failed, tests errored, tests timed out), or lacking either marker, is not.
func TestOutput(log string) (string, bool) {
	log = universalNewlines(log)
	for _, bad := range []string{markerApplyFailed, markerResetFailed, markerTestsErrored, markerTimedOut} {
		if strings.Contains(log, bad) {
			return "", false
		}
	}
	if !strings.Contains(log, MarkerStart) || !strings.Contains(log, MarkerEnd) {
		return "", false
	}
	// Python's content.split(START)[1].split(END)[0]: from the first start marker up to the next
	// start marker, cut at the first end marker.
	sliced := strings.SplitN(log, MarkerStart, 3)[1]
	return strings.SplitN(sliced, MarkerEnd, 2)[0], true
}

// statusMapFromLog is the harness's get_logs_eval: the parsed statuses and whether the log is usable.
func statusMapFromLog(parse logparse.Parser, id, log string, failOnly bool) (*logparse.Map, bool, error) {
	log = universalNewlines(log)
	sliced, ok := TestOutput(log)
	if !ok {
		return nil, false, nil
	}
	sm, err := parse(sliced, id)
	if err != nil {
		return nil, false, err
	}
	if sm.Len() == 0 {
		if sm, err = parse(log, id); err != nil {
			return nil, false, err
		}
	}
	if sm.Len() == 0 && failOnly && !suiteRan.MatchString(log) {
		// Under fail_only an absent test counts as a success, so a suite that never started would
		// resolve every instance. (Under pass_and_fail every expected test then fails, and the log
		// is graded like that, as the harness did when the reference reports were made.)
		return nil, false, nil
	}
	if code, ok := TestExitCode(log); ok && code != 0 && sm.Len() > 0 {
		anyFailure := false
		for _, k := range sm.Keys() {
			if s, _ := sm.Get(k); s == logparse.Failed || s == logparse.Error {
				anyFailure = true
				break
			}
		}
		if !anyFailure {
			return nil, false, nil
		}
	}
	return sm, true, nil
}

// IsPassing reports whether a test of this status passed: PASSED or XFAIL, as in the harness.
func IsPassing(status string) bool { return status == logparse.Passed || status == logparse.XFail }

// resolveCase finds the status-map key for an expected test. Ids truncated inside a parameter
// (more '[' than ']') match the first key they prefix, when all such keys agree on pass or fail.
func resolveCase(test string, sm *logparse.Map) (string, bool) {
	if _, ok := sm.Get(test); ok {
		return test, true
	}
	if strings.Count(test, "[") <= strings.Count(test, "]") {
		return "", false
	}
	var first string
	found, agree, pass := false, true, false
	for _, k := range sm.Keys() {
		if !strings.HasPrefix(k, test) {
			continue
		}
		s, _ := sm.Get(k)
		if !found {
			first, pass, found = k, IsPassing(s), true
		} else if IsPassing(s) != pass {
			agree = false
		}
	}
	if found && agree {
		return first, true
	}
	return "", false
}

func testPassed(test string, sm *logparse.Map) bool {
	k, ok := resolveCase(test, sm)
	if !ok {
		return false
	}
	s, _ := sm.Get(k)
	return IsPassing(s)
}

func testMaintained(test string, sm *logparse.Map) bool {
	if testPassed(test, sm) {
		return true
	}
	k, ok := resolveCase(test, sm)
	if !ok {
		return false
	}
	s, _ := sm.Get(k)
	return s == logparse.Skipped
}

func testFailed(test string, sm *logparse.Map) bool {
	k, ok := resolveCase(test, sm)
	if !ok {
		return true
	}
	s, _ := sm.Get(k)
	return s == logparse.Failed || s == logparse.Error || s == logparse.Skipped
}

func gradeTests(sm *logparse.Map, f2p, p2p []string, evalType string) TestsStatus {
	ts := NewTestsStatus()
	failOnly := func(test string, r *TestResults) {
		if s, ok := sm.Get(test); ok && s == logparse.Failed {
			r.Failure = append(r.Failure, test)
		} else {
			r.Success = append(r.Success, test)
		}
	}
	for _, t := range f2p {
		switch {
		case evalType == EvalFailOnly:
			failOnly(t, &ts.FailToPass)
		case testPassed(t, sm):
			ts.FailToPass.Success = append(ts.FailToPass.Success, t)
		case testFailed(t, sm):
			ts.FailToPass.Failure = append(ts.FailToPass.Failure, t)
		}
	}
	for _, t := range p2p {
		switch {
		case evalType == EvalFailOnly:
			failOnly(t, &ts.PassToPass)
		case testMaintained(t, sm):
			ts.PassToPass.Success = append(ts.PassToPass.Success, t)
		case testFailed(t, sm):
			ts.PassToPass.Failure = append(ts.PassToPass.Failure, t)
		}
	}
	return ts
}

func emptyResults() TestResults { return TestResults{Success: []string{}, Failure: []string{}} }

// NewTestsStatus returns a TestsStatus whose every category is empty (lists, not null, as the
// harness writes them).
func NewTestsStatus() TestsStatus {
	return TestsStatus{FailToPass: emptyResults(), PassToPass: emptyResults(), FailToFail: emptyResults(), PassToFail: emptyResults()}
}

// ratio is the harness's success share of a category; an empty category counts as 1.
func ratio(r TestResults) float64 {
	total := len(r.Success) + len(r.Failure)
	if total == 0 {
		return 1
	}
	return float64(len(r.Success)) / float64(total)
}

// FullyResolved is the harness's resolved rule: every FAIL_TO_PASS and every PASS_TO_PASS test
// succeeded (an empty category counts as fully successful).
func FullyResolved(ts TestsStatus) bool {
	return ratio(ts.FailToPass) == 1 && ratio(ts.PassToPass) == 1
}

// parserOf returns the log parser named by the row.
func parserOf(inst dataset.Instance) (logparse.Parser, error) {
	p, err := logparse.Get(inst.LogParser)
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	return p, nil
}
