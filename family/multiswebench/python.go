package multiswebench

import (
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// The Python repositories of Multi-SWE-bench mini (SWE-bench instances in Multi-SWE-bench's
// layout). Their parse_log functions are SWE-bench's, with two differences that change results:
// a line counts as a status line when it starts with any of the harness's nine TestStatus values
// (PASS, FAIL, SKIP and NONE as well as SWE-bench's five), and the status map is folded into
// sets (PASSED and XFAIL pass, FAILED and ERROR fail, SKIPPED skips; any other word, such as
// "FAIL:", drops the test).

var pyStatuses = []string{"PASS", "FAIL", "SKIP", "NONE", "FAILED", "PASSED", "SKIPPED", "ERROR", "XFAIL"}

func startsWithStatus(line string) bool {
	for _, s := range pyStatuses {
		if strings.HasPrefix(line, s) {
			return true
		}
	}
	return false
}

func endsWithStatus(line string) bool {
	for _, s := range pyStatuses {
		if strings.HasSuffix(line, s) {
			return true
		}
	}
	return false
}

// statusMap is a test → status map (the last status written wins), folded by toResult as the
// harness's mapping_to_testresult does.
type statusMap map[string]string

func (m statusMap) toResult() (*TestResult, error) {
	passed, failed, skipped := nameSet{}, nameSet{}, nameSet{}
	for t, s := range m {
		switch s {
		case "PASSED", "XFAIL":
			passed.add(t)
		case "FAILED", "ERROR":
			failed.add(t)
		case "SKIPPED":
			skipped.add(t)
		}
	}
	return newTestResult(passed, failed, skipped)
}

// pytestLines reads pytest's "-rA" summary ("PASSED tests/test_x.py::test_y", "FAILED
// tests/test_x.py::test_z - AssertionError").
type pytestLines struct {
	mouseButtons bool // matplotlib: "MouseButton.LEFT" and "MouseButton.RIGHT" become 1 and 3
	options      bool // requests, pylint: a path parameter "[/a/b/c]" is shortened to "[/c]"
	// escapes (astropy, scikit-learn, sphinx): colour codes "[32m" and the control characters
	// U+0001..U+001F (tabs too) are removed, and a line ending in a status ("test_x PASSED") is
	// read as name then status.
	escapes bool
}

var (
	pytestOption = pytext.Re(`(.*?)\[(.*)\]`)
	pytestColour = pytext.Re(`\[(\d+)m`)
)

func (p pytestLines) parse(log string, _ int) (*TestResult, error) {
	m := statusMap{}
	for _, line := range strings.Split(log, "\n") {
		if p.mouseButtons {
			line = strings.ReplaceAll(line, "MouseButton.LEFT", "1")
			line = strings.ReplaceAll(line, "MouseButton.RIGHT", "3")
		}
		if p.escapes {
			line = pytestColour.ReplaceAllString(line, "")
			line = strings.Map(func(r rune) rune {
				if r >= 1 && r <= 31 {
					return -1
				}
				return r
			}, line)
		}
		switch {
		case startsWithStatus(line):
			if strings.HasPrefix(line, "FAILED") {
				line = strings.ReplaceAll(line, " - ", " ")
			}
			tc := pytext.Fields(line)
			if len(tc) <= 1 {
				continue
			}
			name := tc[1]
			if p.options {
				if g := pytestOption.FindStringSubmatch(name); g != nil {
					main, opt := g[1], g[2]
					if strings.HasPrefix(opt, "/") && !strings.HasPrefix(opt, "//") && !strings.Contains(opt, "*") {
						opt = "/" + opt[strings.LastIndex(opt, "/")+1:]
					}
					name = main + "[" + opt + "]"
				}
			}
			m[name] = tc[0]
		case p.escapes && endsWithStatus(line):
			if tc := pytext.Fields(line); len(tc) >= 2 {
				m[tc[0]] = tc[1]
			}
		}
	}
	return m.toResult()
}

// djangoRunner reads Django's test runner ("test_x (app.tests.T) ... ok", "FAIL: test_y
// (app.tests.T)"), with SWE-bench's repairs for output that splits a result from its test.
type djangoRunner struct{}

var (
	djangoSplit = []*pyre.Regexp{
		pytext.Re(`(?m)^(.*?)\s\.\.\.\sTesting against Django installed in ((?s:.*?)) silenced\)\.\nok$`),
		pytext.Re(`(?m)^(.*?)\s\.\.\.\sInternal Server Error: /(.*)/\nok$`),
		pytext.Re(`(?m)^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$`),
	}
)

func (djangoRunner) parse(log string, _ int) (*TestResult, error) {
	m := statusMap{}
	prev, havePrev := "", false
	for _, line := range strings.Split(log, "\n") {
		line = pytext.Strip(line)
		if strings.Contains(line, "--version is equivalent to version") {
			m["--version is equivalent to version"] = "PASSED"
		}
		if strings.Contains(line, " ... ") {
			prev, havePrev = strings.SplitN(line, " ... ", 2)[0], true
		}
		for _, suffix := range []string{" ... ok", " ... OK", " ...  OK"} {
			if strings.HasSuffix(line, suffix) {
				if strings.HasPrefix(pytext.Strip(line), "Applying sites.0002_alter_domain_unique...test_no_migrations") {
					parts := strings.SplitN(line, "...", 2)
					line = pytext.Strip(parts[len(parts)-1])
				}
				test := line
				if i := strings.LastIndex(line, suffix); i >= 0 {
					test = line[:i]
				}
				m[test] = "PASSED"
				break
			}
		}
		if strings.Contains(line, " ... skipped") {
			m[strings.SplitN(line, " ... skipped", 2)[0]] = "SKIPPED"
		}
		if strings.HasSuffix(line, " ... FAIL") {
			m[strings.SplitN(line, " ... FAIL", 2)[0]] = "FAILED"
		}
		if strings.HasPrefix(line, "FAIL:") {
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("list index out of range: a %q line without a test name", line)
			}
			m[pytext.Strip(f[1])] = "FAILED"
		}
		if strings.HasSuffix(line, " ... ERROR") {
			m[strings.SplitN(line, " ... ERROR", 2)[0]] = "ERROR"
		}
		if strings.HasPrefix(line, "ERROR:") {
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("list index out of range: a %q line without a test name", line)
			}
			m[pytext.Strip(f[1])] = "ERROR"
		}
		if strings.HasPrefix(strings.TrimLeftFunc(line, pytext.IsSpace), "ok") && havePrev {
			m[prev] = "PASSED"
		}
	}
	for _, re := range djangoSplit {
		for _, g := range re.FindAllStringSubmatch(log, -1) {
			m[g[1]] = "PASSED"
		}
	}
	return m.toResult()
}

