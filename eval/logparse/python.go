package logparse

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

var skipSummaryCount = pytext.Re(`^\[\d+\]$`)

// isSkipSummary is pytest's "SKIPPED [N] path:line: reason" summary, where [N] is not a test.
func isSkipSummary(status, name string) bool {
	return status == Skipped && skipSummaryCount.MatchString(name)
}

func startsWithStatus(line string) bool {
	for _, s := range statusPrefixes {
		if strings.HasPrefix(line, s) {
			return true
		}
	}
	return false
}

func endsWithStatus(line string) bool {
	for _, s := range statusPrefixes {
		if strings.HasSuffix(line, s) {
			return true
		}
	}
	return false
}

// pytestFields returns the whitespace-separated words of a pytest summary line ("PASSED a::b",
// "FAILED a::b - message"), or nil when the line is not one.
func pytestFields(line string) []string {
	f := PytestSummaryFields(line)
	if f == nil || isSkipSummary(f[0], f[1]) {
		return nil
	}
	return f
}

// parsePytest reads `pytest -rA` summary lines: "<STATUS> <test id> ...".
func parsePytest(log, _ string) (*Map, error) {
	m := NewMap()
	for _, line := range lines(log) {
		if f := pytestFields(line); f != nil {
			m.Set(f[1], f[0])
		}
	}
	return m, nil
}

var pytestOption = pytext.Re(`(.*?)\[(.*)\]`)

// parsePytestOptions is parsePytest with parametrised ids whose parameter is an absolute path
// shortened to its last element ("test_x[/tmp/a/b.py]" → "test_x[/b.py]").
func parsePytestOptions(log, _ string) (*Map, error) {
	m := NewMap()
	for _, line := range lines(log) {
		if f := pytestFields(line); f != nil {
			m.Set(pytestOptionName(f[1]), f[0])
		}
	}
	return m, nil
}

// pytestOptionName shortens an absolute-path parameter of a test id to its last element.
func pytestOptionName(name string) string {
	g := pytestOption.FindStringSubmatch(name)
	if g == nil {
		return name
	}
	main, option := g[1], g[2]
	if strings.HasPrefix(option, "/") && !strings.HasPrefix(option, "//") && !strings.Contains(option, "*") {
		parts := strings.Split(option, "/")
		option = "/" + parts[len(parts)-1]
	}
	return main + "[" + option + "]"
}

var ansiColourCode = pytext.Re(`\[(\d+)m`)

// stripColourAndControls removes "[<n>m" colour codes, then the characters 1 to 31.
func stripColourAndControls(line string) string {
	line = ansiColourCode.ReplaceAllString(line, "")
	return strings.Map(func(r rune) rune {
		if r >= 1 && r < 32 {
			return -1
		}
		return r
	}, line)
}

// parsePytestV2 reads pytest output with colour codes and control characters removed; test ids
// may contain spaces, and older pytest versions print the status at the end of the line.
func parsePytestV2(log, _ string) (*Map, error) {
	m := NewMap()
	for _, line := range lines(log) {
		line = stripColourAndControls(line)
		switch {
		case startsWithStatus(line):
			if strings.HasPrefix(line, Failed) {
				line = pySplitN(line, " - ", 1)[0]
			}
			f := pytext.Fields(line)
			if len(f) >= 2 && !isSkipSummary(f[0], f[1]) {
				m.Set(strings.Join(f[1:], " "), f[0])
			}
		case endsWithStatus(line):
			f := pytext.Fields(line)
			if len(f) >= 2 {
				m.Set(strings.Join(f[:len(f)-1], " "), f[len(f)-1])
			}
		}
	}
	return m, nil
}

// parseMatplotlib is parsePytest with MouseButton enum names replaced by their values.
func parseMatplotlib(log, id string) (*Map, error) {
	log = strings.ReplaceAll(log, "MouseButton.LEFT", "1")
	log = strings.ReplaceAll(log, "MouseButton.RIGHT", "3")
	return parsePytest(log, id)
}

