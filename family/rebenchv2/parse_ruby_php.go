package rebenchv2

import (
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Ruby (minitest via rake) and PHP (PHPUnit, Pest) runners.

var (
	rubyV1Status = pytext.Re(`^\s*(test[^A-Z\n]+?)\s+(PASS|PASS(?:ED)?|FAIL|FAILURE|ERROR|SKIP|SKIPPED)\b(?:\s*\([0-9.]+s\))?$`)
	rubyV1Suite  = pytext.Re(`^[A-Z][A-Za-z0-9_]*(?:[A-Z][A-Za-z0-9_]*)*$`)
	// rubyV1Rank orders statuses: a worse one overrides a better one seen before.
	rubyV1Rank = map[string]int{passed: 0, skipped: 0, failed: 1, errored: 2}
)

// parseRubyV1 reads minitest-reporters' spec lines "  test_name   PASS (0.02s)" under an
// unindented CamelCase suite header, naming tests "Suite::test_name".
func parseRubyV1(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	suite := ""
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.RStrip(raw)
		if line == "" || strings.HasPrefix(line, "Finished in ") {
			continue
		}
		if !strings.HasPrefix(line, " ") && rubyV1Suite.MatchString(line) {
			suite = line
			continue
		}
		g := rubyV1Status.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		name := pytext.Strip(g[1])
		if suite != "" {
			name = suite + "::" + name
		}
		var status string
		switch strings.ToUpper(g[2]) {
		case "PASS", "PASSED":
			status = passed
		case "FAIL", "FAILURE":
			status = failed
		case "SKIP", "SKIPPED":
			status = skipped
		default:
			status = errored
		}
		if prev, ok := m.Get(name); !ok || rubyV1Rank[status] > rubyV1Rank[prev] {
			m.Set(name, status)
		}
	}
	return m, nil
}

var rubyV2Result = pytext.Re(`^(.+?#.+?)\s+=\s+[\d.]+\s+s\s+=\s+([.FES])$`)

// parseRubyV2 reads minitest's verbose "Class#test_name = 0.01 s = ." lines (E is a failure).
func parseRubyV2(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		g := rubyV2Result.FindStringSubmatch(pytext.Strip(raw))
		if g == nil {
			continue
		}
		switch g[2] {
		case ".":
			m.Set(g[1], passed)
		case "F", "E":
			m.Set(g[1], failed)
		case "S":
			m.Set(g[1], skipped)
		}
	}
	return m, nil
}

var (
	phpunitSuite  = pytext.Re(`^(\w.+) \(.+\)$`)
	phpunitTest   = pytext.Re(`^\s*([✔✘↩])\s*(.*)$`)
	phpunitTiming = pytext.Re(`(?i)\s*\[\s*\d+(?:\.\d+)?\s*(?:ms|s)\s*\]\s*$`)
)

// parsePHPUnit reads `phpunit --testdox`: a "Suite Name (Class\Name)" header, then "✔ test
// [1.2 ms]" lines, named "Suite Name > test" without the timing.
func parsePHPUnit(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	suite := "None" // the harness formats the unset suite (None) this way
	for _, line := range pytext.Lines(log) {
		if g := phpunitSuite.FindStringSubmatch(line); g != nil {
			suite = g[1]
			continue
		}
		g := phpunitTest.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		name := suite + " > " + pytext.Strip(phpunitTiming.ReplaceAllString(g[2], ""))
		switch g[1] {
		case "✔":
			m.Set(name, passed)
		case "✘":
			m.Set(name, failed)
		case "↩":
			m.Set(name, skipped)
		}
	}
	return m, nil
}

const crossMark = "\u2a2f" // ⨯, Pest's failure mark

var (
	phpTimingWide   = pytext.Re(`\s{2,}\d+(?:\.\d+)?s\s*$`)
	phpTimingNarrow = pytext.Re(`\s+\d+(?:\.\d+)?s\s*$`)
	phpSuiteFail    = pytext.Re(`(?i)^\s*FAIL(?:ED)?\s+(?P<name>\S.+)$`)
	phpFail         = []*pyre.Regexp{
		pytext.Re(`(?i)^\s*(?:` + crossMark + `|x)\s+(?P<name>.+?)\s{2,}\d+\.?\d*s\b.*$`),
		pytext.Re(`(?i)^\s*(?:` + crossMark + `|x)\s+(?P<name>.+?)\s*$`),
	}
	phpSkip = []*pyre.Regexp{
		pytext.Re(`^\s*-\s+(?P<name>.+?)\s{2,}\d+\.?\d*s\b.*$`),
		pytext.Re(`^\s*-\s+(?P<name>.+?)\s*$`),
	}
	phpPass = []*pyre.Regexp{
		pytext.Re(`^\s*(?:✓|✔)\s+(?P<name>.+?)\s{2,}\d+\.?\d*s\b.*$`),
		pytext.Re(`^\s*(?:✓|✔)\s+(?P<name>.+?)\s*$`),
	}
	phpInlineSkipped = pytext.Re(`(?i)\(skipped\)|\bSKIPPED\b`)
	phpLeadingMark   = pytext.Re(`^\s*(?:✓|✔|` + crossMark + `|x|-)\s+`)
)

// phpClean drops a trailing timing ("  0.03s") from a name.
func phpClean(name string) string {
	name = pytext.RStrip(name)
	name = phpTimingWide.ReplaceAllString(name, "")
	name = phpTimingNarrow.ReplaceAllString(name, "")
	return pytext.Strip(name)
}

// firstGroup returns group 1 of the first of res that matches line.
func firstGroup(res []*pyre.Regexp, line string) (string, bool) {
	for _, re := range res {
		if g := re.FindStringSubmatch(line); g != nil {
			return g[1], true
		}
	}
	return "", false
}

// parsePHPV1 reads Pest/Collision output: "✓ name  0.03s" passes, "⨯ name" (or "x") failures,
// "- name" skips, "FAIL Suite" suite failures, and "(skipped)"/"SKIPPED" inside other lines;
// dividers, "Tests:" and "Duration:" summaries are ignored and a pass never overrides.
func parsePHPV1(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.RStrip(raw)
		if line == "" {
			continue
		}
		s := pytext.Strip(line)
		if strings.HasPrefix(s, "___") || strings.HasPrefix(s, "---") || strings.HasPrefix(s, "Tests:") || strings.HasPrefix(s, "Duration:") {
			continue
		}
		if g := phpSuiteFail.FindStringSubmatch(line); g != nil {
			m.Set(phpClean(g[1]), failed)
			continue
		}
		if name, ok := firstGroup(phpFail, line); ok {
			if name = phpClean(name); name != "" {
				m.Set(name, failed)
			}
			continue
		}
		if name, ok := firstGroup(phpSkip, line); ok {
			if name = phpClean(name); name != "" {
				m.Set(name, skipped)
			}
			continue
		}
		if name, ok := firstGroup(phpPass, line); ok {
			if name = phpClean(name); name != "" {
				setDefault(m, name, passed)
			}
			continue
		}
		if phpInlineSkipped.MatchString(line) {
			token := phpClean(phpLeadingMark.ReplaceAllString(line, ""))
			if _, seen := m.Get(token); token != "" && !seen {
				m.Set(token, skipped)
			}
		}
	}
	return m, nil
}
