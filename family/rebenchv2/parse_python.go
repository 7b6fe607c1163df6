package rebenchv2

import (
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// The pytest parsers of SWE-rebench-V2 are the SWE-bench harness's of before the fixes it made
// later: pytest's "SKIPPED [N] file:line" summary lines count as tests, parse_log_pytest_v2 keeps
// only the first word after the status and raises on a line with a single word, and XFAIL is not
// a status.

// pytestWords returns the words of a pytest result line ("PASSED a::b", "FAILED a::b - msg"
// with " - " turned into a space), or nil when the line does not start with a status.
func pytestWords(line string) []string {
	if !startsWithStatus(line) {
		return nil
	}
	if strings.HasPrefix(line, failed) {
		line = strings.ReplaceAll(line, " - ", " ")
	}
	return pytext.Fields(line)
}

func parsePytest(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		if f := pytestWords(line); len(f) > 1 {
			m.Set(f[1], f[0])
		}
	}
	return m, nil
}

var pytestOption = pytext.Re(`(.*?)\[(.*)\]`)

// parsePytestOptions is parsePytest with parametrised ids whose parameter is an absolute path cut
// to its last element ("test_x[/tmp/a/b.py]" → "test_x[/b.py]").
func parsePytestOptions(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		f := pytestWords(line)
		if len(f) <= 1 {
			continue
		}
		name := f[1]
		if g := pytestOption.FindStringSubmatch(name); g != nil {
			main, option := g[1], g[2]
			if strings.HasPrefix(option, "/") && !strings.HasPrefix(option, "//") && !strings.Contains(option, "*") {
				parts := strings.Split(option, "/")
				option = "/" + parts[len(parts)-1]
			}
			name = main + "[" + option + "]"
		}
		m.Set(name, f[0])
	}
	return m, nil
}

var colourCode = pytext.Re(`\[(\d+)m`)

// stripControls removes "[<n>m" colour codes, then the characters 1 to 31.
func stripControls(line string) string {
	line = colourCode.ReplaceAllString(line, "")
	return strings.Map(func(r rune) rune {
		if r >= 1 && r < 32 {
			return -1
		}
		return r
	}, line)
}

// parsePytestV2 reads pytest output without colour codes and control characters: "STATUS id" lines
// and, for older pytest, "id STATUS" lines. A result line of a single word is an error, as the
// harness's parser raises on it.
func parsePytestV2(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		line = stripControls(line)
		switch {
		case startsWithStatus(line):
			f := pytestWords(line)
			if len(f) < 2 {
				return nil, indexError("parse_log_pytest_v2", line)
			}
			m.Set(f[1], f[0])
		case endsWithStatus(line):
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, indexError("parse_log_pytest_v2", line)
			}
			m.Set(f[0], f[1])
		}
	}
	return m, nil
}

// parseMatplotlib is parsePytest with MouseButton.LEFT/RIGHT written as 1/3, as the ids of the
// dataset rows have them.
func parseMatplotlib(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		line = strings.ReplaceAll(line, "MouseButton.LEFT", "1")
		line = strings.ReplaceAll(line, "MouseButton.RIGHT", "3")
		if f := pytestWords(line); len(f) > 1 {
			m.Set(f[1], f[0])
		}
	}
	return m, nil
}

// parseSeaborn reads "FAILED id", "id PASSED …" and "PASSED id" lines; a FAILED or PASSED line of a
// single word is an error, as the harness's parser raises on it.
func parseSeaborn(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		switch {
		case strings.HasPrefix(line, failed):
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, indexError("parse_log_seaborn", line)
			}
			m.Set(f[1], failed)
		case strings.Contains(line, " "+passed+" "):
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, indexError("parse_log_seaborn", line)
			}
			if f[1] == passed {
				m.Set(f[0], passed)
			}
		case strings.HasPrefix(line, passed):
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, indexError("parse_log_seaborn", line)
			}
			m.Set(f[1], passed)
		}
	}
	return m, nil
}

var sympyFailure = pytext.Re(`(_*) (.*)\.py:(.*) (_*)`)

