package logparse

import (
	"reflect"
	"strings"
	"testing"
)

// st is one expected test → status pair, in the order the parser first records tests.
type st struct{ test, status string }

func pairs(m *Map) []st {
	var out []st
	for _, k := range m.Keys() {
		s, _ := m.Get(k)
		out = append(out, st{k, s})
	}
	return out
}

type parserCase struct {
	name    string
	parser  string
	id      string
	log     string
	want    []st
	wantErr string
}

func runParserCases(t *testing.T, cases []parserCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.parser+"/"+tt.name, func(t *testing.T) {
			p, err := Get(tt.parser)
			if err != nil {
				t.Fatal(err)
			}
			m, err := p(tt.log, tt.id)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := pairs(m); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestPythonParsers(t *testing.T) {
	pytestLog := strings.Join([]string{
		"============================= test session starts ==============================",
		"tests/test_a.py ..F                                                      [100%]",
		"=========================== short test summary info ============================",
		"PASSED tests/test_a.py::test_one",
		"PASSED tests/test_a.py::test_param[1-2]",
		"XFAIL tests/test_a.py::test_expected - reason: known bug",
		"SKIPPED [2] tests/test_a.py:40: needs network",
		"SKIPPED tests/test_a.py::test_skipped",
		"ERROR tests/test_a.py::test_fixture - RuntimeError: boom",
		"FAILED tests/test_a.py::test_two - AssertionError: assert 1 == 2",
		"FAILED",
		"PASSED tests/test_a.py::test_one",
		"PASSED:weird tests/test_a.py::test_odd",
	}, "\n")
	cases := []parserCase{
		{name: "summary lines", parser: "parse_log_pytest", log: pytestLog, want: []st{
			{"tests/test_a.py::test_one", "PASSED"},
			{"tests/test_a.py::test_param[1-2]", "PASSED"},
			{"tests/test_a.py::test_expected", "XFAIL"},
			{"tests/test_a.py::test_skipped", "SKIPPED"},
			{"tests/test_a.py::test_fixture", "ERROR"},
			{"tests/test_a.py::test_two", "FAILED"},
			{"tests/test_a.py::test_odd", "PASSED:weird"},
		}},
		{name: "same parser under repo names", parser: "parse_log_sqlfluff", log: "PASSED test/a.py::t\nFAILED test/a.py::u - x", want: []st{{"test/a.py::t", "PASSED"}, {"test/a.py::u", "FAILED"}}},
		{name: "astroid", parser: "parse_log_astroid", log: "  PASSED indented::not_a_summary\nPASSED t::a", want: []st{{"t::a", "PASSED"}}},
		{name: "xarray flask pvlib pyvista marshmallow", parser: "parse_log_xarray", log: "ERROR x.py::t\tsetup failed", want: []st{{"x.py::t", "ERROR"}}},
		{name: "path parameters shortened", parser: "parse_log_pydicom", log: strings.Join([]string{
			"PASSED tests/test_f.py::test_read[/usr/lib/data/file.dcm]",
			"PASSED tests/test_f.py::test_url[//server/share]",
			"PASSED tests/test_f.py::test_glob[/data/*.dcm]",
			"FAILED tests/test_f.py::test_x[a[b]c] - err",
			"PASSED tests/test_f.py::plain",
		}, "\n"), want: []st{
			{"tests/test_f.py::test_read[/file.dcm]", "PASSED"},
			{"tests/test_f.py::test_url[//server/share]", "PASSED"},
			{"tests/test_f.py::test_glob[/data/*.dcm]", "PASSED"},
			{"tests/test_f.py::test_x[a[b]c]", "FAILED"},
			{"tests/test_f.py::plain", "PASSED"},
		}},
		{name: "pytest options: text after the last bracket is dropped", parser: "parse_log_requests", log: "PASSED t.py::a[x]tail", want: []st{{"t.py::a[x]", "PASSED"}}},
		{name: "pylint", parser: "parse_log_pylint", log: "PASSED tests/t.py::test_functional[/abs/path/too_many.py]", want: []st{{"tests/t.py::test_functional[/too_many.py]", "PASSED"}}},
		{name: "v2: colours, spaces in ids, status at the end", parser: "parse_log_sphinx", log: strings.Join([]string{
			"\x1b[32mPASSED\x1b[0m tests/test_build.py::test_html[with space]",
			"FAILED tests/test_x.py::test_y - assert 'a - b'",
			"tests/test_old.py::test_legacy PASSED",
			"SKIPPED [1] tests/test_x.py:3: no",
			"\tPASSED tests/t.py::tabbed",
		}, "\n"), want: []st{
			{"tests/test_build.py::test_html[with space]", "PASSED"},
			{"tests/test_x.py::test_y", "FAILED"},
			{"tests/test_old.py::test_legacy", "PASSED"},
			{"tests/t.py::tabbed", "PASSED"},
		}},
		{name: "astropy and scikit use v2", parser: "parse_log_astropy", log: "astropy/t.py::test_a[x] FAILED", want: []st{{"astropy/t.py::test_a[x]", "FAILED"}}},
		{name: "scikit", parser: "parse_log_scikit", log: "XFAIL sklearn/t.py::test_b", want: []st{{"sklearn/t.py::test_b", "XFAIL"}}},
		{name: "matplotlib mouse buttons", parser: "parse_log_matplotlib", log: "PASSED lib/t.py::test_click[MouseButton.LEFT]\nPASSED lib/t.py::test_click[MouseButton.RIGHT]",
			want: []st{{"lib/t.py::test_click[1]", "PASSED"}, {"lib/t.py::test_click[3]", "PASSED"}}},
		{name: "seaborn", parser: "parse_log_seaborn", log: strings.Join([]string{
			"tests/test_core.py::TestA::test_one PASSED [ 10%]",
			"PASSED tests/test_core.py::TestA::test_two",
			"FAILED tests/test_core.py::TestA::test_three - AssertionError",
			"tests/x.py::t SKIPPED (reason)",
			"x",
		}, "\n"), want: []st{
			{"tests/test_core.py::TestA::test_one", "PASSED"},
			{"tests/test_core.py::TestA::test_two", "PASSED"},
			{"tests/test_core.py::TestA::test_three", "FAILED"},
		}},
		{name: "sympy", parser: "parse_log_sympy", log: strings.Join([]string{
			"sympy/core/tests/test_basic.py[3] ..F",
			"test_one ok",
			"test_two F",
			"test_three E",
			"  test_four ok  ",
			"________________ sympy/core/tests/test_basic.py:test_two _________________",
		}, "\n"), want: []st{
			{"sympy/core/tests/test_basic.py:test_two", "FAILED"},
			{"test_one", "PASSED"},
			{"test_two", "FAILED"},
			{"test_three", "ERROR"},
			{"test_four", "PASSED"},
		}},
		{name: "django", parser: "parse_log_django", log: strings.Join([]string{
			"test_a (app.tests.TestA) ... ok",
			"test_b (app.tests.TestA) ... FAIL",
			"test_c (app.tests.TestA) ... ERROR",
			"test_d (app.tests.TestA) ... skipped 'no db'",
			"test_e (app.tests.TestA)",
			"Docstring line of test_e ... some output",
			"ok",
			"test_f (app.tests.TestA) ...  OK",
			"FAIL: test_g (app.tests.TestB)",
			"ERROR: test_h (app.tests.TestB)",
			"--version is equivalent to version",
			"test_i (app.tests.TestC) ... System check identified no issues (0 silenced)",
			"ok",
		}, "\n"), want: []st{
			{"test_a (app.tests.TestA)", "PASSED"},
			{"test_b (app.tests.TestA)", "FAILED"},
			{"test_c (app.tests.TestA)", "ERROR"},
			{"test_d (app.tests.TestA)", "SKIPPED"},
			{"Docstring line of test_e", "PASSED"},
			{"test_f (app.tests.TestA)", "PASSED"},
			{"test_g", "FAILED"},
			{"test_h", "ERROR"},
			{"--version is equivalent to version", "PASSED"},
			{"test_i (app.tests.TestC)", "PASSED"},
		}},
		{name: "django FAIL: without a name is rejected like the harness", parser: "parse_log_django", log: "FAIL:", wantErr: "no test name"},
	}
	runParserCases(t, cases)
}

func TestOtherLanguageParsers(t *testing.T) {
	cases := []parserCase{
		{name: "cargo", parser: "parse_log_cargo", log: "running 3 tests\ntest a::b ... ok\ntest a::c ... FAILED\ntest a::d ... ignored\n  test a::e ... ok  ",
			want: []st{{"a::b", "PASSED"}, {"a::c", "FAILED"}, {"a::e", "PASSED"}}},
		{name: "gotest", parser: "parse_log_gotest", log: "=== RUN TestA\n--- PASS: TestA (0.00s)\n    --- FAIL: TestA/sub_case (0.01s)\n--- SKIP: TestB (0.00s)\nok pkg 0.1s",
			want: []st{{"TestA", "PASSED"}, {"TestA/sub_case", "FAILED"}, {"TestB", "SKIPPED"}}},
		{name: "phpunit testdox", parser: "parse_log_phpunit", log: strings.Join([]string{
			" ✔ Orphan before any suite",
			"Carbon Test (Tests\\CarbonTest)",
			" ✔ It creates dates",
			" ✘ It parses strings",
			"   │ Failed asserting",
			" ↩ It is skipped",
		}, "\n"), want: []st{
			{"None > Orphan before any suite", "PASSED"},
			{"Carbon Test > It creates dates", "PASSED"},
			{"Carbon Test > It parses strings", "FAILED"},
			{"Carbon Test > It is skipped", "SKIPPED"},
		}},
		{name: "rspec transformed json", parser: "parse_log_rspec_transformed_json", log: "does a thing - passed\nbreaks - failed\nwaits - pending\n",
			want: []st{{"does a thing", "PASSED"}, {"breaks", "FAILED"}}},
		{name: "ruby test-unit", parser: "parse_log_ruby_unit", log: "test_a: .: (0.01)\ntest: b thing: F\ntest_c: E\ntest_d: O\ntest_e: Other",
			want: []st{{"test_a", "PASSED"}, {"b thing", "FAILED"}, {"test_c", "FAILED"}, {"test_d", "SKIPPED"}}},
		{name: "jekyll minitest", parser: "parse_log_jekyll", id: "jekyll__jekyll-9141", log: "TestSite#test_a. = 0.01 s = .\nTestSite#test_b. = 0.02 s = F\nTestSite#test_c = 0.01 s = .",
			want: []st{{"TestSite#test_a", "PASSED"}, {"TestSite#test_b", "FAILED"}}},
		{name: "jekyll cucumber", parser: "parse_log_jekyll", id: "jekyll__jekyll-8761", log: "Feature: x\nScenario one ......\nScenario two ...F--",
			want: []st{{"Scenario one", "PASSED"}, {"Scenario two", "FAILED"}}},
		{name: "jekyll unknown instance", parser: "parse_log_jekyll", id: "jekyll__jekyll-1", log: "", wantErr: "jekyll__jekyll-1"},
		{name: "maven", parser: "parse_log_maven", log: strings.Join([]string{
			"+ mvn test -Dtest=com.a.FooTest#one -q",
			"[INFO] BUILD SUCCESS",
			"+ mvn test -Dtest=com.a.FooTest#two",
			"+ mvn test -Dtest=com.a.FooTest#three",
			"[INFO] BUILD FAILURE",
			"[INFO] BUILD SUCCESS",
			"[INFO] BUILD SUCCESS",
		}, "\n"), want: []st{{"com.a.FooTest#one", "PASSED"}, {"com.a.FooTest#two", "FAILED"}, {"com.a.FooTest#three", "PASSED"}}},
		{name: "maven results before commands", parser: "parse_log_maven", log: "[INFO] BUILD FAILURE\n+ mvn -Dtest=T#a test",
			want: []st{{"T#a", "FAILED"}}},
		{name: "ant", parser: "parse_log_ant", log: "    [junit] [PASS] testOne\n    [junit] [FAIL] testTwo\n    [junit] [ERR] testThree\n[junit] Tests run: 3",
			want: []st{{"testOne", "PASSED"}, {"testTwo", "FAILED"}, {"testThree", "FAILED"}}},
		{name: "gradle", parser: "parse_log_gradle_custom", log: strings.Join([]string{
			"org.a.FooTest > testOne PASSED",
			"org.a.FooTest > testTwo",
			"WARNING: something",
			"FAILED",
			"> Task :test FAILED",
			"org.a.BarTest > testThree FAILED",
		}, "\n"), want: []st{{"org.a.FooTest > testOne", "PASSED"}, {"org.a.FooTest > testTwo", "FAILED"}, {"org.a.BarTest > testThree", "FAILED"}}},
		{name: "redis", parser: "parse_log_redis", log: "[ok]: SET and GET (2 ms)\n[err]: EXPIRE works in tests/unit/expire.tcl\n[skip]: Big list\n[ignore]: Other\n[ok]: No timing",
			want: []st{{"SET and GET", "PASSED"}, {"EXPIRE works", "FAILED"}, {"Big list", "SKIPPED"}, {"Other", "SKIPPED"}, {"No timing", "PASSED"}}},
		{name: "jq", parser: "parse_log_jq", log: "PASS: tests/optionaltest\nFAIL: tests/jqtest\nXFAIL: tests/x",
			want: []st{{"tests/optionaltest", "PASSED"}, {"tests/jqtest", "FAILED"}}},
		{name: "micropython", parser: "parse_log_micropython_test", log: "pass  basics/a.py\nFAIL  basics/b.py\nskip  basics/c.py\n3 tests performed",
			want: []st{{"basics/a.py", "PASSED"}, {"basics/b.py", "FAILED"}, {"basics/c.py", "SKIPPED"}}},
		{name: "googletest", parser: "parse_log_googletest", log: "[ RUN      ] A.B\n[       OK ] A.B (0 ms)\n[  FAILED  ] A.C (1 ms)\n[  FAILED  ] 1 test, listed below:",
			want: []st{{"A.B", "PASSED"}, {"A.C", "FAILED"}}},
		{name: "doctest xml", parser: "parse_log_doctest", log: `noise before
<?xml version="1.0"?>
<doctest binary="tests">
  <TestSuite name="json">
    <TestCase name="parse" filename="a.cpp">
      <SubCase name="numbers">
        <Expression success="true"/>
        <Expression success="true"/>
      </SubCase>
      <SubCase name="strings">
        <Expression success="false"/>
      </SubCase>
      <SubCase name="nothing checked"/>
    </TestCase>
  </TestSuite>
</doctest>
after`, want: []st{{"parse > numbers", "PASSED"}, {"parse > strings", "FAILED"}, {"parse > nothing checked", "PASSED"}}},
		{name: "doctest without report", parser: "parse_log_doctest", log: "no xml", want: nil},
		{name: "doctest malformed report", parser: "parse_log_doctest", log: "<doctest><TestCase></doctest>", wantErr: "XML"},
		// ElementTree (CPython 3.11, expat) refuses a duplicate attribute: the harness's
		// ET.fromstring raises ParseError.
		{name: "doctest report with a duplicate attribute", parser: "parse_log_doctest", log: `<doctest><TestCase name="a" name="b"><SubCase name="s"/></TestCase></doctest>`, wantErr: "duplicate attribute"},
		// and normalises a tab in an attribute value to a space.
		{name: "doctest report with a tab in a name", parser: "parse_log_doctest", log: "<doctest><TestCase name=\"a\tb\"><SubCase name=\"s\"/></TestCase></doctest>",
			want: []st{{"a b > s", "PASSED"}}},
	}
	runParserCases(t, cases)
}

func TestJavaScriptParsers(t *testing.T) {
	cases := []parserCase{
		{name: "jest verbose", parser: "parse_log_jest", log: "  ✓ adds numbers (3 ms)\n  ✕ subtracts\n  ○ skipped later\n  ✓ no space(3 ms)",
			want: []st{{"adds numbers", "PASSED"}, {"subtracts", "FAILED"}, {"skipped later", "SKIPPED"}, {"no space(3 ms)", "PASSED"}}},
		{name: "vitest", parser: "parse_log_vitest", log: " ✓ renders 12ms\n × breaks\n ↓ later [skipped]",
			want: []st{{"renders", "PASSED"}, {"breaks", "FAILED"}, {"later", "SKIPPED"}}},
		{name: "tap", parser: "parse_log_tap", log: "TAP version 13\nok 1 first thing\nnot ok 2 second thing\nok three",
			want: []st{{"first thing", "PASSED"}, {"second thing", "FAILED"}}},
		{name: "immutable-js jest", parser: "parse_log_immutable_js", id: "immutable-js__immutable-js-2006", log: "✓ works (1 ms)", want: []st{{"works", "PASSED"}}},
		{name: "immutable-js jest json", parser: "parse_log_immutable_js", id: "immutable-js__immutable-js-2005", log: "[FAILED] Map > set", want: []st{{"Map > set", "FAILED"}}},
		{name: "immutable-js unknown", parser: "parse_log_immutable_js", id: "immutable-js__immutable-js-1", wantErr: "immutable-js-1"},
		{name: "karma", parser: "parse_log_karma", log: strings.Join([]string{
			"  ✔ before start is ignored",
			"INFO [launcher]: Starting browser ChromeHeadless",
			"  render",
			"    ✔ renders a div",
			"    nested",
			"      ✖ handles refs",
			"  hooks",
			"    ✔ useState",
			"SUMMARY:",
			"  ✔ after summary is ignored",
		}, "\n"), want: []st{
			{"render > renders a div", "PASSED"},
			{"render > nested > handles refs", "FAILED"},
			// A dedent pops one block and does not push the new one: the harness's (brittle) rule.
			{"render > useState", "PASSED"},
		}},
		{name: "calypso", parser: "parse_log_calypso", log: strings.Join([]string{
			"+ yarn run ./node_modules/.bin/jest client/a",
			"PASS client/a/test.js",
			"  Suite",
			"    ✓ passes (5ms)",
			"    inner",
			"      ✕ fails",
			"  Other",
			"    ✓ again",
			"Test Suites: 1 passed",
			"    ✓ ignored after summary",
		}, "\n"), want: []st{
			{"Suite - passes", "PASSED"},
			{"Suite - inner - fails", "FAILED"},
			{"Other - again", "PASSED"},
		}},
		{name: "chart.js", parser: "parse_log_chart_js", log: "Chrome 120.0.0.0 (Linux x86_64) Chart.helpers should work FAILED\n\x1b[31mChrome 120.0 (Linux x86_64) Scale ticks FAILED\x1b[0m\nChrome 120.0.0.0 (Linux x86_64): Executed 10 of 10",
			want: []st{{"Chart.helpers should work ", "FAILED"}, {"Scale ticks ", "FAILED"}}},
		{name: "marked", parser: "parse_log_marked", log: "Failures:\n1) Marked should parse  \n  Message:\n2)not this\n10 specs, 1 failure",
			want: []st{{"Marked should parse", "FAILED"}}},
		{name: "p5.js", parser: "parse_log_p5js", log: strings.Join([]string{
			"  1) Color",
			"       p5.prototype.color",
			"         handles hsl:",
			"     AssertionError: expected",
			"  2) Flat:",
			"{",
			"    \"noise\": 1",
			"}",
			"  3) <div>x</div>Skipped:",
		}, "\n"), want: []st{
			{"Color:p5.prototype.color:handles hsl", "FAILED"},
			{"Flat", "FAILED"},
			{"Skipped", "FAILED"},
		}},
		{name: "p5.js: an indented closing brace leaves the rest of the log out, as in the harness", parser: "parse_log_p5js",
			log: "  1) A:\n  {\n  }\n  2) B:", want: []st{{"A", "FAILED"}}},
		{name: "react-pdf", parser: "parse_log_react_pdf", log: "PASS tests/a.test.js (1.5 s)\nFAIL tests/b.test.js (12ms)\nPASS tests/c.test.js",
			want: []st{{"tests/a.test.js", "PASSED"}, {"tests/b.test.js", "FAILED"}, {"tests/c.test.js", "PASSED"}}},
	}
	runParserCases(t, cases)
}

// TestEveryDatasetParserIsRegistered lists the log_parser values of the fixture datasets
// (Verified, Lite, dev, Multilingual, Multimodal).
func TestEveryDatasetParserIsRegistered(t *testing.T) {
	for _, name := range []string{
		"parse_log_astroid", "parse_log_marshmallow", "parse_log_pvlib", "parse_log_pydicom", "parse_log_pyvista", "parse_log_sqlfluff",
		"parse_log_astropy", "parse_log_django", "parse_log_flask", "parse_log_matplotlib", "parse_log_pylint", "parse_log_pytest",
		"parse_log_requests", "parse_log_scikit", "parse_log_seaborn", "parse_log_sphinx", "parse_log_sympy", "parse_log_xarray",
		"parse_log_ant", "parse_log_cargo", "parse_log_doctest", "parse_log_googletest", "parse_log_gotest", "parse_log_gradle_custom",
		"parse_log_immutable_js", "parse_log_jekyll", "parse_log_jest", "parse_log_jq", "parse_log_karma", "parse_log_maven",
		"parse_log_micropython_test", "parse_log_phpunit", "parse_log_redis", "parse_log_rspec_transformed_json", "parse_log_ruby_unit",
		"parse_log_tap", "parse_log_vitest", "parse_log_calypso", "parse_log_chart_js", "parse_log_marked", "parse_log_p5js",
		"parse_log_react_pdf",
	} {
		if _, err := Get(name); err != nil {
			t.Error(err)
		}
	}
	if _, err := Get("parse_log_nonesuch"); err == nil || !strings.Contains(err.Error(), "parse_log_django") {
		t.Errorf("unknown parser: got %v, want an error listing the known ones", err)
	}
	if _, err := Get(""); err == nil || !strings.Contains(err.Error(), "log_parser") {
		t.Errorf("empty parser name: got %v, want an error naming the log_parser column", err)
	}
}
