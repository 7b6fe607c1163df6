package gym

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/rebench"
	"github.com/swebench-run/swebench-run/results"
)

// Name is the family's name (dataset.NamedDataset.Family, dataset.Instance.Family).
const Name = "gym"

// Files of an instance, in the harness's names.
const (
	PatchFile      = "patch.diff"
	ScriptFile     = "eval.sh"
	TestOutputFile = "test_output.txt"
	ReportFile     = "report.json"
)

// Paths in the container, as the harness uses them.
const (
	containerPatch  = "/tmp/patch.diff"
	containerScript = "/eval.sh"
)

// applyTimeout bounds each patch command.
const applyTimeout = 5 * time.Minute

// Profile is SWE-Gym's family.
type Profile struct{}

var _ family.Profile = Profile{}

// Name implements dataset.Family.
func (Profile) Name() string { return Name }

// Title implements family.Profile.
func (Profile) Title() string { return "SWE-Gym" }

// Match implements dataset.Family: a row with neither eval_script nor install_config (a
// SWE-bench row those complete) whose repository is one the fork adds specifications for.
func (Profile) Match(inst *dataset.Instance) bool {
	if strings.TrimSpace(inst.EvalScript) != "" || !HasSpec(inst.Repo) {
		return false
	}
	_, has, _ := rebench.InstallConfig(inst)
	return !has
}

// Prepare implements dataset.Family: the fork must have a specification for the row's repository
// and version (else a *dataset.FieldError naming repo or version); the image is the row's or
// SWE-Gym's, and the agent works in /testbed on the problem statement.
func (Profile) Prepare(inst *dataset.Instance) error {
	var errs []error
	if _, err := specOf(inst); err != nil {
		errs = append(errs, err)
	}
	if inst.BaseCommit == "" {
		errs = append(errs, &dataset.FieldError{Field: "base_commit", Reason: "missing or empty: the eval script checks the test files out at it"})
	}
	if inst.FailToPass == nil {
		errs = append(errs, &dataset.FieldError{Field: "FAIL_TO_PASS", Reason: "missing: grading needs the tests the patch must make pass"})
	}
	if inst.PassToPass == nil {
		errs = append(errs, &dataset.FieldError{Field: "PASS_TO_PASS", Reason: "missing: grading needs the tests that must keep passing"})
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if inst.Image == "" {
		inst.Image = DefaultImage(inst.InstanceID)
	}
	inst.WorkDir = WorkDir
	return nil
}

// Grader implements family.Profile.
func (Profile) Grader() family.Grader { return grader{} }

// ExportPredictions implements family.Profile: the fork's run_evaluation takes the run's
// preds.json.
func (Profile) ExportPredictions([]family.Prediction) (string, []byte, error) { return "", nil, nil }

// Reports implements family.Profile: SWE-bench's report.json and run report, which compare reads
// itself.
func (Profile) Reports() family.ReportReader { return nil }

type grader struct{}

var _ family.Grader = grader{}

// Check implements family.Grader.
func (grader) Check(insts []dataset.Instance) error {
	var bad []string
	for k := range insts {
		if _, err := EvalScript(&insts[k]); err != nil {
			bad = append(bad, err.Error())
		}
	}
	if len(bad) == 0 {
		return nil
	}
	if len(bad) > 10 {
		bad = append(bad[:10], fmt.Sprintf("and %d more", len(bad)-10))
	}
	return errors.New("SWE-Gym rows that cannot be graded: " + strings.Join(bad, "; "))
}

// Reuse implements family.Grader: the report.json an earlier evaluation wrote.
func (grader) Reuse(inst dataset.Instance, _ family.Prediction, dir string) (family.Verdict, bool) {
	rep, _, err := eval.ReadReport(filepath.Join(dir, ReportFile))
	if err != nil || rep.InstanceID != inst.InstanceID {
		return family.Verdict{}, false
	}
	return family.Graded(rep.Resolved, &rep), true
}

// Grade implements family.Grader: the fork's run_instance — the prediction applied (git apply
// --allow-empty -v, else patch --fuzz=5; neither: the instance is an error), the eval script run
// with the timeout, its output graded with Grade.
func (grader) Grade(ctx context.Context, env family.GradeEnv, sb family.Sandbox, inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, error) {
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	script, err := EvalScript(&inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	patch := pred.Patch()
	for _, f := range []struct{ name, data string }{{PatchFile, patch}, {ScriptFile, script}} {
		if err := results.WriteFileAtomic(filepath.Join(dir, f.name), []byte(f.data), 0o644); err != nil {
			return family.Verdict{}, err
		}
	}
	if err := sb.WriteFile(ctx, containerPatch, []byte(patch)); err != nil {
		return containerError(ctx, "copy patch into container", err)
	}
	applied, out, err := family.ApplyPatch(ctx, sb, family.PatchApply{Commands: PatchCommands, Timeout: applyTimeout}, log)
	if err != nil {
		return containerError(ctx, "apply patch", err)
	}
	if !applied {
		fmt.Fprintf(log, ">>>>> Patch Apply Failed:\n%s\n", out)
		return family.Errorf(family.KindPatchApplyFailed, ">>>>> Patch Apply Failed: %s", lastLines(out, 5)), nil
	}
	if err := sb.WriteFile(ctx, containerScript, []byte(script)); err != nil {
		return containerError(ctx, "copy eval script into container", err)
	}
	start := time.Now()
	out, _, timedOut, err := sb.Exec(ctx, "/bin/bash "+containerScript, env.Timeout)
	fmt.Fprintf(log, "Test runtime: %.2f seconds\n", time.Since(start).Seconds())
	if err != nil {
		return containerError(ctx, "run eval script", err)
	}
	if timedOut {
		out += fmt.Sprintf("\n\nTimeout error: %d seconds exceeded.", int(env.Timeout/time.Second))
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, TestOutputFile), []byte(out), 0o644); err != nil {
		return family.Verdict{}, err
	}
	if timedOut {
		return family.Errorf(family.KindTimeout, "eval script timed out after %d seconds", int(env.Timeout/time.Second)), nil
	}
	return gradeAndWrite(&inst, out, dir)
}

func gradeAndWrite(inst *dataset.Instance, out, dir string) (family.Verdict, error) {
	rep, err := Grade(inst, out)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	data, err := eval.MarshalReport(rep)
	if err != nil {
		return family.Verdict{}, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, ReportFile), data, 0o644); err != nil {
		return family.Verdict{}, err
	}
	return family.Graded(rep.Resolved, &rep), nil
}

