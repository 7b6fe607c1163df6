package rebench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
)

// Rows with an install_config and no eval_script are the family's; a row whose install_config
// cannot be read is refused when it is loaded, naming the file, line, instance and column.
func TestLoadRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.jsonl")
	write := func(rows string) {
		if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func() (*dataset.Loaded, error) {
		return dataset.Load(context.Background(), path, dataset.LoadOptions{Require: dataset.RequireEval, Families: []dataset.Family{Profile{}}})
	}
	write(`{"instance_id":"a__b-1","FAIL_TO_PASS":[],"PASS_TO_PASS":[],"install_config":{"test_cmd":"pytest","log_parser":"parse_log_pytest"}}` + "\n" +
		`{"instance_id":"a__b-2","FAIL_TO_PASS":[],"PASS_TO_PASS":[],"eval_script":"pytest","install_config":{"test_cmd":"pytest"}}` + "\n" +
		`{"instance_id":"a__b-3","FAIL_TO_PASS":[],"PASS_TO_PASS":[]}` + "\n")
	l, err := load()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, inst := range l.Instances {
		got = append(got, inst.Family)
	}
	if want := []string{Name, "", ""}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("families %q, want %q (an eval_script wins over an install_config)", got, want)
	}

	write(`{"instance_id":"a__b-1","FAIL_TO_PASS":[],"PASS_TO_PASS":[],"install_config":"{not json"}` + "\n" +
		`{"instance_id":"a__b-2","FAIL_TO_PASS":[],"PASS_TO_PASS":[],"install_config":[1]}` + "\n")
	_, err = load()
	for _, want := range []string{
		`line 1 (instance a__b-1): field "install_config": install_config: not a JSON object`,
		`line 2 (instance a__b-2): field "install_config": install_config: want an object, got a list`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %q", err, want)
		}
	}
}
