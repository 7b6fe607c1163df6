package rebenchv2

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// sampleTask loads the real row SWE-rebench-V2 publishes as sample.json (Unidata/netcdf-c-1925,
// graded with parse_log_jq from `make check`).
func sampleTask(t *testing.T) Task {
	t.Helper()
	l, err := dataset.Load(context.Background(), testenv.Fixtures(t, "more-datasets", "swe-rebench-v2", "sample.json"), dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Instances) != 1 {
		t.Fatalf("got %d rows, want 1", len(l.Instances))
	}
	task, err := TaskOf(l.Instances[0])
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func TestSampleRow(t *testing.T) {
	task := sampleTask(t)
	if task.InstanceID != "unidata__netcdf-c-1925" || task.LogParser != "parse_log_jq" {
		t.Errorf("got %s with %s", task.InstanceID, task.LogParser)
	}
	if _, err := Parser(task.LogParser); err != nil {
		t.Errorf("the row's parser is not found: %v", err)
	}
	if got, want := task.Workdir(), "/netcdf-c"; got != want {
		t.Errorf("Workdir() = %q, want %q", got, want)
	}
	if got, want := task.Image, "docker.io/swerebenchv2/unidata-netcdf-c:1925-ad6bff3"; got != want {
		t.Errorf("Image = %q, want %q", got, want)
	}
	if !reflect.DeepEqual(task.TestCmds, []string{"make check"}) {
		t.Errorf("TestCmds = %q", task.TestCmds)
	}
	want := "set -e\ngit reset --hard HEAD\n" +
		"git apply -v --3way --recount --ignore-space-change --whitespace=nowarn /patches/patch.diff\n" +
		"git apply -v --3way --recount --ignore-space-change --whitespace=nowarn /patches/test_patch.diff\n" +
		"make check"
	if got := task.Script(); got != want {
		t.Errorf("Script() =\n%s\nwant\n%s", got, want)
	}
	if len(task.FailToPass) != 12 || len(task.PassToPass) != 177 {
		t.Errorf("got %d FAIL_TO_PASS and %d PASS_TO_PASS tests, want 12 and 177", len(task.FailToPass), len(task.PassToPass))
	}
}

// automakeLog writes the `make check` summary lines automake prints for each test.
func automakeLog(pass, fail []string) string {
	var b strings.Builder
	b.WriteString("Making check in nc_test4\nmake[2]: Entering directory '/netcdf-c/nc_test4'\n")
	for _, n := range pass {
		b.WriteString("PASS: " + n + "\n")
	}
	for _, n := range fail {
		b.WriteString("FAIL: " + n + "\n")
	}
	b.WriteString("============================================================================\n")
	return b.String()
}

func TestGradeSample(t *testing.T) {
	task := sampleTask(t)
	all := append(append([]string{}, task.PassToPass...), task.FailToPass...)
	tests := []struct {
		name       string
		pass, fail []string
		resolved   bool
		f2pPassed  int
		p2pFailed  int
	}{
		{"every expected test passes", all, nil, true, 12, 0},
		{"a FAIL_TO_PASS test fails", all[1:], all[:0], false, 12, 1},
		{"a FAIL_TO_PASS test still fails", all[:len(all)-1], all[len(all)-1:], false, 11, 0},
		{"an unlisted test also passes", append(append([]string{}, all...), "tst_extra"), nil, false, 12, 0},
		{"nothing ran", nil, nil, false, 0, 177},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Grade(task, automakeLog(tt.pass, tt.fail), 2, "logs/x_log.txt")
			if err != nil {
				t.Fatal(err)
			}
			it := task.Item(r)
			if it.Resolved() != tt.resolved || r.PassedMatch != tt.resolved {
				t.Errorf("resolved = %v, want %v", it.Resolved(), tt.resolved)
			}
			if len(it.FromFailToPass) != tt.f2pPassed || len(it.FailedFromPassToPass) != tt.p2pFailed {
				t.Errorf("from_fail_to_pass %d, failed_from_pass_to_pass %d; want %d, %d",
					len(it.FromFailToPass), len(it.FailedFromPassToPass), tt.f2pPassed, tt.p2pFailed)
			}
		})
	}
}

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{
		"Calc > adds [1.34 ms]":                    "Calc > adds",
		"AES-128 ran 17370 tests in 34.33 msec ok": "AES-128 ran 17370 tests ok",
		"should pop (12ms)":                        "should pop",
		"should pop (1.5 S)":                       "should pop",
		"keeps [brackets]":                         "keeps [brackets]",
		"  spaced  ":                               "spaced",
		"a in 3 sec and b in 4 msec":               "a and b",
	} {
		if got := NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNormalizeNameUnicode: what the harness's _normalize_test_name (scripts/eval.py at
// SWE-rebench/SWE-rebench-V2@c71902a8, run on these names) returns where " in N sec" is followed
// by a word character outside ASCII (Python's \b sees none there) or by a combining mark (it
// sees one).
func TestNormalizeNameUnicode(t *testing.T) {
	for in, want := range map[string]string{
		"Größe in 29 msec":        "Größe",
		"Größe in 29 msecé":       "Größe in 29 msecé",
		"a in 3 sec和 b in 4 msec": "a in 3 sec和 b",
		"x in ٢٩ sec":             "x",
		"x in 1 secs":             "x in 1 secs",
		"x in 2 sec_ y in 3 SEC":  "x in 2 sec_ y",
		"x in 1 sec\u0301":        "x\u0301",
	} {
		if got := NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q (the harness's)", in, got, want)
		}
	}
}

// TestGradeNormalizes: names that differ only by a timing match, on both sides, and names that
// become equal keep the status of the later one.
func TestGradeNormalizes(t *testing.T) {
	task := Task{InstanceID: "acme__acme-1", LogParser: "parse_log_phpunit",
		FailToPass: []string{"Calc > divides [3 ms]"}, PassToPass: []string{"Calc > adds"}}
	log := "Calc (Acme\\Calc)\n ✔ Adds [1.2 ms]\n ✘ Divides [0.1 ms]\n ✔ Divides [0.2 ms]\n"
	log = strings.ReplaceAll(log, "Adds", "adds")
	log = strings.ReplaceAll(log, "Divides", "divides")
	r, err := Grade(task, log, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if !r.PassedMatch {
		t.Errorf("got passed %q, want %q", r.PassedActual, r.PassedExpected)
	}
}

func TestGradeParserError(t *testing.T) {
	task := Task{InstanceID: "acme__acme-1", LogParser: "parse_log_pytest_v2", PassToPass: []string{"a"}}
	_, err := Grade(task, "PASSED\n", 0, "")
	if err == nil {
		t.Fatal("got no error for a log the harness's parser raises on")
	}
	it := ErrorItem(task.InstanceID, task.PassToPass, err)
	if it.Resolved() || !reflect.DeepEqual(it.FailedFromPassToPass, []string{"a"}) || it.Error == "" {
		t.Errorf("got %+v", it)
	}
}

func TestReportItemJSON(t *testing.T) {
	task := Task{InstanceID: "acme__acme-1", FailToPass: []string{"t1"}, PassToPass: []string{"t2"}}
	it := task.Item(Result{PassedActual: []string{"t1", "t2"}, PassedMatch: true, ExitCode: 0, LogPath: "logs/acme__acme-1_log.txt"})
	b, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"instance_id":"acme__acme-1","from_fail_to_pass":["t1"],"failed_from_pass_to_pass":[],"passed_match":true,"exit_code":0,"log_path":"logs/acme__acme-1_log.txt","error":""}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	eb, _ := json.Marshal(ErrorItem("x", []string{"b", "a"}, errors.New("Task x missing patch/test_patch.")))
	if want := `{"instance_id":"x","from_fail_to_pass":[],"failed_from_pass_to_pass":["a","b"],"error":"Task x missing patch/test_patch."}`; string(eb) != want {
		t.Errorf("got  %s\nwant %s", eb, want)
	}
}

func TestTaskOfRefuses(t *testing.T) {
	base := func() dataset.Instance {
		return dataset.Instance{InstanceID: "acme__acme-1", Repo: "acme/acme", Patch: "p", TestPatch: "tp",
			Extra: map[string]any{"install_config": map[string]any{"test_cmd": "pytest", "log_parser": "parse_log_pytest"}}}
	}
	tests := []struct {
		name   string
		change func(*dataset.Instance)
		want   string
	}{
		{"ok", func(*dataset.Instance) {}, ""},
		{"repo", func(i *dataset.Instance) { i.Repo = "acme" }, "owner/name"},
		{"no config", func(i *dataset.Instance) { delete(i.Extra, "install_config") }, "install_config"},
		{"blank commands", func(i *dataset.Instance) {
			i.Extra["install_config"] = map[string]any{"test_cmd": []any{" ", 3}, "log_parser": "parse_log_pytest"}
		}, "install_config.test_cmd"},
		{"no parser", func(i *dataset.Instance) {
			i.Extra["install_config"] = map[string]any{"test_cmd": "pytest"}
		}, "install_config.log_parser"},
		{"unknown parser", func(i *dataset.Instance) {
			i.Extra["install_config"] = map[string]any{"test_cmd": "pytest", "log_parser": "parse_nope"}
		}, "parse_nope"},
		{"no test patch", func(i *dataset.Instance) { i.TestPatch = "" }, "test_patch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := base()
			tt.change(&inst)
			_, err := TaskOf(inst)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "acme__acme-1")):
				t.Fatalf("got %v, want an error naming the row and %q", err, tt.want)
			}
		})
	}
}
