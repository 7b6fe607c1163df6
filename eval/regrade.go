package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/validation"
)

// RegradeOptions says where RegradeFromLogs reads logs and writes reports.
type RegradeOptions struct {
	// LogsDir holds one folder per instance with its test_output.txt. It may be laid out like the
	// harness's logs/run_evaluation/<run_id>/<model>/ (or the <run_id> folder above it, where the
	// model folder is found by the predictions' model name), or like our own eval/ folder (or the
	// run's output folder above it).
	LogsDir string
	// OutDir receives <id>/{patch.diff,eval.sh,test_output.txt,report.json} and the run report.
	// It may be LogsDir itself, to regrade in place.
	OutDir string
	// RunID names the run report.
	RunID string
	// Graders returns the grader of a dataset family, as Options.Graders; nil grades every
	// instance the SWE-bench harness's way.
	Graders func(family string) family.Grader
	// Validation marks the environment's failures, as Options.Validation.
	Validation func(id string) (validation.Record, bool)
}

// RegradeFromLogs grades existing test logs without containers and writes the reports as a normal
// evaluation writes them. An instance whose folder holds a report.json but no test_output.txt (as
// published submission folders keep them, in the harness's or sb-cli's layout) keeps that
// report's verdict: its Result names the layout in FromReport. Predictions for instances not in
// insts are an error; an instance with neither is an error of that instance (KindNoTestOutput),
// not of the run.
func RegradeFromLogs(opts RegradeOptions, insts []dataset.Instance, preds map[string]Prediction) (RunReport, []Result, error) {
	if opts.RunID == "" {
		return RunReport{}, nil, errors.New("regrade: empty run id; pass --run-id")
	}
	if fi, err := os.Stat(opts.LogsDir); err != nil || !fi.IsDir() {
		return RunReport{}, nil, fmt.Errorf("regrade: logs directory %s: not found; pass the folder holding one sub-folder per instance with test_output.txt", opts.LogsDir)
	}
	if err := CheckPredictions(preds, insts); err != nil {
		return RunReport{}, nil, err
	}
	byID := make(map[string]dataset.Instance, len(insts))
	for _, inst := range insts {
		byID[inst.InstanceID] = inst
	}
	ids := make([]string, 0, len(preds))
	for id := range preds {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	results := make(map[string]Result, len(ids))
	var list []Result
	for _, id := range ids {
		res, err := regradeOne(opts, byID[id], preds[id])
		if err != nil {
			return RunReport{}, list, err
		}
		res.Environment = environmentOf(byID[id], res, filepath.Join(opts.OutDir, id), opts.Graders, opts.Validation)
		results[id] = res
		list = append(list, res)
	}
	rep := BuildRunReport(insts, preds, results)
	addMarks(&rep, results, 1)
	if err := finishFamilies(opts.OutDir, insts, preds, results, opts.Graders); err != nil {
		return rep, list, err
	}
	if _, err := WriteRunReport(opts.OutDir, ModelName(preds), opts.RunID, rep); err != nil {
		return rep, list, err
	}
	return rep, list, nil
}

// logDirCandidates are the folders that may hold <id>/test_output.txt for a prediction.
func logDirCandidates(root, model, runID string) []string {
	m := strings.ReplaceAll(model, "/", "__")
	return []string{
		root,
		filepath.Join(root, m),
		filepath.Join(root, "eval"),
		filepath.Join(root, runID, m),
	}
}

// regradeOne grades one prediction from its log. The error is for failures of the run (an output
// file not writable); an instance's own problems are in the Result.
func regradeOne(opts RegradeOptions, inst dataset.Instance, pred Prediction) (Result, error) {
	res := Result{InstanceID: inst.InstanceID}
	if pred.Empty() {
		res.Outcome = EmptyPatch
		return res, nil
	}
	cands := logDirCandidates(opts.LogsDir, pred.ModelNameOrPath, opts.RunID)
	if g := graderOf(inst, opts.Graders); g != nil {
		dst := filepath.Join(opts.OutDir, inst.InstanceID)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return res, fmt.Errorf("regrade %s: %w", inst.InstanceID, err)
		}
		v, found, err := g.Regrade(inst, pred, cands, dst)
		if err != nil {
			return res, err
		}
		if !found {
			res.Outcome, res.ErrorKind = Error, KindNoTestOutput
			res.Reason = fmt.Sprintf("no log of %s under %s", inst.InstanceID, strings.Join(cands, ", "))
			return res, nil
		}
		return resultOf(inst.InstanceID, v), nil
	}
	dst := filepath.Join(opts.OutDir, inst.InstanceID)
	res, found, err := regradeHarness(swebench, inst, pred, cands, dst)
	if err != nil || found {
		return res, err
	}
	res.Outcome, res.ErrorKind = Error, KindNoTestOutput
	res.Reason = fmt.Sprintf("no %s (nor %s) for %s under %s", testOutputFile, reportFile, inst.InstanceID, strings.Join(cands, ", "))
	return res, nil
}

