package polybench

import (
	"strings"

	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

var (
	readFileTrace    = pytext.Re(`\+ read -r file\s*`)
	buildFailure     = pytext.Re(`(?i)build failure`)
	compilationError = pytext.Re(`(?i)compilation error`)
	testFailures     = pytext.Re(`(?i)there are test failures`)
	surefireSuite    = pytext.Re(`(?s)(<testsuite[^>]*>.*?</testsuite>)`)
)

// readFileTraceLimit is how many "+ read -r file" traces the harness removes: it passes re.DOTALL
// where re.sub takes its count, so only the first 16 go.
const readFileTraceLimit = 16

// parseJava (guava, gson, dubbo, apollo, rocketmq, trino) reads the Surefire XML reports the test
// command cats into the log: every "<testsuite …>…</testsuite>" block that is well-formed XML,
// testcases named "classname.name", failed with a <failure> or <error>, left out when skipped. A
// log that says "BUILD FAILURE" or "COMPILATION ERROR" without "There are test failures" has no
// tests (the build broke).
func parseJava(log string) *Results {
	log = replaceFirstN(readFileTrace, log, "", readFileTraceLimit)
	r := &Results{}
	broken := buildFailure.MatchString(log) || compilationError.MatchString(log)
	if broken && !testFailures.MatchString(log) {
		return r
	}
	for _, block := range surefireSuite.FindAllString(log, -1) {
		root, err := pytext.ParseXML(block)
		if err != nil {
			continue
		}
		for _, tc := range root.Iter("testcase") {
			name := tc.GetStr("name")
			if class, ok := tc.Get("classname"); ok {
				name = class + "." + name
			}
			switch {
			case tc.Has("failure") || tc.Has("error"):
				r.FailedTests = append(r.FailedTests, name)
			case tc.Has("skipped"):
			default:
				r.PassedTests = append(r.PassedTests, name)
			}
		}
	}
	return r
}

// replaceFirstN is Python's re.sub(pattern, repl, s, count=n).
func replaceFirstN(re *pyre.Regexp, s, repl string, n int) string {
	var b strings.Builder
	last := 0
	for _, loc := range re.FindAllStringIndex(s, n) {
		b.WriteString(s[last:loc[0]])
		b.WriteString(repl)
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

var (
	pytestStandard = pytext.Re(`([\w/]+\.py)::(?:([\w]+)::)?([\w_]+(?:\[[\w\-\d]+\])?)(?:\s<-\s[\w/]+\.py)?(?:[\s\S]*?)(PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)`)
	pytestReversed = pytext.Re(`(PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\s([\w/]+\.py)::(?:([\w]+)::)?([\w_]+(?:\[[\w\-\d]+\])?)(?:\s<-\s[\w/]+\.py)?`)
	unittestResult = pytext.Re(`(?:` +
		`(?:(\w+) \(([\w.]+)\)\n.*\n)?(\w+)(?: \(([\w.]+)\))?(?:\((.+?)\))? \.{3} (?:.*\n)*?(ok|FAIL|ERROR|skipped|expected failure|unexpected success)` +
		`|` +
		`(FAIL|ERROR|skipped|expected failure|unexpected success): (\w+)(?: \(([\w.]+)\))?(?:\((.+?)\))?` +
		`)`)
)

// parsePython (AutoGPT, transformers, langchain, yt-dlp, tensorflow/models, keras) reads pytest
// output when the log has pytest's session or summary banner, else unittest's verbose output.
// pytest tests are named "file:class:test" ("None" for a missing class) and unittest tests
// "class.path:test:parameters"; PASSED and ok are passes, FAILED and FAIL failures.
func parsePython(log string) *Results {
	r := &Results{}
	if strings.Contains(log, "= test session starts =") || strings.Contains(log, "= short test summary info =") {
		out := pytestSection(log)
		matches := pytestStandard.FindAllStringSubmatch(out, -1)
		order := [4]int{1, 2, 3, 4} // file, class, test, status
		if len(matches) == 0 {
			matches = pytestReversed.FindAllStringSubmatch(out, -1)
			order = [4]int{2, 3, 4, 1}
		}
		none := func(s string) string {
			if s == "" {
				return "None"
			}
			return s
		}
		for _, m := range matches {
			name := none(m[order[0]]) + ":" + none(m[order[1]]) + ":" + none(m[order[2]])
			switch m[order[3]] {
			case "PASSED":
				r.PassedTests = append(r.PassedTests, name)
			case "FAILED":
				r.FailedTests = append(r.FailedTests, name)
			}
		}
		return r
	}
	for _, m := range unittestResult.FindAllStringSubmatch(log, -1) {
		test, class := m[3], m[4]
		if m[1] != "" && m[2] != "" {
			test, class = m[1], m[2]
		}
		name := class + ":" + test + ":" + m[5]
		switch m[6] {
		case "ok":
			r.PassedTests = append(r.PassedTests, name)
		case "FAIL":
			r.FailedTests = append(r.FailedTests, name)
		}
	}
	return r
}

// pytestSection is the part of a pytest log the harness reads: from "collecting ..." or the
// session banner (whichever comes first) to the warnings or short summary banner (whichever comes
// first), stripped; the summary alone when the log has no session; nothing without either.
func pytestSection(out string) string {
	test := strings.Index(out, "===== test session starts =====")
	warnings := strings.Index(out, "===== warnings summary =====")
	summary := strings.Index(out, "===== short test summary info =====")
	collecting := strings.Index(out, "collecting ...")
	if test < 0 && collecting < 0 && summary >= 0 {
		if warnings > summary {
			return pytext.Strip(out[summary:warnings])
		}
		return pytext.Strip(out[summary:])
	}
	start := -1
	for _, i := range []int{collecting, test} {
		if i >= 0 && (start < 0 || i < start) {
			start = i
		}
	}
	if start < 0 {
		return ""
	}
	end := -1
	for _, i := range []int{warnings, summary} {
		if i >= 0 && (end < 0 || i < end) {
			end = i
		}
	}
	if end < 0 {
		return out[start:]
	}
	if end < start {
		return "" // Python's out[start:end] with end before start
	}
	return pytext.Strip(out[start:end])
}
