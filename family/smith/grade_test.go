package smith

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The fixtures are SWE-smith's own test data (tests/test_logs at SWE-bench/SWE-smith@cf2e649d):
// four evaluations (test_output.txt and the report.json the harness wrote, three resolved) of a
// 53-instance run, that run's report, one validation run and one dataset row.
func smithLogs(t *testing.T, parts ...string) string {
	return testenv.Fixtures(t, append([]string{"more-datasets", "swe-smith", "tests", "test_logs"}, parts...)...)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// TestRegradeHarnessEvaluations regrades the four evaluations from their test output: each
// report's FAIL_TO_PASS and PASS_TO_PASS tests (those its run graded) come out the same successes
// and failures, and the same three are resolved as in the run's report.
func TestRegradeHarnessEvaluations(t *testing.T) {
	ids := []string{
		"getmoto__moto.694ce1f4.pr_7331",
		"pandas-dev__pandas.95280573.pr_53652",
		"pandas-dev__pandas.95280573.pr_53856",
		"pydantic__pydantic.acb0f10f.pr_8316",
	}
	var run RunReport
	if err := json.Unmarshal([]byte(readFile(t, smithLogs(t, "run_evaluation", "report.json"))), &run); err != nil {
		t.Fatal(err)
	}
	resolvedInRun := map[string]bool{}
	for _, id := range run.IDsResolved {
		resolvedInRun[id] = true
	}
	resolved := 0
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			var want Report
			if err := json.Unmarshal([]byte(readFile(t, smithLogs(t, "run_evaluation", id, "report.json"))), &want); err != nil {
				t.Fatal(err)
			}
			f2p := append(append([]string{}, want.TestsStatus.FailToPass.Success...), want.TestsStatus.FailToPass.Failure...)
			p2p := append(append([]string{}, want.TestsStatus.PassToPass.Success...), want.TestsStatus.PassToPass.Failure...)
			p, err := ProfileFor(dataset.Instance{InstanceID: id})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Grade(p, false, readFile(t, smithLogs(t, "run_evaluation", id, "test_output.txt")), f2p, p2p)
			if err != nil {
				t.Fatal(err)
			}
			if got.Resolved != want.Resolved || got.Resolved != resolvedInRun[id] {
				t.Errorf("resolved %v, report says %v, run says %v", got.Resolved, want.Resolved, resolvedInRun[id])
			}
			for name, pair := range map[string][2]Results{
				"FAIL_TO_PASS": {got.TestsStatus.FailToPass, want.TestsStatus.FailToPass},
				"PASS_TO_PASS": {got.TestsStatus.PassToPass, want.TestsStatus.PassToPass},
			} {
				if !reflect.DeepEqual(sorted(pair[0].Success), sorted(pair[1].Success)) || !reflect.DeepEqual(sorted(pair[0].Failure), sorted(pair[1].Failure)) {
					t.Errorf("%s: got %d successes, %d failures; the harness %d, %d", name,
						len(pair[0].Success), len(pair[0].Failure), len(pair[1].Success), len(pair[1].Failure))
				}
			}
			if got.Resolved {
				resolved++
			}
		})
	}
	if resolved != 3 || run.Resolved != 3 {
		t.Errorf("got %d resolved, the run reports %d; want 3", resolved, run.Resolved)
	}
}

// pandasRow is the dataset row of pandas-dev__pandas.95280573.pr_53652 SWE-smith's tests use.
func pandasRow(t *testing.T) dataset.Instance {
	var row struct {
		InstanceID string   `json:"instance_id"`
		Repo       string   `json:"repo"`
		Patch      string   `json:"patch"`
		F2P        []string `json:"FAIL_TO_PASS"`
		P2P        []string `json:"PASS_TO_PASS"`
		Image      string   `json:"image_name"`
	}
	if err := json.Unmarshal([]byte(readFile(t, smithLogs(t, "pandas-dev__pandas.95280573.pr_53652.json"))), &row); err != nil {
		t.Fatal(err)
	}
	return dataset.Instance{InstanceID: row.InstanceID, Repo: row.Repo, Patch: row.Patch, FailToPass: row.F2P, PassToPass: row.P2P, Image: row.Image}
}

