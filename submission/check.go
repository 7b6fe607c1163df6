package submission

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/validation"
)

// CheckOptions configure Check.
type CheckOptions struct {
	Split   Split   // the split the folder is under
	Dataset Dataset // the whole split, with the eval columns
	// Force accepts soft failures (as a README's accepted marker does for the checks it names).
	Force bool
	// Validation is the validation of the split's instances (package validation), by id: the
	// predicted instances whose environment is broken are noted (CheckEnvironment).
	Validation map[string]validation.Record
}

// CheckReport is what Check found.
type CheckReport struct {
	Dir      string
	Folder   string
	Findings Findings
	Computed *Computed
	// Accepted are the checks whose warnings the README records as accepted with --force.
	Accepted map[string]bool
}

// Err returns a *ChecksError when the folder fails: a hard failure, or a warning that is neither
// accepted in its README nor forced.
func (r *CheckReport) Err(force bool) error {
	var open Findings
	for _, f := range r.Findings {
		if f.Severity == Warn && r.Accepted[f.Check] {
			continue
		}
		open = append(open, f)
	}
	return decide(open, force)
}

// submissionFiles are the entries get_results keeps at the top of a folder (it deletes the
// rest), plus results/, which it writes.
var submissionFiles = map[string]bool{
	"preds.json": true, PredsFile: true, LogsDir: true, MetadataFile: true, "metadata.yml": true,
	TrajsDir: true, ReadmeFile: true, ResultsDir: true,
}

var folderRe = regexp.MustCompile(`^\d{8}_.+$`)

