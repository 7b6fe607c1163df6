package rebenchv2

import (
	"fmt"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Test statuses. SWE-rebench-V2's TestStatus has these four only (no XFAIL): a pytest line
// starting with XFAIL is not a result there.
const (
	passed  = logparse.Passed
	failed  = logparse.Failed
	skipped = logparse.Skipped
	errored = logparse.Error
)

// statuses are the values of the harness's TestStatus, in its order.
var statuses = []string{passed, failed, skipped, errored}

// parsers is the harness's NAME_TO_PARSER, with the names its get_parser also finds as
// attributes of the log_parsers module (the SWE-bench parsers kept there and their per-repository
// aliases). Parsers the harness shares with the SWE-bench harness unchanged are package logparse's.
var parsers = map[string]logparse.Parser{
	// pytest and other Python runners
	"parse_log_pytest":            parsePytest,
	"parse_log_pytest_options":    parsePytestOptions,
	"parse_log_pytest_v2":         parsePytestV2,
	"parse_log_pytest_nebo":       parsePytestNebo,
	"parse_log_matplotlib":        parseMatplotlib,
	"parse_log_seaborn":           parseSeaborn,
	"parse_log_sympy":             parseSympy,
	"parse_log_django":            shared("parse_log_django"),
	"parse_log_astroid":           parsePytest,
	"parse_log_flask":             parsePytest,
	"parse_log_marshmallow":       parsePytest,
	"parse_log_pvlib":             parsePytest,
	"parse_log_pyvista":           parsePytest,
	"parse_log_sqlfluff":          parsePytest,
	"parse_log_xarray":            parsePytest,
	"parse_log_pydantic":          parsePytest,
	"parse_log_dvc":               parsePytest,
	"parse_log_pydicom":           parsePytestOptions,
	"parse_log_requests":          parsePytestOptions,
	"parse_log_pylint":            parsePytestOptions,
	"parse_log_astropy":           parsePytestV2,
	"parse_log_scikit":            parsePytestV2,
	"parse_log_sphinx":            parsePytestV2,
	"parse_log_cpp":               parseCppPytest,
	"parse_test_report":           parseTestReport,
	"parse_combined_test_reports": parseCombinedTestReports,
	// JUnit XML, Maven, Gradle, sbt, Kotlin
	"parse_log_maven":         parseMaven,
	"parse_log_ant":           shared("parse_log_ant"),
	"parse_log_gradle_custom": parseGradleCustom,
	"parse_log_gradlew_v1":    parseGradlewV1,
	"parse_java_mvn":          parseJavaMvn,
	"parse_log_java_mvn":      parseJavaMvn,
	"parse_java_mvn_v2":       parseJavaMvnV2,
	"parse_log_java_mvn_v2":   parseJavaMvnV2,
	"parse_log_sbt":           parseJUnitText,
	"parse_log_junit":         parseJUnitText,
	"parse_logs_kotlin_junit": parseKotlinJUnit,
	"parse_log_kotlin_junit":  parseKotlinJUnit,
	"parse_logs_r_junit":      parseRJUnit,
	"parse_log_r_junit":       parseRJUnit,
	"parse_log_scala":         parseScala,
	"parse_log_scala_v2":      parseScalaV2,
	"parse_log_scala_v3":      parseScalaV3,
	// JavaScript and TypeScript
	"parse_log_calypso":   shared("parse_log_calypso"),
	"parse_log_chart_js":  shared("parse_log_chart_js"),
	"parse_log_marked":    shared("parse_log_marked"),
	"parse_log_p5js":      shared("parse_log_p5js"),
	"parse_log_jest_json": shared("parse_log_jest_json"),
	"parse_log_vitest":    shared("parse_log_vitest"),
	"parse_log_karma":     shared("parse_log_karma"),
	"parse_log_tap":       shared("parse_log_tap"),
	"parse_log_react_pdf": parseReactPDF,
	"parse_log_jest":      parseJest,
	"parse_log_js":        parseJS,
	"parse_log_js_2":      parseJS2,
	"parse_log_js_3":      parseJS3,
	"parse_log_js_4":      parseJS4,
	"parse_log_npx":       parseNpx,
	// Go and Rust
	"parse_log_gotest": shared("parse_log_gotest"),
	"parse_log_cargo":  shared("parse_log_cargo"),
	// C and C++
	"parse_log_redis":            shared("parse_log_redis"),
	"parse_log_jq":               shared("parse_log_jq"),
	"parse_log_doctest":          shared("parse_log_doctest"),
	"parse_log_micropython_test": shared("parse_log_micropython_test"),
	"parse_log_googletest":       shared("parse_log_googletest"),
	"parse_log_cpp_v2":           parseCppV2,
	"parse_log_cpp_v3":           parseCppV3,
	"parse_log_cpp_v4":           parseCppV4,
	// Ruby and PHP
	"parse_log_minitest":               shared("parse_log_minitest"),
	"parse_log_cucumber":               shared("parse_log_cucumber"),
	"parse_log_ruby_unit":              shared("parse_log_ruby_unit"),
	"parse_log_rspec_transformed_json": shared("parse_log_rspec_transformed_json"),
	"parse_log_ruby_v1":                parseRubyV1,
	"parse_log_ruby_v2":                parseRubyV2,
	"parse_log_phpunit":                parsePHPUnit,
	"parse_log_php_v1":                 parsePHPV1,
	// Other languages
	"parse_log_elixir":     parseElixir,
	"parse_log_haskell":    parseHaskell,
	"parse_log_haskell_v2": parseHaskellV2,
	"parse_log_julia":      parseJulia,
	"parse_log_r":          parseR,
	"parse_log_r_v2":       parseRV2,
	"parse_log_lein":       parseLein,
	"parse_log_dart":       parseDart,
	"parse_log_dart_v2":    parseDartV2,
	"parse_log_dart_v3":    parseDartV3,
	"parse_log_ocaml":      parseOCaml,
	"parse_log_ocaml_v2":   parseOCamlV2,
	"parse_log_ocaml_v3":   parseOCamlV3,
	"parse_log_ocaml_v4":   parseOCamlV4,
	"parse_log_ocaml_v5":   parseOCamlV4,
	"parse_lue_nvim":       parseLuaNvim,
	"parse_lua_nvim":       parseLuaNvim,
	"parse_log_lua_nvim":   parseLuaNvim,
	"parse_log_swift":      parseSwift,
	"parse_log_csharp":     parseCSharp,
}

// shared returns package logparse's parser of a name whose code SWE-rebench-V2 took unchanged
// from the SWE-bench harness.
func shared(name string) logparse.Parser {
	p, err := logparse.Get(name)
	if err != nil {
		panic(err) // a name missing from logparse is a programming error, caught by the tests
	}
	return p
}

// Parser returns the parser a row names in install_config.log_parser, as the harness's get_parser
// finds it.
func Parser(name string) (logparse.Parser, error) {
	if p, ok := parsers[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("install_config.log_parser %q is not a parser of SWE-rebench-V2's harness (lib/agent/log_parsers.py); known: %s", name, strings.Join(ParserNames(), ", "))
}

// ParserNames lists the parser names rows may use, sorted.
func ParserNames() []string {
	names := make([]string, 0, len(parsers))
	for n := range parsers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// setDefault is Python's results.setdefault(name, status).
func setDefault(m *logparse.Map, name, status string) {
	if _, ok := m.Get(name); !ok {
		m.Set(name, status)
	}
}

// indexError is what a parser returns where the harness's Python raises IndexError (a list
// indexed past its end on an odd line): the harness records the instance as an error.
func indexError(parser, line string) error {
	return fmt.Errorf("%s: the line %q has fewer words than the parser expects (the harness's parser raises IndexError here)", parser, line)
}

// ansiEscape is the harness's ANSI_ESCAPE_RE.
var ansiEscape = pytext.Re(`\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])`)

// ansiColour is the colour-code pattern several parsers strip (the harness's ANSI_COLOR_DELIM_RE).
var ansiColour = pytext.Re(`\x1b\[[0-9;]*m`)

// startsWithStatus reports whether line starts with one of the harness's four statuses.
func startsWithStatus(line string) bool {
	for _, s := range statuses {
		if strings.HasPrefix(line, s) {
			return true
		}
	}
	return false
}

func endsWithStatus(line string) bool {
	for _, s := range statuses {
		if strings.HasSuffix(line, s) {
			return true
		}
	}
	return false
}

// sliceChars is Python's s[start:end] over characters (end < 0: to the end of s).
func sliceChars(s string, start, end int) string {
	r := []rune(s)
	if start > len(r) {
		start = len(r)
	}
	if end < 0 || end > len(r) {
		end = len(r)
	}
	if start >= end {
		return ""
	}
	return string(r[start:end])
}
