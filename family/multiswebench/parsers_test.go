package multiswebench

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The logs under testdata/logs are written from the documented output of each tool (Maven
// Surefire 2 and 3, Gradle's console with test events, go test -v, cargo test, automake's test
// driver, googletest, CTest, Jest's default reporter, Vitest, Mocha's spec and JSON reporters,
// pytest -rA, Django's and sympy's runners), with the odd lines each harness parser handles.

type parseCase struct {
	repo    string // org/repo
	number  int
	log     string // file under testdata/logs
	passed  []string
	failed  []string
	skipped []string
	wantErr string // a substring of the error, when the harness's parser raises
}

func readLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "logs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkParse(t *testing.T, c parseCase) {
	t.Helper()
	org, repo, _ := strings.Cut(c.repo, "/")
	got, err := ParseLog(org, repo, c.number, readLog(t, c.log))
	if c.wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Fatalf("got error %v, want one containing %q", err, c.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		name      string
		got, want []string
	}{{"passed", got.Passed(), c.passed}, {"failed", got.Failed(), c.failed}, {"skipped", got.Skipped(), c.skipped}} {
		want := append([]string(nil), s.want...)
		if want == nil {
			want = []string{}
		}
		slices.Sort(want)
		if s.got == nil {
			s.got = []string{}
		}
		if !reflect.DeepEqual(s.got, want) {
			t.Errorf("%s:\n got %q\nwant %q", s.name, s.got, want)
		}
	}
}

func runCases(t *testing.T, cases map[string]parseCase) {
	for name, c := range cases {
		t.Run(name, func(t *testing.T) { checkParse(t, c) })
	}
}

func TestMavenSurefire(t *testing.T) {
	dubboPassed := []string{
		"org.apache.dubbo.common.URLTest",
		"org.apache.dubbo.common.PartlySkippedTest",
		"org.apache.dubbo.remoting.TransportersTest", // its colour codes are removed first
		"org.apache.dubbo.remoting.codec.ExchangeCodecTest",
	}
	dubboFailed := []string{
		"org.apache.dubbo.common.utils.PojoUtilsTest",
		"org.apache.dubbo.common.threadpool.ThreadPoolTest",
		"org.apache.dubbo.remoting.ChanelHandlerTest",
	}
	// "Tests run: 0" counts as all skipped.
	dubboSkipped := []string{"org.apache.dubbo.common.DisabledTest", "org.apache.dubbo.common.EmptyTest"}
	runCases(t, map[string]parseCase{
		"multi-module build, colours removed": {repo: "apache/dubbo", log: "maven-multimodule.log",
			passed: dubboPassed, failed: dubboFailed, skipped: dubboSkipped},
		"jackson-core reads alike": {repo: "fasterxml/jackson-core", log: "maven-multimodule.log",
			passed: dubboPassed, failed: dubboFailed, skipped: dubboSkipped},
		"jackson-databind reads alike": {repo: "fasterxml/jackson-databind", log: "maven-multimodule.log",
			passed: dubboPassed, failed: dubboFailed, skipped: dubboSkipped},
		"jackson-dataformat-xml reads alike": {repo: "fasterxml/jackson-dataformat-xml", log: "maven-multimodule.log",
			passed: dubboPassed, failed: dubboFailed, skipped: dubboSkipped},
		"a class reported passed and failed is unreadable": {repo: "alibaba/fastjson2", log: "surefire-rerun.log",
			wantErr: "Passed tests and failed tests should not have common items: `{'com.alibaba.fastjson2.JSONTest'}`"},
	})
}

// fastjson2's parser keeps colour codes, so a coloured summary line is not read.
func TestMavenSurefireColours(t *testing.T) {
	checkParse(t, parseCase{repo: "alibaba/fastjson2", log: "maven-multimodule.log",
		passed:  []string{"org.apache.dubbo.common.URLTest", "org.apache.dubbo.common.PartlySkippedTest", "org.apache.dubbo.remoting.codec.ExchangeCodecTest"},
		failed:  []string{"org.apache.dubbo.common.utils.PojoUtilsTest", "org.apache.dubbo.common.threadpool.ThreadPoolTest", "org.apache.dubbo.remoting.ChanelHandlerTest"},
		skipped: []string{"org.apache.dubbo.common.DisabledTest", "org.apache.dubbo.common.EmptyTest"}})
}

