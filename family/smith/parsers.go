package smith

import (
	"fmt"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Parser reads the test output of one evaluation (the text between the start and end markers).
// An error is where the harness's parser raises.
type Parser func(log string) (*logparse.Map, error)

// Test statuses, as the SWE-bench harness's TestStatus has them (in its order).
const (
	failed  = logparse.Failed
	passed  = logparse.Passed
	skipped = logparse.Skipped
	errored = logparse.Error
	xfail   = logparse.XFail
)

var testStatuses = []string{failed, passed, skipped, errored, xfail}

// parsers are the log parsers of SWE-smith's repository profiles (swesmith/profiles/*.py), by
// the name profiles.tsv gives each: a language's default, a shared function several profiles
// return, or one profile's own.
var parsers = map[string]Parser{
	// Python
	"pytest":         parsePytest,
	"autograd":       parseAutograd,
	"paramiko":       parseParamiko,
	"python-slugify": parsePythonSlugify,
	"tornado":        parseTornado,
	"mypy":           parseMypy,
	// Go, Rust, C
	"gotest": parseGotest,
	"cargo":  parseCargo,
	"jq":     swebench("parse_log_jq"),
	"valkey": swebench("parse_log_redis"),
	// Java
	"maven-surefire":   parseMavenSurefire,
	"gradle-junit-xml": parseGradleJUnitXML,
	// JavaScript and TypeScript
	"jest":      parseJest,
	"mocha":     parseMocha,
	"vitest":    parseVitest,
	"karma":     parseKarmaCounts,
	"jasmine":   parseJasmineCounts,
	"qunit":     parseQUnit,
	"react-pdf": parseReactPDF,
	"marked":    parseMarked,
	// C++
	"ctest":      parseCTest,
	"gtest":      parseGTest,
	"catch2":     parseCatch2,
	"boost-test": parseBoostTest,
	"airsim":     parseAirSim,
	"aria2":      parseAria2,
	// C# and PHP
	"dotnet":          parseDotnet,
	"phpunit-testdox": parsePHPUnitTestdox,
}

// swebench adapts the SWE-bench harness's parser of that name (package logparse), which the
// profile's parser repeats unchanged.
func swebench(name string) Parser {
	p, err := logparse.Get(name)
	if err != nil {
		panic(err) // a programming error, caught by the tests
	}
	return func(log string) (*logparse.Map, error) { return p(log, "") }
}

// ParserNamed returns the parser of a profile.
func ParserNamed(name string) (Parser, error) {
	p, ok := parsers[name]
	if !ok {
		names := make([]string, 0, len(parsers))
		for n := range parsers {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("SWE-smith has no log parser %q (known: %s)", name, strings.Join(names, ", "))
	}
	return p, nil
}

func setDefault(m *logparse.Map, name, status string) {
	if _, ok := m.Get(name); !ok {
		m.Set(name, status)
	}
}

// synthetic records n tests named prefix+i for i from start, as the count-only parsers do.
func synthetic(m *logparse.Map, prefix string, start, n int, status string) {
	for i := range n {
		m.Set(fmt.Sprintf("%s%d", prefix, i+start), status)
	}
}

var pytestStatusAfterID = func() map[string]*pyre.Regexp {
	out := map[string]*pyre.Regexp{}
	for _, s := range testStatuses {
		out[s] = pytext.Re(`^(\S+)(\s+)` + s)
	}
	return out
}()

// parsePytest is the Python profiles' parser: a line "<test id> <STATUS>…" (pytest --verbose)
// records the status; every status is tried in turn, so a later one wins.
func parsePytest(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		for _, s := range testStatuses {
			if g := pytestStatusAfterID[s].FindStringSubmatch(line); g != nil {
				m.Set(g[1], s)
			}
		}
	}
	return m, nil
}

// statusLines returns a parser recording, for every line and status, group 1 of the pattern
// built from the status, in TestStatus order.
func statusLines(pattern func(status string) string) Parser {
	res := make([]*pyre.Regexp, len(testStatuses))
	for i, s := range testStatuses {
		res[i] = pytext.Re(pattern(s))
	}
	return func(log string) (*logparse.Map, error) {
		m := logparse.NewMap()
		for _, line := range pytext.Lines(log) {
			for i, re := range res {
				if g := re.FindStringSubmatch(line); g != nil {
					m.Set(g[1], testStatuses[i])
				}
			}
		}
		return m, nil
	}
}

// parseAutograd reads pytest-xdist lines "[gw0] PASSED test_id".
var parseAutograd = statusLines(func(s string) string { return `^\[gw\d\]\s` + s + `\s(\S+)` })

// parseParamiko reads pytest -rA summary lines "PASSED test_id".
var parseParamiko = statusLines(func(s string) string { return `^` + s + `\s(\S+)` })

var (
	slugifyOK    = pytext.Re(`^([a-zA-Z0-9_\-,\.\s\(\)']+)\s\.{3}\sok$`)
	slugifyFail  = pytext.Re(`^([a-zA-Z0-9_\-,\.\s\(\)']+)\s\.{3}\sFAIL$`)
	slugifyError = pytext.Re(`^([a-zA-Z0-9_\-,\.\s\(\)']+)\s\.{3}\sERROR$`)
)

// parsePythonSlugify reads unittest's verbose "test_x (module.Class) ... ok|FAIL|ERROR" lines.
func parsePythonSlugify(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		if g := slugifyOK.FindStringSubmatch(line); g != nil {
			m.Set(g[1], passed)
			continue
		}
		if g := slugifyFail.FindStringSubmatch(line); g != nil {
			m.Set(g[1], failed)
		}
		if g := slugifyError.FindStringSubmatch(line); g != nil {
			m.Set(g[1], errored)
		}
	}
	return m, nil
}