func containerError(ctx context.Context, step string, err error) (family.Verdict, error) {
	if ctx.Err() != nil {
		return family.Verdict{}, ctx.Err()
	}
	return family.Errorf(family.KindContainer, "%s: %v", step, err), nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}

// Regrade implements family.Grader: the first of logDirs holding the instance's folder with a
// test_output.txt (the fork names its folders with the lower-cased instance id; both are tried)
// is graded again.
func (grader) Regrade(inst dataset.Instance, _ family.Prediction, logDirs []string, dir string) (family.Verdict, bool, error) {
	for _, ld := range logDirs {
		for _, name := range []string{inst.InstanceID, strings.ToLower(inst.InstanceID)} {
			data, err := os.ReadFile(filepath.Join(ld, name, TestOutputFile))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return family.Verdict{}, true, err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return family.Verdict{}, true, err
			}
			if filepath.Join(ld, name) != dir {
				if err := results.WriteFileAtomic(filepath.Join(dir, TestOutputFile), data, 0o644); err != nil {
					return family.Verdict{}, true, err
				}
			}
			v, err := gradeAndWrite(&inst, string(data), dir)
			return v, true, err
		}
	}
	return family.Verdict{}, false, nil
}

// Finish implements family.Grader: the engine's run report is the harness's; nothing to add.
func (grader) Finish(string, map[string]family.Prediction, map[string]family.Verdict) error {
	return nil
}
