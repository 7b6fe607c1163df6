package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

const archive = "more-datasets/swe-bench-live/repolaunch-trajectory-archive"

// archiveRow builds the MultiLang row of an archived instance as SWE-bench-Live's curation does
// (curation/push_dataset/push_multilang.py): the task's columns from instance.json, the commands
// and the parser RepoLaunch found from result.json, the recorded passing tests as PASS_TO_PASS.
func archiveRow(t *testing.T, rel string) dataset.Instance {
	t.Helper()
	read := func(name string) map[string]any {
		data, err := os.ReadFile(testenv.Fixtures(t, path.Join(archive, rel, name)))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(bytes.ReplaceAll(data, []byte("NaN"), []byte("null")), &m); err != nil {
			t.Fatalf("%s/%s: %v", rel, name, err)
		}
		return m
	}
	task, launch := read("instance.json"), read("result.json")
	p2p := []any{}
	for name, st := range launch["test_status"].(map[string]any) {
		if st == "pass" {
			p2p = append(p2p, name)
		}
	}
	row := map[string]any{
		"FAIL_TO_PASS": []any{}, "PASS_TO_PASS": p2p,
		"test_cmds": launch["test_commands"], "print_cmds": launch["print_commands"], "rebuild_cmds": launch["rebuild_commands"],
		"log_parser": launch["log_parser"], "docker_image": launch["docker_image"],
	}
	for _, k := range []string{"repo", "pull_number", "instance_id", "issue_numbers", "base_commit", "patch", "test_patch", "problem_statement", "hints_text", "created_at", "language"} {
		row[k] = task[k]
	}
	line, _ := json.Marshal(row)
	p := path.Join(t.TempDir(), "row.jsonl")
	if err := os.WriteFile(p, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := dataset.Load(t.Context(), p, dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Instances[0]
}

func TestRowOfArchiveRows(t *testing.T) {
	t.Run("a Go row", func(t *testing.T) {
		inst := archiveRow(t, "go/playground/amir20__dozzle-4612")
		if !HasLiveColumns(&inst) {
			t.Fatal("HasLiveColumns: false for a MultiLang row")
		}
		r, err := RowOf(&inst)
		if err != nil {
			t.Fatal(err)
		}
		want := Row{
			InstanceID:  "amir20__dozzle-4612",
			TestCmds:    []string{"mkdir -p reports && GOTOOLCHAIN=auto go test -v -json ./... > reports/go-test-results.json"},
			PrintCmds:   []string{"cat reports/go-test-results.json"},
			RebuildCmds: []string{"GOTOOLCHAIN=auto go mod download ; make fake_assets shared_key.pem shared_cert.pem ; GOTOOLCHAIN=auto go build ./..."},
			Parser:      inst.LogParser,
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("got %+v\nwant %+v", r, want)
		}
		if r.IsPytest() || !strings.HasPrefix(r.Parser, "def parser(log: str)") {
			t.Errorf("the row's parser is not its Python source: %.40q", r.Parser)
		}
	})
	t.Run("every archived instance", func(t *testing.T) {
		entries, err := os.ReadDir(testenv.Fixtures(t, archive))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, lang := range entries {
			dirs, _ := os.ReadDir(testenv.Fixtures(t, archive, lang.Name(), "playground"))
			for _, d := range dirs {
				n++
				inst := archiveRow(t, path.Join(lang.Name(), "playground", d.Name()))
				r, err := RowOf(&inst)
				if err != nil || !HasLiveColumns(&inst) || Gradable(&inst, false) != nil {
					t.Errorf("%s: %v", d.Name(), err)
					continue
				}
				if err := Gradable(&inst, true); (err != nil) != (lang.Name() == "windows_tasks") {
					t.Errorf("%s: gradable in a container: %v", d.Name(), err)
				}
				script := Script(r)
				for _, want := range []string{strings.Join(r.TestCmds, " ; ") + "\n", strings.Join(r.PrintCmds, " ; ") + "\n"} {
					if !strings.Contains(script, want) {
						t.Errorf("%s: the script lacks %q", d.Name(), want)
					}
				}
			}
		}
		if n != 27 {
			t.Errorf("read %d archived instances, want 27", n)
		}
	})
	t.Run("a Windows row loads, and is not graded in a container", func(t *testing.T) {
		inst := archiveRow(t, "windows_tasks/playground/dotnet__runtime-126064")
		if _, err := RowOf(&inst); err != nil {
			t.Fatal(err)
		}
		err := Gradable(&inst, true)
		var fe *dataset.FieldError
		if !errors.As(err, &fe) || fe.Field != "docker_image" || !strings.Contains(err.Error(), "Windows containers") {
			t.Fatalf("got %v, want a FieldError on docker_image naming Windows containers", err)
		}
	})
}

// TestArchiveInstanceFiles loads each of the archive's 27 instance.json files as it is (a JSON
// file holding one row): RepoLaunch's input, a task before validation, with no FAIL_TO_PASS and
// no PASS_TO_PASS. SWE-bench-Live's evaluation.py (microsoft/SWE-bench-Live at 70ec57e8,
// run_instance, run by python3 on such a row with a fake container) runs the tests and then fails
// on instance["PASS_TO_PASS"] (KeyError), listing the instance among results.json's error_ids;
// its validation.py derives the two lists (compare). So the row loads for a run and for an
// evaluation, and the grader says it cannot grade it, naming the row and what to do.
func TestArchiveInstanceFiles(t *testing.T) {
	entries, err := os.ReadDir(testenv.Fixtures(t, archive))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, lang := range entries {
		dirs, _ := os.ReadDir(testenv.Fixtures(t, archive, lang.Name(), "playground"))
		for _, d := range dirs {
			n++
			file := testenv.Fixtures(t, archive, lang.Name(), "playground", d.Name(), "instance.json")
			l, err := dataset.Load(t.Context(), file, dataset.LoadOptions{Families: []dataset.Family{New(Options{})}, Require: dataset.RequireRun | dataset.RequireEval})
			if err != nil {
				t.Errorf("%s: %v", d.Name(), err)
				continue
			}
			inst := l.Instances[0]
			if inst.Family != Name || inst.InstanceID != d.Name() || inst.FailToPass != nil || inst.PassToPass != nil {
				t.Errorf("%s: loaded as %q %q, FAIL_TO_PASS %v, PASS_TO_PASS %v", d.Name(), inst.Family, inst.InstanceID, inst.FailToPass, inst.PassToPass)
			}
			for _, inContainer := range []bool{false, true} {
				err := Gradable(&inst, inContainer)
				var fe *dataset.FieldError
				if !errors.As(err, &fe) || fe.Field != "FAIL_TO_PASS" || !strings.Contains(err.Error(), "FAIL_TO_PASS and PASS_TO_PASS") || !strings.Contains(err.Error(), "validation.py") {
					t.Errorf("%s: Gradable: %v", d.Name(), err)
				}
			}
			err = New(Options{}).Grader().Check(l.Instances)
			if err == nil || !strings.Contains(err.Error(), "instance "+d.Name()+": ") || !strings.Contains(err.Error(), "SWE-bench-Live's evaluation.py cannot grade it") {
				t.Errorf("%s: Check: %v", d.Name(), err)
			}
		}
	}
	if n != 27 {
		t.Errorf("read %d instance.json files, want 27", n)
	}
}

func TestRowOfErrors(t *testing.T) {
	base := func() dataset.Instance {
		return dataset.Instance{InstanceID: "a__b-1", LogParser: "pytest", FailToPass: []string{"t"}, PassToPass: []string{},
			Extra: map[string]any{"test_cmds": []any{"pytest -rA"}}}
	}
	tests := []struct {
		name   string
		change func(*dataset.Instance)
		field  string
	}{
		{"no test_cmds", func(i *dataset.Instance) { delete(i.Extra, "test_cmds") }, "test_cmds"},
		{"blank test_cmds", func(i *dataset.Instance) { i.Extra["test_cmds"] = []any{" "} }, "test_cmds"},
		{"a number in print_cmds", func(i *dataset.Instance) { i.Extra["print_cmds"] = []any{"cat x", 3.0} }, "print_cmds"},
		{"a parser name the harness does not know", func(i *dataset.Instance) { i.LogParser = "parse_log_pytest" }, "log_parser"},
		{"no parser", func(i *dataset.Instance) { i.LogParser = "" }, "log_parser"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := base()
			tt.change(&inst)
			_, err := RowOf(&inst)
			var fe *dataset.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("got %v, want a FieldError on %s", err, tt.field)
			}
		})
	}
	inst := base()
	inst.Extra["rebuild_cmds"] = `["make"]` // a JSON-encoded list, as some exports store it
	if r, err := RowOf(&inst); err != nil || !reflect.DeepEqual(r.RebuildCmds, []string{"make"}) {
		t.Errorf("JSON-string list: got %+v, %v", r, err)
	}
}