// regradeHarness grades pred the SWE-bench harness's way, with h's script and grading, from the
// test_output.txt of the first of logDirs that holds <instance_id>/test_output.txt, and writes
// dst's files (dst may be that folder itself, to regrade in place). A folder that keeps only
// report.json keeps its verdict (fromReport). found is false when no folder holds either.
func regradeHarness(h Harness, inst dataset.Instance, pred Prediction, logDirs []string, dst string) (res Result, found bool, err error) {
	res = Result{InstanceID: inst.InstanceID}
	var srcDir string
	var output []byte
	for _, c := range logDirs {
		data, err := os.ReadFile(filepath.Join(c, inst.InstanceID, testOutputFile))
		if err == nil {
			srcDir, output = filepath.Join(c, inst.InstanceID), data
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return res, true, fmt.Errorf("regrade %s: %w", inst.InstanceID, err)
		}
	}
	if srcDir == "" {
		// A folder as submissions publish it keeps only report.json: its verdict stands, ungraded.
		for _, c := range logDirs {
			rep, layout, err := ReadReport(filepath.Join(c, inst.InstanceID, reportFile))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				res.Outcome, res.ErrorKind, res.Reason = Error, KindGrading, err.Error()
				return res, true, nil
			}
			res, err = fromReport(dst, inst, filepath.Join(c, inst.InstanceID), rep, layout)
			return res, true, err
		}
		return res, false, nil
	}

	if err := os.MkdirAll(dst, 0o755); err != nil {
		return res, true, fmt.Errorf("regrade %s: %w", inst.InstanceID, err)
	}
	if !sameDir(srcDir, dst) {
		script, err := os.ReadFile(filepath.Join(srcDir, evalScriptFile))
		if err != nil {
			// The log's folder has no eval.sh: keep the script the row makes.
			s, _ := h.Script(inst)
			script = []byte(s)
		}
		for name, data := range map[string][]byte{
			patchFile:      []byte(pred.Patch()),
			evalScriptFile: script,
			testOutputFile: output,
		} {
			if err := results.WriteFileAtomic(filepath.Join(dst, name), data, 0o644); err != nil {
				return res, true, err
			}
		}
	}
	res, err = gradeAndWrite(h, inst, string(output), dst)
	return res, true, err
}

// fromReport takes the verdict of an existing report.json (in srcDir) whose log has no test output
// to grade again: it writes the report in the harness's layout into dst, with the evaluated
// patch.diff when srcDir has one (never the prediction's: nothing says it was the one
// evaluated), and the Result names the layout it was read in. A report regraded in place is left
// as it is.
func fromReport(dst string, inst dataset.Instance, srcDir string, rep InstanceReport, layout ReportLayout) (Result, error) {
	res := Result{InstanceID: inst.InstanceID, FromReport: layout, Report: &rep, Outcome: Unresolved}
	if rep.Resolved {
		res.Outcome = Resolved
	}
	if sameDir(srcDir, dst) {
		return res, nil
	}
	data, err := MarshalReport(rep)
	if err != nil {
		return res, fmt.Errorf("report %s: %w", inst.InstanceID, err)
	}
	files := map[string][]byte{reportFile: data}
	if patch, err := os.ReadFile(filepath.Join(srcDir, patchFile)); err == nil {
		files[patchFile] = patch
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return res, fmt.Errorf("regrade %s: %w", inst.InstanceID, err)
	}
	for name, content := range files {
		if err := results.WriteFileAtomic(filepath.Join(dst, name), content, 0o644); err != nil {
			return res, err
		}
	}
	return res, nil
}

func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// gradeAndWrite grades a log with h and writes report.json into dir.
func gradeAndWrite(h Harness, inst dataset.Instance, output, dir string) (Result, error) {
	res := Result{InstanceID: inst.InstanceID}
	rep, err := h.Grade(inst, output)
	if err != nil {
		res.Outcome, res.ErrorKind, res.Reason = Error, KindGrading, err.Error()
		return res, nil
	}
	data, err := MarshalReport(rep)
	if err != nil {
		return res, fmt.Errorf("report %s: %w", inst.InstanceID, err)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, reportFile), data, 0o644); err != nil {
		return res, err
	}
	res.Report = &rep
	res.Outcome = Unresolved
	if rep.Resolved {
		res.Outcome = Resolved
	}
	return res, nil
}

// Files of an instance's evaluation folder, named as the harness names them.
const (
	patchFile      = "patch.diff"
	evalScriptFile = "eval.sh"
	testOutputFile = "test_output.txt"
	reportFile     = "report.json"
	instanceLog    = "run_instance.log"
)
