package rebench

import (
	"reflect"
	"testing"

	"github.com/swebench-run/swebench-run/eval/logparse"
)

// The SWE-rebench fork's parsers are SWE-bench harness 4.0's: where harness v5 changed them, the
// same log reads differently.
func TestSWERebenchParsers(t *testing.T) {
	log := "PASSED tests/a.py::t1\n" +
		"FAILED tests/a.py::t2 - AssertionError: x - y\n" +
		"SKIPPED [2] tests/a.py:10: needs network\n" +
		"PASSED tests/a.py::p[a b]\n" +
		"\x1b[32mPASSED\x1b[0m tests/a.py::t3\n" +
		"tests/a.py::t4 XFAIL\n" +
		"ERROR tests/a.py::opt[/tmp/x/y.txt]\n"
	tests := []struct {
		name     string
		rebench  map[string]string
		harness5 map[string]string
	}{
		{"parse_log_pytest",
			map[string]string{"tests/a.py::t1": "PASSED", "tests/a.py::t2": "FAILED", "[2]": "SKIPPED", "tests/a.py::p[a": "PASSED", "tests/a.py::opt[/tmp/x/y.txt]": "ERROR"},
			map[string]string{"tests/a.py::t1": "PASSED", "tests/a.py::t2": "FAILED", "tests/a.py::p[a": "PASSED", "tests/a.py::opt[/tmp/x/y.txt]": "ERROR"}},
		{"parse_log_pytest_options",
			map[string]string{"tests/a.py::t1": "PASSED", "tests/a.py::t2": "FAILED", "[2]": "SKIPPED", "tests/a.py::p[a": "PASSED", "tests/a.py::opt[/y.txt]": "ERROR"},
			map[string]string{"tests/a.py::t1": "PASSED", "tests/a.py::t2": "FAILED", "tests/a.py::p[a": "PASSED", "tests/a.py::opt[/y.txt]": "ERROR"}},
		{"parse_log_pytest_v2",
			map[string]string{"tests/a.py::t1": "PASSED", "tests/a.py::t2": "FAILED", "[2]": "SKIPPED", "tests/a.py::p[a": "PASSED", "tests/a.py::t3": "PASSED", "tests/a.py::t4": "XFAIL", "tests/a.py::opt[/tmp/x/y.txt]": "ERROR"},
			map[string]string{"tests/a.py::t1": "PASSED", "tests/a.py::t2": "FAILED", "tests/a.py::p[a b]": "PASSED", "tests/a.py::t3": "PASSED", "tests/a.py::t4": "XFAIL", "tests/a.py::opt[/tmp/x/y.txt]": "ERROR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp, err := Parser(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := rp(log, "o__r-1")
			if !reflect.DeepEqual(got.Statuses(), tt.rebench) {
				t.Errorf("SWE-rebench: got %v, want %v", got.Statuses(), tt.rebench)
			}
			hp, _ := logparse.Get(tt.name)
			got, _ = hp(log, "o__r-1")
			if !reflect.DeepEqual(got.Statuses(), tt.harness5) {
				t.Errorf("harness v5: got %v, want %v", got.Statuses(), tt.harness5)
			}
		})
	}
	if _, err := Parser("parse_log_django"); err == nil {
		t.Error("parse_log_django is not in the fork's table of parser names; want an error")
	}
}
