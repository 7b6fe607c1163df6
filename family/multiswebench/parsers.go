package multiswebench

import (
	"fmt"
	"strings"
)

// parser reads a test run's log the way one repository's parse_log does; number is the pull
// request's (a few repositories read logs differently by pull request).
type parser interface {
	parse(log string, number int) (*TestResult, error)
}

type repository struct {
	tool string // the shared parser, as documented in docs/datasets.md
	p    parser
}

// repositories maps every repository of Multi-SWE-bench, mini and flash (the harness registers
// them as "org/repo", case as on GitHub) to the parser its Instance.parse_log amounts to.
var repositories = map[string]repository{
	// Java
	"alibaba/fastjson2":                {"Maven Surefire summary lines", surefireSummary{}},
	"apache/dubbo":                     {"Maven Surefire summary lines, colours removed", surefireSummary{stripANSI: true}},
	"fasterxml/jackson-core":           {"Maven Surefire summary lines, colours removed", surefireSummary{stripANSI: true}},
	"fasterxml/jackson-databind":       {"Maven Surefire summary lines, colours removed", surefireSummary{stripANSI: true}},
	"fasterxml/jackson-dataformat-xml": {"Maven Surefire summary lines, colours removed", surefireSummary{stripANSI: true}},
	"google/gson":                      {"Maven Surefire 2 Running blocks", surefireBlocks{}},
	"elastic/logstash":                 {"Gradle tasks and test events", gradle},
	"mockito/mockito":                  {"Gradle tasks and test events", gradle},
	"googlecontainertools/jib":         {"Gradle tasks and test events, jib's precedence", gradleJib},
	// TypeScript
	"darkreader/darkreader": {"Jest suites and tests, darkreader's patterns", jestDarkreader},
	"mui/material-ui":       {"Mocha JSON reporter, file:fullTitle", materialUI},
	"vuejs/core":            {"Vitest", vitest},
	// JavaScript
	"anuraghazra/github-readme-stats": {"Jest suites and tests", jest},
	"iamkun/dayjs":                    {"Jest suites and tests", jest},
	"Kong/insomnia":                   {"Jest, insomnia's patterns", jestInsomnia},
	"axios/axios":                     {"Mocha spec reporter", mochaSpec},
	"expressjs/express":               {"Mocha JSON reporter (spec reporter for pulls 4212, 4852, 5555, 5841)", express},
	"sveltejs/svelte":                 {"Vitest", vitest},
	// Go
	"cli/cli":           {"go test -v", goTest},
	"grpc/grpc-go":      {"go test -v, subtests as their parent", goTestParents},
	"zeromicro/go-zero": {"go test -v, subtests as their parent", goTestParents},
	// Rust
	"BurntSushi/ripgrep": {"cargo test", cargoTest},
	"clap-rs/clap":       {"cargo test", cargoTest},
	"nushell/nushell":    {"cargo test", cargoTest},
	"rayon-rs/rayon":     {"cargo test", cargoTest},
	"serde-rs/serde":     {"cargo test", cargoTest},
	"sharkdp/bat":        {"cargo test", cargoTest},
	"sharkdp/fd":         {"cargo test", cargoTest},
	"tokio-rs/bytes":     {"cargo test", cargoTest},
	"tokio-rs/tokio":     {"cargo test", cargoTest},
	"tokio-rs/tracing":   {"cargo test", cargoTest},
	// C
	"facebook/zstd":  {"automake test driver (one verdict from a keyword for pulls 1230-1748 and 1831-2703)", zstd},
	"jqlang/jq":      {"automake test driver", automake},
	"ponylang/ponyc": {"googletest", googletest},
	// C++
	"catchorg/Catch2":     {"CTest and CMake checks, lower-cased", ctestCatch2},
	"fmtlib/fmt":          {"CTest", ctest},
	"nlohmann/json":       {"CTest", ctest},
	"simdjson/simdjson":   {"CTest", ctest},
	"yhirose/cpp-httplib": {"googletest", googletest},
	// Python (Multi-SWE-bench mini only)
	"astropy/astropy":           {"pytest, colour codes removed", pytestLines{escapes: true}},
	"django/django":             {"Django test runner", djangoRunner{}},
	"matplotlib/matplotlib":     {"pytest, mouse buttons as numbers", pytestLines{mouseButtons: true}},
	"mwaskom/seaborn":           {"pytest, seaborn's reading", seabornLines{}},
	"psf/requests":              {"pytest, path parameters shortened", pytestLines{options: true}},
	"pydata/xarray":             {"pytest", pytestLines{}},
	"pylint-dev/pylint":         {"pytest, path parameters shortened", pytestLines{options: true}},
	"pytest-dev/pytest":         {"pytest", pytestLines{}},
	"scikit-learn/scikit-learn": {"pytest, colour codes removed", pytestLines{escapes: true}},
	"sphinx-doc/sphinx":         {"pytest, colour codes removed", pytestLines{escapes: true}},
	"sympy/sympy":               {"sympy test runner", sympyRunner{}},
}

// ParseLog reads a test run's log as the harness's parse_log of org/repo does (for pull request
// number). An error means the harness could not read it either: the repository has no parser,
// or the parser raises on this log (a test in two sets, a test line before any suite, a JSON
// object that is not a report); the harness then counts the instance as an error.
func ParseLog(org, repo string, number int, log string) (*TestResult, error) {
	r, ok := repositories[org+"/"+repo]
	if !ok {
		return nil, fmt.Errorf("repository %s/%s has no Multi-SWE-bench parser (known: %s); the harness registers repositories by exact org/repo", org, repo, strings.Join(Repositories(), ", "))
	}
	res, err := r.p.parse(log, number)
	if err != nil {
		return nil, fmt.Errorf("%s/%s:pr-%d: parse_log (%s): %w", org, repo, number, r.tool, err)
	}
	return res, nil
}

// Repositories lists the repositories ParseLog knows, sorted.
func Repositories() []string { return sortedKeys(repositories) }

// Tool names the shared parser a repository's log is read with ("" when unknown).
func Tool(org, repo string) string { return repositories[org+"/"+repo].tool }
