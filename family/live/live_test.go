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
	"github.com/swebench-run/swebench-run/eval/logparse"
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
				if lang.Name() == "windows_tasks" {
					if err == nil {
						t.Errorf("%s: a Windows task was not refused", d.Name())
					}
					continue
				}
				if err != nil || !HasLiveColumns(&inst) {
					t.Errorf("%s: %v", d.Name(), err)
					continue
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
	t.Run("a Windows row is refused", func(t *testing.T) {
		inst := archiveRow(t, "windows_tasks/playground/dotnet__runtime-126064")
		_, err := RowOf(&inst)
		var fe *dataset.FieldError
		if !errors.As(err, &fe) || fe.Field != "docker_image" || !strings.Contains(err.Error(), "Windows containers") {
			t.Fatalf("got %v, want a FieldError on docker_image naming Windows containers", err)
		}
	})
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
		{"no FAIL_TO_PASS", func(i *dataset.Instance) { i.FailToPass = nil }, "FAIL_TO_PASS"},
		{"a Windows image", func(i *dataset.Instance) { i.Image = "starryzhang/sweb.eval.win.a_1776_b-1" }, "docker_image"},
		{"a Windows platform", func(i *dataset.Instance) { i.Extra["platform"] = "windows" }, "docker_image"},
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
	inst.LogParser = ""
	inst.Extra["parser"] = "pytest" // the harness falls back to a parser column
	if r, err := RowOf(&inst); err != nil || !r.IsPytest() || !HasLiveColumns(&inst) {
		t.Errorf("parser column: got %+v, %v", r, err)
	}
	inst = base()
	inst.Extra["rebuild_cmds"] = `["make"]` // a JSON-encoded list, as some exports store it
	if r, err := RowOf(&inst); err != nil || !reflect.DeepEqual(r.RebuildCmds, []string{"make"}) {
		t.Errorf("JSON-string list: got %+v, %v", r, err)
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
			"cat r.json ; echo done\n" +
			"printf '\\n%s\\n' '>>>>> End Test Output'\n"
		if got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("no print commands: run_test.sh into testlog.out", func(t *testing.T) {
		got := Script(Row{InstanceID: "a__b-1", TestCmds: []string{"pytest -rA tests/test_a.py"}})
		for _, w := range []string{
			"\ncat > run_test.sh <<'CC_PROMPT'\npytest -rA tests/test_a.py\nCC_PROMPT\nbash run_test.sh > testlog.out 2>&1\n",
			"'>>>>> Start Test Output'\ncat testlog.out\n",
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

func statusMap(pairs ...string) *logparse.Map {
	m := logparse.NewMap()
	for i := 0; i < len(pairs); i += 2 {
		m.Set(pairs[i], pairs[i+1])
	}
	return m
}

func TestGrade(t *testing.T) {
	tests := []struct {
		name     string
		f2p, p2p []string
		status   *logparse.Map
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

func TestPytestStatus(t *testing.T) {
	log := "PASSED tests/a.py::t1\nFAILED tests/a.py::t2 - assert 0\nSKIPPED tests/a.py::t3\nXFAIL tests/a.py::t4\nERROR tests/a.py::t5\n"
	got, err := PytestStatus(log)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"tests/a.py::t1", "pass"}, {"tests/a.py::t2", "fail"}, {"tests/a.py::t3", "skip"}, {"tests/a.py::t4", "fail"}, {"tests/a.py::t5", "fail"}}
	var pairs [][2]string
	for _, k := range got.Keys() {
		s, _ := got.Get(k)
		pairs = append(pairs, [2]string{k, s})
	}
	if !reflect.DeepEqual(pairs, want) {
		t.Errorf("got %v, want %v", pairs, want)
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
	if empty, _ := MarshalStatus(logparse.NewMap()); string(empty) != "{}" {
		t.Errorf("empty status.json: %s", empty)
	}
	m, err := ReadStatus(status)
	if err != nil || !reflect.DeepEqual(m.Keys(), []string{"x::y", "ü"}) {
		t.Errorf("read status back: %v, %v", m.Keys(), err)
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
