package pro

import (
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

const format = "SWE-bench Pro " + EvalResultsFile

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
	fv := family.FolderVerdicts{Format: format, Verdicts: make(map[string]family.InstanceVerdict, len(res))}
	for _, id := range sortedKeys(res) {
		v := family.InstanceVerdict{Outcome: family.Unresolved}
		if res[id] {
			v.Outcome = family.Resolved
		} else if fi, err := os.Stat(filepath.Join(dir, id)); err == nil && fi.IsDir() {
			if outs, _ := filepath.Glob(filepath.Join(dir, id, "*"+outputSuffix)); len(outs) == 0 {
				v = family.InstanceVerdict{Outcome: family.Error, Detail: "no " + outputSuffix[1:] + ": the tests or the parser failed (see the instance's stdout and stderr logs)"}
			}
		}
		fv.Verdicts[id] = v
	}
	return fv
}