func TestSurefireRunningBlocks(t *testing.T) {
	runCases(t, map[string]parseCase{
		"Surefire 2 blocks with output between": {repo: "google/gson", log: "surefire2-gson.log",
			passed:  []string{"com.google.gson.CommentsTest", "com.google.gson.ParameterizedTypeTest"},
			failed:  []string{"com.google.gson.functional.TypeAdapterRuntimeTypeWrapperTest", "com.google.gson.internal.bind.DefaultDateTypeAdapterTest"},
			skipped: []string{"com.google.gson.JavaSerializationTest"}},
		// The search starts at character 8, so a block at the very start is missed; "Running" with
		// only spaces after it names the class " ".
		"search from character 8, whitespace names": {repo: "google/gson", log: "surefire2-gson-edges.log",
			passed: []string{" "}},
		"Surefire 3's [INFO] lines are not read": {repo: "google/gson", log: "surefire3-gson.log"},
	})
}

// TestSurefireAdjacent reads google/guava's logs as the seal-research fork's parse_log does. The
// expected sets are that parse_log's output on these logs (seal-research/multi-swe-bench at
// 918ac82c, multi_swe_bench/harness/repos/java/google/guava.py, run by python3): a summary must
// follow its "Running" line directly, Surefire 3's lines are not read, Unicode digits are counts,
// a CR stays in the class name, the search starts at character 8, and a class that passed in one
// block and failed in another makes the TestResult raise.
func TestSurefireAdjacent(t *testing.T) {
	runCases(t, map[string]parseCase{
		"Surefire 2 Running lines and their summary": {repo: "google/guava", log: "surefire2-guava.log",
			passed:  []string{"com.google.common.base.AsciiTest", "com.google.common.collect.ArabicDigitsTest", "com.google.common.collect.CrlfTest\r", "com.google.common.primitives.IntsTest"},
			failed:  []string{"com.google.common.io.ErrorsTest", "com.google.common.io.MoreFilesTest"},
			skipped: []string{"com.google.common.util.EmptyTest", "com.google.common.util.SkippedTest"}},
		"search from character 8": {repo: "google/guava", log: "surefire2-guava-start.log",
			passed: []string{"com.google.common.base.SecondTest"}},
		"a class passed and failed is unreadable": {repo: "google/guava", log: "surefire2-guava-rerun.log",
			wantErr: "Passed tests and failed tests should not have common items: `{'com.google.common.primitives.IntsTest'}`"},
	})
	if Fork("google", "guava") != "seal-research/multi-swe-bench" || Fork("google", "gson") != "" {
		t.Errorf("forks: guava %q, gson %q", Fork("google", "guava"), Fork("google", "gson"))
	}
}

func TestGradle(t *testing.T) {
	runCases(t, map[string]parseCase{
		"tasks and test events with failures": {repo: "mockito/mockito", log: "gradle-failures.log",
			passed: []string{
				"compileJava", "classes", "compileTestJava", "testClasses",
				"org.mockito.ArgumentMatchersTest > anyString(String) > [1] hello",
				"org.mockito.ArgumentMatchersTest > anyString(String) > [2] ", // lines are not stripped
				"    org.mockito.IndentedTest > indented",
			},
			failed: []string{
				"org.mockito.internal.util.MockUtilTest > should_scream_when_not_a_mock",
				"org.mockito.internal.util.MockUtilTest > should_get_mock_handler", // a later failure wins
				"test",
			},
			skipped: []string{"processResources", "processTestResources", "org.mockito.ArgumentMatchersTest > ignoredTest"}},
		"logstash reads alike; passed and skipped is unreadable": {repo: "elastic/logstash", log: "gradle-skip-conflict.log",
			wantErr: "Passed tests and skipped tests should not have common items"},
		"jib: stripped lines, FROM-CACHE, skips dropped": {repo: "googlecontainertools/jib", log: "gradle-jib.log",
			passed: []string{"jib-core:compileJava", "jib-core:compileTestJava", "com.google.cloud.tools.jib.api.JibTest > testBasic"},
			failed: []string{"com.google.cloud.tools.jib.api.JibTest > testFailing", "jib-core:test"}},
		"jib: a skip of a failed task is unreadable": {repo: "googlecontainertools/jib", log: "gradle-jib-skip-failed.log",
			wantErr: "Failed tests and skipped tests should not have common items"},
	})
}

