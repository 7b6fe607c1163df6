package gym

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
)

// loadRows loads testdata/rows.jsonl: SWE-Gym-shaped rows written for these tests (the columns of
// SWE-Gym/SWE-Gym: SWE-bench's, no eval_script), one per repository of the fork's
// specifications, with test patches that modify, add and touch data files.
func loadRows(t *testing.T) []dataset.Instance {
	t.Helper()
	l, err := dataset.Load(context.Background(), filepath.Join("testdata", "rows.jsonl"), dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Instances
}

// TestEvalScriptGolden compares the eval scripts with testdata/scripts/<id>.sh: the scripts SWE-Gym's
// harness fork builds for the same rows, make_test_spec(row).eval_script of
// swebench/harness/test_spec.py (SWE-Gym/SWE-Bench-Fork at
// 242429c188fcfd06aad13fce9a54d450470bf0ac), run by python3 on testdata/rows.jsonl as
// testdata/scripts/README.md says. They are never written from this package.
func TestEvalScriptGolden(t *testing.T) {
	for _, inst := range loadRows(t) {
		t.Run(inst.InstanceID, func(t *testing.T) {
			got, err := EvalScript(&inst)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "scripts", inst.InstanceID+".sh")
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (generate it with the fork's code: testdata/scripts/README.md)", err)
			}
			if got != string(want) {
				t.Errorf("eval script differs from %s, the fork's:\n%s", golden, got)
			}
		})
	}
}

