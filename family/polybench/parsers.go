package polybench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Results is what a harness parser returns: the names of the passed and of the failed tests, in
// the order the log gave them (a name may repeat). A nil *Results is the harness's empty dict,
// which some parsers return when the log holds no report they can read: scoring then counts the
// instance as having no logs (with_logs false), where an empty Results has logs and no tests.
type Results struct {
	PassedTests []string
	FailedTests []string
}

// Parser reads the run log of an instance (see RunLog).
type Parser func(log string) *Results

// parsers are the harness's parser classes (poly_bench_evaluation/parsers), by class name.
var parsers = map[string]Parser{
	"JavaGenericParser":       parseJava,
	"JavascriptGenericParser": parseJavascriptGeneric,
	"JavascriptJestPR":        parseJestPR,
	"JavascriptMocha":         parseJavascriptMocha,
	"TypescriptJest":          parseTypescriptJest,
	"TypescriptJestTW":        parseTypescriptJestTW,
	"TypescriptMocha":         parseTypescriptMocha,
	"TypescriptMochaFileName": parseTypescriptMochaFileName,
	"TypescriptBazelAngular":  parseBazelAngular,
	"PythonPyUnit":            parsePython,
}

// repoParsers is the harness's REPO_TO_PARSER_CLASS: the parser of each repository of the
// dataset.
var repoParsers = map[string]string{
	"google/guava":                 "JavaGenericParser",
	"google/gson":                  "JavaGenericParser",
	"apache/dubbo":                 "JavaGenericParser",
	"apolloconfig/apollo":          "JavaGenericParser",
	"apache/rocketmq":              "JavaGenericParser",
	"trinodb/trino":                "JavaGenericParser",
	"mrdoob/three.js":              "JavascriptGenericParser",
	"sveltejs/svelte":              "JavascriptGenericParser",
	"prettier/prettier":            "JavascriptJestPR",
	"serverless/serverless":        "JavascriptMocha",
	"microsoft/vscode":             "TypescriptMocha",
	"angular/angular":              "TypescriptBazelAngular",
	"mui/material-ui":              "TypescriptMochaFileName",
	"tailwindlabs/tailwindcss":     "TypescriptJestTW",
	"coder/code-server":            "TypescriptJest",
	"Significant-Gravitas/AutoGPT": "PythonPyUnit",
	"huggingface/transformers":     "PythonPyUnit",
	"langchain-ai/langchain":       "PythonPyUnit",
	"yt-dlp/yt-dlp":                "PythonPyUnit",
	"tensorflow/models":            "PythonPyUnit",
	"keras-team/keras":             "PythonPyUnit",
}

// ParserFor returns the parser the harness uses for a repository, and its class name.
func ParserFor(repo string) (Parser, string, error) {
	name, ok := repoParsers[repo]
	if !ok {
		repos := make([]string, 0, len(repoParsers))
		for r := range repoParsers {
			repos = append(repos, r)
		}
		sort.Strings(repos)
		return nil, "", fmt.Errorf("SWE-PolyBench has no parser for repository %q (its harness knows %s)", repo, strings.Join(repos, ", "))
	}
	return parsers[name], name, nil
}

// jsonAfter is the parsers' way of cutting a JSON report out of the log: from the first match of
// start to the last "}" before the first "Container exited" line that follows it (with no such
// line, the log up to its last character but one, as Python's s[i:-1] is). ok is false when there
// is no start, no "}" or no valid JSON — the harness's caught exceptions.
func jsonAfter(log string, start *pyre.Regexp) (any, bool) {
	loc := start.FindStringIndex(log)
	if loc == nil {
		return nil, false
	}
	var sub string
	if end := strings.Index(log[loc[0]:], "Container exited"); end >= 0 {
		sub = log[loc[0] : loc[0]+end]
	} else {
		sub = pySliceToLastButOne(log[loc[0]:])
	}
	brace := strings.LastIndex(sub, "}")
	if brace < 0 {
		return nil, false
	}
	return decodeJSON(sub[:brace+1])
}

// jsonUntilInterrupted cuts a Jest report from its start to the first `"wasInterrupted":true}` or
// `…false}` after it.
func jsonUntilInterrupted(log string, start *pyre.Regexp) (any, bool) {
	loc := start.FindStringIndex(log)
	if loc == nil {
		return nil, false
	}
	end := wasInterrupted.FindStringIndex(log[loc[0]:])
	if end == nil {
		return nil, false
	}
	return decodeJSON(log[loc[0] : loc[0]+end[1]])
}

