package family

import "github.com/swebench-run/swebench-run/dataset"

// TestRun is how the tests of one grading ended, as the family's parser read its log.
type TestRun struct {
	// Statuses maps every test the log names to its status, in eval/logparse's words (PASSED,
	// FAILED, ERROR, SKIPPED, XFAIL), with names as the row's FAIL_TO_PASS and PASS_TO_PASS write
	// them. Empty when the runner named no test.
	Statuses map[string]string
	// ExitCode is the test command's exit status, when the grading kept it.
	ExitCode *int
}

// TestReader is implemented by the graders that can say, after Grade or Regrade wrote an
// instance's files into dir (its folder), how each test ended: `validate` names the tests that
// fail under the gold patch and how, and eval tells an environment's failure from the patch's.
// A grader without it is validated by its verdicts alone.
type TestReader interface {
	// Tests reads the grading kept in dir; ok is false when dir holds no graded log (the patch
	// did not apply, the tests timed out).
	Tests(inst dataset.Instance, dir string) (run TestRun, ok bool, err error)
}