// Check lints a submission folder of the experiments repository, ours or anyone's:
// evaluation/<split>/<YYYYMMDD>_<name>/. It runs the checks Build runs that need only the folder
// — the predictions (format, duplicates, one model name, instances of the split), a trajectory
// for every prediction, an evaluation log for every patch and that it was made for that patch,
// the templates of the configs the trajectories record, patches that edit test files,
// metadata.yaml — and recomputes results/ the way get_results does (Compute), comparing it with
// the folder's. Files get_results would delete are warnings. Warnings the README records as
// accepted (a folder Build wrote with --force) do not fail the check.
func Check(ctx context.Context, dir string, opts CheckOptions) (*CheckReport, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("submission folder: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("submission folder %s is a file; pass evaluation/<split>/<date>_<name>/", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return checkFolder(ctx, dir, filepath.Base(abs), opts)
}

// checkFolder checks dir as the folder called folder (Build checks its temporary folder before
// renaming it).
func checkFolder(ctx context.Context, dir, folder string, opts CheckOptions) (*CheckReport, error) {
	rep := &CheckReport{Dir: dir, Folder: folder, Accepted: map[string]bool{}}
	add := func(f ...Finding) { rep.Findings = append(rep.Findings, f...) }
	insts := opts.Dataset.Instances
	byID := make(map[string]dataset.Instance, len(insts))
	for _, inst := range insts {
		byID[inst.InstanceID] = inst
	}

	if !folderRe.MatchString(folder) {
		add(Finding{Check: CheckSplit, Severity: Fail, Message: fmt.Sprintf("the folder is called %q; submissions are evaluation/<split>/<YYYYMMDD>_<name>/", folder)})
	}
	add(checkDataset(ctx, nil, opts.Split, opts.Dataset, nil)...)

	// Top-level files.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var extra []string
	for _, e := range entries {
		if !submissionFiles[e.Name()] {
			extra = append(extra, e.Name())
		}
	}
	if len(extra) > 0 {
		add(Finding{Check: CheckFiles, Severity: Warn,
			Message: fmt.Sprintf("get_results deletes what a submission does not need; the folder has: %s", strings.Join(extra, ", "))})
	}
	if data, err := os.ReadFile(filepath.Join(dir, ReadmeFile)); err == nil {
		rep.Accepted = acceptedChecks(string(data))
	} else {
		add(Finding{Check: CheckFiles, Severity: Warn, Message: "no README.md (the checklist asks for the get_results summary, a description of the system and its authors)"})
	}

	// Predictions.
	pf, err := readPredFile(filepath.Join(dir, PredsFile))
	if errors.Is(err, fs.ErrNotExist) {
		pf, err = readPredFile(filepath.Join(dir, "preds.json"))
	}
	if errors.Is(err, fs.ErrNotExist) {
		add(Finding{Check: CheckPredictions, Severity: Fail, Message: "no all_preds.jsonl (nor preds.json)"})
		pf = &predFile{Path: PredsFile}
	} else if err != nil {
		add(Finding{Check: CheckPredictions, Severity: Fail, Message: err.Error()})
		pf = &predFile{Path: PredsFile}
	}
	pf.Path = filepath.Base(pf.Path)
	add(checkPredictions(pf, insts, nil)...)
	preds := pf.byID()
	add(checkEnvironment(preds, opts.Validation)...)

	// Metadata.
	metaName := MetadataFile
	metaData, err := os.ReadFile(filepath.Join(dir, metaName))
	if errors.Is(err, fs.ErrNotExist) {
		metaName = "metadata.yml"
		metaData, err = os.ReadFile(filepath.Join(dir, metaName))
	}
	if err != nil {
		add(Finding{Check: CheckMetadata, Severity: Fail, Message: "no metadata.yaml"})
	} else {
		add(checkMetadata(metaData, metaName)...)
	}

	// Trajectories.
	trajs, tf := folderTrajectories(filepath.Join(dir, TrajsDir), preds)
	add(tf...)
	var configs []namedConfig
	for _, id := range sortedIDs(trajs) {
		if c := trajectoryConfig(trajs[id].t); c != nil {
			configs = append(configs, namedConfig{Source: filepath.Join(TrajsDir, filepath.Base(trajs[id].path)), Config: c})
		}
	}
	add(checkTemplates(distinctConfigs(configs), "the trajectories record no config (info.config)")...)

	// Logs.
	logs := map[string]logState{}
	var leftovers []string
	for id, p := range preds {
		if p.Empty() {
			continue
		}
		d := filepath.Join(dir, LogsDir, id)
		logs[id] = readLogState(d)
		for _, junk := range []string{"run_instance.log", "image_build_dir"} {
			if exists(filepath.Join(d, junk)) {
				leftovers = append(leftovers, filepath.Join(LogsDir, id, junk))
			}
		}
	}
	add(checkLogs(preds, logs, nil)...)
	if len(leftovers) > 0 {
		sort.Strings(leftovers)
		add(Finding{Check: CheckFiles, Severity: Warn,
			Message: fmt.Sprintf("get_results deletes %d files of the logs: %s", len(leftovers), idList(leftovers, 5))})
	}
	add(checkTestFiles(preds, byID)...)

	// results/, recomputed.
	computed, err := Compute(dir, insts)
	if err != nil {
		return nil, err
	}
	rep.Computed = computed
	add(checkFromReports(computed)...)
	add(checkRegrade(computed, logs)...)
	add(compareResults(dir, computed)...)
	add(checkFlags(trajs, computed.Results.Resolved)...)
	rep.Findings = rep.Findings.Sorted()
	return rep, nil
}

// folderTraj is a trajectory found in trajs/.
type folderTraj struct {
	path string
	t    *results.Trajectory // nil when not a JSON trajectory we read
}

// folderTrajectories finds the trajectory of every prediction in trajs/: a file named after the
// instance (<id>.traj.json, <id>.traj, <id>.json, <id>.md, …) or a folder <id>/ (mini-swe-agent's
// <id>/<id>.traj.json). JSON trajectories are read for their config.
func folderTrajectories(dir string, preds map[string]eval.Prediction) (map[string]folderTraj, Findings) {
	out := map[string]folderTraj{}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return out, Findings{{Check: CheckTrajectories, Severity: Fail, Message: err.Error()}}
	}
	names := make([]string, 0, len(entries))
	isDir := map[string]bool{}
	for _, e := range entries {
		names = append(names, e.Name())
		isDir[e.Name()] = e.IsDir()
	}
	sort.Strings(names)
	find := func(id string) string {
		if isDir[id] {
			for _, n := range []string{id + ".traj.json", id + ".traj", id + ".json"} {
				if p := filepath.Join(dir, id, n); exists(p) {
					return p
				}
			}
			if sub, _ := os.ReadDir(filepath.Join(dir, id)); len(sub) > 0 {
				return filepath.Join(dir, id, sub[0].Name())
			}
		}
		i := sort.SearchStrings(names, id+".")
		if i < len(names) && strings.HasPrefix(names[i], id+".") && !isDir[names[i]] {
			return filepath.Join(dir, names[i])
		}
		return ""
	}
	var missing, mismatch []string
	for _, id := range sortedIDs(preds) {
		p := find(id)
		if p == "" {
			missing = append(missing, id)
			continue
		}
		ft := folderTraj{path: p}
		if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".traj") {
			if t, err := results.ReadTrajectory(p); err == nil {
				ft.t = t
				if msg, ok := checkTrajectory(id, t, preds[id]); !ok {
					mismatch = append(mismatch, msg)
				}
			}
		}
		out[id] = ft
	}
	var fs Findings
	if len(missing) > 0 {
		fs = append(fs, Finding{Check: CheckTrajectories, Severity: Fail, IDs: missing,
			Message: fmt.Sprintf("%d predicted instances have no trajectory in trajs/ (a file or folder named after the instance): %s", len(missing), idList(missing, 10))})
	}
	if len(mismatch) > 0 {
		fs = append(fs, Finding{Check: CheckTrajSubmission, Severity: Warn,
			Message: fmt.Sprintf("%d trajectories end with another submission than the prediction: %s", len(mismatch), idList(mismatch, 5))})
	}
	return out, fs
}

