package live

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/live/pyparser"
	"github.com/swebench-run/swebench-run/results"
)

// Files of an instance, in the harness's names (post_patch_log.txt, status.json, report.json)
// and this tool's (eval.sh, test_output.txt: the script run and everything it printed).
const (
	PostPatchLogFile = "post_patch_log.txt"
	StatusFile       = "status.json"
	ReportFile       = "report.json"
	ScriptFile       = "eval.sh"
	TestOutputFile   = "test_output.txt"
	// ResultsFile is the harness's run-level file, beside the instance folders.
	ResultsFile = "results.json"
)

// parserTimeout bounds one run of a row's Python parser.
const parserTimeout = 10 * time.Minute

type grader struct{ pythonImage string }

var _ family.Grader = (*grader)(nil)

// Check implements family.Grader.
func (*grader) Check(insts []dataset.Instance) error { return checkRows(insts) }

// Reuse implements family.Grader: the report.json an earlier evaluation wrote.
func (*grader) Reuse(inst dataset.Instance, _ family.Prediction, dir string) (family.Verdict, bool) {
	data, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		return family.Verdict{}, false
	}
	rep, err := ReadReport(data)
	if err != nil || rep.InstanceID != inst.InstanceID {
		return family.Verdict{}, false
	}
	return family.Graded(rep.Resolved, &rep), true
}

// Grade implements family.Grader: the harness's commands in the instance's container (Script,
// run in an interactive bash), the print commands' output as the log, the row's parser on it
// (a Python parser in a container of the Python image, else in the instance's), and the
// harness's verdict. A prediction that does not apply is graded all the same, as the harness
// grades it.
func (g *grader) Grade(ctx context.Context, env family.GradeEnv, sb family.Sandbox, inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, error) {
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	row, err := RowOf(&inst)
	if err == nil {
		err = Gradable(&inst, true)
	}
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	script := Script(row)
	if err := results.WriteFileAtomic(filepath.Join(dir, ScriptFile), []byte(script), 0o644); err != nil {
		return family.Verdict{}, err
	}
	for _, f := range []struct{ path, data string }{{TestPatchPath, inst.TestPatch}, {PatchPath, pred.Patch()}, {ScriptPath, script}} {
		if err := sb.WriteFile(ctx, f.path, []byte(f.data)); err != nil {
			return containerError(ctx, fmt.Sprintf("write %s into the container", f.path), err)
		}
	}
	fmt.Fprintf(log, "Running the harness's commands (%s)\n", RunCommand)
	start := time.Now()
	out, code, timedOut, err := sb.Exec(ctx, RunCommand, env.Timeout)
	fmt.Fprintf(log, "Test runtime: %.2f seconds (exit %d)\n", time.Since(start).Seconds(), code)
	if err != nil {
		return containerError(ctx, "run the harness's commands", err)
	}
	if timedOut {
		out += fmt.Sprintf("\n\nTimeout error: %d seconds exceeded.", int(env.Timeout/time.Second))
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, TestOutputFile), []byte(out), 0o644); err != nil {
		return family.Verdict{}, err
	}
	if timedOut {
		return family.Errorf(family.KindTimeout, "the harness's commands ran longer than %s", env.Timeout), nil
	}
	postLog, ok := PrintLog(out)
	if !ok {
		return family.Errorf(family.KindNoTestOutput, "the commands ended before the print commands ran (see %s)", TestOutputFile), nil
	}
	if strings.ContainsRune(postLog, utf8.RuneError) {
		// The sandbox replaced invalid UTF-8 (or the log holds U+FFFD): read the bytes.
		postLog = rawPrintLog(ctx, sb, postLog, log)
	}
	status, v, err := g.parse(ctx, env, sb, row, postLog, log)
	if err != nil || v != nil {
		if err != nil {
			return family.Verdict{}, err
		}
		return *v, nil
	}
	return grade(&inst, postLog, status, dir)
}

