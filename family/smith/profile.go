package smith

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/results"
)

// Name is the family's name (Instance.Family, NamedDataset.Family).
const Name = "smith"

// FamilyProfile is SWE-smith's dataset family.
type FamilyProfile struct{}

var _ family.Profile = FamilyProfile{}

// Name implements dataset.Family.
func (FamilyProfile) Name() string { return Name }

// Title implements family.Profile.
func (FamilyProfile) Title() string { return "SWE-smith" }

// Match implements dataset.Family: a row whose repo names a SWE-smith mirror
// ("swesmith/<owner>__<repo>.<commit>") or whose image_name is a SWE-smith image.
func (FamilyProfile) Match(inst *dataset.Instance) bool {
	if strings.HasPrefix(inst.Repo, MirrorOrg+"/") {
		return true
	}
	img := inst.Image
	if i := strings.LastIndex(img, "/"); i >= 0 {
		img = img[i+1:]
	}
	return strings.HasPrefix(img, "swesmith.")
}

// BugPatchColumn keeps a row's own patch column, the diff that introduces the bug, once Prepare
// has made Patch its reverse.
const BugPatchColumn = "bug_patch"

// Prepare implements dataset.Family: the profile's image (the row's image_name when it names a
// registry), /testbed, and the instance's branch checked out before the agent starts, so that the
// agent sees the bug. A SWE-smith row's patch introduces the bug (the harness applies it with
// --reverse to evaluate gold): Patch becomes its reverse, the fix, as in every other dataset, and
// the row's diff is kept under BugPatchColumn.
func (FamilyProfile) Prepare(inst *dataset.Instance) error {
	p, err := ProfileFor(*inst)
	if err != nil {
		return &dataset.FieldError{Field: "repo", Reason: err.Error()}
	}
	inst.Image = Image(*inst, p)
	inst.WorkDir = Workdir
	inst.PreAgentCommands = []string{AgentStart(inst.InstanceID)}
	if _, done := inst.Extra[BugPatchColumn]; !done && inst.Patch != "" {
		fix, err := ReverseDiff(inst.Patch)
		if err != nil {
			return &dataset.FieldError{Field: "patch", Reason: err.Error()}
		}
		if inst.Extra == nil {
			inst.Extra = map[string]any{}
		}
		inst.Extra[BugPatchColumn] = inst.Patch
		inst.Patch = fix
	}
	return nil
}

// Grader implements family.Profile.
func (FamilyProfile) Grader() family.Grader { return grader{} }

// ExportPredictions implements family.Profile: the harness reads the run's preds.json (an object
// of predictions by instance id) as it is.
func (FamilyProfile) ExportPredictions([]family.Prediction) (string, []byte, error) {
	return "", nil, nil
}

// Reports implements family.Profile.
func (FamilyProfile) Reports() family.ReportReader { return reports{} }

// Files of an evaluation, in the harness's names (logs/run_evaluation/<run_id>/<id>/…).
const (
	ReportFile     = "report.json"
	TestOutputFile = "test_output.txt"
)

type grader struct{}

