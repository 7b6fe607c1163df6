package eval

import (
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
)

// testLog wraps test output in the eval script's markers, as `set -x` prints them.
func testLog(body string, after ...string) string {
	return "+ git apply -v -\n+ : '>>>>> Start Test Output'\n" + body + "\n+ : '>>>>> End Test Output'\n" + strings.Join(after, "\n")
}

func row(parser, evalType string, f2p, p2p []string) dataset.Instance {
	return dataset.Instance{InstanceID: "o__r-1", LogParser: parser, EvalType: evalType, FailToPass: f2p, PassToPass: p2p}
}

func TestGrade(t *testing.T) {
	py := func(f2p string, p2p ...string) dataset.Instance {
		return row("parse_log_pytest", EvalPassAndFail, []string{f2p}, p2p)
	}
	one := []string{"t.py::a"}
	tests := []struct {
		name         string
		inst         dataset.Instance
		log          string
		wantApplied  bool
		wantResolved bool
		wantF2P      TestResults
		wantP2P      TestResults
	}{
		{name: "all pass", inst: py(one[0], "t.py::b"), log: testLog("PASSED t.py::a\nPASSED t.py::b"),
			wantApplied: true, wantResolved: true, wantF2P: tr(one, nil), wantP2P: tr([]string{"t.py::b"}, nil)},
		{name: "XFAIL passes", inst: py(one[0]), log: testLog("XFAIL t.py::a - flaky"),
			wantApplied: true, wantResolved: true, wantF2P: tr(one, nil), wantP2P: tr(nil, nil)},
		{name: "missing test fails", inst: py(one[0], "t.py::b"), log: testLog("PASSED t.py::b"),
			wantApplied: true, wantF2P: tr(nil, one), wantP2P: tr([]string{"t.py::b"}, nil)},
		{name: "skipped fails FAIL_TO_PASS and keeps PASS_TO_PASS", inst: py(one[0], "t.py::b"), log: testLog("SKIPPED t.py::a\nSKIPPED t.py::b"),
			wantApplied: true, wantF2P: tr(nil, one), wantP2P: tr([]string{"t.py::b"}, nil)},
		{name: "error fails", inst: py(one[0]), log: testLog("ERROR t.py::a - boom"),
			wantApplied: true, wantF2P: tr(nil, one), wantP2P: tr(nil, nil)},
		{name: "odd status is neither, like the harness", inst: py(one[0], "t.py::b"), log: testLog("PASSED: t.py::a\nPASSED t.py::b"),
			wantApplied: true, wantResolved: true, wantF2P: tr(nil, nil), wantP2P: tr([]string{"t.py::b"}, nil)},
		{name: "no markers: no usable output", inst: py(one[0]), log: "PASSED t.py::a"},
		{name: "harness apply-failure marker", inst: py(one[0]), log: testLog("PASSED t.py::a", ">>>>> Patch Apply Failed")},
		{name: "harness timeout marker", inst: py(one[0]), log: testLog("PASSED t.py::a", ">>>>> Tests Timed Out")},
		{name: "spoofed PASSED with non-zero test exit code", inst: py(one[0]),
			log: testLog("PASSED t.py::a\n+ SWEBENCH_TEST_EXIT_CODE=1", "+ echo '>>>>> Test Exit Code: 1'", ">>>>> Test Exit Code: 1")},
		{name: "non-zero exit code with a real failure is graded", inst: py(one[0], "t.py::b"),
			log:         testLog("PASSED t.py::a\nFAILED t.py::b - x", ">>>>> Test Exit Code: 1"),
			wantApplied: true, wantF2P: tr(one, nil), wantP2P: tr(nil, []string{"t.py::b"})},
		{name: "zero exit code", inst: py(one[0]), log: testLog("PASSED t.py::a", ">>>>> Test Exit Code: 0"),
			wantApplied: true, wantResolved: true, wantF2P: tr(one, nil), wantP2P: tr(nil, nil)},
		{name: "results outside the markers are found in the whole log", inst: py(one[0]), log: "PASSED t.py::a\n" + testLog("collected 1 item"),
			wantApplied: true, wantResolved: true, wantF2P: tr(one, nil), wantP2P: tr(nil, nil)},
		{name: "carriage returns are line ends", inst: py(one[0]), log: testLog("t.py .\r\nprogress 10%\rPASSED t.py::a"),
			wantApplied: true, wantResolved: true, wantF2P: tr(one, nil), wantP2P: tr(nil, nil)},
		{name: "second start marker ends the slice", inst: py(one[0], "t.py::b"),
			log:         "+ : '>>>>> Start Test Output'\nPASSED t.py::a\n+ : '>>>>> Start Test Output'\nPASSED t.py::b\n+ : '>>>>> End Test Output'\n",
			wantApplied: true, wantF2P: tr(one, nil), wantP2P: tr(nil, []string{"t.py::b"})},
		{name: "pass_and_fail with no results: every test fails", inst: py(one[0]), log: testLog("ImportError: no module"),
			wantApplied: true, wantF2P: tr(nil, one), wantP2P: tr(nil, nil)},
		{name: "truncated parametrised id matches by prefix", inst: py("t.py::test_x[log(photon"),
			log:         testLog("PASSED t.py::test_x[log(photon)-a]\nXFAIL t.py::test_x[log(photon)-b]"),
			wantApplied: true, wantResolved: true, wantF2P: tr([]string{"t.py::test_x[log(photon"}, nil), wantP2P: tr(nil, nil)},
		{name: "truncated id with disagreeing candidates fails", inst: py("t.py::test_x[log(photon"),
			log:         testLog("PASSED t.py::test_x[log(photon)-a]\nFAILED t.py::test_x[log(photon)-b]"),
			wantApplied: true, wantF2P: tr(nil, []string{"t.py::test_x[log(photon"}), wantP2P: tr(nil, nil)},
		{name: "fail_only: a suite that never ran is not usable", inst: row("parse_log_marked", EvalFailOnly, one, nil),
			log: testLog("Error: browser failed to launch")},
		{name: "fail_only: a clean run resolves", inst: row("parse_log_marked", EvalFailOnly, one, []string{"t.py::b"}),
			log:         testLog("Started\n..\n2 specs, 0 failures"),
			wantApplied: true, wantResolved: true, wantF2P: tr(one, nil), wantP2P: tr([]string{"t.py::b"}, nil)},
		{name: "fail_only: only FAILED fails", inst: row("parse_log_marked", EvalFailOnly, []string{"Parser works", "Other"}, nil),
			log:         testLog("1) Parser works\n2 specs, 1 failure"),
			wantApplied: true, wantF2P: tr([]string{"Other"}, []string{"Parser works"}), wantP2P: tr(nil, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Grade(tt.inst, tt.log)
			if err != nil {
				t.Fatal(err)
			}
			if got.PatchSuccessfullyApplied != tt.wantApplied || got.Resolved != tt.wantResolved || !got.PatchExists || got.PatchIsNone {
				t.Fatalf("got applied=%t resolved=%t exists=%t, want applied=%t resolved=%t exists=true",
					got.PatchSuccessfullyApplied, got.Resolved, got.PatchExists, tt.wantApplied, tt.wantResolved)
			}
			if !tt.wantApplied {
				if got.TestsStatus != nil {
					t.Errorf("got tests_status %+v for an unusable log, want none", got.TestsStatus)
				}
				return
			}
			if !reflect.DeepEqual(got.TestsStatus.FailToPass, tt.wantF2P) || !reflect.DeepEqual(got.TestsStatus.PassToPass, tt.wantP2P) {
				t.Errorf("got F2P %+v P2P %+v\nwant F2P %+v P2P %+v", got.TestsStatus.FailToPass, got.TestsStatus.PassToPass, tt.wantF2P, tt.wantP2P)
			}
		})
	}
}

