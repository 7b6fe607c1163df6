package rebenchv2

import (
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// JavaScript and TypeScript runners: Jest, Mocha, TAP, react-pdf's runner, npx.

var (
	reactPDFPass = pytext.Re(`^PASS\s(.*?)(?:\s\([\d.]+\s*(?:ms|s)\))?$`)
	reactPDFFail = pytext.Re(`^FAIL\s(.*?)(?:\s\([\d.]+\s*(?:ms|s)\))?$`)
)

// parseReactPDF reads Jest's per-file "PASS path (1.2 s)" and "FAIL path" lines.
func parseReactPDF(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		if g := reactPDFPass.FindStringSubmatch(line); g != nil {
			m.Set(pytext.RStrip(g[1]), passed)
		} else if g := reactPDFFail.FindStringSubmatch(line); g != nil {
			m.Set(pytext.RStrip(g[1]), failed)
		}
	}
	return m, nil
}

var jestLine = pytext.Re(`^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$`)

// parseJest reads `jest --verbose` lines "✓ name (5 ms)", "✕ name", "○ name"; unlike the SWE-bench
// harness's version, the name keeps a space left before a timing.
func parseJest(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		g := jestLine.FindStringSubmatch(pytext.Strip(line))
		if g == nil {
			continue
		}
		switch g[1] {
		case "✓":
			m.Set(g[2], passed)
		case "✕":
			m.Set(g[2], failed)
		case "○":
			m.Set(g[2], skipped)
		}
	}
	return m, nil
}

var jsDuration = pytext.Re(`(?i)\s*(?:\(\s*)?\d+(?:\.\d+)?\s*(?:ms|s)\s*(?:\))?\s*$`)

// stripDuration removes a trailing timing such as "(53ms)" or "12 s" from a test name.
func stripDuration(name string) string {
	return pytext.Strip(jsDuration.ReplaceAllString(name, ""))
}

var (
	mochaPassed       = pytext.Re(`^\s*✔\s+(.*?)$`)
	mochaSkipped      = pytext.Re(`^\s*-\s+(.*?)$`)
	mochaFailed       = pytext.Re(`^\s*\d+\)\s+(.*?)$`)
	mochaWarnFailed   = pytext.Re(`^\s*\[W\]\s*\d+\)\s+(.*?)$`)
	mochaFailedHeader = pytext.Re(`^\s*\d+\)\s+(.*?):$`)
)

// mochaRule is one line form of a Mocha-style parser: the status it gives and whether an earlier
// status of the same test wins.
type mochaRule struct {
	re     *pyre.Regexp
	status string
	keep   bool // setdefault: a pass never overrides a failure or skip
	rstrip bool // the name is right-stripped before its timing is removed
}

// parseMochaLines applies the first rule matching each stripped, non-empty line.
func parseMochaLines(log string, rules []mochaRule) *logparse.Map {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		for _, r := range rules {
			g := r.re.FindStringSubmatch(line)
			if g == nil {
				continue
			}
			name := g[1]
			if r.rstrip {
				name = pytext.RStrip(name)
			}
			if name = stripDuration(name); name != "" {
				if r.keep {
					setDefault(m, name, r.status)
				} else {
					m.Set(name, r.status)
				}
			}
			break
		}
	}
	return m
}

// parseJS reads Mocha's spec reporter: "✔ name", "- name" (pending), "1) name:" failure headers
// and "[W] 1) name" lines; a pass never overrides another status.
func parseJS(log, _ string) (*logparse.Map, error) {
	return parseMochaLines(log, []mochaRule{
		{re: mochaSkipped, status: skipped},
		{re: mochaFailedHeader, status: failed},
		{re: mochaWarnFailed, status: failed, rstrip: true},
		{re: mochaPassed, status: passed, keep: true},
	}), nil
}

// parseJS2 reads Mocha's spec reporter: "✔ name", "1) name" and "- name".
func parseJS2(log, _ string) (*logparse.Map, error) {
	return parseMochaLines(log, []mochaRule{
		{re: mochaSkipped, status: skipped},
		{re: mochaFailed, status: failed},
		{re: mochaPassed, status: passed, keep: true},
	}), nil
}

