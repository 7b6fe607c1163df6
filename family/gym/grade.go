package gym

import (
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Lines of the harness in a test log that mean it has no usable results (the fork's
// get_logs_eval), and the one after which the prediction's run starts.
var logFailureMarkers = []string{
	">>>>> Patch Apply Failed", ">>>>> Reset Failed", ">>>>> Tests Errored", ">>>>> Tests Timed Out",
	"Failed to reset task environment",
}

const predApplied = ">>>>> Applied Patch (pred)"

// statuses are the fork's TestStatus values, in its order.
var statuses = []string{logparse.Failed, logparse.Passed, logparse.Skipped, logparse.Error, logparse.XFail}

// parserOf returns the fork's log parser of a repository: pydantic's variant for
// pydantic/pydantic, SWE-bench's pytest parser for every other SWE-Gym repository.
func parserOf(repo string) func(string) (*logparse.Map, error) {
	if strings.EqualFold(repo, "pydantic/pydantic") {
		return parsePytestPydantic
	}
	return parsePytest
}

func startsWithStatus(line string) bool {
	for _, s := range statuses {
		if strings.HasPrefix(line, s) {
			return true
		}
	}
	return false
}

func endsWithStatus(line string) bool {
	for _, s := range statuses {
		if strings.HasSuffix(line, s) {
			return true
		}
	}
	return false
}

// parsePytest is the fork's parse_log_pytest: lines starting with a status word give
// status → test (the second word; " - " removed from FAILED lines first).
func parsePytest(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range strings.Split(log, "\n") {
		if !startsWithStatus(line) {
			continue
		}
		if strings.HasPrefix(line, logparse.Failed) {
			line = strings.ReplaceAll(line, " - ", " ")
		}
		f := pytext.Fields(line)
		if len(f) <= 1 {
			continue
		}
		m.Set(f[1], f[0])
	}
	return m, nil
}

// The fork's patterns are Python 3 str patterns: \d and \s are Unicode (pytext.Re).
var (
	colourCode    = pytext.Re(`\[(\d+)m`)
	failedBracket = pytext.Re(`FAILED\s*\[.*?\]`)
)

// parsePytestPydantic is the fork's parse_log_pytest_pydantic: colour codes ("[31m") and control
// characters removed, "FAILED [ 12%]" progress suffixes collapsed to FAILED, then status-first
// lines as parsePytest reads them and, for older pytest, lines ending with a status word
// (test first, status second). A line that is a status word alone makes the fork's parser raise
// (IndexError): an error here.
func parsePytestPydantic(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range strings.Split(log, "\n") {
		line = colourCode.ReplaceAllString(line, "")
		line = strings.Map(func(r rune) rune {
			if r >= 1 && r < 32 {
				return -1
			}
			return r
		}, line)
		line = failedBracket.ReplaceAllString(line, logparse.Failed)
		switch {
		case startsWithStatus(line):
			if strings.HasPrefix(line, logparse.Failed) {
				line = strings.ReplaceAll(line, " - ", " ")
			}
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("pydantic's log parser fails on the line %q (a status without a test)", line)
			}
			m.Set(f[1], f[0])
		case endsWithStatus(line):
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("pydantic's log parser fails on the line %q (a status without a test)", line)
			}
			m.Set(f[0], f[1])
		}
	}
	return m, nil
}

// Grade grades the output of a row's eval script as the fork's get_eval_report does for a
// prediction with a patch: a log with one of the harness's failure markers, or without "applied
// patch" (any case) — the test patch did not apply —, has no usable results (not applied, not
// resolved, no tests_status); otherwise the part after the last ">>>>> Applied Patch (pred)" (the
// whole log when absent) is parsed with the repository's parser, and each FAIL_TO_PASS and
// PASS_TO_PASS test is a success (PASSED, XFAIL), a failure (FAILED, ERROR, not in the log) or
// neither (any other status). Resolved means every test that is a success or a failure is a
// success, in both categories (an empty category counts as all passed). The error is a log the
// fork's parser raises on.
func Grade(inst *dataset.Instance, log string) (eval.InstanceReport, error) {
	r := eval.InstanceReport{InstanceID: inst.InstanceID, PatchExists: true}
	// The harness reads the log as a text file: \r\n and \r become \n.
	log = strings.ReplaceAll(strings.ReplaceAll(log, "\r\n", "\n"), "\r", "\n")
	for _, m := range logFailureMarkers {
		if strings.Contains(log, m) {
			return r, nil
		}
	}
	if !strings.Contains(strings.ToLower(log), "applied patch") {
		return r, nil
	}
	if i := strings.LastIndex(log, predApplied); i >= 0 {
		log = log[i+len(predApplied):]
	}
	sm, err := parserOf(inst.Repo)(log)
	if err != nil {
		return r, fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	r.PatchSuccessfullyApplied = true
	ts := eval.TestsStatus{
		FailToPass: category(inst.FailToPass, sm),
		PassToPass: category(inst.PassToPass, sm),
		FailToFail: eval.TestResults{Success: []string{}, Failure: []string{}},
		PassToFail: eval.TestResults{Success: []string{}, Failure: []string{}},
	}
	r.TestsStatus = &ts
	r.Resolved = allPassed(ts.FailToPass) && allPassed(ts.PassToPass)
	return r, nil
}

func category(tests []string, sm *logparse.Map) eval.TestResults {
	r := eval.TestResults{Success: []string{}, Failure: []string{}}
	for _, t := range tests {
		s, ok := sm.Get(t)
		switch {
		case ok && (s == logparse.Passed || s == logparse.XFail):
			r.Success = append(r.Success, t)
		case !ok || s == logparse.Failed || s == logparse.Error:
			r.Failure = append(r.Failure, t)
		}
	}
	return r
}

// allPassed is the fork's compute_fail_to_pass / compute_pass_to_pass equal to 1.
func allPassed(r eval.TestResults) bool { return len(r.Failure) == 0 }
