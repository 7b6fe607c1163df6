package submission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/all"
)

// FamilyResults are the verdicts of another dataset family's leaderboard folder, in the layout
// they were read in (family.FolderVerdicts.Format).
type FamilyResults struct {
	Layouts    map[string]int // instances read per layout
	Instances  int
	Resolved   int
	Unresolved int
	EmptyPatch int
	Errors     int
}

// Summary is the results block of the folder: its counts and the layouts they were read in.
func (r *FamilyResults) Summary(folder string) string {
	rate := 0.0
	if r.Instances > 0 {
		rate = 100 * float64(r.Resolved) / float64(r.Instances)
	}
	layouts := make([]string, 0, len(r.Layouts))
	for l := range r.Layouts {
		layouts = append(layouts, l)
	}
	sort.Strings(layouts)
	return fmt.Sprintf("%s (%s layout)\nresolved: %d of %d instances (%.1f%%); %d unresolved, %d empty patches, %d errors\n",
		folder, strings.Join(layouts, ", "), r.Resolved, r.Instances, rate, r.Unresolved, r.EmptyPatch, r.Errors)
}

// CheckFamily checks a leaderboard folder of another dataset family than SWE-bench's — a
// submission of multi-swe-bench/experiments (evaluation/<language>/verified/<date>_<name>/:
// all_preds.jsonl, logs/<org>/<repo>/evals/pr-<n>/, results/results.json, metadata.yaml), one of
// the SWE-PolyBench leaderboard (all_preds.jsonl, logs/<id>_result.json), or any folder a family's
// reader takes (family/all.ReadEvalFolder) — by what its harness wrote: the layout its verdicts
// are read in, the predictions and the verdicts cover each other, the run-level results agree
// with the instances' logs, and no instance failed to be graded. ok is false when dir holds no
// family's layout (Check is for SWE-bench's folders).
func CheckFamily(dir string) (rep *CheckReport, res *FamilyResults, ok bool, err error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, nil, false, fmt.Errorf("submission folder: %w", err)
	}
	if !fi.IsDir() {
		return nil, nil, false, nil
	}
	folders, err := all.ReadEvalFolder(dir)
	if err != nil {
		return nil, nil, true, fmt.Errorf("submission folder %s: %w", dir, err)
	}
	if len(folders) == 0 {
		return nil, nil, false, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, true, err
	}
	rep = &CheckReport{Dir: dir, Folder: filepath.Base(abs), Accepted: map[string]bool{}}
	add := func(f ...Finding) { rep.Findings = append(rep.Findings, f...) }
	res = &FamilyResults{Layouts: map[string]int{}}
	verdicts := map[string]family.InstanceVerdict{}
	for _, fv := range folders {
		res.Layouts[fv.Format] += len(fv.Verdicts)
		for id, v := range fv.Verdicts {
			verdicts[id] = v
		}
		add(Finding{Check: CheckLogs, Severity: Note, Message: fmt.Sprintf("the verdicts are read in the %s layout: %d instances", fv.Format, len(fv.Verdicts))})
	}
	var errored []string
	for id, v := range verdicts {
		res.Instances++
		switch v.Outcome {
		case family.Resolved:
			res.Resolved++
		case family.Unresolved:
			res.Unresolved++
		case family.EmptyPatch:
			res.EmptyPatch++
		default:
			res.Errors++
			errored = append(errored, id)
		}
	}
	if len(errored) > 0 {
		sort.Strings(errored)
		add(Finding{Check: CheckLogs, Severity: Warn, IDs: errored,
			Message: fmt.Sprintf("%d instances have no verdict of the harness (%s): %s", len(errored), verdicts[errored[0]].Detail, idList(errored, 5))})
	}

	if !folderRe.MatchString(rep.Folder) {
		add(Finding{Check: CheckSplit, Severity: Warn, Message: fmt.Sprintf("the folder is called %q; leaderboard submissions are <YYYYMMDD>_<name>/", rep.Folder)})
	}
	add(checkFamilyPredictions(dir, verdicts)...)
	add(checkFamilyLogs(dir, folders)...)
	if _, err := os.Stat(filepath.Join(dir, MetadataFile)); errors.Is(err, fs.ErrNotExist) {
		add(Finding{Check: CheckMetadata, Severity: Warn, Message: "no metadata.yaml (the leaderboard shows the entry from it: name, site, oss, verified)"})
	}
	rep.Findings = rep.Findings.Sorted()
	return rep, res, true, nil
}

