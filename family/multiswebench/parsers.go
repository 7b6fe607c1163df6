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
	// swebenchImage: the instance images are SWE-bench's with the harness's scripts added (the
	// Python repositories of mini).
	swebenchImage bool
}

// sealFork is the seal-research fork of the harness (github.com/seal-research/multi-swe-bench, read
// at 918ac82c6add8e62bf8c1db3c9c339c38b402a8f), whose repositories (google/guava) came with its
// rows in multi-swe-bench/multi-swe-bench pull request 39; upstream has no parser for them.
const sealFork = "seal-research/multi-swe-bench"

// repositories maps every repository of Multi-SWE-bench, mini and flash (the harness registers
// them as "org/repo", case as on GitHub) to the parser its Instance.parse_log amounts to: the
// upstream harness's (multi-swe-bench/multi-swe-bench, multi_swe_bench/harness/repos/<language>/
// <org>/<repo>.py), or a fork's where upstream has none (forks).
var repositories = map[string]repository{
	// Java
	"alibaba/fastjson2":                {"Maven Surefire summary lines", surefireSummary{}, false},
	"apache/dubbo":                     {"Maven Surefire summary lines, colours removed", surefireSummary{stripANSI: true}, false},
	"fasterxml/jackson-core":           {"Maven Surefire summary lines, colours removed", surefireSummary{stripANSI: true}, false},
	"fasterxml/jackson-databind":       {"Maven Surefire summary lines, colours removed", surefireSummary{stripANSI: true}, false},
	"fasterxml/jackson-dataformat-xml": {"Maven Surefire summary lines, colours removed", surefireSummary{stripANSI: true}, false},
	"google/gson":                      {"Maven Surefire 2 Running blocks", surefireBlocks{}, false},
	"google/guava":                     {"Maven Surefire 2 Running lines and their summary", surefireAdjacent{}, false},
	"elastic/logstash":                 {"Gradle tasks and test events", gradle, false},
	"mockito/mockito":                  {"Gradle tasks and test events", gradle, false},
	"googlecontainertools/jib":         {"Gradle tasks and test events, jib's precedence", gradleJib, false},
	// TypeScript
	"darkreader/darkreader": {"Jest suites and tests, darkreader's patterns", jestDarkreader, false},
	"mui/material-ui":       {"Mocha JSON reporter, file:fullTitle", materialUI, false},
	"vuejs/core":            {"Vitest", vitest, false},
	// JavaScript
	"anuraghazra/github-readme-stats": {"Jest suites and tests", jest, false},
	"iamkun/dayjs":                    {"Jest suites and tests", jest, false},
	"Kong/insomnia":                   {"Jest, insomnia's patterns", jestInsomnia, false},
	"axios/axios":                     {"Mocha spec reporter", mochaSpec, false},
	"expressjs/express":               {"Mocha JSON reporter (spec reporter for pulls 4212, 4852, 5555, 5841)", express, false},
	"sveltejs/svelte":                 {"Vitest", vitest, false},
	// Go
	"cli/cli":           {"go test -v", goTest, false},
	"grpc/grpc-go":      {"go test -v, subtests as their parent", goTestParents, false},
	"zeromicro/go-zero": {"go test -v, subtests as their parent", goTestParents, false},
	// Rust
	"BurntSushi/ripgrep": {"cargo test", cargoTest, false},
	"clap-rs/clap":       {"cargo test", cargoTest, false},
	"nushell/nushell":    {"cargo test", cargoTest, false},
	"rayon-rs/rayon":     {"cargo test", cargoTest, false},
	"serde-rs/serde":     {"cargo test", cargoTest, false},
	"sharkdp/bat":        {"cargo test", cargoTest, false},
	"sharkdp/fd":         {"cargo test", cargoTest, false},
	"tokio-rs/bytes":     {"cargo test", cargoTest, false},
	"tokio-rs/tokio":     {"cargo test", cargoTest, false},
	"tokio-rs/tracing":   {"cargo test", cargoTest, false},
	// C
	"facebook/zstd":  {"automake test driver (one verdict from a keyword for pulls 1230-1748 and 1831-2703)", zstd, false},
	"jqlang/jq":      {"automake test driver", automake, false},
	"ponylang/ponyc": {"googletest", googletest, false},
	// C++
	"catchorg/Catch2":     {"CTest and CMake checks, lower-cased", ctestCatch2, false},
	"fmtlib/fmt":          {"CTest", ctest, false},
	"nlohmann/json":       {"CTest", ctest, false},
	"simdjson/simdjson":   {"CTest", ctest, false},
	"yhirose/cpp-httplib": {"googletest", googletest, false},
	// Python (Multi-SWE-bench mini only)
	"astropy/astropy":           {"pytest, colour codes removed", pytestLines{escapes: true}, true},
	"django/django":             {"Django test runner", djangoRunner{}, true},
	"matplotlib/matplotlib":     {"pytest, mouse buttons as numbers", pytestLines{mouseButtons: true}, true},
	"mwaskom/seaborn":           {"pytest, seaborn's reading", seabornLines{}, true},
	"psf/requests":              {"pytest, path parameters shortened", pytestLines{options: true}, true},
	"pydata/xarray":             {"pytest", pytestLines{}, true},
	"pylint-dev/pylint":         {"pytest, path parameters shortened", pytestLines{options: true}, true},
	"pytest-dev/pytest":         {"pytest", pytestLines{}, true},
	"scikit-learn/scikit-learn": {"pytest, colour codes removed", pytestLines{escapes: true}, true},
	"sphinx-doc/sphinx":         {"pytest, colour codes removed", pytestLines{escapes: true}, true},
	"sympy/sympy":               {"sympy test runner", sympyRunner{}, true},
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

// forks names the harness fork each repository's parser comes from where it is not the upstream
// harness's.
var forks = map[string]string{
	"google/guava": sealFork, // multi_swe_bench/harness/repos/java/google/guava.py
}

// Tool names the shared parser a repository's log is read with ("" when unknown).
func Tool(org, repo string) string { return repositories[org+"/"+repo].tool }

// Fork names the harness fork a repository's parser comes from: "" for the upstream harness (and
// for a repository ParseLog does not know), sealFork for google/guava.
func Fork(org, repo string) string { return forks[org+"/"+repo] }
