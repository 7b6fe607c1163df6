package eval

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/validation"
)

// ReadTests says how the tests of the grading kept in dir (an instance's folder of an
// evaluation) ended: for a row graded the SWE-bench harness's way, its test_output.txt parsed
// as Grade parses it (expected ids truncated inside a parameter resolved as Grade resolves
// them) and the exit status the eval script recorded; for another family, what its grader's
// family.TestReader says. ok is false when the folder holds no usable log, or the family's
// grader cannot say (families without a TestReader).
func ReadTests(inst dataset.Instance, dir string, graders func(string) family.Grader) (family.TestRun, bool, error) {
	if g := graderOf(inst, graders); g != nil {
		tr, ok := g.(family.TestReader)
		if !ok {
			return family.TestRun{}, false, nil
		}
		return tr.Tests(inst, dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, testOutputFile))
	if errors.Is(err, fs.ErrNotExist) {
		return family.TestRun{}, false, nil
	}
	if err != nil {
		return family.TestRun{}, false, err
	}
	evalType, err := evalTypeOf(inst)
	if err != nil {
		return family.TestRun{}, false, err
	}
	parse, err := parserOf(inst)
	if err != nil {
		return family.TestRun{}, false, err
	}
	log := string(data)
	sm, ok, err := statusMapFromLog(parse, inst.InstanceID, log, evalType == EvalFailOnly)
	if err != nil || !ok {
		return family.TestRun{}, false, nil
	}
	run := family.TestRun{Statuses: sm.Statuses()}
	for _, name := range append(append([]string{}, inst.FailToPass...), inst.PassToPass...) {
		if k, found := resolveCase(name, sm); found {
			st, _ := sm.Get(k)
			run.Statuses[name] = st
		}
	}
	if code, ok := TestExitCode(log); ok {
		run.ExitCode = &code
	}
	return run, true, nil
}

// expectedStatuses are the statuses of an instance's FAIL_TO_PASS and PASS_TO_PASS tests in a
// test run, in validation's words; a test the run does not name is missing.
func expectedStatuses(inst dataset.Instance, run family.TestRun) map[string]string {
	out := make(map[string]string, len(inst.FailToPass)+len(inst.PassToPass))
	for _, name := range append(append([]string{}, inst.FailToPass...), inst.PassToPass...) {
		st, ok := run.Statuses[name]
		if !ok {
			out[name] = validation.StatusMissing
			continue
		}
		out[name] = statusWord(st)
	}
	return out
}

// statusWord is a parser's status in validation's words.
func statusWord(st string) string {
	switch st {
	case logparse.Passed:
		return validation.StatusPassed
	case logparse.Failed:
		return validation.StatusFailed
	case logparse.Error:
		return validation.StatusError
	case logparse.Skipped:
		return validation.StatusSkipped
	case logparse.XFail:
		return validation.StatusXFail
	}
	return strings.ToLower(st)
}
