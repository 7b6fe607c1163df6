package rebenchv2

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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

// TestMatchAsTheHarnessAccepts takes the corpus's row (sample.json, SWE-rebench/SWE-rebench-V2 at
// c71902a8) with a string test_cmd and a null base_image_name, which V2's scripts/eval.py grades:
// run by python3 on it (evaluate_task and build_report_item, docker replaced by a stub printing
// the log below, exit 0), eval.py ran ["make check"] in /netcdf-c of the row's image_name and
// wrote the items below. As a pytest row (log_parser parse_log_pytest, install null: only the
// null base_image_name says V2), one extra passing test makes it unresolved there, where v1's
// rules would resolve it. SWE-rebench v1's harness fork knows neither shape (its MAP_REPO_TO_PARSER
// has no parse_log_jq; a list test_cmd or install fails its string prefix).
func TestMatchAsTheHarnessAccepts(t *testing.T) {
	data, err := os.ReadFile(testenv.Fixtures(t, "more-datasets", "swe-rebench-v2", "sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	expected := append(append([]string{}, toStrings(rows[0]["FAIL_TO_PASS"])...), toStrings(rows[0]["PASS_TO_PASS"])...)
	f2pPassed := []any{"do_comps.sh", "format", "run_examples.sh", "run_examples4.sh", "run_filter.sh", "sfc_pres_temp_more", "simple", "t_dap3a", "test_cvt3", "test_vara", "tst_filter.sh", "tst_ncdap3.sh"}
	tests := []struct {
		name   string
		change func(cfg map[string]any)
		log    string
		want   map[string]any // the harness's item
	}{
		{"the corpus row, test_cmd a string, base_image_name null", func(cfg map[string]any) {},
			lines("PASS: ", expected) + "FAIL: tst_extra\n",
			map[string]any{"instance_id": "unidata__netcdf-c-1925", "from_fail_to_pass": f2pPassed, "failed_from_pass_to_pass": []any{},
				"passed_match": true, "exit_code": 0.0, "log_path": "logs/unidata__netcdf-c-1925_log.txt", "error": ""}},
		{"a pytest row whose base_image_name is null", func(cfg map[string]any) { cfg["log_parser"], cfg["install"] = "parse_log_pytest", nil },
			lines("PASSED ", expected) + "PASSED tests/extra.py::t\n",
			map[string]any{"instance_id": "unidata__netcdf-c-1925", "from_fail_to_pass": f2pPassed, "failed_from_pass_to_pass": []any{},
				"passed_match": false, "exit_code": 0.0, "log_path": "logs/unidata__netcdf-c-1925_log.txt", "error": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := map[string]any{}
			for k, v := range rows[0] {
				row[k] = v
			}
			cfg := map[string]any{}
			for k, v := range rows[0]["install_config"].(map[string]any) {
				cfg[k] = v
			}
			cfg["test_cmd"], cfg["base_image_name"] = "make check", nil
			tt.change(cfg)
			row["install_config"] = cfg
			line, _ := json.Marshal(row)
			p := filepath.Join(t.TempDir(), "row.jsonl")
			if err := os.WriteFile(p, append(line, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := dataset.Load(context.Background(), p, dataset.LoadOptions{Families: []dataset.Family{Profile{}}, Require: dataset.RequireEval})
			if err != nil {
				t.Fatal(err)
			}
			inst := l.Instances[0]
			if inst.Family != Name {
				t.Fatalf("the row is read as %q, not SWE-rebench-V2's", inst.Family)
			}
			task, err := TaskOf(inst)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(task.TestCmds, []string{"make check"}) || task.Workdir() != "/netcdf-c" || task.Image != "docker.io/swerebenchv2/unidata-netcdf-c:1925-ad6bff3" {
				t.Errorf("task: commands %q in %s of %s", task.TestCmds, task.Workdir(), task.Image)
			}
			r, err := Grade(task, tt.log, 0, "logs/"+LogFile(inst.InstanceID))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(task.Item(r))
			var got map[string]any
			json.Unmarshal(b, &got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("item:\n%v\nwant (the harness's):\n%v", got, tt.want)
			}
		})
	}
}

// TestMatchShapes: the install_config shapes of each harness.
func TestMatchShapes(t *testing.T) {
	tests := []struct {
		name string
		cfg  any
		want bool
	}{
		{"v1: a test_cmd string, a v1 parser", map[string]any{"test_cmd": "pytest", "log_parser": "parse_log_pytest", "python": "3.9", "install": "pip install -e ."}, false},
		{"v1 as a JSON string", `{"test_cmd": "pytest", "log_parser": "parse_log_pytest_v2"}`, false},
		{"V2: a list test_cmd", map[string]any{"test_cmd": []any{"pytest"}, "log_parser": "parse_log_pytest"}, true},
		{"V2: a list install", map[string]any{"test_cmd": "pytest", "install": []any{"pip install -e ."}, "log_parser": "parse_log_pytest"}, true},
		{"V2: a null base_image_name", map[string]any{"test_cmd": "pytest", "log_parser": "parse_log_pytest", "base_image_name": nil}, true},
		{"V2: a null log_parsers, as a JSON string", `{"test_cmd": "pytest", "log_parser": "parse_log_pytest", "log_parsers": null}`, true},
		{"V2: a parser v1 does not know", map[string]any{"test_cmd": "make check", "log_parser": "parse_log_jq"}, true},
		{"neither knows the parser", map[string]any{"test_cmd": "make check", "log_parser": "parse_log_nothing"}, false},
		{"no install_config", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := dataset.Instance{InstanceID: "a__b-1", Extra: map[string]any{}}
			if tt.cfg != nil {
				inst.Extra["install_config"] = tt.cfg
			}
			if got := (Profile{}).Match(&inst); got != tt.want {
				t.Errorf("Match: got %t", got)
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

func lines(prefix string, names []string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(prefix + n + "\n")
	}
	return b.String()
}