func (grader) Check(insts []dataset.Instance) error {
	var errs []error
	for _, inst := range insts {
		if _, err := ProfileFor(inst); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (grader) Reuse(inst dataset.Instance, _ family.Prediction, dir string) (family.Verdict, bool) {
	r, err := ReadReport(filepath.Join(dir, ReportFile))
	if err != nil {
		return family.Verdict{}, false
	}
	return family.Graded(r.Resolved, r), true
}

// ReadReport reads an instance's report.json.
func ReadReport(path string) (Report, error) {
	var r Report
	data, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// exec runs one command and fails on a sandbox error.
func exec(ctx context.Context, sb family.Sandbox, log interface{ Write([]byte) (int, error) }, cmd string, timeout time.Duration) (string, int, error) {
	out, code, _, err := sb.Exec(ctx, cmd, timeout)
	fmt.Fprintf(log, "$ %s\n(exit %d)\n%s\n", cmd, code, out)
	return out, code, err
}

func (grader) Grade(ctx context.Context, env family.GradeEnv, sb family.Sandbox, inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, error) {
	p, err := ProfileFor(inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	const step = 5 * time.Minute
	fetch, checkout := EvalCheckout(inst.InstanceID)
	if _, _, err := exec(ctx, sb, env.Log, fetch, step); err != nil { // its failure is only logged, as by the harness
		return family.Errorf(family.KindContainer, "%v", err), nil
	}
	for _, cmd := range checkout {
		out, code, err := exec(ctx, sb, env.Log, cmd, step)
		if err != nil {
			return family.Errorf(family.KindContainer, "%v", err), nil
		}
		if code != 0 {
			return family.Errorf(family.KindNoTestOutput, "%s failed (the instance's branch is not in the image): %s", cmd, lastLine(out)), nil
		}
	}
	patch := pred.Patch()
	if err := results.WriteFileAtomic(filepath.Join(dir, "patch.diff"), []byte(patch), 0o644); err != nil {
		return family.Verdict{}, err
	}
	if restore := RestoreFiles(PatchPaths(patch)); restore != "" {
		if _, _, err := exec(ctx, sb, env.Log, restore, step); err != nil {
			return family.Errorf(family.KindContainer, "%v", err), nil
		}
	}
	if err := sb.WriteFile(ctx, PatchPath, []byte(patch)); err != nil {
		return family.Errorf(family.KindContainer, "write the patch: %v", err), nil
	}
	applied, out, err := family.ApplyPatch(ctx, sb, family.PatchApply{Commands: ApplyCommands(), Timeout: step}, env.Log)
	if err != nil {
		return family.Errorf(family.KindContainer, "apply the patch: %v", err), nil
	}
	if !applied {
		return family.Errorf(family.KindPatchApplyFailed, "%s: %s", MarkerApplyFail, lastLine(out)), nil
	}
	f2pFiles, p2pFiles := p.TestFilesOf(inst.FailToPass, inst.PassToPass)
	if p.TestFiles == "go" {
		out, _, err := exec(ctx, sb, env.Log, GoTestFilesScript(append(append([]string{}, inst.FailToPass...), inst.PassToPass...)), step)
		if err != nil {
			return family.Errorf(family.KindContainer, "%v", err), nil
		}
		f2pFiles = strings.Fields(out)
	}
	if restore := RestoreFiles(append(f2pFiles, p2pFiles...)); restore != "" {
		if _, _, err := exec(ctx, sb, env.Log, restore, step); err != nil {
			return family.Errorf(family.KindContainer, "%v", err), nil
		}
	}
	cmd := p.TestCommand(inst.FailToPass, inst.PassToPass, patch, referenceTestPatch(inst), true)
	script := EvalScript(cmd)
	if err := results.WriteFileAtomic(filepath.Join(dir, "eval.sh"), []byte(script), 0o644); err != nil {
		return family.Verdict{}, err
	}
	if err := sb.WriteFile(ctx, "/eval.sh", []byte(script)); err != nil {
		return family.Errorf(family.KindContainer, "write eval.sh: %v", err), nil
	}
	timeout := p.Timeout
	if env.Timeout > 0 && env.Timeout < timeout {
		timeout = env.Timeout
	}
	testOut, _, timedOut, err := sb.Exec(ctx, "/bin/bash /eval.sh", timeout)
	if err != nil {
		return family.Errorf(family.KindContainer, "run the tests: %v", err), nil
	}
	if timedOut {
		testOut += TimeoutNote(int(timeout / time.Second))
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, TestOutputFile), []byte(testOut), 0o644); err != nil {
		return family.Verdict{}, err
	}
	if timedOut {
		r := Report{TimedOut: true, Timeout: int(timeout / time.Second)}
		return writeReport(dir, r, family.Graded(false, r))
	}
	return gradeAndWrite(p, inst, pred, testOut, dir)
}

// referenceTestPatch is the test patch of a row mirrored from a pull request (instance_ref).
func referenceTestPatch(inst dataset.Instance) string {
	ref, _ := inst.Extra["instance_ref"].(map[string]any)
	s, _ := ref["test_patch"].(string)
	return s
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func writeReport(dir string, r Report, v family.Verdict) (family.Verdict, error) {
	b, err := r.Marshal()
	if err != nil {
		return family.Verdict{}, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, ReportFile), b, 0o644); err != nil {
		return family.Verdict{}, err
	}
	return v, nil
}

// gradeAndWrite grades a test output and writes report.json; a parser that raises (where the
// harness writes no report) is an Error.
func gradeAndWrite(p Profile, inst dataset.Instance, pred family.Prediction, testOut, dir string) (family.Verdict, error) {
	r, err := Grade(p, pred.ModelPatch == nil, testOut, inst.FailToPass, inst.PassToPass)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	r.Model = pred.ModelNameOrPath
	return writeReport(dir, r, family.Graded(r.Resolved, r))
}

func (grader) Regrade(inst dataset.Instance, pred family.Prediction, logDirs []string, dir string) (family.Verdict, bool, error) {
	p, err := ProfileFor(inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), true, nil
	}
	for _, d := range logDirs {
		src := filepath.Join(d, inst.InstanceID, TestOutputFile)
		data, err := os.ReadFile(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return family.Verdict{}, false, err
		}
		if filepath.Clean(src) != filepath.Join(dir, TestOutputFile) {
			if err := results.WriteFileAtomic(filepath.Join(dir, TestOutputFile), data, 0o644); err != nil {
				return family.Verdict{}, false, err
			}
		}
		if strings.Contains(string(data), MarkerTimedOut) {
			r := Report{TimedOut: true, Timeout: int(p.Timeout / time.Second)}
			v, err := writeReport(dir, r, family.Graded(false, r))
			return v, true, err
		}
		v, err := gradeAndWrite(p, inst, pred, string(data), dir)
		return v, true, err
	}
	return family.Verdict{}, false, nil
}

// Finish writes the run's report.json as the harness does: resolved and unresolved instances
// among the predictions (empty predictions, which are not run here, count as unresolved;
// instances without a report count in the total only).
func (grader) Finish(outDir string, preds map[string]family.Prediction, verdicts map[string]family.Verdict) error {
	ids := make([]string, 0, len(preds))
	for id := range preds {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rep := RunReport{Total: len(ids), IDsResolved: []string{}, IDsUnresolved: []string{}}
	for _, id := range ids {
		v, ok := verdicts[id]
		switch {
		case ok && v.Outcome == family.Resolved:
			rep.IDsResolved = append(rep.IDsResolved, id)
		case ok && (v.Outcome == family.Unresolved || v.Outcome == family.EmptyPatch), preds[id].Empty():
			rep.IDsUnresolved = append(rep.IDsUnresolved, id)
		}
	}
	rep.Resolved, rep.Unresolved = len(rep.IDsResolved), len(rep.IDsUnresolved)
	b, err := rep.Marshal()
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(outDir, ReportFile), b, 0o644)
}

type reports struct{}

// The layouts the reader reads (family.FolderVerdicts.Format).
const (
	// FormatRunEvaluation is the harness's evaluation folder, logs/run_evaluation/<run_id>/ as
	// swesmith/harness/eval.py writes it: <instance_id>/{report.json, test_output.txt, patch.diff,
	// eval.sh, run_instance.log} and the run's report.json.
	FormatRunEvaluation = "SWE-smith run_evaluation"
	// FormatRunReport is the run's report.json given on its own.
	FormatRunReport = "SWE-smith run report.json"
)

// instanceFiles are the files the harness writes in an instance's folder before its report.
var instanceFiles = []string{TestOutputFile, "run_instance.log", "patch.diff", "eval.sh"}

// ReadEvalFolder reads SWE-smith's evaluation folder. It is SWE-smith's when the run's
// report.json is there (or this tool's evaluation of SWE-smith rows, which writes it too); then
// every <id>/report.json is read in SWE-smith's format, an instance of the run report without a
// folder keeps the run report's verdict, and an instance folder the harness worked in that has
// no report.json (the test output could not be read) is an Error. Without the run report, only
// the reports no other harness writes are SWE-smith's ({"timed_out": …}, or with the
// model_name_or_path the harness adds): its other reports have the layout of sb-cli's, and are
// read as those.
func (reports) ReadEvalFolder(dir string) (family.FolderVerdicts, bool, error) {
	fv := family.FolderVerdicts{Format: FormatRunEvaluation, Verdicts: map[string]family.InstanceVerdict{}}
	var run family.FolderVerdicts
	hasRun := false
	if data, err := os.ReadFile(filepath.Join(dir, ReportFile)); err == nil {
		run, hasRun = runReport(data)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fv, false, nil
	}
	var noReport []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(filepath.Join(d, ReportFile))
		if errors.Is(err, fs.ErrNotExist) {
			for _, f := range instanceFiles {
				if _, err := os.Stat(filepath.Join(d, f)); err == nil {
					noReport = append(noReport, e.Name())
					break
				}
			}
			continue
		}
		if err != nil {
			return fv, true, err
		}
		r, ok := smithReport(data)
		if !ok || !hasRun && !r.TimedOut && r.Model == "" {
			continue
		}
		v := instanceVerdict(r)
		if log := filepath.Join(d, TestOutputFile); fileExists(log) {
			v.Log = log
		}
		fv.Verdicts[e.Name()] = v
	}
	if !hasRun && len(fv.Verdicts) == 0 {
		return fv, false, nil
	}
	for _, id := range noReport {
		fv.Verdicts[id] = family.InstanceVerdict{Outcome: family.Error, Detail: "no report.json: the harness found no test output to grade (see run_instance.log)"}
	}
	for id, v := range run.Verdicts {
		if _, seen := fv.Verdicts[id]; !seen {
			fv.Verdicts[id] = v
		}
	}
	return fv, true, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// ReadReportFile reads the run's report.json given on its own.
func (reports) ReadReportFile(_ string, data []byte) (family.FolderVerdicts, bool, error) {
	fv, ok := runReport(data)
	return fv, ok, nil
}

// smithReport decodes an instance's report.json when it is SWE-smith's (its top level holds
// resolved or timed_out, not instance ids).
func smithReport(data []byte) (Report, bool) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return Report{}, false
	}
	_, resolved := keys["resolved"]
	_, timedOut := keys["timed_out"]
	if !resolved && !timedOut {
		return Report{}, false
	}
	var r Report
	if json.Unmarshal(data, &r) != nil {
		return Report{}, false
	}
	return r, true
}

