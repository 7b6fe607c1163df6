package rebench

import (
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
)

func testLog(body string, after ...string) string {
	return "+ git apply -v -\n+ : '>>>>> Start Test Output'\n" + body + "\n+ : '>>>>> End Test Output'\n" + strings.Join(after, "\n")
}

func tr(success, failure []string) eval.TestResults {
	if success == nil {
		success = []string{}
	}
	if failure == nil {
		failure = []string{}
	}
	return eval.TestResults{Success: success, Failure: failure}
}

// rebenchTestPatch changes a test file, adds one, deletes one, and changes a data file, as real
// SWE-rebench test patches do.
const rebenchTestPatch = `diff --git a/tests/test_components.py b/tests/test_components.py
index 1a2b3c4..5d6e7f8 100644
--- a/tests/test_components.py
+++ b/tests/test_components.py
@@ -10,5 +10,8 @@ def test_turbine():
     assert turbine.P.val == 1

+def test_turbine_eta():
+    assert turbine.eta_s.val < 1
+
 def test_pump():
     pump = Pump("p")
-    assert pump.P.val == 0
+    assert pump.P.val >= 0
diff --git a/tests/test_new_feature.py b/tests/test_new_feature.py
new file mode 100644
index 0000000..a1b2c3d
--- /dev/null
+++ b/tests/test_new_feature.py
@@ -0,0 +1,2 @@
+def test_feature():
+    assert True
diff --git a/tests/test_legacy.py b/tests/test_legacy.py
deleted file mode 100644
index 9f8e7d6..0000000
--- a/tests/test_legacy.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def test_old():
-    assert True
diff --git a/tests/data/reference.json b/tests/data/reference.json
index 0011223..4455667 100644
--- a/tests/data/reference.json
+++ b/tests/data/reference.json
@@ -1 +1 @@
-{"P": 1}
+{"P": 2}
`

const rebenchBase = "6f8ea5b1a5d3c1a2b4e9f0d7c6b5a4f3e2d1c0b9"

func rebenchRow(repo, testPatch string, cfg any) dataset.Instance {
	return dataset.Instance{
		InstanceID: "oemof__tespy-653", Repo: repo, BaseCommit: rebenchBase, TestPatch: testPatch,
		FailToPass: []string{"tests/test_components.py::test_turbine_eta"}, PassToPass: []string{"tests/test_components.py::test_pump"},
		Extra: map[string]any{"install_config": cfg, "docker_image": "swerebench/sweb.eval.x86_64.oemof_1776_tespy-653"},
	}
}

