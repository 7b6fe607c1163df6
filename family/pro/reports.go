package pro

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swebench-run/swebench-run/family"
)

// reports reads the harness's verdicts: eval_results.json ({instance_id: bool}), alone (the
// published runs' traj/<run>/eval_results.json) or in its output folder beside the instance
// folders (the harness's --output_dir, or this tool's eval/ folder of SWE-bench Pro instances),
// where an instance whose folder holds no *_output.json failed before it could be graded.
type reports struct{}

// The layouts the reader reads (family.FolderVerdicts.Format).
const (
	// FormatOutputDir is the harness's --output_dir (swe_bench_pro_eval.py): eval_results.json
	// beside the instance folders <instance_id>/<prefix>_{output.json, stdout.log, stderr.log,
	// patch.diff, entryscript.sh}, or this tool's evaluation folder of SWE-bench Pro rows.
	FormatOutputDir = "SWE-bench Pro output_dir"
	// FormatEvalResults is eval_results.json on its own: the published runs'
	// traj/<run>/eval_results.json of scaleapi/SWE-bench_Pro-os, or the file given alone.
	FormatEvalResults = "SWE-bench Pro " + EvalResultsFile
)

// ReadEvalFolder implements family.ReportReader.
func (reports) ReadEvalFolder(dir string) (family.FolderVerdicts, bool, error) {
	p := filepath.Join(dir, EvalResultsFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return family.FolderVerdicts{}, false, nil
	}
	if err != nil {
		return family.FolderVerdicts{}, false, fmt.Errorf("read %s: %w", p, err)
	}
	res, ok := parseEvalResults(data)
	if !ok {
		return family.FolderVerdicts{}, false, nil
	}
	return folderVerdicts(dir, res), true, nil
}

// ReadReportFile implements family.ReportReader: an object of booleans keyed by instance id.
func (reports) ReadReportFile(path string, data []byte) (family.FolderVerdicts, bool, error) {
	res, ok := parseEvalResults(data)
	if !ok {
		return family.FolderVerdicts{}, false, nil
	}
	return folderVerdicts(filepath.Dir(path), res), true, nil
}

// folderVerdicts turns eval_results into verdicts; a false instance whose folder in dir exists
// without any *_output.json is an Error (its tests or parser failed, or it timed out).
func folderVerdicts(dir string, res map[string]bool) family.FolderVerdicts {
	fv := family.FolderVerdicts{Format: FormatEvalResults, Verdicts: make(map[string]family.InstanceVerdict, len(res))}
	for _, id := range sortedKeys(res) {
		v := family.InstanceVerdict{Outcome: family.Unresolved}
		if res[id] {
			v.Outcome = family.Resolved
		}
		if fi, err := os.Stat(filepath.Join(dir, id)); err == nil && fi.IsDir() {
			fv.Format = FormatOutputDir
			outs, _ := filepath.Glob(filepath.Join(dir, id, "*"+outputSuffix))
			if len(outs) == 0 && !res[id] {
				v = family.InstanceVerdict{Outcome: family.Error, Detail: "no " + outputSuffix[1:] + ": the tests or the parser failed (see the instance's stdout and stderr logs)"}
			}
			if len(outs) == 1 {
				v.Tests = outputTests(outs[0])
			}
			if logs, _ := filepath.Glob(filepath.Join(dir, id, "*"+stdoutSuffix)); len(logs) == 1 {
				v.Log = logs[0]
			}
		}
		fv.Verdicts[id] = v
	}
	return fv
}

// outputTests are the tests of an instance's output.json, passed (status PASSED) or not, as one
// group; nil when the file cannot be read.
func outputTests(path string) map[string]family.TestGroup {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out Output
	if json.Unmarshal(data, &out) != nil || len(out.Tests) == 0 {
		return nil
	}
	var passed, failed []string
	for _, t := range out.Tests {
		if t.Status == "PASSED" {
			passed = append(passed, t.Name)
		} else {
			failed = append(failed, t.Name)
		}
	}
	return map[string]family.TestGroup{"tests": family.Group(passed, failed)}
}
