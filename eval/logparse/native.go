package logparse

import (
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Parsers for the C, C++, Go, Java, PHP, Ruby and Rust repositories of SWE-bench Multilingual.

// matchLines applies re to every stripped line and calls fn with the submatches of those that match.
func matchLines(log string, re interface {
	FindStringSubmatch(string) []string
}, fn func(g []string)) {
	for _, line := range lines(log) {
		if g := re.FindStringSubmatch(pytext.Strip(line)); g != nil {
			fn(g)
		}
	}
}

var (
	redisLine      = pytext.Re(`^\[(ok|err|skip|ignore)\]:\s(.+?)(?:\s\((\d+\s*m?s)\))?$`)
	redisErrSuffix = pytext.Re(`\s+in\s+\S+$`)
)

// parseRedis reads redis/valkey's test runner: "[ok]: name (12 ms)", "[err]: name in file".
func parseRedis(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, redisLine, func(g []string) {
		switch g[1] {
		case "ok":
			m.Set(g[2], Passed)
		case "err":
			m.Set(redisErrSuffix.ReplaceAllString(g[2], ""), Failed)
		case "skip", "ignore":
			m.Set(g[2], Skipped)
		}
	})
	return m, nil
}

var jqLine = pytext.Re(`^\s*(PASS|FAIL):\s(.+)$`)

// parseJq reads automake test-suite lines "PASS: name" / "FAIL: name".
func parseJq(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, jqLine, func(g []string) {
		if g[1] == "PASS" {
			m.Set(g[2], Passed)
		} else {
			m.Set(g[2], Failed)
		}
	})
	return m, nil
}

// parseDoctest reads the XML report of a doctest binary run with -s -r=xml: one test per SubCase,
// named "<TestCase> > <SubCase>", passed when all its Expressions succeeded.
func parseDoctest(log, _ string) (*Map, error) {
	m := NewMap()
	start := strings.Index(log, "<doctest")
	if start < 0 {
		return m, nil
	}
	end := strings.Index(log[start:], "</doctest>")
	if end < 0 {
		// The harness's slice then runs to len(log)-1+len(tag): it drops the log's last character.
		return nil, fmt.Errorf("doctest log: <doctest> report is not closed by </doctest>")
	}
	// ElementTree.fromstring: a report expat refuses raises ParseError in the harness.
	root, err := pytext.ParseXML(log[start : start+end+len("</doctest>")])
	if err != nil {
		return nil, fmt.Errorf("doctest log: XML report: %w", err)
	}
	for _, tc := range root.Iter("TestCase") {
		for _, sc := range tc.Iter("SubCase") {
			name := tc.GetStr("name") + " > " + sc.GetStr("name")
			passed := true
			for _, e := range sc.Iter("Expression") {
				if e.GetOr("success", "") != "true" {
					passed = false
				}
			}
			if passed {
				m.Set(name, Passed)
			} else {
				m.Set(name, Failed)
			}
		}
	}
	return m, nil
}

var micropythonLine = pytext.Re(`^(pass|FAIL|skip)\s+(.+)$`)

// parseMicropython reads micropython's run-tests.py: "pass name", "FAIL name", "skip name".
func parseMicropython(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, micropythonLine, func(g []string) {
		switch g[1] {
		case "pass":
			m.Set(g[2], Passed)
		case "FAIL":
			m.Set(g[2], Failed)
		case "skip":
			m.Set(g[2], Skipped)
		}
	})
	return m, nil
}

var googletestLine = pytext.Re(`^.*\[\s*(OK|FAILED)\s*\]\s(.*)\s\(.*\)$`)

// parseGoogletest reads "[       OK ] Suite.Test (0 ms)" and "[  FAILED  ] Suite.Test (1 ms)".
func parseGoogletest(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, googletestLine, func(g []string) {
		if g[1] == "OK" {
			m.Set(g[2], Passed)
		} else {
			m.Set(g[2], Failed)
		}
	})
	return m, nil
}

var gotestLine = pytext.Re(`^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$`)

// parseGotest reads `go test -v` result lines "--- PASS: TestName (0.00s)".
func parseGotest(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, gotestLine, func(g []string) {
		switch g[1] {
		case "PASS":
			m.Set(g[2], Passed)
		case "FAIL":
			m.Set(g[2], Failed)
		case "SKIP":
			m.Set(g[2], Skipped)
		}
	})
	return m, nil
}

var (
	mavenTestName = pytext.Re(`^.*-Dtest=(\S+).*$`)
	mavenResult   = pytext.Re(`^.*BUILD (SUCCESS|FAILURE)$`)
)

// parseMaven pairs each traced "mvn … -Dtest=Name" command with the next "BUILD SUCCESS|FAILURE"
// line, in order (maven prints no per-test result, so each test is run on its own).
func parseMaven(log, _ string) (*Map, error) {
	m := NewMap()
	var pending, unmatched []string
	set := func(test, result string) {
		if result == "SUCCESS" {
			m.Set(test, Passed)
		} else {
			m.Set(test, Failed)
		}
	}
	for _, line := range lines(log) {
		s := pytext.Strip(line)
		if g := mavenTestName.FindStringSubmatch(s); g != nil {
			pending = append(pending, g[1])
		}
		if g := mavenResult.FindStringSubmatch(s); g != nil {
			if len(pending) > 0 {
				set(pending[0], g[1])
				pending = pending[1:]
			} else {
				unmatched = append(unmatched, g[1])
			}
		}
	}
	for len(pending) > 0 && len(unmatched) > 0 {
		set(pending[0], unmatched[0])
		pending, unmatched = pending[1:], unmatched[1:]
	}
	return m, nil
}