func tr(success, failure []string) TestResults {
	if success == nil {
		success = []string{}
	}
	if failure == nil {
		failure = []string{}
	}
	return TestResults{Success: success, Failure: failure}
}

func TestGradeRejectsUngradableRows(t *testing.T) {
	tests := []struct {
		name    string
		inst    dataset.Instance
		wantErr string
	}{
		{"unknown eval_type", row("parse_log_pytest", "pass_some", nil, nil), "eval_type"},
		{"unknown parser", row("parse_log_cobol", "", nil, nil), "parse_log_cobol"},
		{"no parser", row("", "", nil, nil), "log_parser"},
		{"parser rejects the log", dataset.Instance{InstanceID: "jekyll__jekyll-1", LogParser: "parse_log_jekyll"}, "jekyll__jekyll-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Grade(tt.inst, testLog("PASSED a"))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestCheckInstancesNamesRowsWithoutAnEvalScript(t *testing.T) {
	err := CheckInstances([]dataset.Instance{{InstanceID: "a__b-1"}, {InstanceID: "a__b-2", EvalScript: "pytest", LogParser: "parse_log_cobol"}})
	for _, want := range []string{"1 rows have no eval_script", "a__b-1", "1 rows cannot be graded", "parse_log_cobol"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %q", err, want)
		}
	}
}

func TestMarshalReportLikePython(t *testing.T) {
	r := InstanceReport{InstanceID: "o__r-1", PatchExists: true}
	got, err := MarshalReport(r)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n    \"o__r-1\": {\n        \"patch_is_None\": false,\n        \"patch_exists\": true,\n        \"patch_successfully_applied\": false,\n        \"resolved\": false\n    }\n}"
	if string(got) != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	ts := TestsStatus{FailToPass: tr([]string{"t::a[é<>&😀]"}, nil), PassToPass: tr(nil, nil), FailToFail: tr(nil, nil), PassToFail: tr(nil, nil)}
	r = InstanceReport{InstanceID: "o__r-1", PatchExists: true, PatchSuccessfullyApplied: true, TestsStatus: &ts}
	got, err = MarshalReport(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"t::a[\u00e9<>&\ud83d\ude00]"`) {
		t.Errorf("got %s, want non-ASCII escaped as Python's ensure_ascii does and <>& kept", got)
	}
	back, _, err := ReadReportBytes(got, "o__r-1")
	if err != nil || back.InstanceID != "o__r-1" || back.TestsStatus.FailToPass.Success[0] != "t::a[é<>&😀]" {
		t.Errorf("round trip: got %+v, %v", back, err)
	}
}

func TestEvalScriptRecordsTestExitCode(t *testing.T) {
	in := "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\npytest -rA t.py\n: '>>>>> End Test Output'\ngit checkout abc t.py\n"
	want := "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\npytest -rA t.py\nSWEBENCH_TEST_EXIT_CODE=$?\n: '>>>>> End Test Output'\necho \">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE\"\ngit checkout abc t.py\n"
	if got := EvalScript(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	noMarker := "#!/bin/bash\nmake test\n"
	if got, want := EvalScript(noMarker), "#!/bin/bash\nset -uxo pipefail\nmake test\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
