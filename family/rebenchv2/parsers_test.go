package rebenchv2

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The logs in testdata/logs were written for these tests in the formats the tools print (pytest
// -rA and -v, xdist, sympy's bin/test, django's runner, Surefire/Failsafe, JUnit XML reports,
// Gradle, sbt/ScalaTest, munit, Jest, Mocha, TAP, node:test, CTest, googletest, doctest, plenary,
// XCTest, dotnet test, minitest, test-unit, PHPUnit testdox, Pest, ExUnit, tasty, hspec,
// alcotest, dune, Leiningen, dart test, Julia's Test, testthat, R CMD check, go test, cargo
// test, redis, automake), with the odd lines the parsers have rules for; the *_unicode logs put
// word characters outside ASCII, combining marks and connector punctuation next to the status
// words and names the parsers' \b patterns read (Python's \b is Unicode, Go's ASCII). Each
// testdata/expected/<parser>__<log>.json holds what SWE-rebench-V2's harness
// (lib/agent/log_parsers.py at SWE-rebench/SWE-rebench-V2@c71902a8) returns for that log: the
// tests in the order its dict holds them, or {"error": …} when it raises.

// setOrdered are the parsers that add tests while iterating a Python set, in an order that
// changes from run to run: their maps are compared without order.
var setOrdered = map[string]bool{
	"parse_java_mvn": true, "parse_log_java_mvn": true, "parse_log_haskell_v2": true, "parse_log_ocaml_v2": true,
}

func sortPairs(p [][2]string) {
	sort.Slice(p, func(i, j int) bool { return p[i][0] < p[j][0] })
}

type expectation struct {
	Tests [][2]string `json:"tests"`
	Error string      `json:"error"`
}

func TestParsersAgainstHarness(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "expected", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no expectations: %v", err)
	}
	covered := map[string]bool{}
	for _, f := range files {
		parser, log, ok := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), "__")
		if !ok {
			t.Fatalf("%s: want <parser>__<log>.json", f)
		}
		covered[parser] = true
		t.Run(parser+"/"+log, func(t *testing.T) {
			var want expectation
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			text, err := os.ReadFile(filepath.Join("testdata", "logs", log+".log"))
			if err != nil {
				t.Fatal(err)
			}
			p, err := Parser(parser)
			if err != nil {
				t.Fatal(err)
			}
			m, err := p(string(text), "acme__acme-1")
			if want.Error != "" {
				if err == nil {
					t.Fatalf("got %d tests, want an error (the harness raises %s)", m.Len(), want.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want %d tests", err, len(want.Tests))
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
		})
	}
	for _, name := range ParserNames() {
		if !covered[name] {
			t.Errorf("parser %s has no expectation in testdata/expected", name)
		}
	}
}

func TestParserUnknown(t *testing.T) {
	if _, err := Parser("parse_log_nonesuch"); err == nil || !strings.Contains(err.Error(), "parse_log_pytest") {
		t.Errorf("got %v, want an error listing the known parsers", err)
	}
}
