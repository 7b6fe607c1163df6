package rebenchv2

import (
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// JUnit XML reports, Maven Surefire, Gradle, sbt and ScalaTest.

// junitStatus is a testcase's status by its first child among failure, skipped and error (in the
// order the caller's harness function checks them).
func junitStatus(tc *pytext.Element, order ...string) string {
	for _, child := range order {
		if tc.Has(child) {
			switch child {
			case "failure":
				return failed
			case "skipped":
				return skipped
			case "error":
				return errored
			}
		}
	}
	return passed
}

// testReport is the harness's parse_test_report: the testcases of one XML document as
// "classname::name" (a missing attribute reads "None"); an XML error gives no tests.
func testReport(doc string, m *logparse.Map) {
	root, err := pytext.ParseXML(doc)
	if err != nil {
		return
	}
	for _, tc := range root.Iter("testcase") {
		m.Set(tc.GetStr("classname")+"::"+tc.GetStr("name"), junitStatus(tc, "failure", "skipped", "error"))
	}
}

// parseTestReport reads the whole log as one JUnit XML document.
func parseTestReport(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	testReport(log, m)
	return m, nil
}

// parseCombinedTestReports reads every "<?xml … </testsuites>" document in the log, later reports
// overwriting earlier ones; a start without an end is skipped.
func parseCombinedTestReports(log, _ string) (*logparse.Map, error) {
	const start, end = "<?xml", "</testsuites>"
	m := logparse.NewMap()
	pos := 0
	for pos < len(log) {
		i := strings.Index(log[pos:], start)
		if i < 0 {
			break
		}
		i += pos
		j := strings.Index(log[i:], end)
		if j < 0 {
			pos = i + len(start)
			continue
		}
		j += i + len(end)
		testReport(log[i:j], m)
		pos = j
	}
	return m, nil
}

// parseGradlewV1 reads the JUnit XML reports a Gradle run cats into the log: each block from a
// line starting with "<?xml" to a line starting with "</testsuite>", its testcases named
// "name (classname)"; a block that is not well-formed XML is skipped.
func parseGradlewV1(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	var blocks []string
	var current []string
	inXML := false
	for _, line := range pytext.Lines(log) {
		s := pytext.Strip(line)
		switch {
		case strings.HasPrefix(s, "<?xml"):
			inXML = true
			current = []string{line}
		case inXML:
			current = append(current, line)
			if strings.HasPrefix(s, "</testsuite>") {
				blocks = append(blocks, strings.Join(current, "\n"))
				current, inXML = nil, false
			}
		}
	}
	for _, block := range blocks {
		root, err := pytext.ParseXML(block)
		if err != nil {
			continue
		}
		for _, tc := range root.Iter("testcase") {
			name, class := tc.GetOr("name", ""), tc.GetOr("classname", "")
			full := name
			if class != "" && name != "" {
				full = name + " (" + class + ")"
			}
			m.Set(full, junitStatus(tc, "skipped", "failure", "error"))
		}
	}
	return m, nil
}

// parseRJUnit reads testthat's JUnit report: the document from the first "<?xml" to the first
// "</testsuites>", the testcases directly under each <testsuite> below the root, named
// "classname::name" (or name alone).
func parseRJUnit(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	i := strings.Index(log, "<?xml")
	if i < 0 {
		return m, nil
	}
	doc := log[i:]
	if j := strings.Index(doc, "</testsuites>"); j >= 0 {
		doc = doc[:j+len("</testsuites>")]
	}
	root, err := pytext.ParseXML(doc)
	if err != nil {
		return m, nil
	}
	for _, suite := range root.Iter("testsuite") {
		for _, tc := range suite.FindAll("testcase") {
			name, class := tc.GetOr("name", ""), tc.GetOr("classname", "")
			full := name
			if class != "" {
				full = class + "::" + name
			}
			m.Set(full, junitStatus(tc, "failure", "error", "skipped"))
		}
	}
	return m, nil
}

var (
	junitOpenTag = pytext.Re(`(?s)<testcase\b([^>]*)>`)
	junitAttr    = pytext.Re(`(\w+)="([^"]*)"`)
)

// parseJUnitText (parse_log_sbt, parse_log_junit) reads <testcase> elements from raw text without
// an XML parser: attributes in any order, self-closing or not, in concatenated or broken
// documents. A test is "classname name" (or name alone); its status comes from the first of
// <failure, <error, <skipped in its body (4,096 characters of text when </testcase> never comes).
func parseJUnitText(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	pos := 0
	for {
		loc := junitOpenTag.FindStringSubmatchIndex(log[pos:])
		if loc == nil {
			break
		}
		tagEnd := pos + loc[1]
		rawAttrs := log[pos+loc[2] : pos+loc[3]]
		attrs := map[string]string{}
		for _, a := range junitAttr.FindAllStringSubmatch(rawAttrs, -1) {
			attrs[a[1]] = a[2]
		}
		name := attrs["name"]
		if name == "" {
			pos = tagEnd
			continue
		}
		body := ""
		if strings.HasSuffix(pytext.Strip(rawAttrs), "/") {
			pos = tagEnd
		} else if c := strings.Index(log[tagEnd:], "</testcase>"); c >= 0 {
			body = log[tagEnd : tagEnd+c]
			pos = tagEnd + c + len("</testcase>")
		} else {
			body = sliceChars(log[tagEnd:], 0, 4096)
			pos = tagEnd
		}
		full := name
		if class := attrs["classname"]; class != "" {
			full = pytext.Strip(class + " " + name)
		}
		status := passed
		switch {
		case strings.Contains(body, "<failure"):
			status = failed
		case strings.Contains(body, "<error"):
			status = errored
		case strings.Contains(body, "<skipped"):
			status = skipped
		}
		m.Set(full, status)
	}
	return m, nil
}

var (
	kotlinRunning = pytext.Re(`^Running\s+(.+)$`)
	kotlinSummary = pytext.Re(`^Tests run:\s+(\d+),\s+Failures:\s+(\d+),\s+Errors:\s+(\d+),\s+Skipped:\s+(\d+)`)
)

// parseKotlinJUnit reads Surefire's plain output per test class: "Running <class>" then its
// "Tests run: …, Failures: …, Errors: …, Skipped: …" line.
func parseKotlinJUnit(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	current := ""
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := kotlinRunning.FindStringSubmatch(line); g != nil {
			current = g[1]
			continue
		}
		if g := kotlinSummary.FindStringSubmatch(line); g != nil {
			if current != "" {
				switch {
				case pytext.Int(g[2]) > 0 || pytext.Int(g[3]) > 0:
					m.Set(current, failed)
				case pytext.Int(g[4]) > 0:
					m.Set(current, skipped)
				default:
					m.Set(current, passed)
				}
				current = ""
			}
		}
	}
	return m, nil
}

