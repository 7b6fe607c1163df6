package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/results"
)

// The engine grades the rows of every dataset family: a row of a family without a grader of its
// own (the SWE-bench harness's) the built-in way (Script, Grade), any other through its
// family.Grader: the engine resolves the image, starts the fresh sandbox, keeps run_instance.log
// and the run report, and the grader runs the family's commands, writes the harness's files and
// returns the verdict (HarnessGrader makes one that grades the built-in way with a family's own
// script and rules).

// graderOf returns the grader of inst's family, nil for the built-in SWE-bench grading.
func graderOf(inst dataset.Instance, graders func(string) family.Grader) family.Grader {
	if graders == nil {
		return nil
	}
	return graders(inst.Family)
}

// CheckFamilies checks, before any container starts, that every instance can be graded by its
// family's grader (graders as Options.Graders; CheckInstances for the built-in grading).
func CheckFamilies(insts []dataset.Instance, graders func(string) family.Grader) error {
	byFamily := map[string][]dataset.Instance{}
	var names []string
	for _, inst := range insts {
		name := inst.Family
		if graderOf(inst, graders) == nil {
			name = ""
		}
		if _, ok := byFamily[name]; !ok {
			names = append(names, name)
		}
		byFamily[name] = append(byFamily[name], inst)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		list := byFamily[name]
		if name == "" {
			errs = append(errs, CheckInstances(list))
			continue
		}
		errs = append(errs, graders(name).Check(list))
	}
	return errors.Join(errs...)
}

// finishFamilies lets every family's grader write its harness's run-level files for its
// instances' results.
func finishFamilies(outDir string, insts []dataset.Instance, preds map[string]Prediction, res map[string]Result, graders func(string) family.Grader) error {
	type part struct {
		g        family.Grader
		preds    map[string]Prediction
		verdicts map[string]family.Verdict
	}
	parts := map[string]*part{}
	var names []string
	for _, inst := range insts {
		g := graderOf(inst, graders)
		p, submitted := preds[inst.InstanceID]
		if g == nil || !submitted {
			continue
		}
		name := inst.Family
		pt := parts[name]
		if pt == nil {
			pt = &part{g: g, preds: map[string]Prediction{}, verdicts: map[string]family.Verdict{}}
			parts[name] = pt
			names = append(names, name)
		}
		pt.preds[inst.InstanceID] = p
		if r, ok := res[inst.InstanceID]; ok {
			pt.verdicts[inst.InstanceID] = verdictOf(r)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		pt := parts[name]
		if err := pt.g.Finish(outDir, pt.preds, pt.verdicts); err != nil {
			return fmt.Errorf("eval: %s run files: %w", name, err)
		}
	}
	return nil
}

func resultOf(id string, v family.Verdict) Result {
	r := Result{InstanceID: id, Outcome: v.Outcome, ErrorKind: v.ErrorKind, Reason: v.Reason, FromReport: ReportLayout(v.TakenFrom)}
	r.Report, _ = v.Report.(*InstanceReport)
	return r
}

func verdictOf(r Result) family.Verdict {
	v := family.Verdict{Outcome: r.Outcome, ErrorKind: r.ErrorKind, Reason: r.Reason, TakenFrom: string(r.FromReport)}
	if r.Report != nil {
		v.Report = r.Report
	}
	return v
}

// evaluateWith evaluates one non-empty prediction with its family's grader: the verdict an
// earlier evaluation left is reused unless Options.Redo, else the grader grades it in a fresh
// sandbox. The error is for failures of the run.
func (e *Evaluator) evaluateWith(ctx context.Context, g family.Grader, inst dataset.Instance, pred Prediction) (Result, error) {
	id := inst.InstanceID
	log := e.opts.Logger.With("instance", id)
	if err := g.Check([]dataset.Instance{inst}); err != nil {
		return Result{InstanceID: id}, err
	}
	dir := filepath.Join(e.opts.OutDir, id)
	if !e.opts.Redo {
		if v, ok := g.Reuse(inst, pred, dir); ok {
			res := resultOf(id, v)
			log.Info("evaluation reused", "outcome", res.Outcome)
			e.done(res)
			return res, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{InstanceID: id}, fmt.Errorf("eval %s: %w", id, err)
	}
	res, err := e.gradeInSandbox(ctx, g, inst, pred, dir)
	if err != nil {
		return res, err
	}
	if res.Outcome == Error {
		log.Warn("evaluation error", "kind", res.ErrorKind, "reason", res.Reason)
	} else {
		log.Info("evaluated", "resolved", res.Outcome == Resolved)
	}
	e.done(res)
	return res, nil
}

// gradeInSandbox starts the fresh sandbox of inst's image and lets g grade pred in it, keeping
// run_instance.log in dir.
func (e *Evaluator) gradeInSandbox(ctx context.Context, g family.Grader, inst dataset.Instance, pred Prediction, dir string) (Result, error) {
	id := inst.InstanceID
	var ilog strings.Builder
	defer func() {
		// The instance log is for humans; losing it must not fail the run.
		_ = results.WriteFileAtomic(filepath.Join(dir, instanceLog), []byte(ilog.String()), 0o644)
	}()
	sb, res, err := e.startFresh(ctx, inst, &ilog)
	if sb == nil {
		return res, err
	}
	defer e.closeSandbox(ctx, sb, id)
	start := time.Now()
	env := family.GradeEnv{Timeout: e.opts.Timeout, HTTP: e.opts.AssetClient, Log: &ilog, Start: e.helperStarter(inst)}
	v, err := g.Grade(ctx, env, sb, inst, pred, dir)
	fmt.Fprintf(&ilog, "Grading time: %.2f seconds\n", time.Since(start).Seconds())
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // interrupted: what the grader saw is of a killed run
	}
	if err != nil {
		return Result{InstanceID: id}, err
	}
	res = resultOf(id, v)
	if res.Outcome == Error {
		fmt.Fprintf(&ilog, "Result for %s: error (%s): %s\n", id, res.ErrorKind, res.Reason)
	} else {
		fmt.Fprintf(&ilog, "Result for %s: resolved: %t\n", id, res.Outcome == Resolved)
	}
	return res, nil
}

// helperStarter starts, for a grader, sandboxes of other images than inst's (family.GradeEnv.Start),
// labelled as inst's evaluation and working in /.
func (e *Evaluator) helperStarter(inst dataset.Instance) func(context.Context, string) (family.Sandbox, func(), error) {
	return func(ctx context.Context, image string) (family.Sandbox, func(), error) {
		helper := inst
		helper.WorkDir = "/"
		sb, err := e.opts.Starter.Start(ctx, helper, image)
		if err != nil {
			return nil, nil, err
		}
		return sb, func() { e.closeSandbox(ctx, sb, inst.InstanceID, "image", image) }, nil
	}
}
