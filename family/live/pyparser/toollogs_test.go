package pyparser

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"
)

// Test logs in the formats the test tools of SWE-bench-Live's MultiLang instances print, written
// for these tests from the tools' documented output formats (go test -json's test2json events,
// cargo/libtest's console output, ctest -V with GoogleTest, meson test, Maven Surefire's
// TEST-*.xml reports, the TRX files of dotnet test, the JSON reports of jest and vitest, npm's
// script banners, PowerShell's ConvertTo-Json). Each generator renders the given tests with
// their statuses ("pass", "fail" or "skip", as test_status records them); names are split into
// the parts the tool prints (package and test, suite and case, class and method) the way the
// instance's own test run printed them.

type entry struct{ name, status string }

// goTestJSON renders `go test -json` output (test2json events, one JSON object per line) for
// tests named "<package>/<Test…>" (subtests after a further "/"), packages without tests named
// by their import path alone, and — when pkg is given — bare test names in package pkg.
func goTestJSON(pkg string) func([]entry) string {
	return func(es []entry) string {
		var b strings.Builder
		emit := func(ev map[string]any) {
			ev["Time"] = "2026-04-11T13:50:01.123456Z"
			line, _ := json.Marshal(ev)
			b.Write(line)
			b.WriteByte('\n')
		}
		type pkgTests struct {
			name  string
			tests []entry
		}
		var order []*pkgTests
		byPkg := map[string]*pkgTests{}
		for _, e := range es {
			p, test := pkg, e.name
			if pkg == "" {
				i := strings.Index(e.name, "/Test")
				if i < 0 { // a package with no test files
					p, test = e.name, ""
				} else {
					p, test = e.name[:i], e.name[i+1:]
				}
			}
			if byPkg[p] == nil {
				byPkg[p] = &pkgTests{name: p}
				order = append(order, byPkg[p])
			}
			if test != "" {
				byPkg[p].tests = append(byPkg[p].tests, entry{test, e.status})
			}
		}
		word := map[string]string{"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}
		for _, p := range order {
			emit(map[string]any{"Action": "start", "Package": p.name})
			if len(p.tests) == 0 {
				emit(map[string]any{"Action": "output", "Package": p.name, "Output": "?   \t" + p.name + "\t[no test files]\n"})
				emit(map[string]any{"Action": "skip", "Package": p.name, "Elapsed": 0})
				continue
			}
			failed := false
			for _, t := range p.tests {
				indent := strings.Repeat("    ", strings.Count(t.name, "/"))
				emit(map[string]any{"Action": "run", "Package": p.name, "Test": t.name})
				emit(map[string]any{"Action": "output", "Package": p.name, "Test": t.name, "Output": "=== RUN   " + t.name + "\n"})
				if t.status == "fail" {
					failed = true
					emit(map[string]any{"Action": "output", "Package": p.name, "Test": t.name, "Output": indent + "    main_test.go:42: got 1, want 2\n"})
				}
				emit(map[string]any{"Action": "output", "Package": p.name, "Test": t.name, "Output": indent + "--- " + word[t.status] + ": " + t.name + " (0.01s)\n"})
				emit(map[string]any{"Action": t.status, "Package": p.name, "Test": t.name, "Elapsed": 0.01})
			}
			if failed {
				emit(map[string]any{"Action": "output", "Package": p.name, "Output": "FAIL\n"})
				emit(map[string]any{"Action": "output", "Package": p.name, "Output": "FAIL\t" + p.name + "\t0.123s\n"})
				emit(map[string]any{"Action": "fail", "Package": p.name, "Elapsed": 0.123})
			} else {
				emit(map[string]any{"Action": "output", "Package": p.name, "Output": "PASS\n"})
				emit(map[string]any{"Action": "output", "Package": p.name, "Output": "ok  \t" + p.name + "\t0.123s\n"})
				emit(map[string]any{"Action": "pass", "Package": p.name, "Elapsed": 0.123})
			}
		}
		return b.String()
	}
}

// cargoTest renders `cargo test` console output for tests named "<suite>::<test path>": one
// test binary per suite, announced as cargo announces it — `Running \`<path>/deps/<suite>-<hash>
// …\“ with --verbose, else `Running unittests src/lib.rs (<suite>)` where the suite is the
// binary's path.
func cargoTest(verbose bool) func([]entry) string {
	return func(es []entry) string {
		var b strings.Builder
		b.WriteString("   Compiling demo v0.1.0 (/testbed)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 41.27s\n")
		var suites []string
		bySuite := map[string][]entry{}
		for _, e := range es {
			suite, test, _ := strings.Cut(e.name, "::")
			if _, ok := bySuite[suite]; !ok {
				suites = append(suites, suite)
			}
			bySuite[suite] = append(bySuite[suite], entry{test, e.status})
		}
		word := map[string]string{"pass": "ok", "fail": "FAILED", "skip": "ignored"}
		for _, s := range suites {
			if verbose {
				fmt.Fprintf(&b, "     Running `/testbed/target/debug/deps/%s-5d3c9a1b7e2f4086 --test-threads=1`\n", s)
			} else {
				fmt.Fprintf(&b, "     Running unittests src/lib.rs (%s)\n", s)
			}
			tests := bySuite[s]
			fmt.Fprintf(&b, "\nrunning %d tests\n", len(tests))
			var failed []string
			counts := map[string]int{}
			for _, t := range tests {
				fmt.Fprintf(&b, "test %s ... %s\n", t.name, word[t.status])
				counts[t.status]++
				if t.status == "fail" {
					failed = append(failed, t.name)
				}
			}
			result := "ok"
			if len(failed) > 0 {
				b.WriteString("\nfailures:\n\n")
				for _, f := range failed {
					fmt.Fprintf(&b, "---- %s stdout ----\n\nthread '%s' panicked at src/lib.rs:10:5:\nassertion `left == right` failed\n  left: 1\n right: 2\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n", f, f)
				}
				b.WriteString("\nfailures:\n")
				for _, f := range failed {
					fmt.Fprintf(&b, "    %s\n", f)
				}
				result = "FAILED"
			}
			fmt.Fprintf(&b, "\ntest result: %s. %d passed; %d failed; %d ignored; 0 measured; 0 filtered out; finished in 0.04s\n\n", result, counts["pass"], counts["fail"], counts["skip"])
		}
		return b.String()
	}
}

// ctestGoogleTest renders `ctest --test-dir build -V` output of GoogleTest executables, one
// ctest test per test suite: cases named "<Suite>.<Case>", ctest tests named "<Suite>".
func ctestGoogleTest(es []entry) string {
	var b strings.Builder
	b.WriteString("UpdateCTestConfiguration  from :/testbed/build/DartConfiguration.tcl\nTest project /testbed/build\n")
	var suites []string
	cases := map[string][]entry{}
	status := map[string]string{}
	for _, e := range es {
		suite, c, found := strings.Cut(e.name, ".")
		if _, seen := status[suite]; !seen {
			suites = append(suites, suite)
			status[suite] = "pass"
		}
		if !found { // the ctest test itself
			status[suite] = e.status
			continue
		}
		cases[suite] = append(cases[suite], entry{c, e.status})
		if e.status == "fail" {
			status[suite] = "fail"
		}
	}
	for i, s := range suites {
		n := i + 1
		fmt.Fprintf(&b, "    Start %d: %s\n\n%d: Test command: /testbed/build/test/%s\n%d: Working Directory: /testbed/build/test\n%d: Test timeout computed to be: 1500\n", n, s, n, s, n, n)
		fmt.Fprintf(&b, "%d: Running main() from gtest_main.cc\n%d: [==========] Running %d tests from 1 test suite.\n%d: [----------] %d tests from %s\n", n, n, len(cases[s]), n, len(cases[s]), s)
		for _, c := range cases[s] {
			fmt.Fprintf(&b, "%d: [ RUN      ] %s.%s\n", n, s, c.name)
			switch c.status {
			case "pass":
				fmt.Fprintf(&b, "%d: [       OK ] %s.%s (0 ms)\n", n, s, c.name)
			case "skip":
				fmt.Fprintf(&b, "%d: [  SKIPPED ] %s.%s (0 ms)\n", n, s, c.name)
			default:
				fmt.Fprintf(&b, "%d: /testbed/test/%s.cpp:31: Failure\n%d: Expected equality of these values:\n%d: [  FAILED  ] %s.%s (1 ms)\n", n, s, n, n, s, c.name)
			}
		}
		fmt.Fprintf(&b, "%d: [----------] %d tests from %s (0 ms total)\n%d: [==========] %d tests from 1 test suite ran. (0 ms total)\n", n, len(cases[s]), s, n, len(cases[s]))
		word := map[string]string{"pass": "  Passed", "skip": "***Skipped", "fail": "***Failed"}[status[s]]
		dots := strings.Repeat(".", max(3, 40-len(s)))
		fmt.Fprintf(&b, "%d/%d Test #%d: %s %s %s    0.02 sec\n", n, len(suites), n, s, dots, word)
	}
	b.WriteString("\n100% tests passed, 0 tests failed out of 1\n\nTotal Test time (real) =   0.05 sec\n")
	return b.String()
}

// mesonTest renders `meson test` output: one summary line per test ("N/T name  OK  0.12s");
// with verbose, the ▶-prefixed lines meson prints for the subtests of TAP tests, and a RUNNING
// line before a failing test.
func mesonTest(verbose bool) func([]entry) string {
	return func(es []entry) string {
		var b strings.Builder
		b.WriteString("ninja: Entering directory `/testbed/_build'\nninja: no work to do.\n")
		word := map[string]string{"pass": "OK", "fail": "FAIL", "skip": "SKIP"}
		total := len(es)
		for i, e := range es {
			n := i + 1
			pad := strings.Repeat(" ", max(1, 44-len(e.name)))
			switch {
			case verbose && e.status == "fail":
				fmt.Fprintf(&b, "▶ %d/%d %s%sRUNNING\n>>> MALLOC_PERTURB_=92 /testbed/_build/tests/%s\n", n, total, e.name, pad, e.name)
				fmt.Fprintf(&b, "――――――――――――――――――――――――――――――――――――― ✀  ―――――――――――――――――――――――――――――――――――――\nnot ok 1 /%s/basic\n", e.name)
				fmt.Fprintf(&b, " %d/%d %s%sFAIL            0.51s   exit status 1\n", n, total, e.name, pad)
			case verbose:
				fmt.Fprintf(&b, "▶ %d/%d %s%s%s\n", n, total, e.name, pad, word[e.status])
			default:
				fmt.Fprintf(&b, " %d/%d %s%s%-16s0.12s", n, total, e.name, pad, word[e.status])
				if e.status == "skip" {
					b.WriteString("   exit status 77")
				}
				b.WriteByte('\n')
			}
		}
		b.WriteString("\nOk:                 1\nExpected Fail:      0\nFail:               0\nUnexpected Pass:    0\nSkipped:            0\nTimeout:            0\n\nFull log written to /testbed/_build/meson-logs/testlog.txt\n")
		return b.String()
	}
}

// surefireXML renders Maven Surefire TEST-*.xml reports (one per class, as `cat
// target/surefire-reports/TEST-*.xml` prints them) for tests named "<class><sep><method>".
func surefireXML(sep string) func([]entry) string {
	return func(es []entry) string {
		var b strings.Builder
		var classes []string
		byClass := map[string][]entry{}
		for _, e := range es {
			cls, method := splitJavaName(e.name, sep)
			if _, ok := byClass[cls]; !ok {
				classes = append(classes, cls)
			}
			byClass[cls] = append(byClass[cls], entry{method, e.status})
		}
		for _, cls := range classes {
			tests := byClass[cls]
			var fails, skips int
			for _, t := range tests {
				fails += b2i(t.status == "fail")
				skips += b2i(t.status == "skip")
			}
			fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:noNamespaceSchemaLocation=\"https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report.xsd\" version=\"3.0.2\" name=\"%s\" time=\"0.412\" tests=\"%d\" errors=\"0\" skipped=\"%d\" failures=\"%d\">\n", cls, len(tests), skips, fails)
			b.WriteString("  <properties>\n    <property name=\"java.version\" value=\"17.0.12\"/>\n  </properties>\n")
			for _, t := range tests {
				fmt.Fprintf(&b, "  <testcase name=\"%s\" classname=\"%s\" time=\"0.003\"", html.EscapeString(t.name), cls)
				switch t.status {
				case "pass":
					b.WriteString("/>\n")
				case "skip":
					b.WriteString(">\n    <skipped message=\"disabled\"/>\n  </testcase>\n")
				default:
					b.WriteString(">\n    <failure message=\"expected: &lt;1&gt; but was: &lt;2&gt;\" type=\"org.opentest4j.AssertionFailedError\"><![CDATA[org.opentest4j.AssertionFailedError: expected: <1> but was: <2>\n\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:151)\n]]></failure>\n  </testcase>\n")
				}
			}
			b.WriteString("</testsuite>")
		}
		return b.String()
	}
}