// parseSympy reads sympy's bin/test: "___ path.py:test_name ___" failure headers anywhere in the
// log, then "test_name ok|F|E" lines (with an optional [OK]/[FAIL] after them).
func parseSympy(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, g := range sympyFailure.FindAllStringSubmatch(log, -1) {
		m.Set(g[2]+".py:"+g[3], failed)
	}
	for _, line := range pytext.Lines(log) {
		line = pytext.Strip(line)
		if !strings.HasPrefix(line, "test_") {
			continue
		}
		if strings.HasSuffix(line, "[FAIL]") || strings.HasSuffix(line, "[OK]") {
			line = pytext.Strip(line[:strings.LastIndex(line, "[")])
		}
		first := func() string { return pytext.Fields(line)[0] } // line starts with "test_"
		if strings.HasSuffix(line, " E") {
			m.Set(first(), errored)
		}
		if strings.HasSuffix(line, " F") {
			m.Set(first(), failed)
		}
		if strings.HasSuffix(line, " ok") {
			m.Set(first(), passed)
		}
	}
	return m, nil
}

var (
	neboWorker      = pytext.Re(`^\[gw\d+\]\s+\[[^\]]*\]\s+(\w+)\s+(.*)$`)
	neboStandard    = pytext.Re(`^([^\s].*?)\s+(PASSED|FAILED|SKIPPED|ERROR)\s+\[[^\]]*\]\s+in\s+\d+(?:\.\d+)?s$`)
	neboStatusFirst = pytext.Re(`^(PASSED|FAILED|SKIPPED|ERROR)\s+(.*)$`)
)

// parsePytestNebo reads pytest-xdist lines "[gw0] [ 5%] PASSED id", verbose lines
// "id PASSED [ 5%] in 0.1s" and summary lines "PASSED id"; " in <time>" is cut from names.
func parsePytestNebo(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	beforeIn := func(s string) string { return pytext.Strip(strings.SplitN(s, " in ", 2)[0]) }
	for _, line := range pytext.SplitLines(log) {
		line = pytext.Strip(stripControls(line))
		if g := neboWorker.FindStringSubmatch(line); g != nil && isStatus(g[1]) {
			m.Set(beforeIn(g[2]), g[1])
			continue
		}
		if g := neboStandard.FindStringSubmatch(line); g != nil {
			m.Set(pytext.Strip(g[1]), pytext.Strip(g[2]))
			continue
		}
		if g := neboStatusFirst.FindStringSubmatch(line); g != nil {
			m.Set(beforeIn(g[2]), pytext.Strip(g[1]))
		}
	}
	return m, nil
}

func isStatus(s string) bool {
	for _, st := range statuses {
		if s == st {
			return true
		}
	}
	return false
}

const cppPytestFailures = "=================================== FAILURES ==================================="

var (
	cppPytestHeader = pytext.Re(`^___________________________ (.*?) ___________________________$`)
	cppPytestPassed = pytext.Re(`^(.*?)\s+PASSED`)
	cppPytestFailed = pytext.Re(`^(.*?)\s+FAILED`)
	cppPytestSkip   = pytext.Re(`^(.*?)\s+SKIPPED`)
	cppPytestError  = pytext.Re(`^(.*?)\s+ERROR`)
)

// parseCppPytest (parse_log_cpp) reads pytest's verbose output of a C/C++ extension's tests,
// naming tests by the part after the last "::"; after the FAILURES banner only failure headers
// count, each a failure.
func parseCppPytest(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	inFailures := false
	lastPart := func(s string) string {
		parts := strings.Split(s, "::")
		return parts[len(parts)-1]
	}
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, cppPytestFailures) {
			inFailures = true
			continue
		}
		if inFailures {
			if g := cppPytestHeader.FindStringSubmatch(line); g != nil {
				m.Set(g[1], failed)
			}
			continue
		}
		if g := cppPytestPassed.FindStringSubmatch(line); g != nil {
			setDefault(m, lastPart(g[1]), passed)
		} else if g := cppPytestFailed.FindStringSubmatch(line); g != nil {
			m.Set(lastPart(g[1]), failed)
		} else if g := cppPytestSkip.FindStringSubmatch(line); g != nil {
			m.Set(lastPart(g[1]), skipped)
		} else if g := cppPytestError.FindStringSubmatch(line); g != nil {
			m.Set(lastPart(g[1]), errored)
		}
	}
	return m, nil
}