// TestParserColumn checks which column the parser comes from, as the harness reads it:
// instance.get("log_parser", instance.get("parser", "")). SWE-bench-Live's evaluation.py
// (microsoft/SWE-bench-Live at 70ec57e8, run_instances, run by python3 with a fake container
// printing "PASSED a::b", PASS_TO_PASS ["a::b"]) graded a row without log_parser by its parser
// column ("pytest": success_ids), and a row whose log_parser is "" or null, its parser column
// "pytest", as an error (run_parser("") defines no function parser; None.lower() raises).
func TestParserColumn(t *testing.T) {
	tests := []struct {
		name     string
		row      string
		match    bool
		wantErr  string // "": the row is graded with the pytest parser
		errField string
	}{
		{"no log_parser: the parser column", `{"parser": "pytest"}`, true, "", ""},
		{"an empty log_parser is taken as it is", `{"log_parser": "", "parser": "pytest"}`, true, "takes log_parser as it is", "log_parser"},
		{"a null log_parser is taken as it is", `{"log_parser": null, "parser": "pytest"}`, true, "null", "log_parser"},
		{"an empty log_parser without a parser column", `{"log_parser": ""}`, true, "takes log_parser as it is", "log_parser"},
		{"neither", `{}`, false, "missing", "log_parser"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := strings.Replace(tt.row, "{", `{"instance_id": "a__b-1", "problem_statement": "x", "test_cmds": ["pytest -rA"], "FAIL_TO_PASS": [], "PASS_TO_PASS": ["a::b"], `, 1)
			row = strings.Replace(row, ", }", "}", 1)
			p := path.Join(t.TempDir(), "rows.jsonl")
			if err := os.WriteFile(p, []byte(row+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := dataset.Load(t.Context(), p, dataset.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			inst := l.Instances[0]
			if HasLiveColumns(&inst) != tt.match {
				t.Errorf("HasLiveColumns: got %t", !tt.match)
			}
			r, err := RowOf(&inst)
			if tt.wantErr == "" {
				if err != nil || !r.IsPytest() {
					t.Fatalf("got %+v, %v; want the pytest parser", r, err)
				}
				return
			}
			var fe *dataset.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.errField || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want a FieldError on %s saying %q", err, tt.errField, tt.wantErr)
			}
		})
	}
}

func TestGradable(t *testing.T) {
	base := func() dataset.Instance {
		return dataset.Instance{InstanceID: "a__b-1", LogParser: "pytest", FailToPass: []string{"t"}, PassToPass: []string{},
			Extra: map[string]any{"test_cmds": []any{"pytest -rA"}}}
	}
	tests := []struct {
		name        string
		change      func(*dataset.Instance)
		field       string // "": gradable
		inContainer bool
	}{
		{"a row with both lists", func(*dataset.Instance) {}, "", true},
		{"empty lists are lists", func(i *dataset.Instance) { i.FailToPass, i.PassToPass = []string{}, []string{} }, "", true},
		{"no FAIL_TO_PASS", func(i *dataset.Instance) { i.FailToPass = nil }, "FAIL_TO_PASS", false},
		{"no PASS_TO_PASS", func(i *dataset.Instance) { i.PassToPass = nil }, "PASS_TO_PASS", false},
		{"a Windows image", func(i *dataset.Instance) { i.Image = "starryzhang/sweb.eval.win.a_1776_b-1" }, "docker_image", true},
		{"a Windows platform", func(i *dataset.Instance) { i.Extra["platform"] = "windows" }, "docker_image", true},
		{"a Windows task's logs", func(i *dataset.Instance) { i.Extra["platform"] = "windows" }, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := base()
			tt.change(&inst)
			err := Gradable(&inst, tt.inContainer)
			var fe *dataset.FieldError
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("got %v, want a FieldError on %s", err, tt.field)
			}
		})
	}
}

