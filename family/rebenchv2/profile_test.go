package rebenchv2

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

func TestProfileRows(t *testing.T) {
	p := Profile{}
	v2 := dataset.Instance{InstanceID: "a__b-1", Repo: "a/b", Image: "img:1",
		Extra: map[string]any{"install_config": map[string]any{"test_cmd": []any{"pytest"}, "log_parser": "parse_log_pytest"}}}
	v1 := dataset.Instance{InstanceID: "a__b-2", Extra: map[string]any{"install_config": map[string]any{"test_cmd": "pytest", "log_parser": "parse_log_pytest"}}}
	if !p.Match(&v2) || p.Match(&v1) || p.Match(&dataset.Instance{}) {
		t.Error("Match: want SWE-rebench-V2's install_config (test_cmd a list), not v1's (a string)")
	}
	if err := p.Prepare(&v2); err != nil || v2.WorkDir != "/b" {
		t.Errorf("Prepare: %v, workdir %q", err, v2.WorkDir)
	}
	bad := dataset.Instance{InstanceID: "x", Repo: "nope"}
	err := p.Prepare(&bad)
	var fe *dataset.FieldError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "repo") || !strings.Contains(err.Error(), "image_name") {
		t.Errorf("Prepare of a row without repo and image_name: %v", err)
	}
}

func TestPatchesFile(t *testing.T) {
	p := Profile{}
	fix := "diff --git a/x b/x\n"
	name, data, err := p.ExportPredictions([]family.Prediction{{InstanceID: "a__b-1", ModelNameOrPath: "m", ModelPatch: &fix}})
	if err != nil || name != PatchesFile {
		t.Fatal(name, err)
	}
	preds, ok, err := p.ReadPredictions(name, data)
	if err != nil || !ok || preds["a__b-1"].Patch() != fix {
		t.Errorf("reading the exported file back: %v %v %+v", ok, err, preds)
	}
	for _, other := range []string{`{"a__b-1": {"model_patch": "x"}}`, `[{"instance_id": "a", "model_patch": "x"}]`, `[{"instance_id": "a", "patch": "x", "prefix": "p"}]`} {
		if _, ok, _ := p.ReadPredictions("p.json", []byte(other)); ok {
			t.Errorf("ReadPredictions took %s", other)
		}
	}
}

func TestReportReaders(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/"+ItemFile, `{"instance_id": "a", "from_fail_to_pass": ["t"], "failed_from_pass_to_pass": [], "passed_match": true, "exit_code": 0, "log_path": "x", "error": ""}`)
	write("b/"+ItemFile, `{"instance_id": "b", "from_fail_to_pass": [], "failed_from_pass_to_pass": ["u"], "error": "parser raised"}`)
	fv, ok, err := reports{}.ReadEvalFolder(dir)
	if err != nil || !ok || fv.Verdicts["a"].Outcome != family.Resolved || fv.Verdicts["b"].Outcome != family.Error {
		t.Errorf("items: %+v %v %v", fv, ok, err)
	}
	if err := (grader{}).Finish(dir, map[string]family.Prediction{"a": {InstanceID: "a", ModelPatch: strp("p")}, "b": {InstanceID: "b", ModelPatch: strp("p")}, "c": {InstanceID: "c"}}, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	fv, ok, err = reports{}.ReadReportFile(ReportFile, data)
	if err != nil || !ok || len(fv.Verdicts) != 3 || fv.Verdicts["c"].Outcome != family.EmptyPatch || fv.Verdicts["a"].Outcome != family.Resolved {
		t.Errorf("eval_report.json: %+v %v %v\n%s", fv, ok, err, data)
	}
	if _, ok, _ := (reports{}).ReadReportFile("x.json", []byte(`{"resolved": 1}`)); ok {
		t.Error("ReadReportFile took another JSON")
	}
}

func strp(s string) *string { return &s }

// Regrading reads the harness's own log layout (logs/<id>_log.txt) and writes this tool's files.
func TestRegradeHarnessLog(t *testing.T) {
	task := sampleTask(t)
	l, _ := dataset.Load(context.Background(), testenv.Fixtures(t, "more-datasets", "swe-rebench-v2", "sample.json"), dataset.LoadOptions{})
	inst := l.Instances[0]
	logs := t.TempDir()
	all := append(append([]string{}, task.PassToPass...), task.FailToPass...)
	if err := os.WriteFile(filepath.Join(logs, LogFile(inst.InstanceID)), []byte(automakeLog(all, nil)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	v, found, err := grader{}.Regrade(inst, family.Prediction{InstanceID: inst.InstanceID, ModelPatch: strp(inst.Patch)}, []string{t.TempDir(), logs}, out)
	if err != nil || !found || v.Outcome != family.Resolved {
		t.Fatalf("got %+v, found %v, %v", v, found, err)
	}
	it, err := readItem(filepath.Join(out, ItemFile))
	if err != nil || !it.Resolved() || it.ExitCode != nil {
		t.Errorf("item %+v, %v (a regrade does not know the exit code)", it, err)
	}
	if _, found, _ := (grader{}).Regrade(inst, family.Prediction{}, []string{t.TempDir()}, out); found {
		t.Error("found a log where there is none")
	}
}