// TestScriptMatchesTheForkTemplate compares Script with scripts written by hand
// from SWE-rebench's harness fork: make_eval_script_list_py of swebench/harness/test_spec/python.py
// with the install_config as _clean_install_config of swebench/harness/utils.py leaves it.
func TestScriptMatchesTheForkTemplate(t *testing.T) {
	tests := []struct {
		name string
		inst dataset.Instance
		want string
	}{
		{
			name: "typical row: install rerun, deleted and data files not run, created file not reset",
			inst: rebenchRow("oemof/tespy", rebenchTestPatch, map[string]any{
				"python": "3.9", "packages": "requirements.txt", "install": "pip install -e .[dev]",
				"test_cmd":   "pytest --no-header -rA --tb=line --color=no -p no:cacheprovider -W ignore::DeprecationWarning",
				"log_parser": "parse_log_pytest", "pip_packages": []any{"pytest"}, "pre_install": nil, "reqs_path": nil,
			}),
			want: "#!/bin/bash\n" +
				"set -uxo pipefail\n" +
				"source /opt/miniconda3/bin/activate\n" +
				"conda activate testbed\n" +
				"cd /testbed\n" +
				"git config --global --add safe.directory /testbed\n" +
				"cd /testbed\n" +
				"git status\n" +
				"git show\n" +
				"git -c core.fileMode=false diff " + rebenchBase + "\n" +
				"source /opt/miniconda3/bin/activate\n" +
				"conda activate testbed\n" +
				"LANG=C.UTF-8 LC_ALL=C.UTF-8 pip install -e .[dev]\n" +
				"git checkout " + rebenchBase + " tests/test_components.py tests/test_legacy.py tests/data/reference.json\n" +
				"git apply -v - <<'EOF_114329324912'\n" + rebenchTestPatch + "\nEOF_114329324912\n" +
				": '>>>>> Start Test Output'\n" +
				"LANG=C.UTF-8 LC_ALL=C.UTF-8 pytest --no-header -rA --tb=line --color=no -p no:cacheprovider -W ignore::DeprecationWarning tests/test_components.py tests/test_new_feature.py\n" +
				": '>>>>> End Test Output'\n" +
				"git checkout " + rebenchBase + " tests/test_components.py tests/test_legacy.py tests/data/reference.json\n",
		},
		{
			name: "django: module names; eval_commands; no install (null); config as a JSON string",
			inst: rebenchRow("django/django", "diff --git a/tests/model_fields/test_jsonfield.py b/tests/model_fields/test_jsonfield.py\n"+
				"--- a/tests/model_fields/test_jsonfield.py\n+++ b/tests/model_fields/test_jsonfield.py\n@@ -1 +1,2 @@\n import json\n+import math\n"+
				"diff --git a/tests/model_fields/models.py b/tests/model_fields/models.py\n--- a/tests/model_fields/models.py\n+++ b/tests/model_fields/models.py\n"+
				"@@ -1 +1 @@\n-x = 1\n+x = 2\n",
				`{"python": "3.8", "install": null, "eval_commands": ["export LANG=en_US.UTF-8", "export LC_ALL=en_US.UTF-8"], "test_cmd": "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", "log_parser": "parse_log_pytest"}`),
			want: "#!/bin/bash\n" +
				"set -uxo pipefail\n" +
				"source /opt/miniconda3/bin/activate\n" +
				"conda activate testbed\n" +
				"cd /testbed\n" +
				"export LANG=en_US.UTF-8\n" +
				"export LC_ALL=en_US.UTF-8\n" +
				"git config --global --add safe.directory /testbed\n" +
				"cd /testbed\n" +
				"git status\n" +
				"git show\n" +
				"git -c core.fileMode=false diff " + rebenchBase + "\n" +
				"source /opt/miniconda3/bin/activate\n" +
				"conda activate testbed\n" +
				"git checkout " + rebenchBase + " tests/model_fields/test_jsonfield.py tests/model_fields/models.py\n" +
				"git apply -v - <<'EOF_114329324912'\n" +
				"diff --git a/tests/model_fields/test_jsonfield.py b/tests/model_fields/test_jsonfield.py\n" +
				"--- a/tests/model_fields/test_jsonfield.py\n+++ b/tests/model_fields/test_jsonfield.py\n@@ -1 +1,2 @@\n import json\n+import math\n" +
				"diff --git a/tests/model_fields/models.py b/tests/model_fields/models.py\n--- a/tests/model_fields/models.py\n+++ b/tests/model_fields/models.py\n" +
				"@@ -1 +1 @@\n-x = 1\n+x = 2\n" +
				"\nEOF_114329324912\n" +
				": '>>>>> Start Test Output'\n" +
				"LANG=C.UTF-8 LC_ALL=C.UTF-8 ./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 model_fields.test_jsonfield model_fields.models\n" +
				": '>>>>> End Test Output'\n" +
				"git checkout " + rebenchBase + " tests/model_fields/test_jsonfield.py tests/model_fields/models.py\n",
		},
		{
			name: "an empty install is still run; a patch that only creates files resets nothing",
			inst: rebenchRow("acme/widget", "diff --git a/test_widget.py b/test_widget.py\nnew file mode 100644\n--- /dev/null\n+++ b/test_widget.py\n@@ -0,0 +1 @@\n+def test_w(): pass\n",
				map[string]any{"install": "", "test_cmd": "pytest -rA", "log_parser": "parse_log_pytest_v2"}),
			want: "#!/bin/bash\n" +
				"set -uxo pipefail\n" +
				"source /opt/miniconda3/bin/activate\n" +
				"conda activate testbed\n" +
				"cd /testbed\n" +
				"git config --global --add safe.directory /testbed\n" +
				"cd /testbed\n" +
				"git status\n" +
				"git show\n" +
				"git -c core.fileMode=false diff " + rebenchBase + "\n" +
				"source /opt/miniconda3/bin/activate\n" +
				"conda activate testbed\n" +
				"LANG=C.UTF-8 LC_ALL=C.UTF-8 \n" +
				"git checkout " + rebenchBase + " \n" +
				"git apply -v - <<'EOF_114329324912'\n" +
				"diff --git a/test_widget.py b/test_widget.py\nnew file mode 100644\n--- /dev/null\n+++ b/test_widget.py\n@@ -0,0 +1 @@\n+def test_w(): pass\n" +
				"\nEOF_114329324912\n" +
				": '>>>>> Start Test Output'\n" +
				"LANG=C.UTF-8 LC_ALL=C.UTF-8 pytest -rA test_widget.py\n" +
				": '>>>>> End Test Output'\n" +
				"git checkout " + rebenchBase + " \n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Script(tt.inst)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got script\n%s\nwant\n%s", got, tt.want)
			}
			if !(Profile{}).Match(&tt.inst) {
				t.Error("the profile does not take the row")
			}
			if err := (Profile{}).Grader().Check([]dataset.Instance{tt.inst}); err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

func TestUnidiffFiles(t *testing.T) {
	files, err := parseUnidiff(rebenchTestPatch +
		"diff --git a/tests/old_name.py b/tests/new_name.py\nsimilarity index 90%\nrename from tests/old_name.py\nrename to tests/new_name.py\n" +
		"--- a/tests/old_name.py\n+++ b/tests/new_name.py\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/tests/img.png b/tests/img.png\nindex 1..2 100644\nBinary files a/tests/img.png and b/tests/img.png differ\n" +
		"--- a/plain.py\n+++ b/plain.py\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := modifiedFiles(files), []string{"tests/test_components.py", "tests/test_legacy.py", "tests/data/reference.json", "tests/old_name.py", "tests/img.png", "plain.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("modified files: got %q, want %q", got, want)
	}
	if got, want := changedFiles(files), []string{"tests/test_components.py", "tests/test_new_feature.py", "tests/data/reference.json", "tests/new_name.py", "tests/img.png", "plain.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changed files: got %q, want %q", got, want)
	}
	for _, bad := range []struct{ name, patch, want string }{
		{"hunk too short", "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n", "shorter than its header"},
		{"hunk too long", "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n a\n b\n", ""},
		{"not a hunk line", "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n*b\n", "hunk diff line expected"},
		{"hunk without a file", "@@ -1 +1 @@\n-a\n+b\n", "unexpected hunk"},
	} {
		_, err := parseUnidiff(bad.patch)
		if bad.name == "hunk too long" {
			// unidiff stops at the end of the hunk; the extra line is patch info, not an error.
			if err != nil {
				t.Errorf("%s: %v", bad.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: got %v, want an error containing %q", bad.name, err, bad.want)
		}
	}
}

func TestRowsThatCannotBeGraded(t *testing.T) {
	tests := []struct {
		name string
		cfg  any
		base string
		want string
	}{
		{"no test_cmd", map[string]any{"log_parser": "parse_log_pytest"}, rebenchBase, "install_config.test_cmd: want a string, got nothing"},
		{"test_cmd a list", map[string]any{"test_cmd": []any{"pytest"}, "log_parser": "parse_log_pytest"}, rebenchBase, "install_config.test_cmd: want a string"},
		{"unknown parser", map[string]any{"test_cmd": "pytest", "log_parser": "parse_log_django"}, rebenchBase, `install_config.log_parser "parse_log_django" is not a parser SWE-rebench's harness knows`},
		{"no parser", map[string]any{"test_cmd": "pytest"}, rebenchBase, "install_config.log_parser: want a parser name (one of parse_log_pytest, parse_log_pytest_options, parse_log_pytest_v2)"},
		{"eval_commands a string", map[string]any{"test_cmd": "pytest", "log_parser": "parse_log_pytest", "eval_commands": "ls"}, rebenchBase, "install_config.eval_commands: want a list of strings"},
		{"no base_commit", map[string]any{"test_cmd": "pytest", "log_parser": "parse_log_pytest"}, "", "no base_commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := rebenchRow("o/r", rebenchTestPatch, tt.cfg)
			inst.BaseCommit = tt.base
			err := (Profile{}).Grader().Check([]dataset.Instance{inst})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "oemof__tespy-653") {
				t.Errorf("got %v, want an error naming the instance and containing %q", err, tt.want)
			}
		})
	}
}