var wasInterrupted = regexp.MustCompile(`"wasInterrupted":(true|false)}`)

// pySliceToLastButOne is Python's s[:-1] over characters.
func pySliceToLastButOne(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return ""
	}
	return string(r[:len(r)-1])
}

// decodeJSON is json.loads: one JSON value and nothing but JSON whitespace after it, numbers kept
// as written.
func decodeJSON(s string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if strings.Trim(s[d.InputOffset():], " \t\n\r") != "" {
		return nil, false // json.loads: "Extra data"
	}
	return v, true
}

// pyFormat is f"{v}" of a decoded JSON value as the harness formats test names: strings as they
// are, numbers as written, null as None, booleans as True/False.
func pyFormat(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return "None"
	case bool:
		if t {
			return "True"
		}
		return "False"
	case json.Number:
		return t.String()
	}
	b, _ := json.Marshal(v)
	return string(bytes.TrimSpace(b))
}

// errShape is the harness's caught exception when a report lacks a key or has the wrong shape.
type errShape struct{}

// get is data[key] of a decoded JSON object; a missing key or a non-object panics with errShape,
// which the parsers recover from as the harness catches KeyError and TypeError.
func get(v any, key string) any {
	obj, ok := v.(map[string]any)
	if !ok {
		panic(errShape{})
	}
	x, ok := obj[key]
	if !ok {
		panic(errShape{})
	}
	return x
}

// list is `for x in v` over a decoded JSON list (anything else panics with errShape).
func list(v any) []any {
	l, ok := v.([]any)
	if !ok {
		panic(errShape{})
	}
	return l
}

// catch runs fn and turns an errShape panic into ok=false.
func catch(fn func() *Results) (r *Results, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if _, shape := p.(errShape); !shape {
				panic(p)
			}
			r, ok = nil, false
		}
	}()
	return fn(), true
}

var (
	jestStart  = pytext.Re(`{\s*"numFailedTestSuites"`)
	mochaStart = pytext.Re(`{\s*"stats"`)
)

// jestAssertions reads Jest's --json report: "<file>-><name>" for every passed or failed
// assertion, name chosen by nameOf.
func jestAssertions(report any, nameOf func(assertion any) string) *Results {
	r := &Results{}
	for _, suite := range list(get(report, "testResults")) {
		file := pyFormat(get(suite, "name"))
		for _, a := range list(get(suite, "assertionResults")) {
			name := file + "->" + nameOf(a)
			switch get(a, "status") {
			case "passed":
				r.PassedTests = append(r.PassedTests, name)
			case "failed":
				r.FailedTests = append(r.FailedTests, name)
			}
		}
	}
	return r
}

// mochaPassesFailures reads Mocha's JSON reporter: the fullTitle of every pass and failure.
func mochaPassesFailures(report any) *Results {
	r := &Results{}
	for _, t := range list(get(report, "passes")) {
		r.PassedTests = append(r.PassedTests, pyFormat(get(t, "fullTitle")))
	}
	for _, t := range list(get(report, "failures")) {
		r.FailedTests = append(r.FailedTests, pyFormat(get(t, "fullTitle")))
	}
	return r
}

// orEmpty is the harness's `asdict(ParserResults())` fallback.
func orEmpty(r *Results, ok bool) *Results {
	if !ok || r == nil {
		return &Results{}
	}
	return r
}

// parseTypescriptJest (coder/code-server) reads Jest's --json report, tests named
// "<file>-><fullName>"; an unreadable report gives the empty dict.
func parseTypescriptJest(log string) *Results {
	report, ok := jsonAfter(log, jestStart)
	if !ok {
		return nil
	}
	r, _ := catch(func() *Results {
		return jestAssertions(report, func(a any) string { return pyFormat(get(a, "fullName")) })
	})
	return r
}

// parseTypescriptJestTW (tailwindcss) reads Jest's --json report up to "wasInterrupted", tests named
// "<file>-><title>".
func parseTypescriptJestTW(log string) *Results {
	report, ok := jsonUntilInterrupted(log, jestStart)
	if !ok {
		return &Results{}
	}
	return orEmpty(catch(func() *Results {
		return jestAssertions(report, func(a any) string { return pyFormat(get(a, "title")) })
	}))
}

