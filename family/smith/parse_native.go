package smith

import (
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

var (
	ctestResult        = pytext.Re(`(?i)\s*\d+/\d+\s+Test\s+#\d+:\s+([\w\-/.]+)\s+\.+\s+(Passed|Failed)`)
	ctestFailedSection = pytext.Re(`The following tests FAILED:\n((?:\s+\d+\s+-\s+[\w\-/.]+.*\n?)+)`)
	ctestFailedEntry   = pytext.Re(`\d+\s+-\s+([\w\-/.]+)`)
	ctestSummary       = pytext.Re(`(?i)(\d+)%\s+tests\s+passed,\s+(\d+)\s+tests\s+failed\s+out\s+of\s+(\d+)`)
)

// parseCTest reads CTest: "1/4 Test #1: name ....   Passed" results (a "***Failed" without
// spaces before it is not one), then the "The following tests FAILED:" list; with neither, the
// "N% tests passed, F tests failed out of T" summary as synthetic tests.
func parseCTest(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, g := range ctestResult.FindAllStringSubmatch(log, -1) {
		if strings.ToLower(g[2]) == "passed" {
			m.Set(g[1], passed)
		} else {
			m.Set(g[1], failed)
		}
	}
	if g := ctestFailedSection.FindStringSubmatch(log); g != nil {
		for _, line := range pytext.SplitLines(g[1]) {
			if e := ctestFailedEntry.FindStringSubmatch(line); e != nil {
				m.Set(e[1], failed)
			}
		}
	}
	if m.Len() == 0 {
		if g := ctestSummary.FindStringSubmatch(log); g != nil {
			total, fail := pytext.Int(g[3]), pytext.Int(g[2])
			synthetic(m, "synthetic_pass_", 0, total-fail, passed)
			synthetic(m, "synthetic_fail_", 0, fail, failed)
		}
	}
	return m, nil
}

var (
	gtestOK         = pytext.Re(`^\[\s*(OK|PASSED)\s*\]\s+([\w:/.]+)`)
	gtestFailed     = pytext.Re(`^\[\s*FAILED\s*\]\s+([\w:/.]+)(?:\s+\(|$)`)
	gtestSkipped    = pytext.Re(`^\[\s*(SKIPPED|DISABLED)\s*\]\s+([\w:/.]+)`)
	gtestCount      = pytext.Re(`\d+\s+tests?[\.,]`)
	gtestSumTests   = pytext.Re(`\[\s*=+\s*\]\s*(\d+)\s+tests?\s+from`)
	gtestSumPassed  = pytext.Re(`\[\s*PASSED\s*\]\s*(\d+)\s+tests?`)
	gtestSumFailure = pytext.Re(`\[\s*FAILED\s*\]\s*(\d+)\s+tests?`)
)

// parseGTest reads googletest's "[       OK ] Suite.Test (0 ms)", "[  FAILED  ] Suite.Test" and
// "[  SKIPPED ] …" lines (summary lines counting tests are skipped); with none, the summary counts
// as synthetic tests.
func parseGTest(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	summary := func(name, line string) bool { return pytext.IsDigit(name) || gtestCount.MatchString(line) }
	for _, line := range pytext.Lines(log) {
		line = pytext.Strip(line)
		if g := gtestOK.FindStringSubmatch(line); g != nil {
			if !summary(g[2], line) {
				m.Set(g[2], passed)
			}
			continue
		}
		if g := gtestFailed.FindStringSubmatch(line); g != nil {
			if !summary(g[1], line) {
				m.Set(g[1], failed)
			}
			continue
		}
		if g := gtestSkipped.FindStringSubmatch(line); g != nil && !summary(g[2], line) {
			m.Set(g[2], skipped)
		}
	}
	if m.Len() > 0 {
		return m, nil
	}
	if gtestSumTests.MatchString(log) {
		pass, fail := 0, 0
		if g := gtestSumPassed.FindStringSubmatch(log); g != nil {
			pass = pytext.Int(g[1])
		}
		if g := gtestSumFailure.FindStringSubmatch(log); g != nil {
			fail = pytext.Int(g[1])
		}
		synthetic(m, "test_passed_", 1, pass, passed)
		synthetic(m, "test_failed_", 1, fail, failed)
	}
	return m, nil
}

var (
	catch2XML       = pytext.Re(`(?s)<TestCase\s+name="([^"]+)"[^>]*>.*?<OverallResult\s+success="(true|false)"`)
	catch2Text      = pytext.Re(`(?mi)^([^.:\[\]]+?)\s*\.\.\.\s*(PASSED|FAILED)`)
	catch2Numbered  = pytext.Re(`^\d+:`)
	catch2Summary   = pytext.Re(`(?i)test cases:\s*(\d+)\s*\|\s*(\d+)\s*passed\s*\|\s*(\d+)\s*failed`)
	catch2AllPassed = pytext.Re(`(?i)All tests passed\s*\(.*?(\d+)\s+test cases?\)`)
)

// parseCatch2 reads Catch2's XML reporter (<TestCase name> … <OverallResult success>), else
// "name ... PASSED|FAILED" lines, else the "test cases: N | P passed | F failed" or "All tests
// passed (… N test cases)" summary as synthetic tests.
func parseCatch2(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, g := range catch2XML.FindAllStringSubmatch(log, -1) {
		if g[2] == "true" {
			m.Set(g[1], passed)
		} else {
			m.Set(g[1], failed)
		}
	}
	if m.Len() > 0 {
		return m, nil
	}
	for _, g := range catch2Text.FindAllStringSubmatch(log, -1) {
		name := pytext.Strip(g[1])
		if catch2Numbered.MatchString(name) || strings.ContainsAny(name, "[]") || name == "" {
			continue
		}
		if strings.ToUpper(g[2]) == "PASSED" {
			m.Set(name, passed)
		} else {
			m.Set(name, failed)
		}
	}
	if m.Len() > 0 {
		return m, nil
	}
	if g := catch2Summary.FindStringSubmatch(log); g != nil {
		synthetic(m, "test_passed_", 1, pytext.Int(g[2]), passed)
		synthetic(m, "test_failed_", 1, pytext.Int(g[3]), failed)
		return m, nil
	}
	if g := catch2AllPassed.FindStringSubmatch(log); g != nil {
		synthetic(m, "test_passed_", 1, pytext.Int(g[1]), passed)
	}
	return m, nil
}

var (
	boostError     = pytext.Re(`(?i)error(?:\s+in)?\s+"([^"]+)"`)
	boostEntering  = pytext.Re(`Entering test (?:case|suite) "([^"]+)"`)
	boostNoErrors  = pytext.Re(`\*\*\* No errors detected`)
	boostPassed    = pytext.Re(`(?i)(\d+)\s+test cases?\s+(?:out of \d+ )?passed`)
	boostFailures  = pytext.Re(`\*\*\* (\d+) failure(?:s)? detected`)
	boostNameOrder = func(set map[string]bool) []string {
		names := make([]string, 0, len(set))
		for n := range set {
			names = append(names, n)
		}
		sort.Strings(names) // the harness iterates a set: any order gives the same map
		return names
	}
)

// parseBoostTest reads Boost.Test: 'error in "name"' failures and the cases and suites it reports
// entering (passed unless they failed); with neither, "*** No errors detected" with its passed
// count (or one boost_test_suite) and "*** N failures detected" as synthetic tests.
func parseBoostTest(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	failedSet := map[string]bool{}
	for _, g := range boostError.FindAllStringSubmatch(log, -1) {
		failedSet[g[1]] = true
		m.Set(g[1], failed)
	}
	entered := map[string]bool{}
	for _, g := range boostEntering.FindAllStringSubmatch(log, -1) {
		entered[g[1]] = true
	}
	for _, n := range boostNameOrder(entered) {
		if !failedSet[n] {
			m.Set(n, passed)
		}
	}
	if m.Len() > 0 {
		return m, nil
	}
	if boostNoErrors.MatchString(log) {
		if g := boostPassed.FindStringSubmatch(log); g != nil {
			synthetic(m, "test_passed_", 1, pytext.Int(g[1]), passed)
		} else {
			m.Set("boost_test_suite", passed)
		}
		return m, nil
	}
	if g := boostFailures.FindStringSubmatch(log); g != nil {
		synthetic(m, "test_failed_", 1, pytext.Int(g[1]), failed)
	}
	return m, nil
}

var (
	airsimPassed  = pytext.Re(`\[\s+PASSED\s+\]\s+([\w.]+)`)
	airsimFailed  = pytext.Re(`\[\s+FAILED\s+\]\s+([\w.]+)`)
	airsimRunning = pytext.Re(`Running (\d+) test`)
)

// parseAirSim reads AirLib's googletest-like "[ PASSED ] name" and "[ FAILED ] name" (the
// summary's "[  PASSED  ] 1 test." counts as a test named "1"); with none, "Running N test"
// passes AirLibUnitTests.Main.
func parseAirSim(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, g := range airsimPassed.FindAllStringSubmatch(log, -1) {
		m.Set(g[1], passed)
	}
	for _, g := range airsimFailed.FindAllStringSubmatch(log, -1) {
		m.Set(g[1], failed)
	}
	if m.Len() == 0 && airsimRunning.MatchString(log) {
		m.Set("AirLibUnitTests.Main", passed)
	}
	return m, nil
}

var (
	cppunitOK       = pytext.Re(`OK \((\d+)\)`)
	cppunitFailures = pytext.Re(`(?s)FAILURES!!!.*?Tests run: (\d+),\s+Failures: (\d+)`)
)

// parseAria2 reads CppUnit's "OK (N)" or "FAILURES!!! … Tests run: N, Failures: F" summary as
// synthetic tests test_<i> and test_fail_<i>.
func parseAria2(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	if g := cppunitOK.FindStringSubmatch(log); g != nil {
		synthetic(m, "test_", 0, pytext.Int(g[1]), passed)
	}
	if g := cppunitFailures.FindStringSubmatch(log); g != nil {
		total, fail := pytext.Int(g[1]), pytext.Int(g[2])
		synthetic(m, "test_", 0, total-fail, passed)
		synthetic(m, "test_fail_", 0, fail, failed)
	}
	return m, nil
}

// parseDotnet reads `dotnet test`'s "Passed Name [1 ms]", "Failed …" and "Skipped …" lines,
// naming a test by its second word; such a line of one word is an error, as in the harness.
func parseDotnet(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		line = pytext.Strip(line)
		for _, p := range []struct{ prefix, status string }{{"Passed", passed}, {"Failed", failed}, {"Skipped", skipped}} {
			if !strings.HasPrefix(line, p.prefix) {
				continue
			}
			f := pytext.Fields(line)
			if len(f) < 2 {
				return nil, errIndex("dotnet", line)
			}
			m.Set(f[1], p.status)
			break
		}
	}
	return m, nil
}

var testdoxLines = []struct {
	re     *pyre.Regexp
	status string
}{
	{pytext.Re(`^\s*✔\s*(.+)$`), passed},
	{pytext.Re(`^\s*✘\s*(.+)$`), failed},
	{pytext.Re(`^\s*↩\s*(.+)$`), skipped},
}

// parsePHPUnitTestdox reads `phpunit --testdox` result lines "✔ name", "✘ name", "↩ name".
func parsePHPUnitTestdox(log string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range pytext.Lines(log) {
		for _, p := range testdoxLines {
			if g := p.re.FindStringSubmatch(line); g != nil {
				m.Set(pytext.Strip(g[1]), p.status)
				break
			}
		}
	}
	return m, nil
}
