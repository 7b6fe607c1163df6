package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swebench-run/swebench-run/family"
)

// reports reads the harness's verdict files: <dir>/<id>/report.json ({instance_id, resolved,
// PASS_TO_PASS, FAIL_TO_PASS}) and <dir>/results.json.
type reports struct{}

var _ family.ReportReader = reports{}

// The layouts the reader reads (family.FolderVerdicts.Format).
const (
	// FormatOutputDir is the harness's --output_dir (evaluation/evaluation.py): <instance_id>/
	// {report.json, post_patch_log.txt, status.json} and the run's results.json, or this tool's
	// evaluation folder of SWE-bench-Live rows.
	FormatOutputDir = "SWE-bench-Live output_dir"
	// FormatResults is the run's results.json given on its own.
	FormatResults = "SWE-bench-Live " + ResultsFile
	// FormatReport is one instance's report.json given on its own.
	FormatReport = "SWE-bench-Live " + ReportFile
)

// ReadEvalFolder implements family.ReportReader: every instance folder with a report.json of the
// harness's format, and the run's results.json when present (its error_ids are errors, its
// empty_patch_ids empty patches, its failure_ids without a report unresolved). An instance folder
// the run's results.json does not know and that holds no report.json is an Error when it holds
// what the harness writes before the report (post_patch_log.txt, status.json) in a folder that is
// the harness's, and is not the harness's otherwise.
func (reports) ReadEvalFolder(dir string) (family.FolderVerdicts, bool, error) {
	fv := family.FolderVerdicts{Format: FormatOutputDir, Verdicts: map[string]family.InstanceVerdict{}}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fv, false, nil
	}
	if err != nil {
		return fv, false, err
	}
	var unreported []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name(), ReportFile)
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			if isFile(filepath.Join(dir, e.Name(), PostPatchLogFile)) || isFile(filepath.Join(dir, e.Name(), StatusFile)) {
				unreported = append(unreported, e.Name())
			}
			continue
		}
		if err != nil {
			return fv, false, err
		}
		rep, err := ReadReport(data)
		if err != nil {
			continue // another format's report.json
		}
		if rep.InstanceID != e.Name() {
			return fv, false, fmt.Errorf("%s is the report of %s, not of %s", p, rep.InstanceID, e.Name())
		}
		v := reportVerdict(rep)
		if log := filepath.Join(dir, e.Name(), PostPatchLogFile); isFile(log) {
			v.Log = log
		}
		fv.Verdicts[rep.InstanceID] = v
	}
	found := len(fv.Verdicts) > 0
	data, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err == nil {
		res, err := ReadResults(data)
		if err == nil {
			found = true
			addResults(fv.Verdicts, res)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fv, false, err
	}
	if found {
		for _, id := range unreported {
			v, ok := fv.Verdicts[id]
			if !ok {
				v = family.InstanceVerdict{Outcome: family.Error, Detail: "no report.json: the harness wrote the test output but no report"}
			}
			if log := filepath.Join(dir, id, PostPatchLogFile); isFile(log) {
				v.Log = log
			}
			fv.Verdicts[id] = v
		}
	}
	return fv, found, nil
}

// ReadReportFile implements family.ReportReader: the harness's results.json, or one instance's
// report.json, given on its own.
func (reports) ReadReportFile(path string, data []byte) (family.FolderVerdicts, bool, error) {
	fv := family.FolderVerdicts{Verdicts: map[string]family.InstanceVerdict{}}
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return fv, false, nil
	}
	if _, ok := keys["success_ids"]; ok {
		res, err := ReadResults(data)
		if err != nil {
			return fv, true, fmt.Errorf("%s: %w", path, err)
		}
		fv.Format = FormatResults
		addResults(fv.Verdicts, res)
		return fv, true, nil
	}
	if _, ok := keys["instance_id"]; !ok {
		return fv, false, nil
	}
	if _, ok := keys["PASS_TO_PASS"]; !ok {
		return fv, false, nil
	}
	rep, err := ReadReport(data)
	if err != nil {
		return fv, true, fmt.Errorf("%s: %w", path, err)
	}
	fv.Format = FormatReport
	fv.Verdicts[rep.InstanceID] = reportVerdict(rep)
	return fv, true, nil
}

// reportVerdict is the verdict of an instance's report.json, with its test lists.
func reportVerdict(rep Report) family.InstanceVerdict {
	v := verdictOf(rep.Resolved)
	v.Tests = map[string]family.TestGroup{
		"FAIL_TO_PASS": family.Group(rep.FailToPass.Success, rep.FailToPass.Failure),
		"PASS_TO_PASS": family.Group(rep.PassToPass.Success, rep.PassToPass.Failure),
	}
	return v
}

func verdictOf(resolved bool) family.InstanceVerdict {
	if resolved {
		return family.InstanceVerdict{Outcome: family.Resolved}
	}
	return family.InstanceVerdict{Outcome: family.Unresolved}
}

// addResults adds the verdicts of a results.json that the instance reports do not give.
func addResults(v map[string]family.InstanceVerdict, r Results) {
	set := func(ids []string, iv family.InstanceVerdict) {
		for _, id := range ids {
			if _, ok := v[id]; !ok {
				v[id] = iv
			}
		}
	}
	set(r.SuccessIDs, family.InstanceVerdict{Outcome: family.Resolved})
	set(r.FailureIDs, family.InstanceVerdict{Outcome: family.Unresolved})
	set(r.ErrorIDs, family.InstanceVerdict{Outcome: family.Error, Detail: "the harness could not evaluate it (error_ids of results.json)"})
	set(r.IncompleteIDs, family.InstanceVerdict{Outcome: family.Error, Detail: "not evaluated (incomplete_ids of results.json)"})
	set(r.EmptyPatchIDs, family.InstanceVerdict{Outcome: family.EmptyPatch})
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