// parseSeaborn reads pytest output where passing tests may be printed "<test> PASSED ...".
func parseSeaborn(log, _ string) (*Map, error) {
	m := NewMap()
	for _, line := range lines(log) {
		f := pytext.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch {
		case strings.HasPrefix(line, Failed):
			m.Set(f[1], Failed)
		case strings.Contains(line, " "+Passed+" "):
			if f[1] == Passed {
				m.Set(f[0], Passed)
			}
		case strings.HasPrefix(line, Passed):
			m.Set(f[1], Passed)
		}
	}
	return m, nil
}

var sympyFailureHeader = pytext.Re(`(_*) (.*)\.py:(.*) (_*)`)

// parseSympy reads sympy's bin/test output: "test_name ok|F|E" lines, plus failure headers
// "____ path.py:test_name ____".
func parseSympy(log, _ string) (*Map, error) {
	m := NewMap()
	for _, g := range sympyFailureHeader.FindAllStringSubmatch(log, -1) {
		m.Set(g[2]+".py:"+g[3], Failed)
	}
	for _, line := range lines(log) {
		line = pytext.Strip(line)
		if !strings.HasPrefix(line, "test_") {
			continue
		}
		if strings.HasSuffix(line, " E") {
			m.Set(pytext.Fields(line)[0], Error)
		}
		if strings.HasSuffix(line, " F") {
			m.Set(pytext.Fields(line)[0], Failed)
		}
		if strings.HasSuffix(line, " ok") {
			m.Set(pytext.Fields(line)[0], Passed)
		}
	}
	return m, nil
}

var djangoInterrupted = []*regexp.Regexp{
	pytext.Re(`(?m)^(.*?)\s\.\.\.\sTesting against Django installed in ((?s:.*?)) silenced\)\.\nok$`),
	pytext.Re(`(?m)^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$`),
	pytext.Re(`(?m)^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$`),
}

// parseDjango reads Django's runtests.py verbose output: "test (module.Class) ... ok|FAIL|ERROR|skipped",
// "FAIL: test (…)" headers, and results printed on a later line after the test's own output.
func parseDjango(log, _ string) (*Map, error) {
	m := NewMap()
	prevTest := ""
	havePrev := false
	for _, line := range lines(log) {
		line = pytext.Strip(line)
		if strings.Contains(line, "--version is equivalent to version") {
			m.Set("--version is equivalent to version", Passed)
		}
		if strings.Contains(line, " ... ") {
			prevTest = strings.Split(line, " ... ")[0]
			havePrev = true
		}
		for _, suffix := range []string{" ... ok", " ... OK", " ...  OK"} {
			if strings.HasSuffix(line, suffix) {
				if strings.HasPrefix(pytext.Strip(line), "Applying sites.0002_alter_domain_unique...test_no_migrations") {
					parts := pySplitN(line, "...", 1)
					line = pytext.Strip(parts[len(parts)-1])
				}
				test := line
				if i := strings.LastIndex(line, suffix); i >= 0 {
					test = line[:i]
				}
				m.Set(test, Passed)
				break
			}
		}
		if strings.Contains(line, " ... skipped") {
			m.Set(strings.Split(line, " ... skipped")[0], Skipped)
		}
		if strings.HasSuffix(line, " ... FAIL") {
			m.Set(strings.Split(line, " ... FAIL")[0], Failed)
		}
		if strings.HasPrefix(line, "FAIL:") {
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("django log: line %q has no test name after FAIL:", line)
			}
			m.Set(pytext.Strip(f[1]), Failed)
		}
		if strings.HasSuffix(line, " ... ERROR") {
			m.Set(strings.Split(line, " ... ERROR")[0], Error)
		}
		if strings.HasPrefix(line, "ERROR:") {
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("django log: line %q has no test name after ERROR:", line)
			}
			m.Set(pytext.Strip(f[1]), Error)
		}
		if strings.HasPrefix(pytext.LStrip(line), "ok") && havePrev {
			m.Set(prevTest, Passed)
		}
	}
	for _, re := range djangoInterrupted {
		for _, g := range re.FindAllStringSubmatch(log, -1) {
			m.Set(g[1], Passed)
		}
	}
	return m, nil
}