func TestGoTest(t *testing.T) {
	runCases(t, map[string]parseCase{
		"cli: subtests by name, packages and FAIL words fail": {repo: "cli/cli", log: "gotest.log",
			passed: []string{"TestNewCmdView", "TestPRView_Preview/Open_PR_without_metadata"},
			failed: []string{
				"TestPRView_Preview", "TestPRView_Preview/Open_PR_with_metadata",
				"github.com/cli/cli/v2/pkg/cmd/pr/view", "github.com/cli/cli/v2/pkg/cmd/broken",
				"ED_HELPER", // "FAILED_HELPER prints a word": the FAIL pattern is not anchored to a word
			}},
		"grpc-go: subtests as parents, a failed package as its parent": {repo: "grpc/grpc-go", log: "gotest-parents.log",
			passed: []string{"TestClientConnUpdate", "TestResolverUpdate"},
			failed: []string{"TestBalancerSwitch", "google.golang.org/grpc/xds/internal"}},
		"go-zero: a failed test with a passing subtest is unreadable": {repo: "zeromicro/go-zero", log: "gotest-parents-conflict.log",
			wantErr: "Passed tests and failed tests should not have common items: `{'TestServe'}`"},
		"cli: the same log is readable by name": {repo: "cli/cli", log: "gotest-parents-conflict.log",
			passed: []string{"TestServe/http"},
			failed: []string{"TestServe", "TestServe/grpc"}},
	})
}

func TestCargo(t *testing.T) {
	cargo := parseCase{log: "cargo.log",
		passed: []string{
			"builder::tests::propagate_version", "opts::issue_1047_min_zero_vals_default_val",
			"app_settings::aaos_opts_w_other_overrides_rev_2", "help::long_about_has_parameters(1)::case",
		},
		failed:  []string{"builder::tests::issue_2090"}, // doc-tests have spaces in their names: not read
		skipped: []string{"output::help::tests::wrap_help_last_word", "parser::tests::network"},
	}
	cases := map[string]parseCase{}
	for _, repo := range []string{"BurntSushi/ripgrep", "clap-rs/clap", "nushell/nushell", "rayon-rs/rayon", "serde-rs/serde", "sharkdp/bat", "sharkdp/fd", "tokio-rs/bytes", "tokio-rs/tokio", "tokio-rs/tracing"} {
		c := cargo
		c.repo = repo
		cases[repo] = c
	}
	cases["a name passed in one crate and failed in another is unreadable"] = parseCase{repo: "tokio-rs/tokio", log: "cargo-two-crates.log",
		wantErr: "Passed tests and failed tests should not have common items"}
	runCases(t, cases)
}