// splitJavaName splits "<class><sep><method>": at sep when it is "::", else at the last dot
// before the method's parameter list ("pkg.Class.method(int)[2]").
func splitJavaName(name, sep string) (string, string) {
	if sep == "::" {
		cls, method, _ := strings.Cut(name, "::")
		return cls, method
	}
	head := name
	if i := strings.IndexByte(name, '('); i >= 0 {
		head = name[:i]
	}
	i := strings.LastIndexByte(head, '.')
	return name[:i], name[i+1:]
}

// trx renders the TRX report `dotnet test --logger trx` writes, with tests named as the TRX
// testName attribute names them.
func trx(es []entry) string {
	var b strings.Builder
	b.WriteString("\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<TestRun id=\"7b2a3c4d-0000-4000-8000-000000000001\" name=\"root@testbed 2026-04-11 13:50:01\" runUser=\"root\" xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\">\n")
	b.WriteString("  <Times creation=\"2026-04-11T13:50:01.1+00:00\" queuing=\"2026-04-11T13:50:01.1+00:00\" start=\"2026-04-11T13:49:58.2+00:00\" finish=\"2026-04-11T13:50:01.1+00:00\" />\n  <Results>\n")
	outcome := map[string]string{"pass": "Passed", "fail": "Failed", "skip": "NotExecuted"}
	for i, e := range es {
		fmt.Fprintf(&b, "    <UnitTestResult executionId=\"00000000-0000-4000-8000-%012d\" testId=\"10000000-0000-4000-8000-%012d\" testName=\"%s\" computerName=\"testbed\" duration=\"00:00:00.0100000\" startTime=\"2026-04-11T13:50:00.1+00:00\" endTime=\"2026-04-11T13:50:00.2+00:00\" testType=\"13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b\" outcome=\"%s\" testListId=\"8c84fa94-04c1-424b-9868-57a2d4851a1d\" relativeResultsDirectory=\"00000000-0000-4000-8000-%012d\"",
			i, i, xmlAttr(e.name), outcome[e.status], i)
		if e.status == "fail" {
			b.WriteString(">\n      <Output>\n        <ErrorInfo>\n          <Message>Assert.Equal() Failure: Values differ</Message>\n        </ErrorInfo>\n      </Output>\n    </UnitTestResult>\n")
		} else {
			b.WriteString(" />\n")
		}
	}
	b.WriteString("  </Results>\n  <TestDefinitions>\n")
	for i, e := range es {
		fmt.Fprintf(&b, "    <UnitTest name=\"%s\" storage=\"/testbed/artifacts/bin/tests.dll\" id=\"10000000-0000-4000-8000-%012d\">\n      <Execution id=\"00000000-0000-4000-8000-%012d\" />\n      <TestMethod codeBase=\"/testbed/artifacts/bin/tests.dll\" adapterTypeName=\"executor://nunit3testexecutor/\" className=\"Tests.GeneratedTests\" name=\"%s\" />\n    </UnitTest>\n",
			xmlAttr(e.name), i, i, xmlAttr(e.name))
	}
	b.WriteString("  </TestDefinitions>\n  <ResultSummary outcome=\"Completed\">\n    <Counters total=\"1\" executed=\"1\" passed=\"1\" failed=\"0\" />\n  </ResultSummary>\n</TestRun>")
	return b.String()
}

