package polybench

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
)

func polyRow() dataset.Instance {
	return dataset.Instance{InstanceID: "google__gson-1014", Repo: "google/gson", Patch: "p", TestPatch: "tp",
		Extra: map[string]any{
			"language":     "Java",
			"test_command": "mvn test -B -Dtest=JsonTreeReaderTest",
			"F2P":          "['com.google.gson.internal.bind.JsonTreeReaderTest.testSkipValue_emptyJsonObject']",
			"P2P":          `["com.google.gson.internal.bind.JsonTreeReaderTest.testHasNext_endOfDocument", 'it\'s']`,
		}}
}

func TestTaskOf(t *testing.T) {
	task, err := TaskOf(polyRow())
	if err != nil {
		t.Fatal(err)
	}
	if task.ParserName != "JavaGenericParser" || task.Timeout() != 30*time.Minute {
		t.Errorf("got parser %s, timeout %v", task.ParserName, task.Timeout())
	}
	if !reflect.DeepEqual(task.P2P, []string{"com.google.gson.internal.bind.JsonTreeReaderTest.testHasNext_endOfDocument", "it's"}) || len(task.F2P) != 1 {
		t.Errorf("got F2P %q, P2P %q", task.F2P, task.P2P)
	}
	if want := "#!/bin/bash\nset -uxo pipefail\nmvn test -B -Dtest=JsonTreeReaderTest"; task.Script() != want {
		t.Errorf("Script() = %q, want %q", task.Script(), want)
	}
	for name, change := range map[string]func(*dataset.Instance){
		"acme/acme":    func(i *dataset.Instance) { i.Repo = "acme/acme" },
		"language":     func(i *dataset.Instance) { delete(i.Extra, "language") },
		"test_command": func(i *dataset.Instance) { i.Extra["test_command"] = " " },
		"F2P":          func(i *dataset.Instance) { i.Extra["F2P"] = "['unterminated" },
		"P2P":          func(i *dataset.Instance) { delete(i.Extra, "P2P") },
	} {
		inst := polyRow()
		change(&inst)
		if _, err := TaskOf(inst); err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "google__gson-1014") {
			t.Errorf("%s: got %v, want an error naming the row and %s", name, err, name)
		}
	}
}