var antLine = pytext.Re(`^\s*\[junit\]\s+\[(PASS|FAIL|ERR)\]\s+(.*)$`)

// parseAnt reads "[junit] [PASS] name" lines.
func parseAnt(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, antLine, func(g []string) {
		if g[1] == "PASS" {
			m.Set(g[2], Passed)
		} else {
			m.Set(g[2], Failed)
		}
	})
	return m, nil
}

var (
	gradleFull   = pytext.Re(`^([^>].+)\s+(PASSED|FAILED)$`)
	gradleName   = pytext.Re(`^([^>]\S*\s+>\s+\S+)$`)
	gradleStatus = pytext.Re(`^(PASSED|FAILED)$`)
)

// parseGradle reads "com.example.Test > testMethod PASSED", also when the status arrives on a later
// line of its own.
func parseGradle(log, _ string) (*Map, error) {
	m := NewMap()
	pending := ""
	set := func(test, status string) {
		if status == "PASSED" {
			m.Set(test, Passed)
		} else {
			m.Set(test, Failed)
		}
	}
	for _, line := range lines(log) {
		s := pytext.Strip(line)
		if g := gradleFull.FindStringSubmatch(s); g != nil {
			set(g[1], g[2])
			pending = ""
			continue
		}
		if g := gradleName.FindStringSubmatch(s); g != nil {
			pending = g[1]
			continue
		}
		if pending != "" {
			if g := gradleStatus.FindStringSubmatch(s); g != nil {
				set(pending, g[1])
				pending = ""
			}
		}
	}
	return m, nil
}

var (
	phpunitSuite = pytext.Re(`^(\w.+) \(.+\)$`)
	phpunitTest  = pytext.Re(`^\s*([✔✘↩])\s*(.*)$`)
)

// parsePHPUnit reads `phpunit --testdox`: a "Suite Name (Class\Name)" header, then "✔ test" lines.
func parsePHPUnit(log, _ string) (*Map, error) {
	m := NewMap()
	suite := "None" // the harness formats the unset suite (None) this way
	for _, line := range lines(log) {
		if g := phpunitSuite.FindStringSubmatch(line); g != nil {
			suite = g[1]
			continue
		}
		if g := phpunitTest.FindStringSubmatch(line); g != nil {
			name := suite + " > " + g[2]
			switch g[1] {
			case "✔":
				m.Set(name, Passed)
			case "✘":
				m.Set(name, Failed)
			case "↩":
				m.Set(name, Skipped)
			}
		}
	}
	return m, nil
}

var minitestLine = pytext.Re(`^(.+)\. .*=.*(\.|F|E).*$`)

// parseMinitest reads minitest's verbose lines "Test#test_name = 0.01 s = .".
func parseMinitest(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, minitestLine, func(g []string) {
		if g[2] == "." {
			m.Set(g[1], Passed)
		} else {
			m.Set(g[1], Failed)
		}
	})
	return m, nil
}

var cucumberLine = pytext.Re(`^(.*) \.+(\.|F)`)

// parseCucumber reads cucumber's progress format "Scenario name ....F".
func parseCucumber(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, cucumberLine, func(g []string) {
		if g[2] == "." {
			m.Set(g[1], Passed)
		} else {
			m.Set(g[1], Failed)
		}
	})
	return m, nil
}

var rubyUnitLine = pytext.Re(`^\s*(?:test: )?(.+):\s+(\.|E\b|F\b|O\b)`)

// parseRubyUnit reads test-unit's verbose lines "test_name: .", "test: name: F" (O is omitted).
func parseRubyUnit(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, rubyUnitLine, func(g []string) {
		switch g[2] {
		case ".":
			m.Set(g[1], Passed)
		case "E", "F":
			m.Set(g[1], Failed)
		case "O":
			m.Set(g[1], Skipped)
		}
	})
	return m, nil
}

var rspecLine = pytext.Re(`^(.+) - (passed|failed)`)

// parseRspecJSON reads rspec's JSON report after the eval script turned it into
// "<description> - passed|failed" lines.
func parseRspecJSON(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, rspecLine, func(g []string) {
		if g[2] == "passed" {
			m.Set(g[1], Passed)
		} else {
			m.Set(g[1], Failed)
		}
	})
	return m, nil
}

// parseJekyll picks minitest or cucumber by the instance's pull-request number.
func parseJekyll(log, id string) (*Map, error) {
	parts := strings.Split(id, "-")
	pr := ""
	if len(parts) > 1 {
		pr = parts[1]
	}
	switch pr {
	case "9141", "8047", "8167":
		return parseMinitest(log, id)
	case "8761", "8771":
		return parseCucumber(log, id)
	}
	return nil, fmt.Errorf("parse_log_jekyll knows no log format for instance %q (known: jekyll__jekyll-9141, -8047, -8167, -8761, -8771)", id)
}

var cargoLine = pytext.Re(`^test\s+(\S+)\s+\.\.\.\s+(\w+)$`)

// parseCargo reads `cargo test` lines "test path::name ... ok|FAILED" (ignored tests are not recorded).
func parseCargo(log, _ string) (*Map, error) {
	m := NewMap()
	matchLines(log, cargoLine, func(g []string) {
		switch g[2] {
		case "ok":
			m.Set(g[1], Passed)
		case "FAILED":
			m.Set(g[1], Failed)
		}
	})
	return m, nil
}