// runReport decodes the run's report.json (resolved, unresolved, total, ids_resolved,
// ids_unresolved).
func runReport(data []byte) (family.FolderVerdicts, bool) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return family.FolderVerdicts{}, false
	}
	for _, k := range []string{"ids_resolved", "ids_unresolved", "total"} {
		if _, ok := keys[k]; !ok {
			return family.FolderVerdicts{}, false
		}
	}
	var rep RunReport
	if json.Unmarshal(data, &rep) != nil {
		return family.FolderVerdicts{}, false
	}
	fv := family.FolderVerdicts{Format: FormatRunReport, Verdicts: map[string]family.InstanceVerdict{}}
	for _, id := range rep.IDsResolved {
		fv.Verdicts[id] = family.InstanceVerdict{Outcome: family.Resolved}
	}
	for _, id := range rep.IDsUnresolved {
		fv.Verdicts[id] = family.InstanceVerdict{Outcome: family.Unresolved}
	}
	return fv, true
}

func instanceVerdict(r Report) family.InstanceVerdict {
	var v family.InstanceVerdict
	switch {
	case r.TimedOut:
		return family.InstanceVerdict{Outcome: family.Unresolved, Detail: "tests timed out"}
	case r.Resolved:
		v = family.InstanceVerdict{Outcome: family.Resolved}
	case !r.PatchExists:
		return family.InstanceVerdict{Outcome: family.EmptyPatch}
	default:
		v = family.InstanceVerdict{Outcome: family.Unresolved}
	}
	if ts := r.TestsStatus; ts != nil {
		v.Tests = map[string]family.TestGroup{}
		for name, g := range map[string]Results{"FAIL_TO_PASS": ts.FailToPass, "PASS_TO_PASS": ts.PassToPass, "FAIL_TO_FAIL": ts.FailToFail, "PASS_TO_FAIL": ts.PassToFail} {
			if len(g.Success)+len(g.Failure) > 0 || name == "FAIL_TO_PASS" || name == "PASS_TO_PASS" {
				v.Tests[name] = family.Group(g.Success, g.Failure)
			}
		}
	}
	return v
}

// HistoryLayout implements family.HistoryLayout: the agent starts on the instance's branch,
// whose HEAD~2 is the clean code the bug was made from (and HEAD~1 the bug with its tests), so
// every commit before HEAD holds the fix: the guard leaves one root commit of HEAD's tree (the
// bug, the FAIL_TO_PASS tests removed) with past as with none.
func (FamilyProfile) HistoryLayout(dataset.Instance) family.History {
	return family.History{Repo: Workdir, PastIsAnswer: true}
}

var _ family.HistoryLayout = FamilyProfile{}