// TestEvalScriptParts checks the parts of the fork's script that depend on the row.
func TestEvalScriptParts(t *testing.T) {
	rows := map[string]dataset.Instance{}
	for _, inst := range loadRows(t) {
		rows[inst.InstanceID] = inst
	}
	tests := []struct {
		id   string
		want []string
	}{
		// Data files are not test directives; added files are run but not reset.
		{"getmoto__moto-7365", []string{
			"\nmake init\n",
			"\ngit checkout 082784c07273e7884f2ad679c15eac67c10a569c tests/test_dynamodb/test_dynamodb.py tests/test_dynamodb/data/items.json\n",
			"\npytest -n0 -rA tests/test_dynamodb/test_dynamodb.py tests/test_core/test_account_id.py\n",
		}},
		// mypy runs the test cases the test patch names.
		{"python__mypy-15327", []string{"\npytest -n0 -rA -k \"testClassVarAssign or testClassVarNewIssue15327\"\n"}},
		// conan exports PYTHONPATH first.
		{"conan-io__conan-14795", []string{"cd /testbed\nexport PYTHONPATH=${PYTHONPATH:-}:$(pwd)\ngit config --global --add safe.directory /testbed\n"}},
		// bokeh 2.x's install holds a newline inside a quoted string.
		{"bokeh__bokeh-12867", []string{"printf \"1\n\" | python setup.py develop; bokeh sampledata;\n"}},
		// The repository's case does not matter.
		{"Project-MONAI__MONAI-6034", []string{"\npytest -rA  tests/test_to_tensor.py\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			inst := rows[tt.id]
			got, err := EvalScript(&inst)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, "#!/bin/bash\nset -xo pipefail\nsource /opt/miniconda3/bin/activate\nconda activate testbed\ncd /testbed\n") {
				t.Errorf("script does not start as the fork's:\n%s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("script lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestSpecErrors(t *testing.T) {
	tests := []struct {
		name      string
		inst      dataset.Instance
		wantField string
		wantText  string
	}{
		{"unknown repository", dataset.Instance{InstanceID: "django__django-1", Repo: "django/django", Version: "3.0", BaseCommit: "abc"}, "repo", "getmoto/moto"},
		{"unknown version", dataset.Instance{InstanceID: "getmoto__moto-1", Repo: "getmoto/moto", Version: "9.9", BaseCommit: "abc"}, "version", "5.0"},
		{"no base commit", dataset.Instance{InstanceID: "getmoto__moto-1", Repo: "getmoto/moto", Version: "5.0"}, "base_commit", "checks the test files out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := EvalScript(&tt.inst)
			var fe *dataset.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.wantField || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("got %v, want a FieldError on %s mentioning %q", err, tt.wantField, tt.wantText)
			}
			if !strings.Contains(err.Error(), tt.inst.InstanceID) {
				t.Errorf("error %q does not name the instance", err)
			}
		})
	}
}

func TestDefaultImage(t *testing.T) {
	for id, want := range map[string]string{
		"getmoto__moto-7365":        "docker.io/xingyaoww/sweb.eval.x86_64.getmoto_s_moto-7365:latest",
		"Project-MONAI__MONAI-6034": "docker.io/xingyaoww/sweb.eval.x86_64.project-monai_s_monai-6034:latest",
	} {
		if got := DefaultImage(id); got != want {
			t.Errorf("DefaultImage(%q) = %q, want %q", id, got, want)
		}
	}
}

// pytestLog is the tail of an eval script's output as the fork's harness sees it: the test
// patch applied by `git apply -v`, then pytest -rA's short test summary (pytest's format).
const pytestLog = `+ git apply -v -
Checking patch tests/test_main.py...
Applied patch tests/test_main.py cleanly.
+ pytest -n0 -rA tests/test_main.py
============================= test session starts ==============================
collected 6 items

tests/test_main.py ..F.sx                                               [100%]

=========================== short test summary info ============================
PASSED tests/test_main.py::test_a
PASSED tests/test_main.py::test_b
FAILED tests/test_main.py::test_c - AssertionError: assert 1 == 2
PASSED tests/test_main.py::test_d
SKIPPED [1] tests/test_main.py:40: needs network
XFAIL tests/test_main.py::test_f - reason: known bug
ERROR tests/test_main.py::test_g - fixture 'db' not found
==================== 1 failed, 3 passed, 1 skipped, 1 xfailed in 0.12s =====================
+ git checkout abc tests/test_main.py
`

func TestGrade(t *testing.T) {
	tr := func(s, f []string) eval.TestResults {
		if s == nil {
			s = []string{}
		}
		if f == nil {
			f = []string{}
		}
		return eval.TestResults{Success: s, Failure: f}
	}
	const a, b, c, d, f, g, x = "tests/test_main.py::test_a", "tests/test_main.py::test_b", "tests/test_main.py::test_c",
		"tests/test_main.py::test_d", "tests/test_main.py::test_f", "tests/test_main.py::test_g", "tests/test_main.py::test_missing"
	row := func(f2p, p2p []string) *dataset.Instance {
		return &dataset.Instance{InstanceID: "getmoto__moto-1", Repo: "getmoto/moto", Version: "5.0", FailToPass: f2p, PassToPass: p2p}
	}
	tests := []struct {
		name         string
		inst         *dataset.Instance
		log          string
		wantApplied  bool
		wantResolved bool
		wantF2P      eval.TestResults
		wantP2P      eval.TestResults
	}{
		{"passed and xfail pass", row([]string{a, f}, []string{b, d}), pytestLog, true, true, tr([]string{a, f}, nil), tr([]string{b, d}, nil)},
		{"failed, error and missing tests fail", row([]string{a, c}, []string{g, x}), pytestLog, true, false, tr([]string{a}, []string{c}), tr(nil, []string{g, x})},
		// The skip summary's "[1]" is recorded as a test; a SKIPPED test counts neither way.
		{"skipped tests count neither way", row([]string{"[1]"}, []string{b}), pytestLog, true, true, tr(nil, nil), tr([]string{b}, nil)},
		{"empty categories resolve", row([]string{}, []string{}), pytestLog, true, true, tr(nil, nil), tr(nil, nil)},
		{"test patch did not apply", row([]string{a}, nil), strings.Replace(pytestLog, "Applied patch", "error: patch failed", 1), false, false, eval.TestResults{}, eval.TestResults{}},
		{"harness error marker", row([]string{a}, nil), pytestLog + ">>>>> Tests Errored\n", false, false, eval.TestResults{}, eval.TestResults{}},
		{"CRLF log", row([]string{a}, []string{b}), strings.ReplaceAll(pytestLog, "\n", "\r\n"), true, true, tr([]string{a}, nil), tr([]string{b}, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Grade(tt.inst, tt.log)
			if err != nil {
				t.Fatal(err)
			}
			if got.PatchSuccessfullyApplied != tt.wantApplied || got.Resolved != tt.wantResolved || !got.PatchExists {
				t.Fatalf("got applied %t resolved %t exists %t, want applied %t resolved %t", got.PatchSuccessfullyApplied, got.Resolved, got.PatchExists, tt.wantApplied, tt.wantResolved)
			}
			if !tt.wantApplied {
				if got.TestsStatus != nil {
					t.Errorf("got tests_status %+v for an unusable log", got.TestsStatus)
				}
				return
			}
			if !reflect.DeepEqual(got.TestsStatus.FailToPass, tt.wantF2P) || !reflect.DeepEqual(got.TestsStatus.PassToPass, tt.wantP2P) {
				t.Errorf("got F2P %+v P2P %+v, want %+v %+v", got.TestsStatus.FailToPass, got.TestsStatus.PassToPass, tt.wantF2P, tt.wantP2P)
			}
		})
	}
}

// TestPydanticParser reads pydantic's pytest output (-vv, classic console style, colours) as the
// fork's parse_log_pytest_pydantic does.
func TestPydanticParser(t *testing.T) {
	log := "Applied patch tests/test_main.py cleanly.\n" +
		"tests/test_main.py::test_success \x1b[32mPASSED\x1b[0m\n" +
		"tests/test_main.py::test_model_post_init FAILED [ 50%]\n" +
		"\x1b[31mFAILED\x1b[0m tests/test_main.py::test_other - AssertionError\n" +
		"tests/test_main.py::test_skipped SKIPPED (not now)\n"
	inst := &dataset.Instance{InstanceID: "pydantic__pydantic-1", Repo: "pydantic/pydantic", Version: "2.6",
		FailToPass: []string{"tests/test_main.py::test_model_post_init"}, PassToPass: []string{"tests/test_main.py::test_success", "tests/test_main.py::test_other"}}
	got, err := Grade(inst, log)
	if err != nil {
		t.Fatal(err)
	}
	ts := got.TestsStatus
	if got.Resolved || ts == nil || !reflect.DeepEqual(ts.FailToPass.Failure, []string{"tests/test_main.py::test_model_post_init"}) ||
		!reflect.DeepEqual(ts.PassToPass.Success, []string{"tests/test_main.py::test_success"}) ||
		!reflect.DeepEqual(ts.PassToPass.Failure, []string{"tests/test_main.py::test_other"}) {
		t.Errorf("got %+v", got)
	}
	m, err := parsePytestPydantic(log)
	if err != nil {
		t.Fatal(err)
	}
	// "SKIPPED (not now)" does not end with a status word: not recorded.
	if s, ok := m.Get("tests/test_main.py::test_skipped"); ok {
		t.Errorf("test_skipped recorded as %q", s)
	}
	if _, err := parsePytestPydantic("PASSED\n"); err == nil {
		t.Error("a bare status line: got no error, want one (the fork's parser raises IndexError)")
	}
}

// TestPydanticParserUnicode reads lines with non-ASCII names, spaces and digits as the fork's
// parse_log_pytest_pydantic reads them: Python 3 str patterns, whose \s and \d are Unicode. The
// expected maps are the fork's output (SWE-Gym/SWE-Bench-Fork at 242429c1,
// swebench/harness/log_parsers.py, MAP_REPO_TO_PARSER["pydantic/pydantic"], run by python3 on
// these logs): an em space before "[ 50%]" is collapsed with it, a colour code of Arabic-Indic
// digits is removed, NEL and no-break spaces split words; "FAILED" with a no-break space before
// its progress raises IndexError there.
func TestPydanticParserUnicode(t *testing.T) {
	log := "\x1b[31mFAILED\u2003[ 50%] tests/test_ü.py::test_ñ - boom\n" +
		"[\u0663\u0661mPASSED tests/test_ü.py::test_ä\n" +
		"tests/test_ö.py::test_x PASSED\n" +
		"tests/ß.py::t\u00a0PASSED\n" +
		"\x1b[32mPASSED\x1b[0m tests/test_main.py::test_ok\u0085tail\n" +
		"SKIPPED\u3000[ 99%] tests/t.py::s\n"
	want := [][2]string{
		{"tests/test_ü.py::test_ñ", "FAILED"},
		{"tests/test_ü.py::test_ä", "PASSED"},
		{"tests/test_ö.py::test_x", "PASSED"},
		{"tests/ß.py::t", "PASSED"},
		{"tests/test_main.py::test_ok", "PASSED"},
		{"[", "SKIPPED"},
	}
	m, err := parsePytestPydantic(log)
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	for _, k := range m.Keys() {
		s, _ := m.Get(k)
		got = append(got, [2]string{k, s})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q (the fork's)", got, want)
	}
	if _, err := parsePytestPydantic("FAILED\u00a0[100%]\n"); err == nil {
		t.Error("got no error, want one (the fork's parser raises IndexError)")
	}
}

func TestProfileRows(t *testing.T) {
	var p Profile
	rows := loadRows(t)
	for _, inst := range rows {
		if !p.Match(&inst) {
			t.Errorf("Match: false for %s", inst.InstanceID)
		}
	}
	inst := rows[0]
	if err := p.Prepare(&inst); err != nil {
		t.Fatal(err)
	}
	if inst.Image != DefaultImage(inst.InstanceID) || inst.WorkDir != "/testbed" {
		t.Errorf("prepared: image %q, workdir %q", inst.Image, inst.WorkDir)
	}
	withScript := rows[0]
	withScript.EvalScript = "#!/bin/bash\n"
	rebench := dataset.Instance{InstanceID: "getmoto__moto-1", Repo: "getmoto/moto", Extra: map[string]any{"install_config": map[string]any{"test_cmd": "pytest"}}}
	django := dataset.Instance{InstanceID: "django__django-1", Repo: "django/django"}
	for _, inst := range []dataset.Instance{withScript, rebench, django} {
		if p.Match(&inst) {
			t.Errorf("Match: true for %s (a SWE-bench or SWE-rebench row)", inst.InstanceID)
		}
	}
	bad := rows[0]
	bad.Version = "0.0"
	bad.FailToPass = nil
	err := p.Prepare(&bad)
	for _, field := range []string{"version", "FAIL_TO_PASS"} {
		if err == nil || !strings.Contains(err.Error(), `field "`+field+`"`) {
			t.Errorf("Prepare of a row without a known version or FAIL_TO_PASS: %v", err)
		}
	}
	if err := p.Grader().Check([]dataset.Instance{rows[0], bad}); err == nil || !strings.Contains(err.Error(), bad.InstanceID) {
		t.Errorf("Check: %v", err)
	}
}