var (
	tapLine      = pytext.Re(`^(?P<status>not ok|ok)\s+\d+\s+-\s+(?P<name>.*?)(?:\s+#.*)?$`)
	tapDirective = pytext.Re(`\s+#`)
)

// parseJS3 reads TAP with nested subtests ("ok 1 - suite {" … "}"), naming tests
// "suite :: test". A failure overrides a pass; a pass never overrides an earlier result. The
// pattern stops the name before a " # SKIP" directive, so (as in the harness) a skipped test
// reads as its ok/not ok.
func parseJS3(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	var stack []string
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if strings.ReplaceAll(line, "}", "") == "" {
			for range strings.Count(line, "}") {
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
			continue
		}
		opens := strings.HasSuffix(line, "{")
		if opens {
			line = pytext.RStrip(line[:len(line)-1])
		}
		g := tapLine.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		rawName := g[2]
		name := stripDuration(pytext.Strip(tapDirective.Split(rawName, 2)[0]))
		if name == "" {
			continue
		}
		lower := strings.ToLower(rawName)
		skip := strings.Contains(lower, "# skip") || strings.Contains(lower, "# todo")
		full := strings.Join(append(append([]string{}, stack...), name), " :: ")
		switch {
		case skip:
			m.Set(full, skipped)
		case g[1] == "ok":
			setDefault(m, full, passed)
		default:
			m.Set(full, failed)
		}
		if opens {
			stack = append(stack, name)
		}
	}
	return m, nil
}

var (
	js4Pass        = []string{"✔", "✓"}
	js4Fail        = []string{"✘", "✖", "×"}
	js4Skip        = []string{"○", "◌", "◦", "⚪"}
	js4SkipMarkers = []string{"(skipped)", "[skip]", "[skipped]", "[pending]", "[todo]"}
)

// parseJS4 reads lines that start with a runner's result symbol (✔ ✓ pass, ✘ ✖ × fail, ○ ◌ ◦ ⚪
// skip), dropping a "[tag]:" prefix, and lines marked (skipped), [skip], [pending] or [todo].
func parseJS4(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	name := func(payload string) string {
		payload = pytext.Strip(payload)
		if strings.HasPrefix(payload, "[") && strings.Contains(payload, "]:") {
			payload = pytext.Strip(strings.SplitN(payload, "]:", 2)[1])
		}
		if strings.HasPrefix(payload, ":") {
			payload = pytext.Strip(payload[1:])
		}
		return stripDuration(pytext.Strip(payload))
	}
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		r := []rune(line)
		symbol, payload := string(r[0]), pytext.Strip(string(r[1:]))
		switch {
		case oneOf(symbol, js4Pass):
			if n := name(payload); n != "" {
				setDefault(m, n, passed)
			}
		case oneOf(symbol, js4Fail):
			if n := name(payload); n != "" {
				m.Set(n, failed)
			}
		case oneOf(symbol, js4Skip):
			if n := name(payload); n != "" {
				m.Set(n, skipped)
			}
		default:
			lower := strings.ToLower(line)
			if !containsAny(lower, js4SkipMarkers) {
				continue
			}
			candidate := line
			for _, marker := range js4SkipMarkers {
				candidate = strings.ReplaceAll(candidate, marker, "")
			}
			if n := stripDuration(pytext.Strip(candidate)); n != "" {
				m.Set(n, skipped)
			}
		}
	}
	return m, nil
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

var (
	npxPassed       = pytext.Re(`^\s*✔\s+(.+?)(?:\s+\(\d+(?:ms)?\))?$`)
	npxFailed       = pytext.Re(`^\s*\d+\)\s+(.+)$`)
	npxFailedModule = pytext.Re(`\s+\([^)]+\)$`)
)

// parseNpx reads Mocha-style "✔ name (12ms)" and "1) name (module)" lines; the last line of a test
// wins.
func parseNpx(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.RStrip(raw)
		if pytext.Strip(line) == "" {
			continue
		}
		if g := npxPassed.FindStringSubmatch(line); g != nil {
			m.Set(pytext.Strip(g[1]), passed)
		} else if g := npxFailed.FindStringSubmatch(line); g != nil {
			m.Set(npxFailedModule.ReplaceAllString(pytext.Strip(g[1]), ""), failed)
		}
	}
	return m, nil
}
