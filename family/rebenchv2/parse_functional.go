package rebenchv2

import (
	"sort"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Elixir (ExUnit), Haskell (tasty, hspec, HUnit), OCaml (alcotest, dune, ocamlbuild) and Clojure
// (Leiningen) runners.

var (
	exunitSkipped = pytext.Re(`^\*\s+test\s+(.*?)\s+\(skipped\)\s+\[L#\d+\]$`)
	exunitTimed   = pytext.Re(`^\*\s+test\s+(.*?)\s+\([0-9]+(?:\.[0-9]+)?ms\)\s+\[L#\d+\]$`)
	exunitBasic   = pytext.Re(`^\*\s+test\s+(.*?)\s+\[L#\d+\]$`)
	exunitFailure = pytext.Re(`^\d+\)\s+test\s+(.*?)\s+\([^)]+\)$`)
)

// parseElixir reads `mix test --trace`: "* test name (1.2ms) [L#42]" passes, "(skipped)" skips and
// "1) test name (Module)" failure headers, which override a pass.
func parseElixir(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := exunitSkipped.FindStringSubmatch(line); g != nil {
			m.Set(g[1], skipped)
		} else if g := exunitFailure.FindStringSubmatch(line); g != nil {
			m.Set(g[1], failed)
		} else if g := exunitTimed.FindStringSubmatch(line); g != nil {
			setDefault(m, g[1], passed)
		} else if g := exunitBasic.FindStringSubmatch(line); g != nil {
			setDefault(m, g[1], passed)
		}
	}
	return m, nil
}

var (
	tastyLine         = pytext.Re(`^\s*(?P<name>.+?)\s*:\s*(?P<status>OK|PASS|FAIL|ERROR|SKIP|PENDING)(?:\b|\s|$)`)
	hsPendingInline   = pytext.Re(`^\s*(?P<name>.+?)\s*:\s*(?:SKIP|PENDING)\b.*$`)
	hspecBracketPass  = pytext.Re(`^\s+(?P<name>.+?)\s+\[(?:✓|✔)\]\s*$`)
	hspecBracketFail  = pytext.Re(`^\s+(?P<name>.+?)\s+\[(?:✗|✘)\]\s*$`)
	hspecPass         = pytext.Re(`^\s*(?:✓|✔)\s+(?P<name>.+?)(?:\s+\(.*?\))?\s*$`)
	hspecFail         = pytext.Re(`^\s*(?:✗|✘)\s+(?P<name>.+?)\s*$`)
	hspecFailHeader   = pytext.Re(`^\s*\d+\)\s+(?P<name>.+?)\s*$`)
	hunitFailure      = pytext.Re(`^###\s+Failure\s+in:\s+(?P<name>.+)$`)
	hunitError        = pytext.Re(`^###\s+Error\s+in:\s+(?P<name>.+)$`)
	tastyStatus       = map[string]string{"OK": passed, "PASS": passed, "FAIL": failed, "ERROR": errored, "SKIP": skipped, "PENDING": skipped}
	haskellNoiseWords = []string{"Test suite ", "Linking ", "Building ", "Running  "}
)

// parseHaskell reads tasty ("name: OK (0.01s)"), hspec ("✔ name", "name [✘]", "1) name") and
// HUnit ("### Failure in: name") output; a failure overrides an earlier pass.
func parseHaskell(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.RStrip(ansiColour.ReplaceAllString(raw, ""))
		if line == "" || containsAny(line, haskellNoiseWords) {
			continue
		}
		if g := tastyLine.FindStringSubmatch(line); g != nil {
			m.Set(pytext.Strip(g[1]), tastyStatus[g[2]])
			continue
		}
		rules := []struct {
			re     *pyre.Regexp
			status string
			keep   bool
		}{
			{hsPendingInline, skipped, false},
			{hspecBracketPass, passed, true},
			{hspecBracketFail, failed, false},
			{hspecPass, passed, true},
			{hspecFail, failed, false},
			{hspecFailHeader, failed, false},
			{hunitFailure, failed, false},
			{hunitError, errored, false},
		}
		for _, r := range rules {
			g := r.re.FindStringSubmatch(line)
			if g == nil {
				continue
			}
			if r.keep {
				setDefault(m, pytext.Strip(g[1]), r.status)
			} else {
				m.Set(pytext.Strip(g[1]), r.status)
			}
			break
		}
	}
	return m, nil
}