func TestAutomake(t *testing.T) {
	runCases(t, map[string]parseCase{
		"jq": {repo: "jqlang/jq", log: "automake-jq.log",
			passed: []string{"tests/optionaltest", "tests/mantest"}, failed: []string{"tests/jqtest"}, skipped: []string{"tests/shtest"}},
		"zstd 1831-2703: one educational decoder exit passes all": {repo: "facebook/zstd", number: 2000, log: "zstd-educational.log",
			passed: []string{"all tests"}},
		"zstd 1230-1748: no POOL line fails all": {repo: "facebook/zstd", number: 1500, log: "zstd-educational.log",
			failed: []string{"all tests"}},
		"zstd 1230-1748: two POOL lines fail all": {repo: "facebook/zstd", number: 1300, log: "zstd-pool.log",
			failed: []string{"all tests"}},
		"zstd elsewhere: the test driver's lines": {repo: "facebook/zstd", number: 3000, log: "zstd-educational.log",
			passed: []string{"fuzzer"}},
		"zstd elsewhere: names with spaces are not read": {repo: "facebook/zstd", number: 4000, log: "zstd-pool.log"},
	})
}

func TestGoogletest(t *testing.T) {
	want := parseCase{log: "gtest.log",
		passed: []string{"ConnectionErrorTest.InvalidHost", "RangeTest/ParamTest.Works/0", "BadPonyTest.ClassFinalizerOk", "builtin/Array"},
		failed: []string{"ConnectionErrorTest.Timeout", "BadPonyTest.TupleIndex", "builtin/Map"}}
	ponyc, httplib := want, want
	ponyc.repo, httplib.repo = "ponylang/ponyc", "yhirose/cpp-httplib"
	runCases(t, map[string]parseCase{"ponyc": ponyc, "cpp-httplib": httplib})
}

func TestCTest(t *testing.T) {
	cases := map[string]parseCase{
		// CTest's failure lines end with the time, which the pattern does not allow: only a bare
		// "***Failed" line is read as a failure.
		"Catch2: CMake checks and tests, lower-cased": {repo: "catchorg/Catch2", log: "ctest-catch2.log",
			passed:  []string{"have_flag__wall", "runtests", "list::tests::output"},
			failed:  []string{"have_flag__wextra", "approvaltests"},
			skipped: []string{"have_something"}},
	}
	for _, repo := range []string{"fmtlib/fmt", "nlohmann/json", "simdjson/simdjson"} {
		cases[repo] = parseCase{repo: repo, log: "ctest.log", passed: []string{"args-test", "chrono-test"}, failed: []string{"odd-test"}}
	}
	runCases(t, cases)
}

func TestVitest(t *testing.T) {
	want := parseCase{log: "vitest.log",
		passed: []string{
			"packages/shared/__tests__/looseEqual.spec.ts (3 tests)",
			"SSR hydration > text",
			"SSR hydration > waits", // "5s" reads as a duration
			"SSR hydration > comment",
			"packages/compiler-sfc/__tests__/compileScript.spec.ts (86 tests)",
		},
		failed: []string{"SSR hydration > mismatch handling > text node"}}
	vue, svelte := want, want
	vue.repo, svelte.repo = "vuejs/core", "sveltejs/svelte"
	runCases(t, map[string]parseCase{"vuejs/core": vue, "sveltejs/svelte": svelte})
}

func TestMochaSpec(t *testing.T) {
	want := parseCase{log: "mocha-spec.log",
		passed: []string{"should support headers argument", "should be case-insensitive", "should support IPv4 literal strings"},
		// The failure summary's numbered lines are the suites' titles.
		failed: []string{"should fail on bad header", "should handle redirects", "AxiosHeaders", "supports http with nodejs"}}
	axios, express := want, want
	axios.repo, express.repo, express.number = "axios/axios", "expressjs/express", 4852
	runCases(t, map[string]parseCase{
		"axios":             axios,
		"express pull 4852": express,
		"passed and failed": {repo: "axios/axios", log: "mocha-spec-conflict.log", wantErr: "should not have common items"},
	})
}