// seabornLines reads pytest output the way mwaskom/seaborn's parser does: "FAILED name …",
// "name PASSED …" or "PASSED name". A status line without a name makes the log unreadable (the
// harness indexes past the end of the split line).
type seabornLines struct{}

func (seabornLines) parse(log string, _ int) (*TestResult, error) {
	m := statusMap{}
	short := func(line string) error {
		return fmt.Errorf("list index out of range: the line %q has no test name", line)
	}
	for _, line := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(line, "FAILED"):
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, short(line)
			}
			m[f[1]] = "FAILED"
		case strings.Contains(line, " PASSED "):
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, short(line)
			}
			if f[1] == "PASSED" {
				m[f[0]] = "PASSED"
			}
		case strings.HasPrefix(line, "PASSED"):
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, short(line)
			}
			m[f[1]] = "PASSED"
		}
	}
	return m.toResult()
}

// sympyRunner reads sympy's own test runner: "test_x ok", "test_y F", "test_z E", and the
// "____ sympy/x/tests/test_y.py:test_z ____" headers of failures.
type sympyRunner struct{}

var sympyFailureHeader = pytext.Re(`(_*) (.*)\.py:(.*) (_*)`)

func (sympyRunner) parse(log string, _ int) (*TestResult, error) {
	m := statusMap{}
	for _, g := range sympyFailureHeader.FindAllStringSubmatch(log, -1) {
		m[g[2]+".py:"+g[3]] = "FAILED"
	}
	for _, line := range strings.Split(log, "\n") {
		line = pytext.Strip(line)
		if !strings.HasPrefix(line, "test_") {
			continue
		}
		name := pytext.Fields(line)[0]
		if strings.HasSuffix(line, " E") {
			m[name] = "ERROR"
		}
		if strings.HasSuffix(line, " F") {
			m[name] = "FAILED"
		}
		if strings.HasSuffix(line, " ok") {
			m[name] = "PASSED"
		}
	}
	return m.toResult()
}
