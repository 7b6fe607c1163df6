package polybench

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/family"
)

var _ family.TestReader = grader{}

var exitedLine = regexp.MustCompile(`Container exited with status code: (-?\d+)`)

// Tests implements family.TestReader: the passed and failed tests of the instance's result (the
// harness's parsers report no other status), and the exit status its run log records.
func (grader) Tests(inst dataset.Instance, dir string) (family.TestRun, bool, error) {
	o, err := ReadResult(ResultPath(dir, inst.InstanceID))
	if errors.Is(err, fs.ErrNotExist) {
		return family.TestRun{}, false, nil
	}
	if err != nil {
		return family.TestRun{}, false, err
	}
	if !o.WithLogs {
		return family.TestRun{}, false, nil
	}
	run := family.TestRun{Statuses: map[string]string{}}
	for _, t := range o.PassedTests {
		run.Statuses[t] = logparse.Passed
	}
	for _, t := range o.FailedTests {
		run.Statuses[t] = logparse.Failed
	}
	if data, err := os.ReadFile(filepath.Join(dir, RunLogFile(inst.InstanceID))); err == nil {
		if m := exitedLine.FindSubmatch(data); m != nil {
			if n, err := strconv.Atoi(string(m[1])); err == nil {
				run.ExitCode = &n
			}
		}
	}
	return run, true, nil
}