var (
	hspecV2FailureHeader = pytext.Re(`^\s*\d+\)\s+(.*)$`)
	hspecV2Failed        = pytext.Re(`^(.*?)\s+FAILED\s*\[\d+\]$`)
	hspecV2Pending       = pytext.Re(`(?i)^(.*?)\s+(?:PENDING|SKIPPED)\b.*$`)
	hspecV2FailuresEnd   = []string{"To rerun use:", "Randomized with seed", "Finished in ", "Test suite "}
	hspecV2NotTree       = []string{"Downloading", "Building", "Installing", "Completed", "Starting",
		"Preprocessing", "Configuring", "Linking", "Resolving dependencies", "Build profile",
		"In order, the following will be built", "Error:", "Test suite ", "Running "}
)

const hspecV2Info = "Golden and Actual output didn't change"

// parseHaskellV2 reads hspec's tree of groups and examples (two spaces per level) after "Test suite
// …: RUNNING...": each leaf is a test named by its path joined with ".", passed unless marked
// "FAILED [n]" or PENDING/SKIPPED; the entries of the "Failures:" section ("1) Group, example",
// joined with ".") are failures.
func parseHaskellV2(log, _ string) (*logparse.Map, error) {
	lines := pytext.SplitLines(log)
	spaces := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

	failuresAt := -1
	for i, ln := range lines {
		if pytext.Strip(ln) == "Failures:" {
			failuresAt = i
			break
		}
	}
	failedNames := map[string]bool{}
	if failuresAt >= 0 {
		for _, ln := range lines[failuresAt+1:] {
			s := pytext.Strip(ln)
			if s == "" {
				continue
			}
			if hasAnyPrefix(s, hspecV2FailuresEnd) {
				break
			}
			if g := hspecV2FailureHeader.FindStringSubmatch(s); g != nil {
				parts := strings.Split(pytext.Strip(g[1]), ",")
				for i := range parts {
					parts[i] = pytext.Strip(parts[i])
				}
				failedNames[strings.Join(parts, ".")] = true
			}
		}
	}

	start := -1
	for i, ln := range lines {
		if strings.HasPrefix(ln, "Test suite ") && strings.Contains(ln, ": RUNNING...") {
			start = i + 1
			break
		}
	}
	if start < 0 {
		for i, ln := range lines {
			if ln != "" && !strings.HasPrefix(ln, " ") && strings.Contains(ln, ".") && !containsAny(ln, hspecV2NotTree) {
				start = i
				break
			}
		}
	}
	if start < 0 {
		start = 0
	}
	end := len(lines)
	if failuresAt >= 0 {
		end = failuresAt
	}
	significant := func(s string) bool { s = pytext.Strip(s); return s != "" && s != hspecV2Info }

	m := logparse.NewMap()
	var stack []string
	for i := start; i < end; i++ {
		raw := lines[i]
		if !significant(raw) {
			continue
		}
		s := pytext.Strip(raw)
		indent := spaces(raw)
		level := indent / 2
		status, name := passed, s
		if g := hspecV2Failed.FindStringSubmatch(s); g != nil {
			status, name = failed, pytext.Strip(g[1])
		} else if g := hspecV2Pending.FindStringSubmatch(s); g != nil {
			status, name = skipped, pytext.Strip(g[1])
		}
		switch {
		case level < len(stack):
			stack = append(stack[:level], name)
		default:
			for len(stack) < level {
				stack = append(stack, "")
			}
			stack = append(stack, name)
		}
		leaf := true
		for j := i + 1; j < end; j++ {
			if significant(lines[j]) {
				leaf = spaces(lines[j]) <= indent
				break
			}
		}
		if leaf {
			var path []string
			for _, seg := range stack {
				if seg != "" {
					path = append(path, seg)
				}
			}
			m.Set(strings.Join(path, "."), status)
		}
	}
	names := make([]string, 0, len(failedNames))
	for n := range failedNames {
		names = append(names, n)
	}
	sort.Strings(names) // the harness iterates a set: any order gives the same map
	for _, n := range names {
		m.Set(n, failed)
	}
	return m, nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// ocamlPrecedence orders statuses for the OCaml parsers: a status replaces another of lower or
// equal precedence.
var ocamlPrecedence = map[string]int{passed: 0, skipped: 1, failed: 2, errored: 3}

func precedence(s string) int {
	if p, ok := ocamlPrecedence[s]; ok {
		return p
	}
	return -1
}

// setByPrecedence is the harness's _update_status_by_precedence.
func setByPrecedence(m *logparse.Map, name, status string) {
	if name == "" {
		return
	}
	if cur, ok := m.Get(name); !ok || precedence(status) >= precedence(cur) {
		m.Set(name, status)
	}
}

var (
	alcotestEntry  = pytext.Re(`^\s*\[(?P<status>[A-Z]+)\]\s+(?P<suite>.*?)\s+(?P<index>\d+)\s+(?P<name>.+)$`)
	alcotestStatus = map[string]string{"OK": passed, "PASS": passed, "FAIL": failed, "FAILED": failed,
		"ERROR": errored, "ERR": errored, "SKIP": skipped, "SKIPPED": skipped, "TODO": skipped}
)

// parseOCaml reads Alcotest/QCheck lines "[OK] suite 0 description", named "suite 0 description";
// an unknown status is an error and a pass never overrides.
func parseOCaml(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		g := alcotestEntry.FindStringSubmatch(pytext.RStrip(raw))
		if g == nil {
			continue
		}
		var parts []string
		for _, p := range []string{pytext.Strip(g[2]), pytext.Strip(g[3]), pytext.Strip(g[4])} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		name := strings.Join(parts, " ")
		status, ok := alcotestStatus[g[1]]
		if !ok {
			status = errored
		}
		if status == passed {
			setDefault(m, name, status)
		} else {
			m.Set(name, status)
		}
	}
	return m, nil
}