func TestMochaJSON(t *testing.T) {
	runCases(t, map[string]parseCase{
		// A failure wins over a pass, a skip over a pass; str() of a number title.
		"express": {repo: "expressjs/express", number: 5000, log: "mocha-json-express.log",
			passed: []string{"app.router should work", "42"}, failed: []string{"res.sendFile should 404"}, skipped: []string{"app.router later"}},
		"express pulls 4212, 4852, 5555, 5841 use the spec reporter": {repo: "expressjs/express", number: 5555, log: "mocha-json-express.log"},
		"material-ui: file:fullTitle, from Building new on": {repo: "mui/material-ui", number: 40000, log: "mocha-json-mui.log",
			passed: []string{"/home/material-ui/packages/mui-material/src/Button/Button.test.js:<Button /> has a ripple"},
			failed: []string{"/home/material-ui/packages/mui-material/src/Button/Button.test.js:<Button /> renders"}},
		"material-ui: a test without file is unreadable": {repo: "mui/material-ui", log: "mocha-json-mui-nofile.log",
			wantErr: `required field "file" not found`},
		"a JSON object that is not a report is unreadable": {repo: "expressjs/express", number: 1, log: "mocha-json-stray-object.log",
			wantErr: `required field "stats" not found`},
	})
}

func TestJest(t *testing.T) {
	jest := parseCase{log: "jest.log",
		passed: []string{
			"test/plugin/utc.test.js", "test/plugin/utc.test.js:Set UTC", "test/plugin/utc.test.js:Parse UTC", "test/plugin/utc.test.js:Format",
			"test/locale/keys.test.js:Ok one",
			"test/parse.test.js", "test/parse.test.js:Format",
			" test/display.test.js", " test/display.test.js:Display", // Jest pads "PASS" with a space
		},
		failed: []string{"test/locale/keys.test.js", "test/locale/keys.test.js:Locale keys"}}
	dayjs, stats := jest, jest
	dayjs.repo, stats.repo = "iamkun/dayjs", "anuraghazra/github-readme-stats"
	runCases(t, map[string]parseCase{
		"dayjs":                   dayjs,
		"github-readme-stats":     stats,
		"a test before any suite": {repo: "iamkun/dayjs", log: "jest-no-suite.log", wantErr: "Test passed without suite: ✓ Compiled successfully"},
		"darkreader: one-word suites, parentheses dropped": {repo: "darkreader/darkreader", log: "jest-darkreader.log",
			passed: []string{"tests/unit/utils/color.tests.ts", "tests/unit/utils/color.tests.ts:Color parsing", "tests/unit/utils/color.tests.ts:Hex conversion", "tests/unit/utils/url.tests.ts"},
			failed: []string{"tests/unit/generators/css-filter.tests.ts", "tests/unit/generators/css-filter.tests.ts:Filter"}},
		"insomnia: suites and passes, no context": {repo: "Kong/insomnia", log: "jest-insomnia.log",
			passed: []string{" src/common/__tests__/misc.test.ts", "src/models/__tests__/request.test.ts", "creates a request",
				"handles", // " 2 requests" reads as a duration
				"src/utils/url.test.ts"},
			failed: []string{" src/network/__tests__/network.test.ts", "src/network/__tests__/network.test.ts"}},
	})
}

