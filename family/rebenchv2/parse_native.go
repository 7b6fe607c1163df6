package rebenchv2

import (
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// C, C++, Lua, Swift and C# runners.

var (
	cppV2Passed  = pytext.Re(`^Test\s+(.*?)\s+passed$`)
	cppV2Failed  = pytext.Re(`^Test\s+(.*?)\s+failed$`)
	cppV2Skipped = pytext.Re(`^Test\s+(.*?)\s+skipped$`)
)

// parseCppV2 reads "Test <name>   passed|failed|skipped" lines; a pass never overrides.
func parseCppV2(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := cppV2Passed.FindStringSubmatch(line); g != nil {
			setDefault(m, g[1], passed)
		} else if g := cppV2Failed.FindStringSubmatch(line); g != nil {
			m.Set(g[1], failed)
		} else if g := cppV2Skipped.FindStringSubmatch(line); g != nil {
			m.Set(g[1], skipped)
		}
	}
	return m, nil
}

var (
	botanSummary = pytext.Re(`(?i)^(.*?)\s+ran\s+(\d+)\s+tests\s+in\s+[\d.]+\s+(?:msec|sec)\s+(.+)$`)
	botanFailed  = pytext.Re(`(?i)\bfailed\b`)
	cppV3Line    = pytext.Re(`^(?:\[[0-9]+/[0-9]+\]\s*)?(.*?)\s*\.\.\.\s*(\w+)$`)
	cppV3Failed  = pytext.Re(`(?i)\bFAILED\b|\bFAIL\b|\bFailure\b`)
	cppV3Skipped = pytext.Re(`(?i)\bSKIPPED\b`)
	cppV3Passed  = pytext.Re(`(?i)\bOK\b|\bPASSED\b`)
)

// parseCppV3 reads "[12/414] name... OK" lines and Botan's "NAME ran N tests in T msec all ok"
// summaries (named without their timing); other lines with a status word are named by the whole
// line.
func parseCppV3(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := botanSummary.FindStringSubmatch(line); g != nil {
			tail := pytext.Strip(g[3])
			key := pytext.Strip(g[1]) + " ran " + g[2] + " tests " + tail
			if botanFailed.MatchString(tail) {
				m.Set(key, failed)
			} else {
				m.Set(key, passed)
			}
			continue
		}
		if g := cppV3Line.FindStringSubmatch(line); g != nil {
			name, token := pytext.Strip(g[1]), strings.ToUpper(g[2])
			switch {
			case cppV3Skipped.MatchString(token) || cppV3Skipped.MatchString(line):
				m.Set(name, skipped)
			case cppV3Failed.MatchString(token) || cppV3Failed.MatchString(line):
				m.Set(name, failed)
			case cppV3Passed.MatchString(token) || cppV3Passed.MatchString(line):
				m.Set(name, passed)
			default:
				m.Set(name, errored)
			}
			continue
		}
		switch {
		case cppV3Skipped.MatchString(line):
			m.Set(line, skipped)
		case cppV3Failed.MatchString(line):
			m.Set(line, failed)
		case cppV3Passed.MatchString(line):
			m.Set(line, passed)
		}
	}
	return m, nil
}

var ctestSummary = pytext.Re(`(?i)^\s*\d+/\d+\s+Test\s+#\d+:\s+(.+?)\s+\.+\s+(Passed|Failed|Skipped|Timeout)\b`)

// parseCppV4 reads CTest's "1/5 Test #1: name ......   Passed    0.01 sec" lines (a timeout is a
// failure).
func parseCppV4(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.SplitLines(log) {
		if pytext.Strip(line) == "" {
			continue
		}
		g := ctestSummary.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		name := pytext.Strip(g[1])
		switch strings.ToUpper(pytext.Strip(g[2])) {
		case "PASSED":
			m.Set(name, passed)
		case "FAILED", "TIMEOUT":
			m.Set(name, failed)
		default:
			m.Set(name, skipped)
		}
	}
	return m, nil
}

var (
	nvimSuccess = pytext.Re(`^Success\s*\|\|\s*(.+?)\s*$`)
	nvimFail    = pytext.Re(`^(?:Fail|Failed)\s*\|\|\s*(.+?)\s*$`)
	nvimSkip    = pytext.Re(`(?i)^(?:Skip|Skipped)\s*\|\|\s*(.+?)\s*$`)
)

// parseLuaNvim (parse_lue_nvim and its aliases) reads plenary.nvim's busted output:
// "Success: || name", "Fail || name", "Skip || name"; summary counters are ignored and a failure
// is never overridden.
func parseLuaNvim(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		if pytext.Strip(raw) == "" {
			continue
		}
		line := pytext.RStrip(ansiColour.ReplaceAllString(raw, ""))
		if strings.Contains(strings.SplitN(line, "\t", 2)[0], ":") && !strings.Contains(line, "||") {
			continue
		}
		if g := nvimFail.FindStringSubmatch(line); g != nil {
			m.Set(pytext.Strip(g[1]), failed)
		} else if g := nvimSkip.FindStringSubmatch(line); g != nil {
			setDefault(m, pytext.Strip(g[1]), skipped)
		} else if g := nvimSuccess.FindStringSubmatch(line); g != nil {
			setDefault(m, pytext.Strip(g[1]), passed)
		}
	}
	return m, nil
}

var swiftResult = pytext.Re(`^Test Case '([^']+)'\s+(passed|failed)\s+\([0-9.]+\s+seconds\)$`)

// parseSwift reads XCTest's "Test Case 'Class.test' passed (0.001 seconds)" lines.
func parseSwift(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		if g := swiftResult.FindStringSubmatch(pytext.Strip(raw)); g != nil {
			if g[2] == "passed" {
				m.Set(g[1], passed)
			} else {
				m.Set(g[1], failed)
			}
		}
	}
	return m, nil
}

var (
	dotnetPassed  = pytext.Re(`^\s+Passed\s+(.+?)\s+\[.+?\]$`)
	dotnetFailed  = pytext.Re(`^\s+Failed\s+(.+?)\s+\[.+?\]$`)
	dotnetSkipped = pytext.Re(`^\s+Skipped\s+(.+?)(?:\s+\[.+?\])?$`)
	xunitFail     = pytext.Re(`^\[xUnit\.net\s+[\d:\.]+\]\s+(.+?)\s+\[FAIL\]$`)
)

// parseCSharp reads `dotnet test` detailed lines ("  Passed Name [12 ms]", "  Failed …",
// "  Skipped …") and xUnit's "[xUnit.net 00:00:01.23]     Name [FAIL]"; a pass never overrides.
func parseCSharp(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.RStrip(raw)
		if line == "" {
			continue
		}
		if g := xunitFail.FindStringSubmatch(line); g != nil {
			m.Set(g[1], failed)
		} else if g := dotnetFailed.FindStringSubmatch(line); g != nil {
			m.Set(g[1], failed)
		} else if g := dotnetSkipped.FindStringSubmatch(line); g != nil {
			m.Set(g[1], skipped)
		} else if g := dotnetPassed.FindStringSubmatch(line); g != nil {
			setDefault(m, g[1], passed)
		}
	}
	return m, nil
}
