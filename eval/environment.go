package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/validation"
)

// Environment is the evidence that an unresolved prediction failed because of its instance's
// environment, not because of its patch. The harness's figures are kept (the instance stays in
// unresolved_ids); the run report adds environment_ids and the evidence.
type Environment struct {
	// Reason is one line for humans.
	Reason string
	// Tests are the prediction's failing tests that fail the same way under the gold patch.
	Tests []validation.Test
	// Validated is set when the evidence is the instance's validation, not the log alone.
	Validated bool
}

// Evidence is the environment's evidence in one line, for the run report.
func (env *Environment) Evidence() string { return env.Reason }

// afterGrading completes a prediction's result: its repeated gradings (Options.Repeat), then
// whether its failure is the environment's.
func (e *Evaluator) afterGrading(ctx context.Context, inst dataset.Instance, pred Prediction, res Result) (Result, error) {
	if e.opts.Repeat > 1 && (res.Outcome == Resolved || res.Outcome == Unresolved) {
		verdicts := []Outcome{res.Outcome}
		for k := 2; k <= e.opts.Repeat; k++ {
			opts := e.opts
			opts.OutDir = e.repeatDir(k)
			opts.Repeat, opts.OnResult, opts.Validation = 1, nil, nil
			ev, err := New(opts)
			if err != nil {
				return res, err
			}
			r, err := ev.Evaluate(ctx, inst, pred)
			if err != nil {
				return res, err
			}
			verdicts = append(verdicts, r.Outcome)
		}
		res.Repeats = verdicts
	}
	res.Environment = environmentOf(inst, res, filepath.Join(e.opts.OutDir, inst.InstanceID), e.opts.Graders, e.opts.Validation)
	return res, nil
}

// repeatDir is where the k-th grading of each prediction goes: <OutDir>-repeats/<k>/<id>/.
func (e *Evaluator) repeatDir(k int) string {
	return filepath.Clean(e.opts.OutDir) + "-repeats" + string(filepath.Separator) + strconv.Itoa(k)
}

// Unstable reports whether the repeated gradings of a result disagree.
func (r Result) Unstable() bool {
	for _, v := range r.Repeats {
		if v != r.Repeats[0] {
			return true
		}
	}
	return false
}

// environmentOf decides whether an unresolved prediction, graded into dir, failed the way its
// environment fails (validationOf as Options.Validation, nil for none):
//
//   - the instance's validation (Options.Validation) says the gold patch fails, and every test
//     the prediction fails fails the same way under the gold patch (or no test is collected,
//     as under the gold patch); a maintainers' list that names the instance broken counts too;
//   - without a validation, the log alone: the test runner collected no test, or was killed by
//     a signal.
//
// A validation that finds the gold patch resolving the instance makes any failure the
// prediction's.
func environmentOf(inst dataset.Instance, res Result, dir string, graders func(string) family.Grader, validationOf func(string) (validation.Record, bool)) *Environment {
	if res.Outcome != Unresolved {
		return nil
	}
	var rec validation.Record
	validated := false
	if validationOf != nil {
		rec, validated = validationOf(inst.InstanceID)
	}
	if validated && rec.FromKnownBad() && rec.Outcome.Broken() {
		reason := rec.Reason
		if rec.Note != "" {
			reason += ": " + rec.Note
		}
		return &Environment{Reason: reason, Validated: true}
	}
	run, ok, err := ReadTests(inst, dir, graders)
	if err != nil || !ok {
		return nil
	}
	if validated {
		if rec.Outcome != validation.GoldFails {
			return nil
		}
		return matchGold(inst, run, rec)
	}
	if len(run.Statuses) == 0 {
		return &Environment{Reason: "the test runner collected no test" + exitText(run.ExitCode) +
			"; the instance is not validated (swebench-run validate tells the environment's failures from the patch's)"}
	}
	if c := run.ExitCode; c != nil && *c > 128 && *c < 160 {
		return &Environment{Reason: fmt.Sprintf("the test runner was killed by signal %d (exit %d); the instance is not validated", *c-128, *c)}
	}
	return nil
}

// matchGold is the environment's evidence when the prediction's failures are those the gold
// patch has in rec.
func matchGold(inst dataset.Instance, run family.TestRun, rec validation.Record) *Environment {
	when := ""
	if !rec.Date.IsZero() {
		when = " (validated " + rec.Date.UTC().Format("2006-01-02") + ")"
	}
	if len(run.Statuses) == 0 {
		if rec.GoldCollectedNone() {
			return &Environment{Reason: "no test is collected, as under the gold patch" + exitText(run.ExitCode) + when, Validated: true}
		}
		return nil
	}
	gold := rec.GoldFailures()
	if len(gold) == 0 {
		return nil
	}
	statuses := expectedStatuses(inst, run)
	f2p := map[string]bool{}
	for _, t := range inst.FailToPass {
		f2p[t] = true
	}
	var tests []validation.Test
	for _, name := range append(append([]string{}, inst.FailToPass...), inst.PassToPass...) {
		st := statuses[name]
		if validation.Passing(st) {
			continue
		}
		if gold[name] != st {
			return nil // a failure the gold patch does not have: the prediction's
		}
		group := validation.GroupPassToPass
		if f2p[name] {
			group = validation.GroupFailToPass
		}
		tests = append(tests, validation.Test{Name: name, Group: group, Patch: validation.PatchGold, Status: st})
	}
	if len(tests) == 0 {
		return nil
	}
	parts := make([]string, 0, len(tests))
	for i, t := range tests {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(tests)-5))
			break
		}
		parts = append(parts, t.String())
	}
	return &Environment{
		Reason:    fmt.Sprintf("the %d failing tests fail the same way under the gold patch%s: %s", len(tests), when, strings.Join(parts, ", ")),
		Tests:     tests,
		Validated: true,
	}
}

func exitText(code *int) string {
	if code == nil {
		return ""
	}
	return fmt.Sprintf(" (the test command exited %d)", *code)
}

// addMarks adds to a run report what this tool adds to the harness's: the unresolved
// instances set apart as the environment's failures, and, with repeated gradings, the
// instances whose verdict changed between them.
func addMarks(rep *RunReport, res map[string]Result, repeat int) {
	ids := make([]string, 0, len(res))
	for id := range res {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := res[id]
		if r.Environment != nil {
			if rep.EnvironmentEvidence == nil {
				rep.EnvironmentEvidence = map[string]string{}
			}
			rep.EnvironmentIDs = append(rep.EnvironmentIDs, id)
			rep.EnvironmentEvidence[id] = r.Environment.Evidence()
		}
		if r.Unstable() {
			if rep.FlakyVerdicts == nil {
				rep.FlakyVerdicts = map[string][]string{}
			}
			rep.FlakyIDs = append(rep.FlakyIDs, id)
			vs := make([]string, len(r.Repeats))
			for k, v := range r.Repeats {
				vs[k] = string(v)
			}
			rep.FlakyVerdicts[id] = vs
		}
	}
	rep.EnvironmentInstances = len(rep.EnvironmentIDs)
	if repeat > 1 {
		rep.GradingRepeats = repeat
		if rep.FlakyIDs == nil {
			rep.FlakyIDs = []string{}
		}
	}
}
