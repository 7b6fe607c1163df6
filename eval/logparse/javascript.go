package logparse

import (
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Parsers for the JavaScript repositories of SWE-bench Multilingual and Multimodal.

// ansiEscape matches the terminal escape sequences the harness strips before some parsers run.
var ansiEscape = pytext.Re(`\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])`)

type suiteEntry struct {
	name   string
	indent int
}

// adjustSuite maintains a stack of describe blocks from indentation, as the harness's calypso
// parser does: the first indented line starts the stack, later ones pop everything indented at
// least as deep and push themselves.
func adjustSuite(suite []suiteEntry, line string) []suiteEntry {
	indent := pytext.Indent(line)
	if len(suite) == 0 {
		return []suiteEntry{{pytext.Strip(line), indent}}
	}
	for len(suite) > 0 && suite[len(suite)-1].indent >= indent {
		suite = suite[:len(suite)-1]
	}
	return append(suite, suiteEntry{pytext.Strip(line), indent})
}

var (
	msTiming       = pytext.Re(`\(\d+ms\)`)
	calypsoPassMS  = pytext.Re(`^\s+✓\s(.*)\(\d+ms\)$`)
	calypsoPass    = pytext.Re(`^\s+✓\s(.*)`)
	calypsoFailMS  = pytext.Re(`^\s+✕\s(.*)\(\d+ms\)$`)
	calypsoFail    = pytext.Re(`^\s+✕\s(.*)`)
	calypsoCommand = " ./node_modules/.bin/jest "
)

// parseCalypso reads jest's verbose output after each traced "./node_modules/.bin/jest" command:
// names are the describe blocks and the test joined with " - ".
func parseCalypso(log, _ string) (*Map, error) {
	m := NewMap()
	var suite []suiteEntry
	name := func(re *pyre.Regexp, line string) (string, error) {
		g := re.FindStringSubmatch(line)
		if g == nil {
			return "", fmt.Errorf("calypso log: result line %q is not in the expected form (indented, optional (Nms) at the end)", line)
		}
		names := make([]string, len(suite))
		for i, s := range suite {
			names[i] = s.name
		}
		return pytext.Strip(strings.Join(names, " - ") + " - " + g[1]), nil
	}
	chunks := strings.Split(log, calypsoCommand)
	for _, chunk := range chunks[1:] {
		for _, line := range lines(chunk) {
			if strings.HasPrefix(line, "Test Suites") || strings.HasPrefix(line, "  ● ") {
				break
			}
			stripped := pytext.Strip(line)
			switch {
			case strings.HasPrefix(stripped, "✓"):
				re := calypsoPass
				if msTiming.MatchString(line) {
					re = calypsoPassMS
				}
				n, err := name(re, line)
				if err != nil {
					return nil, err
				}
				m.Set(n, Passed)
			case strings.HasPrefix(stripped, "✕"):
				re := calypsoFail
				if msTiming.MatchString(line) {
					re = calypsoFailMS
				}
				n, err := name(re, line)
				if err != nil {
					return nil, err
				}
				m.Set(n, Failed)
			case pytext.Indent(line) > 0:
				suite = adjustSuite(suite, line)
			}
		}
	}
	return m, nil
}

var chartJSFailure = pytext.Re(`(?m)Chrome\s[\d\.]+[^\S\r\n]\(.+?\)[^\S\r\n](.*)FAILED$`)

// parseChartJS records the karma lines "Chrome 1.2 (Linux x86_64) suite test FAILED"; the rows
// are graded fail_only, so passing tests need not appear.
func parseChartJS(log, _ string) (*Map, error) {
	log = ansiEscape.ReplaceAllString(log, "")
	m := NewMap()
	for _, g := range chartJSFailure.FindAllStringSubmatch(log, -1) {
		m.Set(g[1], Failed)
	}
	return m, nil
}

var markedFailure = pytext.Re(`^\d+\)\s(.*)`)

// parseMarked records jasmine's numbered failures "1) name"; graded fail_only.
func parseMarked(log, _ string) (*Map, error) {
	m := NewMap()
	for _, line := range lines(log) {
		if g := markedFailure.FindStringSubmatch(line); g != nil {
			m.Set(pytext.Strip(g[1]), Failed)
		}
	}
	return m, nil
}

// removeJSONBlocks drops the lines of JSON objects and arrays that p5.js's test output embeds.
func removeJSONBlocks(log string) string {
	var kept []string
	inObject, inList := false, false
	for _, line := range lines(log) {
		s := pytext.RStrip(line)
		switch {
		case strings.HasSuffix(s, "{"):
			inObject = true
			continue
		case strings.HasSuffix(s, "["):
			inList = true
			continue
		case s == "}" && inObject:
			inObject = false
			continue
		case s == "]" && inList:
			inList = false
			continue
		case inObject || inList:
			continue
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
			continue
		case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
			continue
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, "\n")
}

var xmlOpenTag = pytext.Re(`<(\w+)>`)

// findXMLBlock finds the leftmost "<tag>…</tag>" (shortest body), as the harness's
// `<(\w+)>[\s\S]*?<\/\1>` does; Go's regexp has no back-references.
func findXMLBlock(s string) (start, end int, tag string, ok bool) {
	for from := 0; from < len(s); {
		loc := xmlOpenTag.FindStringSubmatchIndex(s[from:])
		if loc == nil {
			return 0, 0, "", false
		}
		st, afterOpen := from+loc[0], from+loc[1]
		t := s[from+loc[2] : from+loc[3]]
		if i := strings.Index(s[afterOpen:], "</"+t+">"); i >= 0 {
			return st, afterOpen + i + len("</"+t+">"), t, true
		}
		from = st + 1
	}
	return 0, 0, "", false
}

// removeXMLBlocks removes "<tag>…</tag>" blocks, keeping unbalanced inner opening tags, until none
// is left.
func removeXMLBlocks(s string) string {
	for {
		start, end, tag, ok := findXMLBlock(s)
		if !ok {
			return s
		}
		open := "<" + tag + ">"
		n := strings.Count(s[start:end], open) - 1
		if n < 0 {
			n = 0
		}
		s = s[:start] + strings.Repeat(open, n) + s[end:]
	}
}

var p5jsFailure = pytext.Re(`(?ms)^\s*(\d+)\)(.{0,1000}?):`)

// parseP5js records mocha's numbered failures, whose title may run over several lines each more
// indented than the last; graded fail_only.
func parseP5js(log, _ string) (*Map, error) {
	log = ansiEscape.ReplaceAllString(log, "")
	log = removeJSONBlocks(log)
	log = removeXMLBlocks(log)
	m := NewMap()
	for _, g := range p5jsFailure.FindAllStringSubmatch(log, -1) {
		title := strings.Split(g[2], "\n")
		valid, last := true, 0
		for _, l := range title {
			ind := pytext.Indent(l)
			if ind <= last {
				valid = false
				break
			}
			last = ind
		}
		if !valid {
			continue
		}
		for i := range title {
			title[i] = pytext.Strip(title[i])
		}
		m.Set(strings.Join(title, ":"), Failed)
	}
	return m, nil
}

var jestSummaryPatterns = []struct {
	re     *pyre.Regexp
	status string
}{
	{pytext.Re(`^PASS\s(.*)\s\([\d\.]+ms\)`), Passed},
	{pytext.Re(`^PASS\s(.*)\s\([\d\.]+\ss\)`), Passed},
	{pytext.Re(`^PASS\s(.*)\s\([\d\.]+s\)`), Passed},
	{pytext.Re(`^PASS\s(.*)`), Passed},
	{pytext.Re(`^FAIL\s(.*)\s\([\d\.]+ms\)`), Failed},
	{pytext.Re(`^FAIL\s(.*)\s\([\d\.]+\ss\)`), Failed},
	{pytext.Re(`^FAIL\s(.*)\s\([\d\.]+s\)`), Failed},
	{pytext.Re(`^FAIL\s(.*)`), Failed},
}

// parseReactPDF reads jest's per-file summary lines "PASS path (1.2 s)" / "FAIL path".
func parseReactPDF(log, _ string) (*Map, error) {
	m := NewMap()
	for _, line := range lines(log) {
		for _, p := range jestSummaryPatterns {
			if g := p.re.FindStringSubmatch(line); g != nil {
				m.Set(g[1], p.status)
				break
			}
		}
	}
	return m, nil
}

var jestLine = pytext.Re(`^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$`)

// parseJest reads `jest --verbose`: "✓ name (3 ms)", "✕ name", "○ skipped name".
func parseJest(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, jestLine, func(g []string) {
		name := pytext.Strip(g[2])
		switch g[1] {
		case "✓":
			m.Set(name, Passed)
		case "✕":
			m.Set(name, Failed)
		case "○":
			m.Set(name, Skipped)
		}
	})
	return m, nil
}

var jestJSONLine = pytext.Re(`^\[(PASSED|FAILED)\]\s(.+)$`)

// parseJestJSON reads "[PASSED] name" lines made from jest's --json report.
func parseJestJSON(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, jestJSONLine, func(g []string) {
		if g[1] == "PASSED" {
			m.Set(g[2], Passed)
		} else {
			m.Set(g[2], Failed)
		}
	})
	return m, nil
}

