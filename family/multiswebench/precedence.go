package multiswebench

import (
	"strings"

	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// precedenceRules is the parse_log of Gradle and go test logs, where a test reported more than
// once keeps the status the harness's rules give it: a failure always wins over a pass, and what
// happens to skips depends on the policy. Each line (Python's splitlines, stripped if strip) is
// tried against the pass patterns, then the failure patterns, then the skip patterns.
type precedenceRules struct {
	strip            bool
	pass, fail, skip []*pyre.Regexp
	policy           precedence
	// name maps a matched name to the name recorded (go test's parent test); the rules look the
	// matched name up, not the recorded one, as the harness does.
	name func(string) string
}

type precedence int

const (
	// skipsKept (elastic/logstash, mockito): a pass is recorded unless the test already failed;
	// a failure removes the pass; a skip is always recorded (so a test both passed and skipped
	// makes the log unreadable).
	skipsKept precedence = iota
	// skipsOfFailures (googlecontainertools/jib, go test): a pass is recorded unless the test
	// already failed, and clears a skip; a failure clears pass and skip; a skip is recorded only
	// for a test that failed and did not pass, which puts it in two sets and makes the log
	// unreadable, so in practice skips are never recorded.
	skipsOfFailures
)

func (p precedenceRules) parse(log string, _ int) (*TestResult, error) {
	passed, failed, skipped := nameSet{}, nameSet{}, nameSet{}
	rec := func(n string) string {
		if p.name != nil {
			return p.name(n)
		}
		return n
	}
	for _, line := range pytext.SplitLines(log) {
		if p.strip {
			line = pytext.Strip(line)
		}
		for _, re := range p.pass {
			if g := pyMatch(re, line); g != nil {
				n := g[1]
				switch {
				case failed.has(n):
				case p.policy == skipsKept:
					passed.add(rec(n))
				default:
					skipped.remove(n)
					passed.add(rec(n))
				}
			}
		}
		for _, re := range p.fail {
			if g := pyMatch(re, line); g != nil {
				n := g[1]
				passed.remove(n)
				if p.policy == skipsOfFailures {
					skipped.remove(n)
				}
				failed.add(rec(n))
			}
		}
		for _, re := range p.skip {
			if g := pyMatch(re, line); g != nil {
				n := g[1]
				switch {
				case p.policy == skipsKept:
					skipped.add(rec(n))
				case passed.has(n) || !failed.has(n):
				default:
					skipped.add(rec(n))
				}
			}
		}
	}
	return newTestResult(passed, failed, skipped)
}

var (
	// Gradle's console: tasks ("> Task :module:test", "... UP-TO-DATE", "... FAILED", "...
	// SKIPPED", "... NO-SOURCE") and test events ("Class > method PASSED").
	gradle = precedenceRules{
		pass: res(`^> Task :(\S+)$`, `^> Task :(\S+) UP-TO-DATE$`, `^(.+ > .+) PASSED$`),
		fail: res(`^> Task :(\S+) FAILED$`, `^(.+ > .+) FAILED$`),
		skip: res(`^> Task :(\S+) SKIPPED$`, `^> Task :(\S+) NO-SOURCE$`, `^(.+ > .+) SKIPPED$`),
	}

	// jib's Gradle reading: stripped lines, FROM-CACHE tasks pass, skips only of failures.
	gradleJib = precedenceRules{
		strip:  true,
		pass:   res(`^> Task :(\S+)$`, `^> Task :(\S+) UP-TO-DATE$`, `^> Task :(\S+) FROM-CACHE$`, `^(.+ > .+) PASSED$`),
		fail:   res(`^> Task :(\S+) FAILED$`, `^(.+ > .+) FAILED$`),
		skip:   res(`^> Task :(\S+) SKIPPED$`, `^> Task :(\S+) NO-SOURCE$`, `^(.+ > .+) SKIPPED$`),
		policy: skipsOfFailures,
	}

	// go test -v: "--- PASS: TestName (0.00s)", "--- FAIL: ...", "--- SKIP: ..."; a line starting
	// with "FAIL" ("FAIL\tpackage\t0.1s") fails the word after it.
	goTest = precedenceRules{
		strip:  true,
		pass:   res(`--- PASS: (\S+)`),
		fail:   res(`--- FAIL: (\S+)`, `FAIL:?\s?(.+?)\s`),
		skip:   res(`--- SKIP: (\S+)`),
		policy: skipsOfFailures,
	}

	// go test as grpc/grpc-go and zeromicro/go-zero read it: a subtest "TestA/sub" is recorded
	// as its parent "TestA" (and a failed package "a/b/c" as "a/b").
	goTestParents = func() precedenceRules {
		p := goTest
		p.name = func(n string) string {
			if i := strings.LastIndex(n, "/"); i >= 0 {
				return n[:i]
			}
			return n
		}
		return p
	}()
)