// checkFamilyPredictions reads the folder's predictions (all_preds.jsonl, in any shape the
// family registry reads: SWE-bench's, Multi-SWE-bench's patch lines, …) and checks that they and
// the verdicts cover the same instances.
func checkFamilyPredictions(dir string, verdicts map[string]family.InstanceVerdict) Findings {
	var path string
	for _, name := range []string{PredsFile, "preds.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			path = filepath.Join(dir, name)
			break
		}
	}
	if path == "" {
		return Findings{{Check: CheckPredictions, Severity: Warn, Message: "no all_preds.jsonl: the predictions the verdicts are of are not in the folder"}}
	}
	preds, err := familyPredictions(path)
	if err != nil {
		return Findings{{Check: CheckPredictions, Severity: Fail, Message: err.Error()}}
	}
	var unevaluated, unpredicted []string
	for id, empty := range preds {
		if _, ok := verdicts[id]; !ok && !empty {
			unevaluated = append(unevaluated, id)
		}
	}
	for id := range verdicts {
		if _, ok := preds[id]; !ok {
			unpredicted = append(unpredicted, id)
		}
	}
	var out Findings
	if len(unevaluated) > 0 {
		sort.Strings(unevaluated)
		out = append(out, Finding{Check: CheckLogs, Severity: Warn, IDs: unevaluated,
			Message: fmt.Sprintf("%d predictions have no verdict: %s", len(unevaluated), idList(unevaluated, 5))})
	}
	if len(unpredicted) > 0 {
		sort.Strings(unpredicted)
		out = append(out, Finding{Check: CheckPredictions, Severity: Warn, IDs: unpredicted,
			Message: fmt.Sprintf("%d instances have a verdict but no prediction in %s: %s", len(unpredicted), filepath.Base(path), idList(unpredicted, 5))})
	}
	return out
}

// familyPredictions reads the instances a predictions file predicts, and whether each patch is
// empty, as the families' harnesses read their inputs: JSON lines, a list or an object of
// predictions, each naming its instance by instance_id or by org, repo and number
// (Multi-SWE-bench's patch lines), its patch in model_patch, fix_patch or patch. Nothing else is
// required (SWE-PolyBench's harness reads instance_id and model_patch only).
func familyPredictions(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var objs []map[string]json.RawMessage
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if err := json.Unmarshal(trimmed, &objs); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	case len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed):
		var byID map[string]map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &byID); err == nil {
			for id, o := range byID {
				if _, ok := o["instance_id"]; !ok {
					o["instance_id"], _ = json.Marshal(id)
				}
				objs = append(objs, o)
			}
			break
		}
		fallthrough
	default:
		for k, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var o map[string]json.RawMessage
			if err := json.Unmarshal(line, &o); err != nil {
				return nil, fmt.Errorf("%s line %d: %w", path, k+1, err)
			}
			objs = append(objs, o)
		}
	}
	out := map[string]bool{}
	for k, o := range objs {
		var id, org, repo, patch string
		var number json.Number
		_ = json.Unmarshal(o["instance_id"], &id)
		if id == "" {
			_ = json.Unmarshal(o["org"], &org)
			_ = json.Unmarshal(o["repo"], &repo)
			_ = json.Unmarshal(o["number"], &number)
			if org != "" && repo != "" && number != "" {
				id = fmt.Sprintf("%s__%s-%s", org, repo, number)
			}
		}
		if id == "" {
			return nil, fmt.Errorf("%s: prediction %d names no instance (instance_id, or org, repo and number)", path, k+1)
		}
		for _, key := range []string{"model_patch", "fix_patch", "patch"} {
			if raw, ok := o[key]; ok {
				_ = json.Unmarshal(raw, &patch)
				break
			}
		}
		out[id] = strings.TrimSpace(patch) == ""
	}
	return out, nil
}

// checkFamilyLogs compares the run-level verdicts of a folder with what its logs/ say on their
// own, when both are there in different layouts (a Multi-SWE-bench submission's
// results/results.json and logs/<org>/<repo>/evals/pr-<n>/report.json): an instance the results
// call resolved whose report.json the harness found invalid, instances the results list without
// a log, logs the results do not list.
func checkFamilyLogs(dir string, folders []family.FolderVerdicts) Findings {
	logs, err := all.ReadEvalFolder(filepath.Join(dir, LogsDir))
	if err != nil {
		return Findings{{Check: CheckLogs, Severity: Warn, Message: err.Error()}}
	}
	if len(logs) == 0 || len(folders) == 0 || logs[0].Format == folders[0].Format {
		return nil
	}
	own := logs[0].Verdicts
	var invalid, noLog, unlisted []string
	for id, v := range folders[0].Verdicts {
		l, ok := own[id]
		switch {
		case !ok && v.Outcome != family.EmptyPatch:
			noLog = append(noLog, id)
		case ok && v.Outcome == family.Resolved && l.Outcome == family.Unresolved:
			invalid = append(invalid, id)
		}
	}
	for id := range own {
		if _, ok := folders[0].Verdicts[id]; !ok {
			unlisted = append(unlisted, id)
		}
	}
	var out Findings
	for _, f := range []struct {
		ids []string
		msg string
	}{
		{invalid, "the results call %d instances resolved whose report.json in logs/ the harness found invalid: %s"},
		{noLog, "the results list %d instances that have no folder in logs/: %s"},
		{unlisted, "logs/ holds %d instances the results do not list: %s"},
	} {
		if len(f.ids) > 0 {
			sort.Strings(f.ids)
			out = append(out, Finding{Check: CheckResults, Severity: Warn, IDs: f.ids, Message: fmt.Sprintf(f.msg, len(f.ids), idList(f.ids, 5))})
		}
	}
	return out
}
