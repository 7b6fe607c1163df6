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

const formatName = "SWE-bench-Live report.json"

// ReadEvalFolder implements family.ReportReader: every instance folder with a report.json of the
// harness's format, and the run's results.json when present (its error_ids are errors, its
// empty_patch_ids empty patches, its failure_ids without a report unresolved). An instance folder
// the run's results.json does not know and that holds no report.json is not the harness's.
func (reports) ReadEvalFolder(dir string) (family.FolderVerdicts, bool, error) {
	fv := family.FolderVerdicts{Format: formatName, Verdicts: map[string]family.InstanceVerdict{}}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fv, false, nil
	}
	if err != nil {
		return fv, false, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name(), ReportFile)
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
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
		fv.Verdicts[rep.InstanceID] = reportVerdict(rep)
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
		fv.Format = "SWE-bench-Live results.json"
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
	fv.Format = formatName
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
