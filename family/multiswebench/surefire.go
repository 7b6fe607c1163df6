package multiswebench

import (
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Maven Surefire prints one line per test class:
//
//	[INFO] Tests run: 5, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.12 s -- in com.x.FooTest
//	[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! -- in com.x.BarTest
//
// (Surefire 2 writes "sec - in"). The Multi-SWE-bench Maven repositories grade test classes.

// classVerdict is the harness's reading of a class's counts: passed when some test ran and none
// failed or erred and not all were skipped; failed when any failed or erred; skipped when all were
// skipped (which includes "Tests run: 0").
func classVerdict(run, failures, errs, skipped *big.Int) (passed, failed, skip bool) {
	zero := new(big.Int)
	switch {
	case run.Cmp(zero) > 0 && failures.Cmp(zero) == 0 && errs.Cmp(zero) == 0 && skipped.Cmp(run) != 0:
		return true, false, false
	case failures.Cmp(zero) > 0 || errs.Cmp(zero) > 0:
		return false, true, false
	case skipped.Cmp(run) == 0:
		return false, false, true
	}
	return false, false, false
}

// surefireSummary reads the per-class summary lines anywhere in a line (alibaba/fastjson2,
// apache/dubbo, the fasterxml repositories). With stripANSI the log's colour codes are removed
// first; without, a coloured class name keeps its codes.
type surefireSummary struct {
	stripANSI bool
}

var (
	surefireLine = pytext.Re(`Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+), Time elapsed: [\d.]+ .+? in (.+)`)
	mavenANSI    = pytext.Re(`\x1B\[[0-?9;]*[mK]`)
)

func (s surefireSummary) parse(log string, _ int) (*TestResult, error) {
	if s.stripANSI {
		log = mavenANSI.ReplaceAllString(log, "")
	}
	passed, failed, skipped := nameSet{}, nameSet{}, nameSet{}
	for _, line := range pytext.SplitLines(log) {
		g := surefireLine.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		p, f, sk := classVerdict(pyInt(g[1]), pyInt(g[2]), pyInt(g[3]), pyInt(g[4]))
		switch {
		case p:
			passed.add(g[5])
		case f:
			failed.add(g[5])
		case sk:
			skipped.add(g[5])
		}
	}
	return newTestResult(passed, failed, skipped)
}

// surefireBlocks is google/gson's reading of Surefire 2's output, where a class's summary follows
// its "Running com.x.FooTest" line, possibly after lines of test output:
//
//	Running com.google.gson.FooTest
//	Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.01 sec
//
// The harness finds these blocks with one regular expression over the whole log (with a negative
// lookahead that Go's regexp lacks, so the search is written out here) and, passing re.MULTILINE
// where findall takes a start position, searches from character 8 on. A second expression fails
// the classes whose summary, right under "Running", ends in "<<< FAILURE!".
type surefireBlocks struct{}

var surefireBlockFailure = pytext.Re(`Running (.+?)\nTests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+), Time elapsed: [\d\.]+ sec +<<< FAILURE!`)

// findallStart is the position Python's findall(log, re.MULTILINE) starts at (re.MULTILINE is 8).
const findallStart = 8

func (surefireBlocks) parse(log string, _ int) (*TestResult, error) {
	passed, failed, skipped := nameSet{}, nameSet{}, nameSet{}
	from := pyRuneOffset(log, findallStart)
	for _, m := range findRunningBlocks(log, from) {
		p, f, sk := classVerdict(pyInt(m.run), pyInt(m.failures), pyInt(m.errs), pyInt(m.skipped))
		switch {
		case p:
			passed.add(m.class)
		case f:
			failed.add(m.class)
		case sk:
			skipped.add(m.class)
		}
	}
	for _, g := range surefireBlockFailure.FindAllStringSubmatch(log[from:], -1) {
		failed.add(g[1])
	}
	return newTestResult(passed, failed, skipped)
}

type runningBlock struct {
	class, run, failures, errs, skipped string
}

// pySpaceAt reports whether the rune at s[i:] is Python's \s, and its size.
func pySpaceAt(s string, i int) (bool, int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	return pytext.IsSpace(r), size
}

// findRunningBlocks is Python's findall of
//
//	Running\s+(.+?)\s*\n(?:(?!Tests run:).*\n)*Tests run:\s*(\d+),\s*Failures:\s*(\d+),\s*Errors:\s*(\d+),\s*Skipped:\s*(\d+),\s*Time elapsed:\s*[\d.]+\s*sec
//
// on s from byte from, with the backtracking Python does. Once the class name's line ends, the
// lines skipped by the repeated group run to the first line that starts with "Tests run:" (or to
// the last line without a newline), and only there can the summary match: the rest of the
// expression has no choices left. So each candidate start tries the choices Python tries for the
// name (shortest first, after the longest run of whitespace first) and checks that one line.
func findRunningBlocks(s string, from int) []runningBlock {
	var out []runningBlock
	// summaryAt[i] caches the summary match at line start i.
	type summary struct {
		ok  bool
		end int
		g   []string
	}
	cache := map[int]summary{}
	summaryAt := func(i int) summary {
		if v, ok := cache[i]; ok {
			return v
		}
		var v summary
		if loc := surefireSummaryTail.FindStringSubmatchIndex(s[i:]); loc != nil {
			v = summary{ok: true, end: i + loc[1], g: []string{s[i+loc[2] : i+loc[3]], s[i+loc[4] : i+loc[5]], s[i+loc[6] : i+loc[7]], s[i+loc[8] : i+loc[9]]}}
		}
		cache[i] = v
		return v
	}
	// loopEnd is where (?:(?!Tests run:).*\n)* stops when it starts at line start r.
	loopEnd := func(r int) int {
		for {
			if strings.HasPrefix(s[r:], "Tests run:") {
				return r
			}
			nl := strings.IndexByte(s[r:], '\n')
			if nl < 0 {
				return r
			}
			r += nl + 1
		}
	}
	// tryName tries the class name starting at n, returning the match (class, summary) if any.
	tryName := func(n int) (string, summary, bool) {
		if n >= len(s) || s[n] == '\n' {
			return "", summary{}, false
		}
		lineEnd := len(s)
		if i := strings.IndexByte(s[n:], '\n'); i >= 0 {
			lineEnd = n + i
		}
		// (.+?) ends at e, the first position after n from which \s* reaches a newline; every
		// later e reaches the same newlines, so if the first fails they all do.
		_, size := utf8.DecodeRuneInString(s[n:])
		for e := n + size; e <= lineEnd; {
			ws := e
			for ws < len(s) {
				sp, sz := pySpaceAt(s, ws)
				if !sp {
					break
				}
				ws += sz
			}
			// \s* then \n: the newlines inside [e, ws), last first.
			for q := ws - 1; q >= e; q-- {
				if s[q] != '\n' {
					continue
				}
				if v := summaryAt(loopEnd(q + 1)); v.ok {
					return s[n:e], v, true
				}
			}
			if e == lineEnd {
				break
			}
			_, sz := utf8.DecodeRuneInString(s[e:])
			e += sz
		}
		return "", summary{}, false
	}
	pos := from
	for {
		i := strings.Index(s[pos:], "Running")
		if i < 0 {
			return out
		}
		start := pos + i
		// \s+ after "Running": longest first, giving back one character at a time.
		var wsEnds []int
		for w := start + len("Running"); w < len(s); {
			sp, sz := pySpaceAt(s, w)
			if !sp {
				break
			}
			w += sz
			wsEnds = append(wsEnds, w)
		}
		matched := false
		for k := len(wsEnds) - 1; k >= 0 && !matched; k-- {
			if class, v, ok := tryName(wsEnds[k]); ok {
				out = append(out, runningBlock{class: class, run: v.g[0], failures: v.g[1], errs: v.g[2], skipped: v.g[3]})
				pos = v.end
				matched = true
			}
		}
		if !matched {
			pos = start + 1
		}
	}
}

// surefireSummaryTail is the end of gson's expression, from "Tests run:" on, anchored; it has no
// choices, so Go's match is Python's.
var surefireSummaryTail = pytext.Re(`\ATests run:\s*(\d+),\s*Failures:\s*(\d+),\s*Errors:\s*(\d+),\s*Skipped:\s*(\d+),\s*Time elapsed:\s*[\d.]+\s*sec`)

// surefireAdjacent is google/guava's reading of Surefire 2's output (the seal-research fork's
// multi_swe_bench/harness/repos/java/google/guava.py; the upstream harness has no guava): a
// class's summary must be the line right under its "Running com.x.FooTest" line,
//
//	Running com.google.common.base.FooTest
//	Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.01 sec
//
// a class with output between the two is not read. Like gson's, the parser passes re.MULTILINE
// where findall takes a start position, so both expressions search from character 8 on; the
// second fails the classes whose summary ends in "<<< FAILURE!".
type surefireAdjacent struct{}

var surefireAdjacentBlock = pytext.Re(`Running (.+?)\nTests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+), Time elapsed: [\d\.]+ sec`)

func (surefireAdjacent) parse(log string, _ int) (*TestResult, error) {
	passed, failed, skipped := nameSet{}, nameSet{}, nameSet{}
	from := pyRuneOffset(log, findallStart)
	// Go's leftmost-first match is Python's here: (.+?) cannot leave its line, so the only
	// choice is where the line ends.
	for _, g := range surefireAdjacentBlock.FindAllStringSubmatch(log[from:], -1) {
		p, f, sk := classVerdict(pyInt(g[2]), pyInt(g[3]), pyInt(g[4]), pyInt(g[5]))
		switch {
		case p:
			passed.add(g[1])
		case f:
			failed.add(g[1])
		case sk:
			skipped.add(g[1])
		}
	}
	for _, g := range surefireBlockFailure.FindAllStringSubmatch(log[from:], -1) {
		failed.add(g[1])
	}
	return newTestResult(passed, failed, skipped)
}