// parseJestPR (prettier) is parseTypescriptJestTW naming tests by fullName when an assertion has
// one, else by title.
func parseJestPR(log string) *Results {
	report, ok := jsonUntilInterrupted(log, jestStart)
	if !ok || !truthy(report) {
		return &Results{}
	}
	return orEmpty(catch(func() *Results {
		return jestAssertions(report, func(a any) string {
			if obj, ok := a.(map[string]any); ok {
				if n, ok := obj["fullName"]; ok {
					return pyFormat(n)
				}
			}
			return pyFormat(get(a, "title"))
		})
	}))
}

// truthy is Python's bool() of a decoded JSON value.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case json.Number:
		f, err := t.Float64()
		return err != nil || f != 0
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}

// parseTypescriptMocha (vscode) reads Mocha's JSON reporter; an unreadable report gives the empty
// dict.
func parseTypescriptMocha(log string) *Results {
	report, ok := jsonAfter(log, mochaStart)
	if !ok {
		return nil
	}
	r, _ := catch(func() *Results { return mochaPassesFailures(report) })
	return r
}

// parseTypescriptMochaFileName (material-ui) reads a Mocha JSON report whose tests carry their
// file: "<file>-><fullTitle>" for passed and failed tests; an unreadable report gives the empty
// dict.
func parseTypescriptMochaFileName(log string) *Results {
	report, ok := jsonAfter(log, mochaStart)
	if !ok {
		return nil
	}
	r, _ := catch(func() *Results {
		r := &Results{}
		for _, t := range list(get(report, "tests")) {
			name := pyFormat(get(t, "file")) + "->" + pyFormat(get(t, "fullTitle"))
			switch get(t, "status") {
			case "passed":
				r.PassedTests = append(r.PassedTests, name)
			case "failed":
				r.FailedTests = append(r.FailedTests, name)
			}
		}
		return r
	})
	return r
}

// parseJavascriptMocha (serverless) reads Mocha's JSON reporter; no report gives no tests.
func parseJavascriptMocha(log string) *Results {
	report, ok := jsonAfter(log, mochaStart)
	if !ok || !truthy(report) {
		return &Results{}
	}
	return orEmpty(catch(func() *Results { return mochaPassesFailures(report) }))
}

var (
	jsReporterJSON = pytext.Re(`(?m)(^>.*--reporter json)`)
	tapVersion     = pytext.Re(`(?m)^TAP\sversion\s\d+`)
)

// parseJavascriptGeneric (three.js, svelte) reads Mocha's JSON reporter when the first npm script
// line ("> … --reporter json") runs mocha, else TAP output ("ok …" and "not ok …" lines, named by
// the rest of the line) when the log has a "TAP version N" line, else nothing.
func parseJavascriptGeneric(log string) *Results {
	if m := jsReporterJSON.FindString(log); m != "" && strings.Contains(m, "mocha") {
		return parseJavascriptMocha(log)
	}
	if !tapVersion.MatchString(log) {
		return &Results{}
	}
	r := &Results{}
	for _, line := range pytext.Lines(log) {
		if strings.HasPrefix(line, "ok ") {
			r.PassedTests = append(r.PassedTests, line[3:])
		}
		if strings.HasPrefix(line, "not ok ") {
			r.FailedTests = append(r.FailedTests, line[7:])
		}
	}
	return r
}

// angularColours are the escape codes the Bazel parser removes before reading a line.
var angularColours = strings.NewReplacer("\x1b[0m", "", "\x1b[32m", "", "\x1b[31m", "", "\x1b[1m", "")

// parseBazelAngular (angular) reads `bazel test` result lines "//packages/core/test:test  PASSED
// in 12.3s", naming a test by what comes before PASSED (or FAILED) with one "/" of the leading
// "//" dropped.
func parseBazelAngular(log string) *Results {
	r := &Results{}
	for _, line := range pytext.Lines(log) {
		if pytext.Strip(line) == "" {
			continue
		}
		clean := angularColours.Replace(line)
		if !strings.Contains(clean, "PASSED") && !strings.Contains(clean, "FAILED") {
			continue
		}
		var name string
		if strings.Contains(clean, "PASSED") {
			name = strings.SplitN(clean, "PASSED", 2)[0]
		} else {
			name = strings.SplitN(clean, "FAILED", 2)[0]
		}
		if strings.HasPrefix(name, "//") {
			name = name[1:]
		}
		switch {
		case strings.Contains(line, "PASSED"):
			r.PassedTests = append(r.PassedTests, pytext.Strip(name))
		case strings.Contains(line, "FAILED"):
			r.FailedTests = append(r.FailedTests, pytext.Strip(name))
		}
	}
	return r
}
