package multiswebench

import (
	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// lineRules is the parse_log most repositories share: every line of the log (Python's
// splitlines), stripped (and lowered, for some), is tried against each pattern with Python's
// re.match; the first group of a match joins the passed, failed or skipped set. Nothing is ever
// removed, so a name that lands in two sets (a test reported passed in one place and failed in
// another) makes the log unreadable, as it does in the harness.
type lineRules struct {
	lower            bool // lower-case each line first
	pass, fail, skip []*pyre.Regexp
}

func (l lineRules) parse(log string, _ int) (*TestResult, error) {
	passed, failed, skipped := nameSet{}, nameSet{}, nameSet{}
	for _, line := range pytext.SplitLines(log) {
		line = pytext.Strip(line)
		if l.lower {
			line = pyLower(line)
		}
		for _, r := range []struct {
			res []*pyre.Regexp
			set nameSet
		}{{l.pass, passed}, {l.fail, failed}, {l.skip, skipped}} {
			for _, re := range r.res {
				if g := pyMatch(re, line); g != nil {
					r.set.add(g[1])
				}
			}
		}
	}
	return newTestResult(passed, failed, skipped)
}

func res(patterns ...string) []*pyre.Regexp {
	out := make([]*pyre.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = pytext.Re(p)
	}
	return out
}

func resI(patterns ...string) []*pyre.Regexp {
	out := make([]*pyre.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = pyReI(p)
	}
	return out
}

// The tools whose output lineRules reads, with the patterns of the repositories that use them.
var (
	// cargo test: "test path::to::name ... ok" ("..." is any three characters: the harness does
	// not escape the dots).
	cargoTest = lineRules{
		pass: res(`test (\S+) ... ok`),
		fail: res(`test (\S+) ... FAILED`),
		skip: res(`test (\S+) ... ignored`),
	}

	// automake's test driver: "PASS: name", "FAIL: name", "SKIP: name" alone on a line.
	automake = lineRules{
		pass: res(`^PASS: (\S+)$`),
		fail: res(`^FAIL: (\S+)$`),
		skip: res(`^SKIP: (\S+)$`),
	}

	// googletest's "[       OK ] Suite.Name (3 ms)" and "[  FAILED  ] Suite.Name", plain or
	// coloured, and ponyc's own "---- Passed: name" / "**** FAILED: name" in colour.
	googletest = lineRules{
		pass: res(
			`^\[       OK \] (\S+?)( \(.+\))?$`,
			`^\x1b\[0;32m\[       OK \] \x1b\[0m(\S+?)( \(.+\))?$`,
			`^\x1b\[92m---- Passed: (\S+?)\x1b\[0m$`,
		),
		fail: res(
			`^\[  FAILED  \] (\S+?)( \(.+\))?$`,
			`^\x1b\[0;31m\[  FAILED  \] \x1b\[0m(\S+?)( \(.+\))?$`,
			`^\x1b\[91m\*\*\*\* FAILED: (\S+?)\x1b\[0m$`,
		),
	}

	// CTest's "1/9 Test #1: name ....   Passed    0.01 sec". The failure pattern wants the line to
	// end right after "Failed", which CTest never prints (it adds the time): failing tests are
	// simply not reported, as in the harness.
	ctest = lineRules{
		pass: res(`^\d+/\d+\s*Test\s*#\d+:\s*(.*?)\s*\.+\s*Passed`),
		fail: res(`^\d+/\d+\s*Test\s*#\d+:\s*(.*?)\s*\.+\s*\*+Failed$`),
	}

	// Catch2's build: CTest lines and CMake's "-- Performing Test NAME - Success" checks, read
	// from the lower-cased line (so names are lower case).
	ctestCatch2 = lineRules{
		lower: true,
		pass: resI(
			`^-- Performing Test (.+) - Success$`,
			`^\d+/\d+ Test\s+#\d+: (.+) \.+\s+ Passed\s+.+$`,
		),
		fail: resI(
			`^-- Performing Test (.+) - Failed$`,
			`^\d+/\d+ Test\s+#\d+: (.+) \.+\*\*\*Failed\s+.+$`,
		),
		skip: resI(`^-- Performing Test (.+) - skipped$`),
	}

	// Vitest's "✓ name 12ms" and "× name 3ms" (the file lines "✓ file (5 tests) 40ms" too).
	vitest = lineRules{
		pass: res(`^✓ (.+?)(?:\s*\d*\.?\d+\s*(?:ms|s|m))?$`),
		fail: res(`^× (.+?)(?:\s*\d*\.?\d+\s*(?:ms|s|m))?$`),
	}

	// Mocha's spec reporter: "✔ name (12ms)" passes, "1) name" failures (in the run and again in
	// the failure summary, where the numbered line is the suite's title).
	mochaSpec = lineRules{
		pass: res(`^✔ (.+?)(?:\s\(\d*\.?\d*\s*\w+\))?$`),
		fail: res(`^\d+\) (.+?)(?:\s\(\d*\.?\d*\s*\w+\))?$`),
	}

	// Jest as Kong/insomnia reads it: "PASS file (1.2 s)" and "FAIL file" as tests, and every
	// "✓ name (3 ms)" (failed tests, "✕", are not read).
	jestInsomnia = lineRules{
		pass: res(
			`^✓ (.+?)(?:\s\(\d+\s+tests\))?(?:\s*\(?\d*\.?\d+\s*\w+\)?)?$`,
			`^PASS (.+?)(?:\s\(\d*\.?\d+\s*\w+\))?$`,
		),
		fail: res(`^FAIL (.+?)(?:\s\(\d*\.?\d+\s*\w+\))?$`),
	}
)