func TestDefaultImage(t *testing.T) {
	if got, want := DefaultImage("amoffat__sh-744"), "docker.io/starryzhang/sweb.eval.x86_64.amoffat_1776_sh-744:latest"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestScript(t *testing.T) {
	t.Run("print commands", func(t *testing.T) {
		got := Script(Row{InstanceID: "a__b-1", TestCmds: []string{"go test -json ./... > r.json", "true"}, PrintCmds: []string{"cat r.json", "echo done"}, RebuildCmds: []string{"go build ./..."}})
		want := "#!/bin/bash\n" +
			"# SWE-bench-Live's evaluation (evaluation/evaluation.py) of a__b-1, as run by swebench-run.\n" +
			"set +H\ncd /testbed\n" +
			"git apply --reject --whitespace=nowarn /tmp/live_test_patch.diff\n" +
			"git apply --reject --whitespace=nowarn /tmp/patch.diff\n" +
			"go build ./...\n" +
			"go test -json ./... > r.json ; true\n" +
			"printf '\\n%s\\n' '>>>>> Start Test Output'\n" +
			"if command -v tee >/dev/null 2>&1; then\n{ cat r.json ; echo done\n} 2>&1 | tee /tmp/live_print_output\nelse\n{ cat r.json ; echo done\n}\nfi\n" +
			"printf '\\n%s\\n' '>>>>> End Test Output'\n"
		if got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("no print commands: run_test.sh into testlog.out", func(t *testing.T) {
		got := Script(Row{InstanceID: "a__b-1", TestCmds: []string{"pytest -rA tests/test_a.py"}})
		for _, w := range []string{
			"\ncat > run_test.sh <<'CC_PROMPT'\npytest -rA tests/test_a.py\nCC_PROMPT\nbash run_test.sh > testlog.out 2>&1\n",
			"'>>>>> Start Test Output'\nif command -v tee >/dev/null 2>&1; then\n{ cat testlog.out\n} 2>&1 | tee /tmp/live_print_output\n",
		} {
			if !strings.Contains(got, w) {
				t.Errorf("script lacks %q:\n%s", w, got)
			}
		}
		if strings.Contains(got, "\n\n") {
			t.Errorf("an empty rebuild line:\n%s", got)
		}
	})
}

func TestPrintLog(t *testing.T) {
	tests := []struct {
		name, output, want string
		ok                 bool
	}{
		{"between the markers", "build\nok\n\n>>>>> Start Test Output\n{\"a\": 1}\n\n>>>>> End Test Output\n", "{\"a\": 1}\n", true},
		{"output without a final newline", "\n>>>>> Start Test Output\nlast line\n>>>>> End Test Output\n", "last line", true},
		{"nothing printed", "\n>>>>> Start Test Output\n\n>>>>> End Test Output\n", "", true},
		{"ANSI colours and CR removed", "\n>>>>> Start Test Output\n\x1b[32m✓\x1b[0m works\r\n\n>>>>> End Test Output\n", "✓ works\n", true},
		{"the last section counts", "\n>>>>> Start Test Output\nold\n\n>>>>> End Test Output\n\n>>>>> Start Test Output\nnew\n\n>>>>> End Test Output", "new\n", true},
		{"no end marker", "\n>>>>> Start Test Output\npartial", "", false},
		{"no start marker", "\nx\n>>>>> End Test Output\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := PrintLog(tt.output)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %q, %t; want %q, %t", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func statusMap(pairs ...string) Status {
	var m Status
	for i := 0; i < len(pairs); i += 2 {
		m = append(m, TestStatus{Test: pairs[i], Status: pairs[i+1]})
	}
	return m
}

func TestGrade(t *testing.T) {
	tests := []struct {
		name     string
		f2p, p2p []string
		status   Status
		want     Report
	}{
		{"resolved", []string{"f"}, []string{"p1", "p2"}, statusMap("f", "pass", "p1", "pass", "p2", "PASSED"),
			Report{InstanceID: "a__b-1", Resolved: true, FailToPass: Tests{[]string{"f"}, []string{}}, PassToPass: Tests{[]string{"p1", "p2"}, []string{}}}},
		{"a failing PASS_TO_PASS test", []string{"f"}, []string{"p"}, statusMap("f", "pass", "p", "fail"),
			Report{InstanceID: "a__b-1", FailToPass: Tests{[]string{"f"}, []string{}}, PassToPass: Tests{[]string{}, []string{"p"}}}},
		// A PASS_TO_PASS test the log does not have is neither a success nor a failure.
		{"a missing PASS_TO_PASS test does not count", []string{"f"}, []string{"p"}, statusMap("f", "pass"),
			Report{InstanceID: "a__b-1", Resolved: true, FailToPass: Tests{[]string{"f"}, []string{}}, PassToPass: Tests{[]string{}, []string{}}}},
		{"a missing FAIL_TO_PASS test does", []string{"f", "g"}, nil, statusMap("f", "pass"),
			Report{InstanceID: "a__b-1", FailToPass: Tests{[]string{"f"}, []string{}}, PassToPass: Tests{[]string{}, []string{}}}},
		{"a skipped FAIL_TO_PASS test is not a success", []string{"f"}, nil, statusMap("f", "skip"),
			Report{InstanceID: "a__b-1", FailToPass: Tests{[]string{}, []string{}}, PassToPass: Tests{[]string{}, []string{}}}},
		{"statuses are matched by substring, any case", []string{"f"}, []string{"p"}, statusMap("f", "Passed", "p", "FAILED_flaky"),
			Report{InstanceID: "a__b-1", FailToPass: Tests{[]string{"f"}, []string{}}, PassToPass: Tests{[]string{}, []string{"p"}}}},
		{"no FAIL_TO_PASS tests", []string{}, []string{"p"}, statusMap("p", "pass"),
			Report{InstanceID: "a__b-1", Resolved: true, FailToPass: Tests{[]string{}, []string{}}, PassToPass: Tests{[]string{"p"}, []string{}}}},
		{"lists are sorted sets", []string{"g", "f", "g"}, nil, statusMap("f", "pass", "g", "pass"),
			Report{InstanceID: "a__b-1", Resolved: true, FailToPass: Tests{[]string{"f", "g"}, []string{}}, PassToPass: Tests{[]string{}, []string{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Grade(&dataset.Instance{InstanceID: "a__b-1", FailToPass: tt.f2p, PassToPass: tt.p2p}, tt.status)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestHarnessPytestParser grades a log with the harness's own pytest parser. The expected
// status.json and report.json are what SWE-bench-Live's evaluation.py (microsoft/SWE-bench-Live at
// 70ec57e852e3f2d195790fe71f553e272c691833: run_instances → evaluate_instance →
// default_pytest_parser, run by python3 on this row and this log with a fake container) wrote:
// pytest's "SKIPPED [N]" summary lines are the tests "[N]" (SWE-bench's current parser drops
// them), a later line changes a test's status but not its place, words are split at any Unicode
// space, and "ERRORskİp" is no skip because Python lowers İ to "i̇". report.json's lists are
// sorted here (the harness writes them in set order).
func TestHarnessPytestParser(t *testing.T) {
	log := "SKIPPED [1] tests/test_a.py:12: no network\nSKIPPED [2] tests/test_b.py:3: win only\nPASSED tests/test_a.py::test_ok\n" +
		"FAILED tests/test_a.py::test_bad - AssertionError: x - y\nERROR tests/test_c.py::test_setup\nXFAIL tests/test_a.py::test_known - reason\n" +
		"FAILED tests/test_a.py::test_ok\nPASSED tests/test_a.py::test_ok\n  PASSED indented::t\nPASSED\nPASSED\u2003tests/ü.py::test_ñ\u00a0extra\n" +
		"SKIPPED tests/test_a.py::test_skip\nXFAILpass x::t3\nERRORsk\u0130p x::t4\nPASSED\tx::tab\n"
	inst := dataset.Instance{InstanceID: "a__b-1", FailToPass: []string{"tests/test_a.py::test_bad", "[1]", "x::t3"},
		PassToPass: []string{"tests/test_a.py::test_ok", "[2]", "x::t4", "tests/ü.py::test_ñ"}}
	wantStatus := "{\n \"[1]\": \"skip\",\n \"[2]\": \"skip\",\n \"tests/test_a.py::test_ok\": \"pass\",\n \"tests/test_a.py::test_bad\": \"fail\",\n" +
		" \"tests/test_c.py::test_setup\": \"fail\",\n \"tests/test_a.py::test_known\": \"fail\",\n \"tests/\\u00fc.py::test_\\u00f1\": \"pass\",\n" +
		" \"tests/test_a.py::test_skip\": \"skip\",\n \"x::t3\": \"pass\",\n \"x::t4\": \"fail\",\n \"x::tab\": \"pass\"\n}"
	wantReport := Report{InstanceID: "a__b-1", Resolved: false,
		PassToPass: Tests{Success: []string{"tests/test_a.py::test_ok", "tests/ü.py::test_ñ"}, Failure: []string{"x::t4"}},
		FailToPass: Tests{Success: []string{"x::t3"}, Failure: []string{"tests/test_a.py::test_bad"}}}

	status := PytestStatus(log)
	got, err := MarshalStatus(status)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != wantStatus {
		t.Errorf("status.json:\n%s\nwant (the harness's):\n%s", got, wantStatus)
	}
	if rep := Grade(&inst, status); !reflect.DeepEqual(rep, wantReport) {
		t.Errorf("report: got %+v\nwant %+v", rep, wantReport)
	}
}

// TestGradeKeysThatAreNotStr grades the map a Python parser returned with keys that are not str.
// SWE-bench-Live's evaluation.py (at 70ec57e8, run by python3 with RepoLaunch's run_parser at
// 7735b1e7 on the parser returning {5: 'pass', '5': 'fail', None: 'pass', 1.5: 'pass', True:
// 'fail', 't': 'pass'}, FAIL_TO_PASS ["5"], PASS_TO_PASS ["t", "null", "1.5", "true"]) wrote that
// status.json and report.json, unresolved; with {5: 'pass'} and FAIL_TO_PASS ["5"] it found no
// FAIL_TO_PASS test passed, unresolved.
func TestGradeKeysThatAreNotStr(t *testing.T) {
	status := Status{{Test: "5", Status: "pass", NotStr: true}, {Test: "5", Status: "fail"}, {Test: "null", Status: "pass", NotStr: true},
		{Test: "1.5", Status: "pass", NotStr: true}, {Test: "true", Status: "fail", NotStr: true}, {Test: "t", Status: "pass"}}
	inst := dataset.Instance{InstanceID: "a__b-1", FailToPass: []string{"5"}, PassToPass: []string{"t", "null", "1.5", "true"}}
	want := Report{InstanceID: "a__b-1", PassToPass: Tests{[]string{"t"}, []string{}}, FailToPass: Tests{[]string{}, []string{"5"}}}
	if got := Grade(&inst, status); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	data, err := MarshalStatus(status)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n \"5\": \"pass\",\n \"5\": \"fail\",\n \"null\": \"pass\",\n \"1.5\": \"pass\",\n \"true\": \"fail\",\n \"t\": \"pass\"\n}"; string(data) != want {
		t.Errorf("status.json:\n%s\nwant (the harness's):\n%s", data, want)
	}
	intOnly := dataset.Instance{InstanceID: "a__b-1", FailToPass: []string{"5"}, PassToPass: []string{}}
	if got := Grade(&intOnly, Status{{Test: "5", Status: "pass", NotStr: true}}); got.Resolved || len(got.FailToPass.Success) != 0 {
		t.Errorf("{5: 'pass'} passed the test \"5\": %+v", got)
	}
}

// TestRawPrintLog decodes print output bytes as the harness's session does. The expected text is
// what RepoLaunch's LinuxRuntime._read_raw_output (microsoft/RepoLaunch at 7735b1e7, the
// submodule of SWE-bench-Live 70ec57e8; run by python3 on these bytes as one chunk, followed by a
// prompt) returned: invalid UTF-8 dropped (errors="ignore"), a valid U+FFFD kept, ANSI escapes and
// carriage returns removed.
func TestRawPrintLog(t *testing.T) {
	raw := []byte("ok \xff\xfe tests/\xe2\x82 a.py::t \xf0\x9f\x98\x80 \xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80 \xe2\x82\xac\xe2 end\r\n\x1b[32mPASSED\x1b[0m x\xc3\n\xef\xbf\xbd kept\n")
	want := "ok  tests/ a.py::t 😀    € end\nPASSED x\n\ufffd kept\n"
	if got := RawPrintLog(raw); got != want {
		t.Errorf("got %q\nwant %q (the harness's)", got, want)
	}
}

// TestHarnessFiles checks report.json, status.json and results.json byte for byte against what
// Python's json.dump(…, indent=True) writes for the same values.
func TestHarnessFiles(t *testing.T) {
	rep := Report{InstanceID: "a__b-1", PassToPass: Tests{[]string{"t1", "ü"}, []string{}}, FailToPass: Tests{[]string{}, []string{"t2"}}}
	data, err := MarshalReport(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n \"instance_id\": \"a__b-1\",\n \"resolved\": false,\n \"PASS_TO_PASS\": {\n  \"success\": [\n   \"t1\",\n   \"\\u00fc\"\n  ],\n  \"failure\": []\n },\n \"FAIL_TO_PASS\": {\n  \"success\": [],\n  \"failure\": [\n   \"t2\"\n  ]\n }\n}"
	if string(data) != want {
		t.Errorf("report.json:\n%s\nwant:\n%s", data, want)
	}
	back, err := ReadReport(data)
	if err != nil || !reflect.DeepEqual(back, rep) {
		t.Errorf("read back %+v, %v", back, err)
	}
	if _, err := ReadReport([]byte(`{"a__b-1": {"resolved": true}}`)); err == nil {
		t.Error("a SWE-bench report.json was read as a SWE-bench-Live one")
	}

	status, err := MarshalStatus(statusMap("x::y", "pass", "ü", "fail"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n \"x::y\": \"pass\",\n \"\\u00fc\": \"fail\"\n}"; string(status) != want {
		t.Errorf("status.json:\n%s\nwant:\n%s", status, want)
	}
	if empty, _ := MarshalStatus(nil); string(empty) != "{}" {
		t.Errorf("empty status.json: %s", empty)
	}
	m, err := ReadStatus(status)
	if err != nil || !reflect.DeepEqual(m, statusMap("x::y", "pass", "ü", "fail")) {
		t.Errorf("read status back: %v, %v", m, err)
	}
	// json.load: a key written twice keeps its first place and its last value.
	if m, err := ReadStatus([]byte(`{"5": "pass", "t": "fail", "5": "fail"}`)); err != nil || !reflect.DeepEqual(m, statusMap("5", "fail", "t", "fail")) {
		t.Errorf("duplicated key: %v, %v", m, err)
	}

	res := Results{Submitted: 2, SubmittedIDs: []string{"a", "b"}, EmptyPatch: 1, EmptyPatchIDs: []string{"b"}, SuccessIDs: []string{"a"}, Success: 1}
	data, err = MarshalResults(res)
	if err != nil {
		t.Fatal(err)
	}
	back2, err := ReadResults(data)
	if err != nil || back2.Success != 1 || !reflect.DeepEqual(back2.SuccessIDs, []string{"a"}) || !reflect.DeepEqual(back2.FailureIDs, []string{}) {
		t.Errorf("results.json read back: %+v, %v\n%s", back2, err, data)
	}
	if !strings.Contains(string(data), "\n \"failure_ids\": [],\n") {
		t.Errorf("results.json lists no empty failure_ids:\n%s", data)
	}
}