const mavenNoTestYet = "---NO TEST NAME FOUND YET---"

var (
	mavenTestName = pytext.Re(`^.*-Dtest=(\S+).*$`)
	mavenResult   = pytext.Re(`^.*BUILD (SUCCESS|FAILURE)$`)
)

// parseMaven is the harness's older parse_log_maven: each "BUILD SUCCESS|FAILURE" line is the
// result of the test named by the last traced "-Dtest=<name>" before it (a placeholder name
// before any).
func parseMaven(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	current := mavenNoTestYet
	for _, raw := range pytext.Lines(log) {
		line := pytext.Strip(raw)
		if g := mavenTestName.FindStringSubmatch(line); g != nil {
			current = g[1]
		}
		if g := mavenResult.FindStringSubmatch(line); g != nil {
			if g[1] == "SUCCESS" {
				m.Set(current, passed)
			} else {
				m.Set(current, failed)
			}
		}
	}
	return m, nil
}

var gradleCustom = pytext.Re(`^([^>].+?)\s+(PASSED|FAILED)(?:\s+\(\d+(?:\.\d+)?s\))?$`)

// parseGradleCustom reads "Class > method PASSED|FAILED (1.2s)" lines of a Gradle run whose
// build was set up to print them.
func parseGradleCustom(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.Lines(log) {
		if g := gradleCustom.FindStringSubmatch(pytext.Strip(raw)); g != nil {
			m.Set(g[1], g[2])
		}
	}
	return m, nil
}