// rawPrintLog returns the log as the harness reads it from the print commands' output bytes
// (RawPrintLog of PrintOutputPath, fetched as base64), or postLog, with a note in log, when they
// cannot be read.
func rawPrintLog(ctx context.Context, sb family.Sandbox, postLog string, log io.Writer) string {
	out, code, timedOut, err := sb.Exec(ctx, "base64 "+PrintOutputPath, 5*time.Minute)
	if err == nil && code == 0 && !timedOut {
		raw, derr := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(out), ""))
		if derr == nil {
			return RawPrintLog(raw)
		}
		err = derr
	}
	fmt.Fprintf(log, "The log has invalid UTF-8, which the harness drops, and its bytes could not be read from %s (exit %d, %v): it is graded with U+FFFD in their place\n", PrintOutputPath, code, err)
	return postLog
}

// parse runs the row's parser on the log: the status map, or the verdict when the parser could
// not give one; the error is ctx's.
func (g *grader) parse(ctx context.Context, env family.GradeEnv, sb family.Sandbox, row Row, postLog string, log io.Writer) (Status, *family.Verdict, error) {
	if row.IsPytest() {
		return PytestStatus(postLog), nil, nil
	}
	var helperErr error
	if env.Start != nil {
		psb, stop, err := env.Start(ctx, g.pythonImage)
		if err == nil {
			defer stop()
			fmt.Fprintf(log, "Running the row's log_parser in a container of %s\n", g.pythonImage)
			status, err := pyparser.Run(ctx, psb, row.Parser, postLog, parserTimeout)
			return parserResult(ctx, status, err, log)
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		helperErr = err
		fmt.Fprintf(log, "Could not start %s for the row's log_parser (%v); running it in the instance's container\n", g.pythonImage, err)
	}
	status, err := pyparser.Run(ctx, sb, row.Parser, postLog, parserTimeout)
	if errors.Is(err, pyparser.ErrNoPython) && helperErr != nil {
		v := family.Errorf(family.KindContainer, "the row's log_parser is Python, the instance's image has none that will do (%v), and %s could not be started: %v", err, g.pythonImage, helperErr)
		return nil, &v, nil
	}
	return parserResult(ctx, status, err, log)
}

func parserResult(ctx context.Context, status []pyparser.Entry, err error, log io.Writer) (Status, *family.Verdict, error) {
	var pe *pyparser.ParserError
	var v family.Verdict
	switch {
	case err == nil:
		return status, nil, nil
	case ctx.Err() != nil:
		return nil, nil, ctx.Err()
	case errors.As(err, &pe):
		fmt.Fprintf(log, "The row's log_parser failed (the harness counts the instance as an error):\n%s%s\n", pe.Stderr, pe.Traceback)
		v = family.Errorf(family.KindGrading, "%v", err)
	case errors.Is(err, pyparser.ErrNoPython):
		v = family.Errorf(family.KindGrading, "the row's log_parser is Python and %v", err)
	default:
		v = family.Errorf(family.KindContainer, "the row's log_parser: %v", err)
	}
	return nil, &v, nil
}

// grade grades a status map and writes the harness's files into dir.
func grade(inst *dataset.Instance, postLog string, status Status, dir string) (family.Verdict, error) {
	rep := Grade(inst, status)
	statusData, err := MarshalStatus(status)
	if err != nil {
		return family.Verdict{}, err
	}
	repData, err := MarshalReport(rep)
	if err != nil {
		return family.Verdict{}, err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{PostPatchLogFile, []byte(postLog)}, {StatusFile, statusData}, {ReportFile, repData}} {
		if err := results.WriteFileAtomic(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return family.Verdict{}, err
		}
	}
	return family.Graded(rep.Resolved, &rep), nil
}

func containerError(ctx context.Context, step string, err error) (family.Verdict, error) {
	if ctx.Err() != nil {
		return family.Verdict{}, ctx.Err()
	}
	return family.Errorf(family.KindContainer, "%s: %v", step, err), nil
}

// Regrade implements family.Grader: the first of logDirs holding the instance's folder with the
// harness's post_patch_log.txt (or this tool's test_output.txt, cut to the print commands'
// output) is graded again. A row with the pytest parser is parsed again; a row with a Python
// parser is graded from the folder's status.json (that parser's output), since regrading runs
// no container: a folder without status.json is an error of the instance, as is a row the
// harness cannot grade (Gradable; a Windows task's logs are regraded).
func (*grader) Regrade(inst dataset.Instance, _ family.Prediction, logDirs []string, dir string) (family.Verdict, bool, error) {
	for _, ld := range logDirs {
		src := filepath.Join(ld, inst.InstanceID)
		postLog, found, err := readPostLog(src)
		if err != nil {
			return family.Verdict{}, true, err
		}
		if !found {
			continue
		}
		row, err := RowOf(&inst)
		if err == nil {
			err = Gradable(&inst, false)
		}
		if err != nil {
			return family.Errorf(family.KindGrading, "%v", err), true, nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return family.Verdict{}, true, err
		}
		var status Status
		if row.IsPytest() {
			status = PytestStatus(postLog)
		} else {
			data, err := os.ReadFile(filepath.Join(src, StatusFile))
			if errors.Is(err, os.ErrNotExist) {
				return family.Errorf(family.KindGrading, "%s has no %s: the row's log_parser is Python, and regrading runs no container to run it in; evaluate without --from-logs", src, StatusFile), true, nil
			}
			if err != nil {
				return family.Verdict{}, true, err
			}
			if status, err = ReadStatus(data); err != nil {
				return family.Errorf(family.KindGrading, "%s: %v", filepath.Join(src, StatusFile), err), true, nil
			}
		}
		v, err := grade(&inst, postLog, status, dir)
		return v, true, err
	}
	return family.Verdict{}, false, nil
}

// readPostLog reads the log of an instance folder: the harness's post_patch_log.txt, else the
// print section of this tool's test_output.txt.
func readPostLog(src string) (string, bool, error) {
	data, err := os.ReadFile(filepath.Join(src, PostPatchLogFile))
	if err == nil {
		return string(data), true, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", false, err
	}
	data, err = os.ReadFile(filepath.Join(src, TestOutputFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	log, ok := PrintLog(string(data))
	return log, ok, nil
}

// Finish implements family.Grader: the harness's results.json beside the instance folders, for
// the family's instances (lists sorted; the harness writes them in completion order).
func (*grader) Finish(outDir string, preds map[string]family.Prediction, verdicts map[string]family.Verdict) error {
	var r Results
	for id, p := range preds {
		r.SubmittedIDs = append(r.SubmittedIDs, id)
		if p.Empty() {
			r.EmptyPatchIDs = append(r.EmptyPatchIDs, id)
			continue
		}
		v, ok := verdicts[id]
		switch {
		case !ok:
			r.IncompleteIDs = append(r.IncompleteIDs, id)
		case v.Outcome == family.Resolved:
			r.SuccessIDs = append(r.SuccessIDs, id)
		case v.Outcome == family.Unresolved:
			r.FailureIDs = append(r.FailureIDs, id)
		default:
			r.ErrorIDs = append(r.ErrorIDs, id)
		}
	}
	for _, l := range [][]string{r.SubmittedIDs, r.EmptyPatchIDs, r.SuccessIDs, r.FailureIDs, r.ErrorIDs, r.IncompleteIDs} {
		sort.Strings(l)
	}
	r.Submitted, r.EmptyPatch = len(r.SubmittedIDs), len(r.EmptyPatchIDs)
	r.Success, r.Failure, r.Error, r.Incomplete = len(r.SuccessIDs), len(r.FailureIDs), len(r.ErrorIDs), len(r.IncompleteIDs)
	data, err := MarshalResults(r)
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(outDir, ResultsFile), data, 0o644)
}
