package family

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
)

// Outcome is what became of one prediction in an evaluation.
type Outcome string

// Outcomes of one prediction. Error is kept apart from Unresolved: it means the prediction could
// not be graded (patch did not apply, image missing, container died, timeout, …), see ErrorKind.
const (
	Resolved   Outcome = "resolved"
	Unresolved Outcome = "unresolved"
	EmptyPatch Outcome = "empty_patch"
	Error      Outcome = "error"
)

// ErrorKind classifies an Error outcome.
type ErrorKind string

// Error kinds. The infrastructure kinds (ImageMissing, Container, Timeout, Assets) say nothing
// about the patch; PatchApplyFailed and NotADiff are the prediction's fault; Grading means the log
// could not be read the harness's way; NoTestOutput that the tests left no output to grade.
const (
	KindAssets           ErrorKind = "assets" // grading files the harness keeps outside its rows could not be had
	KindImageMissing     ErrorKind = "image_missing"
	KindContainer        ErrorKind = "container"
	KindTimeout          ErrorKind = "timeout"
	KindPatchApplyFailed ErrorKind = "patch_apply_failed"
	KindNotADiff         ErrorKind = "not_a_diff"
	KindGrading          ErrorKind = "grading"
	KindNoTestOutput     ErrorKind = "no_test_output"
)

// Infrastructure reports whether the error is the environment's fault rather than the patch's:
// such instances are worth retrying.
func (k ErrorKind) Infrastructure() bool {
	return k == KindImageMissing || k == KindContainer || k == KindTimeout || k == KindAssets
}

// Verdict is a grader's grade of one prediction.
type Verdict struct {
	Outcome   Outcome   // Resolved, Unresolved or Error (EmptyPatch is the engine's)
	ErrorKind ErrorKind // with Error
	Reason    string    // with Error: the cause, for humans
	// Report is the family's per-instance report as the grader wrote it (for SWE-bench an
	// *eval.InstanceReport); the engine passes it on, it does not read it.
	Report any
	// TakenFrom is set when the verdict was not graded but taken from a report an earlier
	// evaluation left without its log (a published folder keeping only report.json): the
	// layout it was read in, for the engine's summary.
	TakenFrom string
}

// Errorf returns an Error verdict of kind with a formatted reason.
func Errorf(kind ErrorKind, format string, args ...any) Verdict {
	return Verdict{Outcome: Error, ErrorKind: kind, Reason: sprintf(format, args...)}
}

// Graded returns Resolved or Unresolved.
func Graded(resolved bool, report any) Verdict {
	if resolved {
		return Verdict{Outcome: Resolved, Report: report}
	}
	return Verdict{Outcome: Unresolved, Report: report}
}

// Sandbox is the fresh sandbox of one evaluation (never the one an agent used), as a grader uses
// it. The engine starts it from the instance's image and removes it.
type Sandbox interface {
	// Exec runs `bash -c cmd` in the sandbox, in the instance's working directory
	// (Instance.WorkingDir). The timeout is enforced inside the sandbox (the process is killed
	// there). output is stdout and stderr merged (capped at its tail); timedOut reports that the
	// timeout killed the command. err is for failures of the sandbox or its backend, not for a
	// non-zero exit code.
	Exec(ctx context.Context, cmd string, timeout time.Duration) (output string, exitCode int, timedOut bool, err error)
	// WriteFile writes data to an absolute path in the sandbox, whose directory exists.
	WriteFile(ctx context.Context, path string, data []byte) error
}

// GradeEnv is what the engine gives a grader besides the sandbox.
type GradeEnv struct {
	// Timeout bounds the family's test run (eval --timeout).
	Timeout time.Duration
	// HTTP downloads what grading needs from the network (assets); nil: http.DefaultClient.
	HTTP *http.Client
	// Log is the instance's run_instance.log, for humans: what was run and what happened.
	Log io.Writer
	// Start starts a further sandbox of image for the grader's own tools (SWE-bench-Live: a
	// Python to run a row's log parser in), through the engine's backend, working in /; stop
	// removes it. nil when the engine has none to offer.
	Start func(ctx context.Context, image string) (sb Sandbox, stop func(), err error)
}

// Grader grades predictions of one family. The engine (package eval) runs the worker pool,
// starts a fresh sandbox per prediction, keeps the files of each instance under its folder
// <out>/<instance_id>/ and writes the run report; a Grader does the family's part.
type Grader interface {
	// Check reports, before any sandbox starts, why instances cannot be graded (a missing
	// column, an instance the harness has no assets for): an error naming them, nil when all
	// can be.
	Check(insts []dataset.Instance) error
	// Reuse returns the verdict an earlier evaluation left in dir (the instance's folder), so
	// that a rerun resumes; ok is false when there is none and the prediction is graded again.
	Reuse(inst dataset.Instance, pred Prediction, dir string) (v Verdict, ok bool)
	// Grade grades pred (a non-empty patch) in sb, a fresh sandbox of the instance's image, and
	// writes the instance's files into dir in the harness's names. Everything that goes wrong
	// with the instance, the sandbox's failures included, is the Verdict (KindContainer for
	// those); the error is for failures of the run only: ctx ended, dir not writable.
	Grade(ctx context.Context, env GradeEnv, sb Sandbox, inst dataset.Instance, pred Prediction, dir string) (Verdict, error)
	// Regrade grades pred from the logs an earlier evaluation left (the harness's or this
	// tool's), without a sandbox, and writes dir's files as Grade does. logDirs are the folders
	// that may hold the instance's folder <logDir>/<instance_id>/, in the order to try; found
	// is false when none of them holds the instance's log.
	Regrade(inst dataset.Instance, pred Prediction, logDirs []string, dir string) (v Verdict, found bool, err error)
	// Finish writes the harness's run-level files into outDir (the folder of the instances'
	// folders) once an evaluation's verdicts are known, for the instances of this family
	// (SWE-bench Pro: eval_results.json). preds are the evaluation's predictions.
	Finish(outDir string, preds map[string]Prediction, verdicts map[string]Verdict) error
}
