package eval

import (
	"context"
	"io"
	"path/filepath"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

// Harness is how the rows of a family graded the SWE-bench harness's way are checked, scripted and
// graded: the engine applies the patch with the harness's fallbacks, runs the script as /eval.sh,
// keeps patch.diff, eval.sh, test_output.txt, report.json and run_instance.log per instance, and
// grades the output with Grade. SWE-bench's own rows use the harness v5's rules (CheckInstances,
// Script, Grade); a family whose harness is a fork of it (SWE-rebench's) gives its own and gets a
// family.Grader from HarnessGrader.
type Harness struct {
	// Check reports, before any sandbox starts, why rows cannot be graded: an error naming them.
	Check func(insts []dataset.Instance) error
	// Script returns the eval script of a row.
	Script func(inst dataset.Instance) (string, error)
	// Grade grades the whole output of a row's eval script; an error means the row cannot be
	// graded at all (the instance is then an error of kind grading).
	Grade func(inst dataset.Instance, testOutput string) (InstanceReport, error)
}

// swebench is the SWE-bench harness (v5) itself, eval's built-in grading.
var swebench = Harness{Check: CheckInstances, Script: Script, Grade: Grade}

// HarnessGrader returns the grader of a family graded the SWE-bench harness's way with h's
// rules. Its verdicts' reports are *InstanceReport values, its files those of the built-in
// grading; it writes no run-level files.
func HarnessGrader(h Harness) family.Grader { return harnessGrader{h} }

type harnessGrader struct{ h Harness }

func (g harnessGrader) Check(insts []dataset.Instance) error { return g.h.Check(insts) }

func (g harnessGrader) Reuse(inst dataset.Instance, _ family.Prediction, dir string) (family.Verdict, bool) {
	rep, _, err := ReadReport(filepath.Join(dir, reportFile))
	if err != nil || rep.InstanceID != inst.InstanceID {
		return family.Verdict{}, false
	}
	return family.Graded(rep.Resolved, &rep), true
}

func (g harnessGrader) Grade(ctx context.Context, env family.GradeEnv, sb family.Sandbox, inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, error) {
	id := inst.InstanceID
	if err := removeOutputs(dir, id); err != nil {
		return family.Verdict{}, err
	}
	script, err := g.h.Script(inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	patch := pred.Patch()
	if err := writeInputs(dir, patch, script); err != nil {
		return family.Verdict{}, err
	}
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	if !looksLikeDiff(patch) {
		return verdictOf(notADiff(id, patch, log)), nil
	}
	res, err := runHarness(ctx, harnessRun{sb: sb, h: g.h, inst: inst, patch: patch, script: script, dir: dir, log: log, timeout: env.Timeout, assets: env.HTTP})
	if err != nil {
		return family.Verdict{}, err
	}
	return verdictOf(res), nil
}

func (g harnessGrader) Regrade(inst dataset.Instance, pred family.Prediction, logDirs []string, dir string) (family.Verdict, bool, error) {
	res, found, err := regradeHarness(g.h, inst, pred, logDirs, dir)
	return verdictOf(res), found, err
}

func (harnessGrader) Finish(string, map[string]family.Prediction, map[string]family.Verdict) error {
	return nil
}