func TestGradeDatasetRow(t *testing.T) {
	inst := pandasRow(t)
	p, err := ProfileFor(inst)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key != "pandas-dev__pandas.95280573" || p.Parser != "pytest" || !p.MinTesting {
		t.Errorf("got profile %+v", p)
	}
	if got, want := Image(inst, p), "swebench/swesmith.x86_64.pandas-dev_1776_pandas.95280573"; got != want {
		t.Errorf("Image = %q, want %q (the row's %q names no registry)", got, want, inst.Image)
	}
	if got := Image(dataset.Instance{Image: "jyangballin/swesmith.x86_64.pandas-dev_1776_pandas.95280573"}, p); got != "jyangballin/swesmith.x86_64.pandas-dev_1776_pandas.95280573" {
		t.Errorf("a qualified image_name is used as it is; got %q", got)
	}
	wantCmd := p.TestCmd + " pandas/tests/indexing/test_datetime.py pandas/tests/indexing/test_datetime.py"
	if got := p.TestCommand(inst.FailToPass, inst.PassToPass, inst.Patch, "", true); got != wantCmd {
		t.Errorf("TestCommand = %q, want %q (F2P files then P2P files)", got, wantCmd)
	}
	content := readFile(t, smithLogs(t, "run_evaluation", inst.InstanceID, "test_output.txt"))
	out, found, err := ReadTestOutput(content)
	if err != nil || !found || !strings.HasPrefix(out, "\n+ pytest --disable-warnings --color=no --tb=no --verbose pandas/tests/indexing/test_datetime.py\n") ||
		!strings.HasSuffix(out, "============================== 11 passed in 0.10s ==============================\n") {
		t.Errorf("ReadTestOutput: found %v, err %v, got %q…%q", found, err, out[:min(80, len(out))], out[max(0, len(out)-80):])
	}
	got, err := Grade(p, false, content, inst.FailToPass, inst.PassToPass)
	if err != nil {
		t.Fatal(err)
	}
	got.Model = "swesmith_gen__claude-3.7__t-0.00_p-1.00__c.2.00__exp9__ig_orig"
	var want Report
	if err := json.Unmarshal([]byte(readFile(t, smithLogs(t, "run_evaluation", inst.InstanceID, "report.json"))), &want); err != nil {
		t.Fatal(err)
	}
	want.PatchIsNone, want.PatchSuccessfullyApplied = nil, nil // fields of the older harness that wrote it
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	b, err := got.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "{\n    \"patch_exists\": true,\n    \"resolved\": true,\n    \"tests_status\": {\n        \"FAIL_TO_PASS\": {\n            \"success\": [\n") ||
		!strings.HasSuffix(string(b), "\n    },\n    \"model_name_or_path\": \"swesmith_gen__claude-3.7__t-0.00_p-1.00__c.2.00__exp9__ig_orig\"\n}") {
		t.Errorf("report.json not in the harness's form:\n%s", b)
	}
}

