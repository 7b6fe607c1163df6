package smith

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The logs in testdata/logs were written for these tests in the formats the tools print (pytest
// --verbose, pytest-xdist, pytest -rA, unittest -v, tornado's runner, go test -v, cargo test,
// Surefire's plain report, Gradle's JUnit XML, Jest, Mocha, vitest, node:test, Karma, Jasmine,
// CTest, googletest, Catch2, Boost.Test, CppUnit, dotnet test, PHPUnit testdox, redis and
// automake), with the odd lines the parsers have rules for. Each
// testdata/expected/<parser>__<log>.json holds what the parser of SWE-smith's repository
// profiles (swesmith/profiles at SWE-bench/SWE-smith@4b9fc1c5) returns for that log: the tests
// in its dict's order, or {"error": …} when it raises. testdata/fixture_expected holds the same for
// the two raw logs of SWE-smith's own tests (tests/test_logs/test_output).

// setOrdered are the parsers that add tests while iterating a Python set, in an order that
// changes from run to run: their maps are compared without order.
var setOrdered = map[string]bool{"boost-test": true}

func sortPairs(p [][2]string) {
	sort.Slice(p, func(i, j int) bool { return p[i][0] < p[j][0] })
}

type expectation struct {
	Tests [][2]string `json:"tests"`
	Error string      `json:"error"`
}

func checkParser(t *testing.T, parser, logPath, wantPath string) {
	t.Helper()
	data, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	var want expectation
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("%s: %v", wantPath, err)
	}
	text, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParserNamed(parser)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p(string(text))
	if want.Error != "" {
		if err == nil {
			t.Fatalf("got %d tests, want an error (the harness raises %s)", m.Len(), want.Error)
		}
		return
	}
	if err != nil {
		t.Fatalf("got error %v", err)
	}
	got := [][2]string{}
	for _, k := range m.Keys() {
		s, _ := m.Get(k)
		got = append(got, [2]string{k, s})
	}
	if want.Tests == nil {
		want.Tests = [][2]string{}
	}
	if setOrdered[parser] {
		sortPairs(got)
		sortPairs(want.Tests)
	}
	if !reflect.DeepEqual(got, want.Tests) {
		t.Errorf("got  %q\nwant %q", got, want.Tests)
	}
}

func TestParsersAgainstHarness(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "expected", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no expectations: %v", err)
	}
	covered := map[string]bool{}
	for _, f := range files {
		parser, log, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), "__")
		covered[parser] = true
		t.Run(parser+"/"+log, func(t *testing.T) {
			checkParser(t, parser, filepath.Join("testdata", "logs", log+".log"), f)
		})
	}
	for name := range parsers {
		if !covered[name] {
			t.Errorf("parser %s has no expectation in testdata/expected", name)
		}
	}
}

// TestParsersOnSWESmithLogs parses the raw logs SWE-smith's own tests use (a Python profile's
// pytest run of django-money, the Go profile's `go test -v` of gin).
func TestParsersOnSWESmithLogs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "fixture_expected", "*.json"))
	if err != nil || len(files) != 2 {
		t.Fatalf("want 2 expectations, got %d (%v)", len(files), err)
	}
	for _, f := range files {
		parser, log, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), "__")
		t.Run(log, func(t *testing.T) {
			checkParser(t, parser, testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "test_output", log+".txt"), f)
		})
	}
}
