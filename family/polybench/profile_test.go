package polybench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

func TestWorkDir(t *testing.T) {
	for df, want := range map[string]string{
		"FROM x\nWORKDIR /testbed\nCOPY . .\n":   "/testbed",
		"FROM x\nWORKDIR /app\nworkdir sub\n":    "/app/sub",
		"FROM x\nRUN echo\n":                     "/",
		"FROM x\nWORKDIR \"/a b\"\nWORKDIR /c\n": "/c",
	} {
		if got := WorkDir(df); got != want {
			t.Errorf("WorkDir(%q) = %q, want %q", df, got, want)
		}
	}
}

func TestProfileRows(t *testing.T) {
	p := Profile{}
	inst := polyRow()
	inst.Extra["Dockerfile"] = "FROM polybench_java_base\nWORKDIR /testbed\n"
	if !p.Match(&inst) || p.Match(&dataset.Instance{}) {
		t.Error("Match")
	}
	if err := p.Prepare(&inst); err != nil {
		t.Fatal(err)
	}
	if inst.WorkDir != "/testbed" || inst.Image != "ghcr.io/timesler/swe-polybench.eval.x86_64.google__gson-1014:latest" || len(inst.FailToPass) != 1 || len(inst.PassToPass) != 2 {
		t.Errorf("Prepare: %+v", inst)
	}
	bad := polyRow()
	delete(bad.Extra, "test_command")
	if err := p.Prepare(&bad); err == nil || !strings.Contains(err.Error(), "test_command") || !strings.Contains(err.Error(), "Dockerfile") {
		t.Errorf("Prepare of a row without test_command and Dockerfile: %v", err)
	}
	fix := "diff"
	name, data, err := p.ExportPredictions([]family.Prediction{{InstanceID: "a", ModelNameOrPath: "m", ModelPatch: &fix}})
	if err != nil || name != PredictionsFile || string(data) != `{"instance_id":"a","model_patch":"diff","model_name_or_path":"m"}`+"\n" {
		t.Errorf("ExportPredictions: %s %s %v", name, data, err)
	}
}

// Regrading reads the harness's own run log layout (run_logs_<language>/<id>_run.log) and writes
// <id>_result.json.
func TestRegradeHarnessLog(t *testing.T) {
	inst := polyRow()
	inst.Extra["P2P"] = "[]"
	logs := t.TempDir()
	runLogs := filepath.Join(logs, "run_logs_java")
	if err := os.MkdirAll(runLogs, 0o755); err != nil {
		t.Fatal(err)
	}
	report := `<testsuite name="com.google.gson.internal.bind.JsonTreeReaderTest"><testcase name="testSkipValue_emptyJsonObject" classname="com.google.gson.internal.bind.JsonTreeReaderTest"/></testsuite>`
	if err := os.WriteFile(filepath.Join(runLogs, RunLogFile(inst.InstanceID)), []byte(RunLog("+ mvn test\n", report+"\n", 0)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	v, found, err := grader{}.Regrade(inst, family.Prediction{InstanceID: inst.InstanceID}, []string{logs}, out)
	if err != nil || !found || v.Outcome != family.Resolved {
		t.Fatalf("got %+v, found %v, %v", v, found, err)
	}
	o, err := ReadResult(ResultPath(out, inst.InstanceID))
	if err != nil || !o.Resolved || !o.WithLogs || len(o.PassedTests) != 1 {
		t.Errorf("result %+v, %v", o, err)
	}
}