func xmlAttr(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	return r.Replace(s)
}

// jestJSON renders the report of `jest --json` (and of vitest's json reporter, which writes the
// same shape): one test file, each test's fullName its name. Tests named "<file> (suite) -
// <message>" become test files that failed to run, with that message.
func jestJSON(skipWord string) func([]entry) string {
	return func(es []entry) string {
		status := map[string]string{"pass": "passed", "fail": "failed", "skip": skipWord}
		type assertion struct {
			AncestorTitles  []string `json:"ancestorTitles"`
			Duration        *int     `json:"duration"`
			FailureMessages []string `json:"failureMessages"`
			FullName        string   `json:"fullName"`
			Status          string   `json:"status"`
			Title           string   `json:"title"`
		}
		type file struct {
			AssertionResults []assertion `json:"assertionResults"`
			EndTime          int64       `json:"endTime"`
			Message          string      `json:"message"`
			Name             string      `json:"name"`
			StartTime        int64       `json:"startTime"`
			Status           string      `json:"status"`
			Summary          string      `json:"summary"`
		}
		var broken []file
		main := file{Name: "/testbed/test/generated.test.js", StartTime: 1775915401000, EndTime: 1775915401200, Status: "passed", AssertionResults: []assertion{}}
		var passed, failed, pending int
		for _, e := range es {
			if name, msg, ok := strings.Cut(e.name, " (suite) - "); ok {
				broken = append(broken, file{Name: name, Message: msg + "\n    at node:internal/deps/undici/undici:13502:13", Status: "failed", AssertionResults: []assertion{}, StartTime: 1775915401000, EndTime: 1775915401100})
				continue
			}
			d := 3
			a := assertion{AncestorTitles: []string{}, Duration: &d, FailureMessages: []string{}, FullName: e.name, Status: status[e.status], Title: e.name}
			switch e.status {
			case "fail":
				a.FailureMessages = []string{"Error: expect(received).toBe(expected)"}
				main.Status = "failed"
				failed++
			case "skip":
				a.Duration = nil
				pending++
			default:
				passed++
			}
			main.AssertionResults = append(main.AssertionResults, a)
		}
		files := broken
		if len(main.AssertionResults) > 0 {
			files = append(files, main)
		}
		report := map[string]any{
			"numFailedTestSuites": len(broken), "numFailedTests": failed, "numPassedTestSuites": 1, "numPassedTests": passed,
			"numPendingTestSuites": 0, "numPendingTests": pending, "numRuntimeErrorTestSuites": len(broken), "numTodoTests": 0,
			"numTotalTestSuites": len(files), "numTotalTests": passed + failed + pending, "startTime": 1775915400000,
			"success": failed == 0 && len(broken) == 0, "testResults": files, "wasInterrupted": false,
		}
		out, _ := json.Marshal(report)
		return string(out)
	}
}