var (
	duneRunning    = pytext.Re(`^Running\[(?P<id>\d+)\]:\s+\((?P<command>.+)\)$`)
	duneOutput     = pytext.Re(`^Output\[(?P<id>\d+)]:`)
	duneFailTokens = []string{"FAIL", "ERROR", "EXCEPTION", "CRASH", "FATAL"}
	duneSkipTokens = []string{"SKIP", "SKIPPED"}
)

// duneTestName is the binary a dune action runs: the last "&&" command, without "exec " and
// "./", its first word's last path element.
func duneTestName(command string) string {
	parts := strings.Split(command, "&&")
	cmd := pytext.Strip(parts[len(parts)-1])
	if strings.HasPrefix(cmd, "exec ") {
		cmd = pytext.Strip(cmd[5:])
	}
	cmd = strings.TrimPrefix(cmd, "./")
	words := pytext.Fields(cmd)
	if len(words) == 0 {
		return ""
	}
	path := strings.Split(words[0], "/")
	return path[len(path)-1]
}

// parseOCamlV2 reads `dune test --display short` logs: "Running[N]: (cd … && ./test.exe)" names
// run N after its binary, the lines after "Output[N]:" are that run's output; a line with FAIL,
// ERROR, … fails the test, SKIP skips it, "OK" passes it, by precedence; a test with output and no
// status passed.
func parseOCamlV2(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	runs := map[int]string{}
	active := ""
	var seen []string
	seenSet := map[string]bool{}
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := duneRunning.FindStringSubmatch(line); g != nil {
			id := pytext.Int(g[1])
			name := duneTestName(g[2])
			if name == "" {
				name = "run_" + strconv.Itoa(id)
			}
			runs[id] = name
			active = ""
			continue
		}
		if g := duneOutput.FindStringSubmatch(line); g != nil {
			active = runs[pytext.Int(g[1])]
			continue
		}
		if active == "" {
			continue
		}
		if !seenSet[active] {
			seenSet[active] = true
			seen = append(seen, active)
		}
		upper := strings.ToUpper(line)
		switch {
		case containsAny(upper, duneFailTokens):
			setByPrecedence(m, active, failed)
		case containsAny(upper, duneSkipTokens):
			setByPrecedence(m, active, skipped)
		case upper == "OK":
			setByPrecedence(m, active, passed)
		}
	}
	sort.Strings(seen) // the harness iterates a set: any order gives the same map
	for _, name := range seen {
		setDefault(m, name, passed)
	}
	return m, nil
}