func TestPython(t *testing.T) {
	plain := []string{
		"tests/test_dataset.py::TestDataset::test_repr", "tests/test_dataset.py::test_isel[MouseButton.LEFT]",
		"tests/test_dataset.py::test_future", "tests/test_requests.py::test_path[/home/user/data/file.txt]",
		"tests/test_requests.py::test_url[http://x/y]",
	}
	failed := []string{"tests/test_dataset.py::TestDataset::test_sel", "tests/test_dataset.py::test_setup"}
	with := func(old, new string) []string {
		out := append([]string(nil), plain...)
		for i, s := range out {
			if s == old {
				out[i] = new
			}
		}
		return out
	}
	runCases(t, map[string]parseCase{
		// "FAIL:" overwrites test_overwritten's PASSED and drops it; "SKIPPED [1] …" names "[1]".
		"xarray":     {repo: "pydata/xarray", log: "pytest.log", passed: plain, failed: failed, skipped: []string{"[1]"}},
		"pytest":     {repo: "pytest-dev/pytest", log: "pytest.log", passed: plain, failed: failed, skipped: []string{"[1]"}},
		"matplotlib": {repo: "matplotlib/matplotlib", log: "pytest.log", passed: with("tests/test_dataset.py::test_isel[MouseButton.LEFT]", "tests/test_dataset.py::test_isel[1]"), failed: failed, skipped: []string{"[1]"}},
		"requests":   {repo: "psf/requests", log: "pytest.log", passed: with("tests/test_requests.py::test_path[/home/user/data/file.txt]", "tests/test_requests.py::test_path[/file.txt]"), failed: failed, skipped: []string{"[1]"}},
		"pylint":     {repo: "pylint-dev/pylint", log: "pytest.log", passed: with("tests/test_requests.py::test_path[/home/user/data/file.txt]", "tests/test_requests.py::test_path[/file.txt]"), failed: failed, skipped: []string{"[1]"}},
		"astropy":    {repo: "astropy/astropy", log: "pytest.log", passed: plain, failed: failed, skipped: []string{"[1]"}},
		"astropy: colour codes and control characters removed, status last": {repo: "astropy/astropy", log: "pytest-escapes.log",
			passed: []string{"astropy/io/tests/test_b.py::test_b", "astropy/io/tests/test_c.py::test_c"},
			failed: []string{"astropy/io/tests/test_d.py::test_d", "astropy/io/tests/test_e.py::test_e"}},
		"scikit-learn reads as astropy": {repo: "scikit-learn/scikit-learn", log: "pytest-escapes.log",
			passed: []string{"astropy/io/tests/test_b.py::test_b", "astropy/io/tests/test_c.py::test_c"},
			failed: []string{"astropy/io/tests/test_d.py::test_d", "astropy/io/tests/test_e.py::test_e"}},
		"sphinx reads as astropy": {repo: "sphinx-doc/sphinx", log: "pytest-escapes.log",
			passed: []string{"astropy/io/tests/test_b.py::test_b", "astropy/io/tests/test_c.py::test_c"},
			failed: []string{"astropy/io/tests/test_d.py::test_d", "astropy/io/tests/test_e.py::test_e"}},
		"xarray: tabs split, coloured lines not read": {repo: "pydata/xarray", log: "pytest-escapes.log",
			passed: []string{"astropy/tests/test_tab.py::test_a"},
			failed: []string{"astropy/io/tests/test_e.py::test_e"}},
		"django": {repo: "django/django", log: "django.log",
			passed: []string{
				"test_add_view (admin_views.tests.AdminViewBasicTest)", "Docstring of the test.",
				"test_slow (admin_views.tests.AdminViewBasicTest)", "test_split (admin_views.tests.AdminViewBasicTest)",
			},
			failed: []string{
				"test_fail (admin_views.tests.AdminViewBasicTest)", "test_fail",
				"test_error (admin_views.tests.AdminViewBasicTest)", "test_error",
			},
			skipped: []string{"test_skip (admin_views.tests.AdminViewBasicTest)"}},
		"seaborn": {repo: "mwaskom/seaborn", log: "seaborn.log",
			passed: []string{"tests/test_core.py::TestSemanticMapping::test_call_lookup", "tests/test_core.py::TestSemanticMapping::test_hue", "tests/test_core.py::TestHueMapping::test_plotter"},
			failed: []string{"tests/test_core.py::TestHueMapping::test_init"}},
		"seaborn: a bare PASSED line is unreadable": {repo: "mwaskom/seaborn", log: "seaborn-short.log", wantErr: "list index out of range"},
		"sympy": {repo: "sympy/sympy", log: "sympy.log",
			passed: []string{"test_basic"},
			failed: []string{"test_fail", "test_err", "sympy/core/tests/test_basic.py:test_fail"}},
	})
}

func TestUnknownRepository(t *testing.T) {
	_, err := ParseLog("burntsushi", "ripgrep", 1, "")
	if err == nil || !strings.Contains(err.Error(), "burntsushi/ripgrep has no Multi-SWE-bench parser") {
		t.Fatalf("got %v", err)
	}
}