// TestValidationRun compares the validation run's two logs as SWE-smith's own test does (its
// test_output.txt as the first log, test_output_pre_gold.txt as the second) and gets its report.
func TestValidationRun(t *testing.T) {
	p, err := ProfileFor(dataset.Instance{Repo: "pandas-dev__pandas.95280573"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Validate(p, readFile(t, smithLogs(t, "run_validation", "test_output.txt")), readFile(t, smithLogs(t, "run_validation", "test_output_pre_gold.txt")))
	if err != nil {
		t.Fatal(err)
	}
	var want ValidReport
	if err := json.Unmarshal([]byte(readFile(t, smithLogs(t, "run_validation", "report.json"))), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if len(got.FailToPass) != 2 || len(got.PassToPass) != 9 {
		t.Errorf("got %d FAIL_TO_PASS and %d PASS_TO_PASS, want 2 and 9", len(got.FailToPass), len(got.PassToPass))
	}
}

func TestGradeRules(t *testing.T) {
	p := Profile{Parser: "pytest"}
	log := func(lines ...string) string {
		return "+ : '" + MarkerStart + "'\n" + strings.Join(lines, "\n") + "\n+ : '" + MarkerEnd + "'\n"
	}
	tests := []struct {
		name     string
		null     bool
		content  string
		resolved bool
		status   bool
	}{
		{"all pass", false, log("a PASSED", "b XFAIL"), true, true},
		{"missing test fails", false, log("a PASSED"), false, true},
		{"skipped counts neither way", false, log("a PASSED", "b SKIPPED"), true, true},
		{"error fails", false, log("a PASSED", "b ERROR"), false, true},
		{"null patch", true, log("a PASSED", "b PASSED"), false, false},
		{"apply failed", false, MarkerApplyFail + "\n" + log("a PASSED", "b PASSED"), false, false},
		{"timed out", false, log("a PASSED", "b PASSED") + "\n\n" + MarkerTimedOut + ": 90 seconds exceeded", false, false},
		{"no markers", false, "a PASSED\nb PASSED\n", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Grade(p, tt.null, tt.content, []string{"a"}, []string{"b"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Resolved != tt.resolved || (r.TestsStatus != nil) != tt.status || r.PatchExists == tt.null {
				t.Errorf("got %+v", r)
			}
		})
	}
	if _, err := Grade(p, false, "+ : '"+MarkerEnd+"'\n+ : '"+MarkerStart+"'\n", nil, nil); err == nil {
		t.Error("markers out of order: got no error")
	}
	b, _ := Report{TimedOut: true, Timeout: 90}.Marshal()
	if string(b) != "{\n    \"timed_out\": true,\n    \"timeout\": 90\n}" {
		t.Errorf("timed-out report: %s", b)
	}
}

func TestProfiles(t *testing.T) {
	keys := ProfileKeys()
	if len(keys) != 543 {
		t.Errorf("got %d profiles, want the 543 of SWE-smith's registry", len(keys))
	}
	for _, k := range keys {
		p := profiles[k]
		if _, err := ParserNamed(p.Parser); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		if p.TestCmd == "" || p.Timeout <= 0 || len(p.Commit) < 8 || k != p.Owner+"__"+p.Repo+"."+p.Commit[:8] {
			t.Errorf("%s: incomplete profile %+v", k, p)
		}
	}
	for _, inst := range []dataset.Instance{
		{InstanceID: "gin-gonic__gin.3c12d2a8.lm_rewrite__4pb48n1g"},
		{InstanceID: "x", Repo: "swesmith/gin-gonic__gin.3c12d2a8"},
	} {
		if p, err := ProfileFor(inst); err != nil || p.Parser != "gotest" || p.TestCmd != "go test -v ./..." {
			t.Errorf("%+v: got %+v, %v", inst, p, err)
		}
	}
	if _, err := ProfileFor(dataset.Instance{InstanceID: "acme__acme.12345678.x"}); err == nil || !strings.Contains(err.Error(), "acme__acme.12345678") {
		t.Errorf("unknown profile: got %v", err)
	}
}

func TestPatchPaths(t *testing.T) {
	patch := "diff --git a/packages/babel-core/src/a.js b/packages/babel-core/src/a.js\n--- a/packages/babel-core/src/a.js\n+++ b/packages/babel-core/src/a.js\n@@ -1 +1 @@\n-x\n+y\n" +
		"diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+z\n" +
		"diff --git a/gone.txt b/gone.txt\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n"
	if got, want := PatchPaths(patch), []string{"packages/babel-core/src/a.js", "new.txt", "gone.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	p := Profile{TestCmdKind: "babel", TestCmd: "yarn jest"}
	if got := p.TestCommand(nil, nil, patch, "", true); got != "yarn jest packages/babel-core" {
		t.Errorf("babel: got %q", got)
	}
	m := Profile{TestCmdKind: "mypy", TestCmd: "pytest -k"}
	if got := m.TestCommand(nil, nil, "", "[case testA]\n[case testB]\n", true); got != `pytest -k "testA or testB"` {
		t.Errorf("mypy: got %q", got)
	}
}

func TestCommands(t *testing.T) {
	if got, want := EvalScript("go test -v ./..."), "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\ngo test -v ./...\n: '>>>>> End Test Output'\n"; got != want {
		t.Errorf("EvalScript = %q, want %q", got, want)
	}
	if got := RestoreFiles([]string{"a b.py", "it's.py"}); got != `git checkout -- 'a b.py' 'it'\''s.py'` {
		t.Errorf("RestoreFiles = %q", got)
	}
	if got := GoTestFilesScript([]string{"TestA", "TestB/sub", "Test_C"}); !strings.Contains(got, "(TestA|Test_C)") {
		t.Errorf("GoTestFilesScript = %q", got)
	}
	if got := AgentStart("gin-gonic__gin.3c12d2a8.lm_rewrite__4pb48n1g"); !strings.HasPrefix(got, "cd /testbed && (git checkout -q 'gin-gonic__gin.3c12d2a8.lm_rewrite__4pb48n1g'") {
		t.Errorf("AgentStart = %q", got)
	}
}