// TestGrade checks the grading rules of SWE-rebench's harness fork (harness 4.0's
// get_logs_eval and get_eval_tests_report), including where they differ from harness v5.
func TestGrade(t *testing.T) {
	cfg := func(parser string) map[string]any {
		return map[string]any{"test_cmd": "pytest -rA", "log_parser": parser}
	}
	inst := func(repo, parser string, f2p, p2p []string) dataset.Instance {
		r := rebenchRow(repo, rebenchTestPatch, cfg(parser))
		r.FailToPass, r.PassToPass = f2p, p2p
		return r
	}
	a, b := []string{"t.py::a"}, []string{"t.py::b"}
	tests := []struct {
		name         string
		inst         dataset.Instance
		log          string
		wantApplied  bool
		wantResolved bool
		wantF2P      eval.TestResults
		wantP2P      eval.TestResults
	}{
		{name: "all pass", inst: inst("o/r", "parse_log_pytest", a, b), log: testLog("PASSED t.py::a\nPASSED t.py::b"),
			wantApplied: true, wantResolved: true, wantF2P: tr(a, nil), wantP2P: tr(b, nil)},
		{name: "a missing test fails", inst: inst("o/r", "parse_log_pytest", a, b), log: testLog("PASSED t.py::b"),
			wantApplied: true, wantF2P: tr(nil, a), wantP2P: tr(b, nil)},
		{name: "a skipped test counts in neither list (v5 fails it)", inst: inst("o/r", "parse_log_pytest", append(a, "t.py::c"), b),
			log: testLog("SKIPPED t.py::a\nPASSED t.py::c\nPASSED t.py::b"), wantApplied: true, wantResolved: true,
			wantF2P: tr([]string{"t.py::c"}, nil), wantP2P: tr(b, nil)},
		{name: "only the text between the markers is read (v5 falls back to the whole log)", inst: inst("o/r", "parse_log_pytest", a, nil),
			log: "PASSED t.py::a\n" + testLog("collected 1 item"), wantApplied: true, wantF2P: tr(nil, a), wantP2P: tr(nil, nil)},
		{name: "a non-zero exit code is not checked (v5 distrusts the log)", inst: inst("o/r", "parse_log_pytest", a, nil),
			log: testLog("PASSED t.py::a", ">>>>> Test Exit Code: 1"), wantApplied: true, wantResolved: true, wantF2P: tr(a, nil), wantP2P: tr(nil, nil)},
		{name: "error fails", inst: inst("o/r", "parse_log_pytest", a, nil), log: testLog("ERROR t.py::a - boom"),
			wantApplied: true, wantF2P: tr(nil, a), wantP2P: tr(nil, nil)},
		{name: "apply-failure marker", inst: inst("o/r", "parse_log_pytest", a, nil), log: testLog("PASSED t.py::a", ">>>>> Patch Apply Failed")},
		{name: "no markers", inst: inst("o/r", "parse_log_pytest", a, nil), log: "PASSED t.py::a"},
		{name: "pytest_v2 keeps the first word only (v5 keeps the whole id)", inst: inst("o/r", "parse_log_pytest_v2", []string{"t.py::p[a"}, nil),
			log: testLog("PASSED t.py::p[a b]"), wantApplied: true, wantResolved: true, wantF2P: tr([]string{"t.py::p[a"}, nil), wantP2P: tr(nil, nil)},
		{name: "skip summaries are tests to the fork's parser", inst: inst("o/r", "parse_log_pytest", []string{"[1]"}, nil),
			log: testLog("SKIPPED [1] t.py:3: no network"), wantApplied: true, wantF2P: tr(nil, nil), wantP2P: tr(nil, nil), wantResolved: true},
		{name: "fail_only repository", inst: inst("chartjs/Chart.js", "parse_log_pytest", append(a, "t.py::c"), b),
			log: testLog("FAILED t.py::c"), wantApplied: true, wantF2P: tr(a, []string{"t.py::c"}), wantP2P: tr(b, nil)},
		{name: "truncated ids do not match by prefix", inst: inst("o/r", "parse_log_pytest", []string{"t.py::p[x"}, nil),
			log: testLog("PASSED t.py::p[xyz]"), wantApplied: true, wantF2P: tr(nil, []string{"t.py::p[x"}), wantP2P: tr(nil, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Grade(tt.inst, tt.log)
			if err != nil {
				t.Fatal(err)
			}
			if got.PatchSuccessfullyApplied != tt.wantApplied || got.Resolved != tt.wantResolved {
				t.Errorf("got applied %t resolved %t, want %t %t", got.PatchSuccessfullyApplied, got.Resolved, tt.wantApplied, tt.wantResolved)
			}
			if !tt.wantApplied {
				if got.TestsStatus != nil {
					t.Errorf("got tests_status %+v, want none", got.TestsStatus)
				}
				return
			}
			if !reflect.DeepEqual(got.TestsStatus.FailToPass, tt.wantF2P) || !reflect.DeepEqual(got.TestsStatus.PassToPass, tt.wantP2P) {
				t.Errorf("got F2P %+v P2P %+v, want %+v %+v", got.TestsStatus.FailToPass, got.TestsStatus.PassToPass, tt.wantF2P, tt.wantP2P)
			}
		})
	}
}