var vitestLine = pytext.Re(`^\s*(✓|×|↓)\s(.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$`)

// parseVitest reads `vitest --reporter=verbose`: "✓ name 3ms", "× name", "↓ name [skipped]".
func parseVitest(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, vitestLine, func(g []string) {
		switch g[1] {
		case "✓":
			m.Set(g[2], Passed)
		case "×":
			m.Set(g[2], Failed)
		case "↓":
			m.Set(g[2], Skipped)
		}
	})
	return m, nil
}

var karmaLine = pytext.Re(`^(\s*)?([✔✖])?\s(.*)$`)

// parseKarma reads karma's spec reporter after "Starting browser", up to "SUMMARY:": describe
// blocks by indentation, "✔ name" / "✖ name" results, named "suite > sub > test".
func parseKarma(log, _ string) (*Map, error) {
	m := NewMap()
	indent := -1
	var suite []string
	started := false
	for _, line := range lines(log) {
		if strings.HasPrefix(line, "SUMMARY:") {
			return m, nil
		}
		if strings.Contains(line, "Starting browser") {
			started = true
			continue
		}
		if !started {
			continue
		}
		g := karmaLine.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		lead, status, name := g[1], g[2], g[3]
		if lead != "" && status == "" {
			n := len([]rune(lead))
			if n > indent {
				indent = n
				suite = append(suite, name)
			} else if n < indent {
				indent = n
				if len(suite) == 0 {
					return nil, fmt.Errorf("karma log: line %q closes a describe block that was never opened", line)
				}
				suite = suite[:len(suite)-1]
				continue
			}
		}
		if status == "✔" || status == "✖" {
			full := strings.Join(append(append([]string(nil), suite...), name), " > ")
			if status == "✔" {
				m.Set(full, Passed)
			} else {
				m.Set(full, Failed)
			}
		}
	}
	return m, nil
}

var tapLine = pytext.Re(`^(ok|not ok) (\d+) (.+)$`)

// parseTap reads TAP lines "ok 1 name" / "not ok 2 name".
func parseTap(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, tapLine, func(g []string) {
		if g[1] == "ok" {
			m.Set(g[3], Passed)
		} else {
			m.Set(g[3], Failed)
		}
	})
	return m, nil
}

// parseImmutableJS picks jest or jest-json by the instance's pull-request number.
func parseImmutableJS(log, id string) (*Map, error) {
	parts := strings.Split(id, "-")
	switch parts[len(parts)-1] {
	case "2006":
		return parseJest(log, id)
	case "2005":
		return parseJestJSON(log, id)
	}
	return nil, fmt.Errorf("parse_log_immutable_js knows no log format for instance %q (known: immutable-js__immutable-js-2005, -2006)", id)
}