// parseTornado reads tornado's test runner: "name ... ok", "name ... skipped …", and
// "ERROR: name (module)" / "FAIL: …" headers, named by their next two words.
func parseTornado(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		switch {
		case strings.HasSuffix(line, "... ok"):
			m.Set(strings.SplitN(line, " ... ", 2)[0], passed)
		case strings.Contains(line, " ... skipped "):
			m.Set(strings.SplitN(line, " ... ", 2)[0], skipped)
		case strings.HasPrefix(line, "ERROR:") || strings.HasPrefix(line, "FAIL:"):
			f := pytext.Fields(line)
			end := min(len(f), 3)
			m.Set(strings.Join(f[min(1, end):end], " "), failed)
		}
	}
	return m, nil
}

// parseMypy reads mypy's pytest output: a line holding PASSED (or else FAILED) names the test by
// its last word.
func parseMypy(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		for _, s := range []string{passed, failed} {
			if strings.Contains(line, s) {
				f := pytext.Fields(line)
				m.Set(f[len(f)-1], s)
				break
			}
		}
	}
	return m, nil
}

var goTestLines = []struct {
	re     *pyre.Regexp
	status string
}{
	{pytext.Re(`^--- PASS: (\S+)`), passed},
	{pytext.Re(`^--- FAIL: (\S+)`), failed},
	{pytext.Re(`^FAIL:?\s?(.+?)\s`), failed},
	{pytext.Re(`^--- SKIP: (\S+)`), skipped},
}

// parseGotest is the Go profiles' parser: "--- PASS: Name", "--- FAIL: Name", "--- SKIP: Name",
// and "FAIL<tab>package" lines (the package counts as a failed test).
func parseGotest(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		line = pytext.Strip(line)
		for _, p := range goTestLines {
			if g := p.re.FindStringSubmatch(line); g != nil {
				m.Set(g[1], p.status)
				break
			}
		}
	}
	return m, nil
}

// parseCargo is the Rust profiles' parser: "test name ... ok" and "test name ... FAILED".
func parseCargo(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	name := func(line string) string {
		if i := strings.LastIndex(line, " ... "); i >= 0 {
			line = line[:i]
		}
		return pytext.Strip(line)
	}
	for _, line := range pytext.SplitLines(log) {
		line = strings.TrimPrefix(line, "test ")
		switch {
		case strings.Contains(line, "... ok"):
			m.Set(name(line), passed)
		case strings.Contains(line, "... FAILED"):
			m.Set(name(line), failed)
		}
	}
	return m, nil
}

// errIndex is what a parser returns where the harness's Python raises IndexError on an odd line;
// the harness then writes no report for the instance.
func errIndex(parser, line string) error {
	return fmt.Errorf("SWE-smith's %s log parser: the line %q has fewer words than it expects (the harness raises IndexError here)", parser, line)
}