var (
	mvnFailure = pytext.Re(`^\[ERROR\]\s+(?P<class>[A-Za-z0-9_$.]+)\.(?P<method>[A-Za-z0-9_$.]+?)(?::(?P<line>\d+))?\b`)
	mvnRunning = pytext.Re(`^(?:\[INFO\]\s+)?Running\s+([A-Za-z0-9_$.]+)$`)
	mvnSummary = pytext.Re(`Tests run:\s*(\d+),\s*Failures:\s*(\d+),\s*Errors:\s*(\d+),\s*Skipped:\s*(\d+)`)
)

// parseJavaMvn reads Surefire/Failsafe output: "[ERROR] Class.method:line …" failures (an
// exception other than an AssertionError is an error) and their class, "Running <class>" followed
// by its "Tests run: …" summary (or a summary naming its class after " in "), then, for names not
// yet seen, the testcases of inline JUnit XML and the BUILD results of "-Dtest=" runs; when
// nothing at all was found, every class seen running passed.
func parseJavaMvn(log, id string) (*logparse.Map, error) {
	m := logparse.NewMap()
	seen := map[string]bool{}
	current := ""
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := mvnRunning.FindStringSubmatch(line); g != nil {
			current = g[1]
			seen[current] = true
			continue
		}
		if g := mvnFailure.FindStringSubmatch(line); g != nil {
			status := failed
			if strings.Contains(line, "Exception") && !strings.Contains(line, "AssertionError") {
				status = errored
			}
			m.Set(g[1]+"."+g[2], status)
			setDefault(m, g[1], failed)
			continue
		}
		if g := mvnSummary.FindStringSubmatch(line); g != nil {
			class := current
			if strings.Contains(line, " in ") {
				parts := strings.Split(line, " in ")
				class = strings.TrimRight(pytext.Strip(parts[len(parts)-1]), ".:;")
			}
			if class != "" {
				status := failed
				if pytext.Int(g[2]) == 0 && pytext.Int(g[3]) == 0 {
					status = passed
					if pytext.Int(g[4]) != 0 {
						status = skipped
					}
				}
				setDefault(m, class, status)
			}
			current = ""
		}
	}
	for _, fallback := range []logparse.Parser{parseJUnitText, parseMaven} {
		fm, err := fallback(log, id)
		if err != nil {
			return nil, err
		}
		for _, name := range fm.Keys() {
			status, _ := fm.Get(name)
			setDefault(m, name, status)
		}
	}
	if m.Len() == 0 {
		classes := make([]string, 0, len(seen))
		for c := range seen {
			classes = append(classes, c)
		}
		sort.Strings(classes) // the harness iterates a set: any order gives the same map
		for _, c := range classes {
			m.Set(c, passed)
		}
	}
	return m, nil
}

var mvnModule = pytext.Re(`^\[INFO\]\s+(?P<name>.+?)\s+\.\.+\s+(?P<status>SUCCESS|FAILURE|SKIPPED)(?:\s|\[|$)`)

// parseJavaMvnV2 reads the reactor summary of a multi-module Maven build ("[INFO] Module ....
// SUCCESS [ 1.2 s]"), one test per module, and records the first "Tests run:" summary as
// "__suite__".
func parseJavaMvnV2(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := mvnModule.FindStringSubmatch(line); g != nil {
			switch g[2] {
			case "SUCCESS":
				m.Set(g[1], passed)
			case "FAILURE":
				m.Set(g[1], failed)
			default:
				m.Set(g[1], skipped)
			}
			continue
		}
		if g := mvnSummary.FindStringSubmatch(line); g != nil {
			run, failures, errs, skips := pytext.Int(g[1]), pytext.Int(g[2]), pytext.Int(g[3]), pytext.Int(g[4])
			status := passed
			switch {
			case failures > 0:
				status = failed
			case errs > 0:
				status = errored
			case skips == run:
				status = skipped
			}
			setDefault(m, "__suite__", status)
		}
	}
	return m, nil
}

var (
	scalaFailed   = pytext.Re(`^\[info\]\s+-\s+(.*?)\s+\*\*\*\s+FAILED\s+\*\*\*\s+\([^)]+\)$`)
	scalaCanceled = pytext.Re(`^\[info\]\s+-\s+(.*?)\s+!!!\s+CANCELED\s+!!!\s+\([^)]+\)$`)
	scalaIgnored  = pytext.Re(`^\[info\]\s+-\s+(.*?)\s+!!!\s+IGNORED\s+!!!`)
	scalaPassed   = pytext.Re(`^\[info\]\s+-\s+(.*?)\s+\([^)]+\)$`)
)

