package multiswebench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The harness's layout of an instance image (multi_swe_bench/harness/image.py and the
// repositories' Image classes): the repository at /home/<repo> at the base commit, and in /home
// the scripts run.sh, test-run.sh and fix-run.sh with test.patch and fix.patch beside them. To
// grade a prediction the harness mounts it as /home/fix.patch and runs fix-run.sh, which applies
// test.patch and fix.patch to the repository and runs its tests.
const (
	FixPatchPath  = "/home/fix.patch"
	FixRunCommand = "bash /home/fix-run.sh"
)

// InstanceID is the instance's id in predictions and runs: "org__repo-number" (the harness's own
// name is "org/repo:pr-number", ID).
func (r *Row) InstanceID() string { return fmt.Sprintf("%s__%s-%d", r.Org, r.Repo, r.Number) }

// Image is the instance image, as the harness names it: "mswebench/" + lower-case "org_m_repo",
// tag "pr-number".
func (r *Row) Image() string {
	return fmt.Sprintf("mswebench/%s:pr-%d", strings.ToLower(r.Org+"_m_"+r.Repo), r.Number)
}

// Workdir is where the repository is in the image: /home/<repo>, except for mini's Python
// instances, whose images are SWE-bench's (the repository in /testbed) with the harness's
// scripts added in /home.
func (r *Row) Workdir() string {
	if repositories[r.Org+"/"+r.Repo].swebenchImage {
		return "/testbed"
	}
	return "/home/" + r.Repo
}

// ProblemStatement is the task given to the agent, built as the harness's agents (its OpenHands
// integration) build it: the first resolved issue's title, a newline, and its body.
func (r *Row) ProblemStatement() string {
	if len(r.ResolvedIssues) == 0 {
		return ""
	}
	is := r.ResolvedIssues[0]
	body := ""
	if is.Body != nil {
		body = *is.Body
	}
	return is.Title + "\n" + body
}

// Prediction is one line of the harness's patch file (run_evaluation.py's --patch_files): the
// pull request and the predicted fix.
type Prediction struct {
	Org      string `json:"org"`
	Repo     string `json:"repo"`
	Number   int    `json:"number"`
	FixPatch string `json:"fix_patch"`
}

// PredictionLine renders a prediction as a line of the harness's JSONL patch file.
func PredictionLine(r *Row, patch string) ([]byte, error) {
	b, err := json.Marshal(Prediction{Org: r.Org, Repo: r.Repo, Number: r.Number, FixPatch: patch})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ErrFixTimeout is RunFix's error when fix-run.sh outlives its timeout.
var ErrFixTimeout = errors.New("the fix run timed out")

// Box is what a fix run needs from a fresh container of the instance image.
type Box interface {
	WriteFile(ctx context.Context, path string, data []byte) error
	Exec(ctx context.Context, cmd string, timeout time.Duration) (output string, exitCode int, timedOut bool, err error)
}

// RunFix does what the harness's run_instance does in a container of the instance image: the
// prediction becomes /home/fix.patch and fix-run.sh runs; its output (stdout and stderr as they
// come) is the fix-patch-run.log that Evaluate grades. A failing script is not an error (the
// harness grades whatever the log holds: a patch that does not apply leaves no test results and
// an invalid report); a timeout is, as the harness would still be waiting.
func RunFix(ctx context.Context, box Box, patch string, timeout time.Duration) (string, error) {
	if err := box.WriteFile(ctx, FixPatchPath, []byte(patch)); err != nil {
		return "", fmt.Errorf("writing the prediction to %s: %w", FixPatchPath, err)
	}
	out, _, timedOut, err := box.Exec(ctx, FixRunCommand, timeout)
	if err != nil {
		return "", fmt.Errorf("running %s: %w", FixRunCommand, err)
	}
	if timedOut {
		return out, fmt.Errorf("%s did not finish within %s: %w", FixRunCommand, timeout, ErrFixTimeout)
	}
	return out, nil
}