// compareResults compares the folder's results/ with the recomputation. results.json is read
// through compare (the experiments form it knows); the per-repository and per-year counts
// directly.
func compareResults(dir string, c *Computed) Findings {
	res, byRepo, byYear, missing, err := readComputed(dir)
	if err != nil {
		return Findings{{Check: CheckResults, Severity: Fail, Message: err.Error()}}
	}
	if len(missing) > 0 {
		return Findings{{Check: CheckResults, Severity: Fail,
			Message: fmt.Sprintf("missing %s; get_results writes them (python -m analysis.get_results evaluation/<split>/<folder>), as does swebench-run submission", strings.Join(missing, ", "))}}
	}
	runs, err := compare.Read(compare.Source{Path: filepath.Join(dir, ResultsDir, ResultsFile)}, compare.ReadOptions{})
	if err != nil {
		return Findings{{Check: CheckResults, Severity: Fail, Message: err.Error()}}
	}
	claimed := map[compare.Verdict][]string{}
	for _, inst := range runs[0].Instances {
		claimed[inst.Verdict] = append(claimed[inst.Verdict], inst.ID)
	}
	var out Findings
	diff := func(what string, got, want []string) {
		gotSet, wantSet := idSet(got), idSet(want)
		var extra, lacking []string
		for _, id := range got {
			if !wantSet[id] {
				extra = append(extra, id)
			}
		}
		for _, id := range want {
			if !gotSet[id] {
				lacking = append(lacking, id)
			}
		}
		sort.Strings(extra)
		sort.Strings(lacking)
		var parts []string
		if len(extra) > 0 {
			parts = append(parts, fmt.Sprintf("lists %d the recomputation does not (%s)", len(extra), idList(extra, 10)))
		}
		if len(lacking) > 0 {
			parts = append(parts, fmt.Sprintf("lacks %d it does (%s)", len(lacking), idList(lacking, 10)))
		}
		if len(parts) > 0 {
			out = append(out, Finding{Check: CheckResults, Severity: Fail, IDs: append(extra, lacking...),
				Message: fmt.Sprintf("results/results.json %s %s", what, strings.Join(parts, " and "))})
		}
	}
	diff("resolved", claimed[compare.Resolved], c.Results.Resolved)
	diff("no_generation", claimed[compare.EmptyPatch], c.Results.NoGeneration)
	// compare reads no_logs as errors, together with the failure lists of older files.
	diff("no_logs", res.NoLogs, c.Results.NoLogs)
	if !sameCounts(byRepo, c.ByRepo) {
		out = append(out, Finding{Check: CheckResults, Severity: Fail,
			Message: fmt.Sprintf("results/%s differs from the recomputation over the whole split (%d instances): %s", ResolvedByRepo, c.Total, countDiff(byRepo, c.ByRepo))})
	}
	if !sameCounts(byYear, c.ByYear) {
		out = append(out, Finding{Check: CheckResults, Severity: Fail,
			Message: fmt.Sprintf("results/%s differs from the recomputation: %s", ResolvedByTime, countDiff(byYear, c.ByYear))})
	}
	return out
}

func idSet(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func sameCounts(a, b map[string]Count) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func countDiff(got, want map[string]Count) string {
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	var parts []string
	for _, k := range sortedIDs(keys) {
		g, okG := got[k]
		w, okW := want[k]
		switch {
		case !okG:
			parts = append(parts, fmt.Sprintf("%s missing (want %d/%d)", k, w.Resolved, w.Total))
		case !okW:
			parts = append(parts, fmt.Sprintf("%s is not in the split", k))
		case g != w:
			parts = append(parts, fmt.Sprintf("%s %d/%d, want %d/%d", k, g.Resolved, g.Total, w.Resolved, w.Total))
		}
	}
	return idList(parts, 8)
}