// parseScala reads ScalaTest's "[info] - name (12 milliseconds)" lines, with *** FAILED ***,
// !!! CANCELED !!! and !!! IGNORED !!! markers.
func parseScala(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := scalaFailed.FindStringSubmatch(line); g != nil {
			m.Set(g[1], failed)
		} else if g := scalaCanceled.FindStringSubmatch(line); g != nil {
			m.Set(g[1], skipped)
		} else if g := scalaIgnored.FindStringSubmatch(line); g != nil {
			m.Set(g[1], skipped)
		} else if g := scalaPassed.FindStringSubmatch(line); g != nil {
			setDefault(m, g[1], passed)
		}
	}
	return m, nil
}

var (
	scalaV2Ansi        = pytext.Re(`\x1b\[[0-9;]*m|\[(?:[0-9]{1,2}m)`)
	scalaV2Passed      = pytext.Re(`^\s*\+\s+(.*?)\s+[\d.]+[mμn]?s\s*$`)
	scalaV2Failed      = pytext.Re(`^\s*x\s+(.*?)\s+[\d.]+[mμn]?s\s*$`)
	scalaV2PassedColor = pytext.Re(`^\s*\+\s+\[0m\[32m(.*?)\[0m\s+\[90m[\d.]+[mμn]?s\[0m\s*$`)
	scalaV2FailedColor = pytext.Re(`^\s*x\s+\[0m\[31m(.*?)\[0m\s+\[90m[\d.]+[mμn]?s\[0m\s*$`)
)

// parseScalaV2 reads munit/utest-style lines "+ name 12ms" and "x name 12ms", with or without
// their colour codes.
func parseScalaV2(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		clean := scalaV2Ansi.ReplaceAllString(line, "")
		if g := scalaV2FailedColor.FindStringSubmatch(line); g != nil {
			m.Set(g[1], failed)
		} else if g := scalaV2Failed.FindStringSubmatch(clean); g != nil {
			m.Set(g[1], failed)
		} else if g := scalaV2PassedColor.FindStringSubmatch(line); g != nil {
			m.Set(g[1], passed)
		} else if g := scalaV2Passed.FindStringSubmatch(clean); g != nil {
			m.Set(g[1], passed)
		}
	}
	return m, nil
}

var (
	scalaV3Test   = pytext.Re(`^\[info\]\s+-\s+(.*?)(?:\s+\*{3}\s+([A-Z]+)\s+\*{3})?$`)
	scalaV3Suite  = pytext.Re(`^\[info\]\s+([^\-].*)$`)
	scalaV3Timing = pytext.Re(`\s*\(\d+\s+\w+\)$`)
	// scalaV3Status maps ScalaTest's markers; another marker is kept as it is.
	scalaV3Status = map[string]string{
		"PASSED": passed, "FAILED": failed, "ERROR": errored, "ABORTED": errored,
		"SKIPPED": skipped, "IGNORED": skipped, "CANCELED": skipped, "CANCELLED": skipped, "PENDING": skipped,
	}
	scalaV3NotSuites = []string{"Run completed", "Total number", "Suites:", "Tests:", "All tests",
		"compiling", "done compiling", "loading", "welcome to", "set current"}
)

// parseScalaV3 reads ScalaTest's "[info] - name" lines under the last "[info] Suite" line, naming
// tests "Suite: name".
func parseScalaV3(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	suite := ""
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if !strings.HasPrefix(line, "[info]") {
			continue
		}
		if strings.HasPrefix(line, "[info] -") {
			g := scalaV3Test.FindStringSubmatchIndex(line)
			if g == nil {
				continue
			}
			name := scalaV3Timing.ReplaceAllString(pytext.Strip(line[g[2]:g[3]]), "")
			if suite != "" {
				name = suite + ": " + name
			}
			if g[4] >= 0 {
				token := strings.ToUpper(line[g[4]:g[5]])
				status, ok := scalaV3Status[token]
				if !ok {
					status = token
				}
				m.Set(name, status)
			} else {
				setDefault(m, name, passed)
			}
			continue
		}
		g := scalaV3Suite.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		candidate := pytext.Strip(g[1])
		if candidate == "" || containsAny(candidate, scalaV3NotSuites) {
			continue
		}
		suite = candidate
	}
	return m, nil
}

func containsAny(s string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
