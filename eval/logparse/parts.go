package logparse

import (
	"strings"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// The building blocks of the pytest parsers, for the families whose harness is a fork that keeps
// older versions of them (family/rebench: SWE-bench harness 4.0's).

// PytestSummaryFields returns the whitespace-separated words of a pytest summary line
// ("PASSED a::b", "FAILED a::b - message", whose " - " become spaces), or nil when the line is
// not one. Unlike the harness v5's parse_log_pytest, it keeps pytest's "SKIPPED [N] path:line"
// summaries (the [N] is not a test).
func PytestSummaryFields(line string) []string {
	if !startsWithStatus(line) {
		return nil
	}
	if strings.HasPrefix(line, Failed) {
		line = strings.ReplaceAll(line, " - ", " ")
	}
	if f := pytext.Fields(line); len(f) > 1 {
		return f
	}
	return nil
}

// StartsWithStatus reports whether line starts with one of pytest's status words (FAILED, PASSED,
// SKIPPED, ERROR, XFAIL).
func StartsWithStatus(line string) bool { return startsWithStatus(line) }

// EndsWithStatus reports whether line ends with one of pytest's status words.
func EndsWithStatus(line string) bool { return endsWithStatus(line) }

// StripColourAndControls removes "[<n>m" colour codes, then the characters 1 to 31, as
// parse_log_pytest_v2 does.
func StripColourAndControls(line string) string { return stripColourAndControls(line) }

// PytestOptionName shortens an absolute-path parameter of a test id to its last element, as
// parse_log_pytest_options does ("test_x[/tmp/a/b.py]" → "test_x[/b.py]").
func PytestOptionName(name string) string { return pytestOptionName(name) }

// Lines splits a log the way Python's str.split("\n") does.
func Lines(log string) []string { return lines(log) }
