// Package logparse turns the output of a test run into a map from test name to status, with one
// parser for every log_parser named by the SWE-bench datasets (parse_log_pytest, parse_log_django,
// parse_log_cargo, …). Each parser reproduces the behaviour of the SWE-bench harness's parser of the
// same name, including its quirks, because a grade is only comparable when the log is read the same
// way: statuses are kept verbatim (pytest's "XFAIL", or an odd "PASSED:" token), later lines
// overwrite earlier ones, and the order in which tests were first seen is preserved.
package logparse

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Test statuses as the harness writes them. Parsers may also produce other strings verbatim (the
// pytest parsers keep whatever word starts the line); grading treats those as neither passed nor
// failed, like the harness does.
const (
	Passed  = "PASSED"
	Failed  = "FAILED"
	Skipped = "SKIPPED"
	Error   = "ERROR"
	XFail   = "XFAIL"
)

// statusPrefixes are the words a pytest summary line may start with, in the harness's order.
var statusPrefixes = []string{Failed, Passed, Skipped, Error, XFail}

// Map is a test-status map that remembers the order in which tests were first recorded (a Python
// dict's order, which the harness relies on when it resolves truncated test ids).
type Map struct {
	keys   []string
	status map[string]string
}

// NewMap returns an empty Map.
func NewMap() *Map { return &Map{status: map[string]string{}} }

// Set records status for test; a test seen again keeps its first position.
func (m *Map) Set(test, status string) {
	if _, ok := m.status[test]; !ok {
		m.keys = append(m.keys, test)
	}
	m.status[test] = status
}

// Get returns the status recorded for test.
func (m *Map) Get(test string) (string, bool) {
	if m == nil {
		return "", false
	}
	s, ok := m.status[test]
	return s, ok
}

// Len is the number of tests recorded.
func (m *Map) Len() int {
	if m == nil {
		return 0
	}
	return len(m.keys)
}

// Keys returns the tests in the order they were first recorded.
func (m *Map) Keys() []string {
	if m == nil {
		return nil
	}
	return slices.Clone(m.keys)
}

// Statuses returns a plain copy of the map.
func (m *Map) Statuses() map[string]string {
	out := make(map[string]string, m.Len())
	for _, k := range m.Keys() {
		out[k] = m.status[k]
	}
	return out
}

// Parser reads a test log. instanceID is needed by the parsers that pick a format per instance
// (jekyll, immutable-js). An error means the log cannot be read the way the harness reads it (the
// harness's parser would raise); the instance is then an error, not a failed grade.
type Parser func(log, instanceID string) (*Map, error)

var registry = map[string]Parser{
	// Python
	"parse_log_pytest":         parsePytest,
	"parse_log_pytest_options": parsePytestOptions,
	"parse_log_pytest_v2":      parsePytestV2,
	"parse_log_django":         parseDjango,
	"parse_log_seaborn":        parseSeaborn,
	"parse_log_sympy":          parseSympy,
	"parse_log_matplotlib":     parseMatplotlib,
	"parse_log_astroid":        parsePytest,
	"parse_log_flask":          parsePytest,
	"parse_log_marshmallow":    parsePytest,
	"parse_log_pvlib":          parsePytest,
	"parse_log_pyvista":        parsePytest,
	"parse_log_sqlfluff":       parsePytest,
	"parse_log_xarray":         parsePytest,
	"parse_log_pydicom":        parsePytestOptions,
	"parse_log_requests":       parsePytestOptions,
	"parse_log_pylint":         parsePytestOptions,
	"parse_log_astropy":        parsePytestV2,
	"parse_log_scikit":         parsePytestV2,
	"parse_log_sphinx":         parsePytestV2,
	// JavaScript
	"parse_log_calypso":      parseCalypso,
	"parse_log_chart_js":     parseChartJS,
	"parse_log_marked":       parseMarked,
	"parse_log_p5js":         parseP5js,
	"parse_log_react_pdf":    parseReactPDF,
	"parse_log_jest":         parseJest,
	"parse_log_jest_json":    parseJestJSON,
	"parse_log_vitest":       parseVitest,
	"parse_log_karma":        parseKarma,
	"parse_log_tap":          parseTap,
	"parse_log_immutable_js": parseImmutableJS,
	// C and C++
	"parse_log_redis":            parseRedis,
	"parse_log_jq":               parseJq,
	"parse_log_doctest":          parseDoctest,
	"parse_log_micropython_test": parseMicropython,
	"parse_log_googletest":       parseGoogletest,
	// Go
	"parse_log_gotest": parseGotest,
	// Java
	"parse_log_maven":         parseMaven,
	"parse_log_ant":           parseAnt,
	"parse_log_gradle_custom": parseGradle,
	// PHP
	"parse_log_phpunit": parsePHPUnit,
	// Ruby
	"parse_log_minitest":               parseMinitest,
	"parse_log_cucumber":               parseCucumber,
	"parse_log_ruby_unit":              parseRubyUnit,
	"parse_log_rspec_transformed_json": parseRspecJSON,
	"parse_log_jekyll":                 parseJekyll,
	// Rust
	"parse_log_cargo": parseCargo,
}

// Get returns the parser registered under name (a dataset's log_parser value, e.g.
// "parse_log_django").
func Get(name string) (Parser, error) {
	if name == "" {
		return nil, fmt.Errorf("no log parser named: the dataset row has an empty log_parser column; use a harness-v5 dataset (with log_parser, eval_script, eval_type)")
	}
	p, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown log parser %q: known parsers are %s", name, strings.Join(Names(), ", "))
	}
	return p, nil
}

// Names lists the registered parser names, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lines splits a log the way Python's str.split("\n") does.
func lines(log string) []string { return strings.Split(log, "\n") }
