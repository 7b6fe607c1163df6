package live

import (
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// The pytest parser of the harness: SWE-bench-Live's own copy of SWE-bench's, in its
// evaluation/evaluation.py (parse_log_pytest and default_pytest_parser; microsoft/SWE-bench-Live
// at 70ec57e852e3f2d195790fe71f553e272c691833, the newest commit read). It predates the parser's
// later change in SWE-bench, which drops pytest's "SKIPPED [N] file:line: reason" summary lines:
// the harness's copy reads such a line as the test "[N]", skipped.

// pytestStatuses are the harness's TestStatus values, in its order.
var pytestStatuses = []string{logparse.Failed, logparse.Passed, logparse.Skipped, logparse.Error, logparse.XFail}

// parseLogPytest is the harness's parse_log_pytest: each line (the log split at "\n") that starts
// with a status word, " - " removed first from FAILED lines, gives its second word (Python's
// str.split()) that status; a later line for the same test changes its status, not its place.
func parseLogPytest(log string) *logparse.Map {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		if !hasStatusPrefix(line) {
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
	return m
}

func hasStatusPrefix(line string) bool {
	for _, s := range pytestStatuses {
		if strings.HasPrefix(line, s) {
			return true
		}
	}
	return false
}

// PytestStatus is the harness's status map of a row graded with its pytest parser
// (default_pytest_parser): parseLogPytest's statuses turned into "pass" (a status containing
// "pass", as str.lower reads it), "skip" (containing "skip") or "fail" (anything else), in the
// parser's order.
func PytestStatus(log string) Status {
	out := statusOf(parseLogPytest(log))
	for k := range out {
		switch s := out[k].Status; {
		case lowerContains(s, "pass"):
			out[k].Status = "pass"
		case lowerContains(s, "skip"):
			out[k].Status = "skip"
		default:
			out[k].Status = "fail"
		}
	}
	return out
}

// lowerContains is Python's `word in s.lower()` for an ASCII word: Go's lower-casing but for
// U+0130 (İ), which Python's full case mapping lowers to "i" and a combining dot.
func lowerContains(s, word string) bool {
	return strings.Contains(strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307")), word)
}
