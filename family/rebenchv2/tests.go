package rebenchv2

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

var _ family.TestReader = grader{}

// Tests implements family.TestReader: the instance's log parsed with the row's parser, names
// normalised as the harness compares them (the row's own spelling of a listed test is kept too),
// and the script's exit status from the report item.
func (grader) Tests(inst dataset.Instance, dir string) (family.TestRun, bool, error) {
	t, err := TaskOf(inst)
	if err != nil {
		return family.TestRun{}, false, err
	}
	data, err := os.ReadFile(filepath.Join(dir, LogFile(t.InstanceID)))
	if errors.Is(err, fs.ErrNotExist) {
		return family.TestRun{}, false, nil
	}
	if err != nil {
		return family.TestRun{}, false, err
	}
	parse, err := Parser(t.LogParser)
	if err != nil {
		return family.TestRun{}, false, err
	}
	sm, err := parse(string(data), t.InstanceID)
	if err != nil {
		return family.TestRun{}, false, nil // the harness records a parser's failure as the instance's error
	}
	run := family.TestRun{Statuses: map[string]string{}}
	for _, name := range sm.Keys() {
		status, _ := sm.Get(name)
		run.Statuses[NormalizeName(name)] = status
	}
	for _, name := range append(append([]string{}, t.FailToPass...), t.PassToPass...) {
		if st, ok := run.Statuses[NormalizeName(name)]; ok {
			run.Statuses[name] = st
		}
	}
	if it, err := readItem(filepath.Join(dir, ItemFile)); err == nil {
		run.ExitCode = it.ExitCode
	}
	return run, true, nil
}
