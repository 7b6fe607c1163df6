package multiswebench

import (
	"fmt"

	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// jestSuites reads Jest's default reporter with the suite (test file) as context:
//
//	PASS test/foo.test.js (5.2 s)
//	  Foo
//	    ✓ does a thing (3 ms)
//	    ✕ breaks (2 ms)
//
// Suites are tests of their own ("test/foo.test.js") and every test is "suite:title" (without the
// describe blocks). A test line before any suite line makes the log unreadable, as the harness
// raises on it.
type jestSuites struct {
	passSuite, failSuite, passTest, failTest *pyre.Regexp
}

func (j jestSuites) parse(log string, _ int) (*TestResult, error) {
	passed, failed := nameSet{}, nameSet{}
	suite, haveSuite := "", false
	for _, line := range pytext.SplitLines(log) {
		line = pytext.Strip(line)
		if line == "" {
			continue
		}
		if g := pyMatch(j.passSuite, line); g != nil {
			suite, haveSuite = g[1], true
			passed.add(suite)
		}
		if g := pyMatch(j.failSuite, line); g != nil {
			suite, haveSuite = g[1], true
			failed.add(suite)
		}
		if g := pyMatch(j.passTest, line); g != nil {
			if !haveSuite {
				return nil, fmt.Errorf("Test passed without suite: %s", line)
			}
			passed.add(suite + ":" + g[1])
		}
		if g := pyMatch(j.failTest, line); g != nil {
			if !haveSuite {
				return nil, fmt.Errorf("Test failed without suite: %s", line)
			}
			failed.add(suite + ":" + g[1])
		}
	}
	return newTestResult(passed, failed, nameSet{})
}

var (
	// anuraghazra/github-readme-stats and iamkun/dayjs: an optional "(12 ms)" after the name.
	jest = jestSuites{
		passSuite: pytext.Re(`^PASS (.+?)(?:\s\(\d*\.?\d+\s*\w+\))?$`),
		passTest:  pytext.Re(`^✓ (.+?)(?:\s\(\d*\.?\d+\s*\w+\))?$`),
		failSuite: pytext.Re(`^FAIL (.+?)(?:\s\(\d*\.?\d+\s*\w+\))?$`),
		failTest:  pytext.Re(`^✕ (.+?)(?:\s\(\d*\.?\d+\s*\w+\))?$`),
	}

	// darkreader/darkreader: a suite is one word, and anything in parentheses after a name is
	// dropped.
	jestDarkreader = jestSuites{
		passSuite: pytext.Re(`^PASS (\S+)(\s*\(.+\))?$`),
		passTest:  pytext.Re(`^✓ (.+?)(\s+\(.+\))?$`),
		failSuite: pytext.Re(`^FAIL (\S+)(\s*\(.+\))?$`),
		failTest:  pytext.Re(`^✕ (.+?)(\s+\(.+\))?$`),
	}
)