// npmPretest renders `npm test -- --verbose` whose pretest script fails: npm's "> pkg@version
// script" banners, then the script's error.
func npmPretest(es []entry) string {
	for _, e := range es {
		if e.name != "pretest" || e.status != "fail" {
			panic("npmPretest renders a failing pretest script only, got " + e.name + " " + e.status)
		}
	}
	return "\n> taiga-ui@4.46.0 pretest\n> node ./scripts/pretest.js\n\n" +
		"/testbed/scripts/pretest.js:12\n    throw new Error('projects/cdk is not built: run npm run build:cdk first');\n    ^\n\n" +
		"Error: projects/cdk is not built: run npm run build:cdk first\n    at Object.<anonymous> (/testbed/scripts/pretest.js:12:11)\n\nNode.js v20.18.1\n" +
		"npm error code 1\nnpm error path /testbed\nnpm error command failed\nnpm error command sh -c node ./scripts/pretest.js\n"
}

// shellSyntaxError is the log of a test command that bash cannot parse (the archive's commands
// with HTML-escaped "&amp;&amp;" print this instead of test results).
func shellSyntaxError([]entry) string {
	return "bash: syntax error near unexpected token `;&'\n"
}

// powershellJSON renders what PowerShell's `$results | ConvertTo-Json` prints for a hashtable of
// test name to status.
func powershellJSON(es []entry) string {
	var b strings.Builder
	b.WriteString("{\r\n")
	for i, e := range es {
		k, _ := json.Marshal(e.name)
		fmt.Fprintf(&b, "    %s:  %q", k, e.status)
		if i < len(es)-1 {
			b.WriteByte(',')
		}
		b.WriteString("\r\n")
	}
	b.WriteString("}\r\n")
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