var (
	ocamlInlineStatus = pytext.Re(`^\[(?P<token>[A-Za-z][A-Za-z0-9_-]*)\]\s+(?P<body>.+)$`)
	ocamlSpaces       = pytext.Re(`\s+`)
	ocamlInlineTokens = map[string]string{
		"OK": passed, "PASS": passed, "PASSED": passed, "SUCCESS": passed,
		"SKIP": skipped, "SKIPPED": skipped, "TODO": skipped, "PENDING": skipped, "DISABLED": skipped,
		"FAIL": failed, "FAILED": failed, "ERROR": failed, "EXCEPTION": failed, "CRASH": failed,
		"FATAL": failed, "KO": failed, "PANIC": failed,
	}
)

// parseOCamlV3 reads inline test output "[OK] name", "[FAIL] name", … (whitespace in names folded
// to single spaces), by precedence.
func parseOCamlV3(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if !strings.HasPrefix(line, "[") {
			continue
		}
		g := ocamlInlineStatus.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		status, ok := ocamlInlineTokens[strings.ToUpper(g[1])]
		if !ok {
			continue
		}
		if name := pytext.Strip(ocamlSpaces.ReplaceAllString(g[2], " ")); name != "" {
			setByPrecedence(m, name, status)
		}
	}
	return m, nil
}

var (
	ocamlStatusPrefix = pytext.Re(`^(PASSED|FAILED|SKIPPED|ERROR)\s+(.*)$`)
	ocamlWideSpace    = pytext.Re(`\s{2,}`)
)

// parseOCamlV4 (also parse_log_ocaml_v5) reads ocamlbuild test lines "PASSED name   detail" with
// colours removed, the name ending at the first run of two spaces, by precedence.
func parseOCamlV4(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := ansiColour.ReplaceAllString(raw, " ")
		line = pytext.Strip(ansiEscape.ReplaceAllString(line, ""))
		if line == "" {
			continue
		}
		g := ocamlStatusPrefix.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		rest := pytext.Strip(g[2])
		if rest == "" {
			continue
		}
		name := pytext.Strip(ocamlWideSpace.Split(rest, 2)[0])
		if name == "" {
			continue
		}
		setByPrecedence(m, name, g[1])
	}
	return m, nil
}

var leinTest = pytext.Re(`^lein test (.+)$`)

// parseLein reads `lein test` output: each "lein test ns.a ns.b" (or "lein test :only ns/test")
// line names namespaces, passed unless a later "FAIL in" or "ERROR in" line follows while it is
// the current one.
func parseLein(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	current := ""
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := leinTest.FindStringSubmatch(line); g != nil {
			tokens := pytext.Fields(pytext.Strip(g[1]))
			current = ""
			if len(tokens) > 0 && tokens[0] == ":only" {
				target := pytext.Strip(strings.Join(tokens[1:], " "))
				if base := pytext.Strip(strings.SplitN(target, "/", 2)[0]); target != "" && base != "" {
					setDefault(m, base, passed)
					current = base
				}
				continue
			}
			for _, t := range tokens {
				if base := pytext.Strip(t); base != "" {
					setDefault(m, base, passed)
					current = base
				}
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "FAIL in") && current != "":
			m.Set(current, failed)
		case strings.HasPrefix(line, "ERROR in") && current != "":
			m.Set(current, errored)
		}
	}
	return m, nil
}
