package polybench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/internal/pytext"
	"github.com/swebench-run/swebench-run/results"
)

// Name is the family's name (Instance.Family, NamedDataset.Family).
const Name = "polybench"

// Profile is SWE-PolyBench's dataset family.
type Profile struct{}

var _ family.Profile = Profile{}

// Name implements dataset.Family.
func (Profile) Name() string { return Name }

// Title implements family.Profile.
func (Profile) Title() string { return "SWE-PolyBench" }

// Match implements dataset.Family: rows with SWE-PolyBench's columns (F2P, P2P, test_command,
// Dockerfile).
func (Profile) Match(inst *dataset.Instance) bool {
	for _, c := range []string{"F2P", "P2P", "test_command", "Dockerfile"} {
		if _, ok := inst.Extra[c]; !ok {
			return false
		}
	}
	return true
}

// ImageTemplate is the harness's pre-built image of an instance (the id lower-cased).
const ImageTemplate = "ghcr.io/timesler/swe-polybench.eval.x86_64.%s:latest"

// Prepare implements dataset.Family: the image is the harness's pre-built one (unless the row
// names one), the working directory the image's (the last WORKDIR of the row's Dockerfile, which
// built it), FAIL_TO_PASS and PASS_TO_PASS the row's F2P and P2P.
func (Profile) Prepare(inst *dataset.Instance) error {
	var errs []error
	t, err := TaskOf(*inst)
	if err != nil {
		errs = append(errs, &dataset.FieldError{Field: fieldOf(err), Reason: err.Error()})
	} else {
		inst.FailToPass, inst.PassToPass = t.F2P, t.P2P
	}
	dockerfile, _ := inst.Extra["Dockerfile"].(string)
	if dockerfile == "" {
		errs = append(errs, &dataset.FieldError{Field: "Dockerfile", Reason: "missing or empty: it gives the image's working directory"})
	} else {
		inst.WorkDir = WorkDir(dockerfile)
	}
	if inst.Image == "" {
		inst.Image = fmt.Sprintf(ImageTemplate, strings.ToLower(inst.InstanceID))
	}
	return errors.Join(errs...)
}

// fieldOf names the column a TaskOf error is about.
func fieldOf(err error) string {
	for _, c := range []string{"test_command", "language", "F2P", "P2P"} {
		if strings.Contains(err.Error(), c) {
			return c
		}
	}
	return "repo"
}

// WorkDir is the working directory a Dockerfile leaves its image in: its last WORKDIR (relative
// ones resolved against the one before), "/" without any.
func WorkDir(dockerfile string) string {
	dir := "/"
	for _, line := range pytext.SplitLines(dockerfile) {
		f := pytext.Fields(line)
		if len(f) < 2 || !strings.EqualFold(f[0], "WORKDIR") {
			continue
		}
		arg := strings.Trim(strings.Join(f[1:], " "), `"`)
		if path.IsAbs(arg) {
			dir = path.Clean(arg)
		} else {
			dir = path.Join(dir, arg)
		}
	}
	return dir
}

// Grader implements family.Profile.
func (Profile) Grader() family.Grader { return grader{} }

// PredictionsFile is the harness's predictions file: JSON lines of instance_id and model_patch.
const PredictionsFile = "all_preds.jsonl"

// ExportPredictions implements family.Profile: all_preds.jsonl, as the harness's
// --predictions-path and the leaderboard's submissions take it.
func (Profile) ExportPredictions(preds []family.Prediction) (string, []byte, error) {
	var b strings.Builder
	for _, p := range preds {
		line, err := json.Marshal(struct {
			InstanceID string `json:"instance_id"`
			ModelPatch string `json:"model_patch"`
			Model      string `json:"model_name_or_path"`
		}{p.InstanceID, p.Patch(), p.ModelNameOrPath})
		if err != nil {
			return "", nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return PredictionsFile, []byte(b.String()), nil
}

// Reports implements family.Profile.
func (Profile) Reports() family.ReportReader { return reports{} }

// RunLogFile is the name of an instance's run log (run_logs_<language>/<id>_run.log in the
// harness's layout, <id>/<id>_run.log here).
func RunLogFile(id string) string { return id + "_run.log" }

type grader struct{}

func (grader) Check(insts []dataset.Instance) error {
	var errs []error
	for _, inst := range insts {
		if _, err := TaskOf(inst); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (grader) Reuse(inst dataset.Instance, _ family.Prediction, dir string) (family.Verdict, bool) {
	o, err := ReadResult(ResultPath(dir, inst.InstanceID))
	if err != nil {
		return family.Verdict{}, false
	}
	return family.Graded(o.Resolved, o), true
}

// applyPatch writes a patch into the working directory and applies it the harness's way: git
// apply --reject, then patch, without resetting the tree in between.
func applyPatch(ctx context.Context, sb family.Sandbox, workdir, file, text string, env family.GradeEnv) (bool, error) {
	if err := sb.WriteFile(ctx, workdir+"/"+file, []byte(text)); err != nil {
		return false, err
	}
	ok, _, err := family.ApplyPatch(ctx, sb, family.PatchApply{Commands: ApplyCommands(workdir, file), Timeout: 5 * time.Minute}, env.Log)
	return ok, err
}

func (grader) Grade(ctx context.Context, env family.GradeEnv, sb family.Sandbox, inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, error) {
	t, err := TaskOf(inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	workdir := inst.WorkingDir("/")
	write := func(o Output) (family.Verdict, error) {
		if _, err := WriteResult(dir, o); err != nil {
			return family.Verdict{}, err
		}
		return family.Graded(o.Resolved, o), nil
	}
	if strings.TrimSpace(pred.Patch()) == "" { // the harness's `not model_patch.strip()`
		return write(Score(t.InstanceID, nil, t.F2P, t.P2P, false, false))
	}
	applied, err := applyPatch(ctx, sb, workdir, TestPatchFile, t.TestPatch, env)
	if err != nil {
		return family.Errorf(family.KindContainer, "apply the test patch: %v", err), nil
	}
	if !applied {
		fmt.Fprintf(env.Log, "test patch apply error for instance id: %s\n", t.InstanceID)
		return write(Score(t.InstanceID, nil, t.F2P, t.P2P, false, false))
	}
	applied, err = applyPatch(ctx, sb, workdir, CodePatchFile, pred.Patch(), env)
	if err != nil {
		return family.Errorf(family.KindContainer, "apply the prediction: %v", err), nil
	}
	if !applied {
		fmt.Fprintf(env.Log, "patch apply error for instance id: %s\n", t.InstanceID)
		return write(Score(t.InstanceID, nil, t.F2P, t.P2P, false, true))
	}
	script := workdir + "/eval.sh"
	if err := sb.WriteFile(ctx, script, []byte(t.Script())); err != nil {
		return family.Errorf(family.KindContainer, "write eval.sh: %v", err), nil
	}
	timeout := t.Timeout()
	if env.Timeout > 0 && env.Timeout < timeout {
		timeout = env.Timeout
	}
	fmt.Fprintf(env.Log, "Running %s (timeout %v):\n%s\n", script, timeout, t.Script())
	// The harness reads the run's stderr, then its stdout.
	cmd := fmt.Sprintf("chmod 777 %[1]s; /bin/bash %[1]s 2>/tmp/polybench_stderr >/tmp/polybench_stdout; code=$?; cat /tmp/polybench_stderr /tmp/polybench_stdout; exit $code", script)
	out, code, timedOut, err := sb.Exec(ctx, cmd, timeout)
	if err != nil {
		return family.Errorf(family.KindContainer, "run the tests: %v", err), nil
	}
	log := RunLog("", out, code)
	if timedOut {
		log = TimedOutLog
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, RunLogFile(t.InstanceID)), []byte(log), 0o644); err != nil {
		return family.Verdict{}, err
	}
	return write(Score(t.InstanceID, t.Parse(log), t.F2P, t.P2P, true, true))
}

func (grader) Regrade(inst dataset.Instance, pred family.Prediction, logDirs []string, dir string) (family.Verdict, bool, error) {
	t, err := TaskOf(inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), true, nil
	}
	name := RunLogFile(t.InstanceID)
	for _, d := range logDirs {
		// This tool's layout, then the harness's (run_logs_<language>/<id>_run.log).
		for _, p := range []string{filepath.Join(d, t.InstanceID, name), filepath.Join(d, name), filepath.Join(d, "run_logs_"+strings.ToLower(t.Language), name)} {
			data, err := os.ReadFile(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return family.Verdict{}, false, err
			}
			if filepath.Clean(p) != filepath.Join(dir, name) {
				if err := results.WriteFileAtomic(filepath.Join(dir, name), data, 0o644); err != nil {
					return family.Verdict{}, false, err
				}
			}
			o := Score(t.InstanceID, t.Parse(string(data)), t.F2P, t.P2P, true, true)
			if _, err := WriteResult(dir, o); err != nil {
				return family.Verdict{}, false, err
			}
			return family.Graded(o.Resolved, o), true, nil
		}
	}
	return family.Verdict{}, false, nil
}

// Aggregate is the harness's result.json of a run (AggregateOutput), without the retrieval
// metrics (file_retrieval, node_retrieval), which are no part of the grade and are not computed
// here.
type Aggregate struct {
	NoGeneration    []string `json:"no_generation"`
	Generation      []string `json:"generation"`
	PatchApplied    []string `json:"patch_applied"`
	WithLogs        []string `json:"with_logs"`
	Resolved        []string `json:"resolved"`
	NotResolved     []string `json:"not_resolved"`
	TotalEmptyPatch int      `json:"total_empty_patch_instances"`
	TotalInstances  int      `json:"total_instances"`
	TotalResolved   int      `json:"total_resolved"`
	TotalUnresolved int      `json:"total_unresolved"`
}

// AggregateFile is the name of the run's aggregate.
const AggregateFile = "result.json"

// aggregate is the harness's aggregate_logs over per-instance results.
func aggregate(outs []Output) Aggregate {
	a := Aggregate{NoGeneration: []string{}, Generation: []string{}, PatchApplied: []string{}, WithLogs: []string{}, Resolved: []string{}, NotResolved: []string{}}
	for _, o := range outs {
		id := o.InstanceID
		if o.Resolved {
			a.Resolved = append(a.Resolved, id)
		} else {
			a.NotResolved = append(a.NotResolved, id)
		}
		if o.PatchApplied {
			a.PatchApplied = append(a.PatchApplied, id)
		}
		if o.WithLogs {
			a.WithLogs = append(a.WithLogs, id)
		}
		if o.Generation {
			a.Generation = append(a.Generation, id)
		} else {
			a.NoGeneration = append(a.NoGeneration, id)
		}
		if !o.Generation && !o.PatchApplied {
			a.TotalEmptyPatch++
		}
	}
	a.TotalResolved, a.TotalUnresolved = len(a.Resolved), len(a.NotResolved)
	a.TotalInstances = a.TotalResolved + a.TotalUnresolved
	return a
}

// Finish writes the result of every empty prediction (the harness scores it without running it:
// not applied, nothing generated) and the run's result.json.
func (grader) Finish(outDir string, preds map[string]family.Prediction, verdicts map[string]family.Verdict) error {
	ids := make([]string, 0, len(preds))
	for id := range preds {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var outs []Output
	for _, id := range ids {
		if preds[id].Empty() {
			o := Score(id, nil, nil, nil, false, false)
			if err := os.MkdirAll(filepath.Join(outDir, id), 0o755); err != nil {
				return err
			}
			if _, err := WriteResult(filepath.Join(outDir, id), o); err != nil {
				return err
			}
			outs = append(outs, o)
			continue
		}
		o, err := ReadResult(ResultPath(filepath.Join(outDir, id), id))
		if errors.Is(err, fs.ErrNotExist) {
			continue // not graded: an error of the evaluation, which the harness would not count either
		}
		if err != nil {
			return err
		}
		outs = append(outs, o)
	}
	b, err := pytext.JSONDumps(aggregate(outs), 4, true)
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(outDir, AggregateFile), b, 0o644)
}

type reports struct{}

// The layouts the reader reads (family.FolderVerdicts.Format).
const (
	// FormatResultPath is the harness's --result-path (run_evaluation.py, scoring.py's
	// store_instance_level_output): <instance_id>_result.json (and _metrics.json) side by side.
	FormatResultPath = "SWE-PolyBench result_path"
	// FormatSubmission is a submission folder of the SWE-PolyBench leaderboard (the submission
	// branch of amazon-science/SWE-PolyBench, evaluation/<split>/<date>_<name>/): all_preds.jsonl
	// beside logs/<instance_id>_result.json.
	FormatSubmission = "SWE-PolyBench submission"
	// FormatInstanceFolders is this tool's evaluation folder: <instance_id>/<instance_id>_result.json.
	FormatInstanceFolders = "SWE-PolyBench <id>" + ResultSuffix
	// FormatAggregate is the harness's result.json (scoring.py's aggregate_logs), alone or as the
	// only verdict file of its folder.
	FormatAggregate = "SWE-PolyBench " + AggregateFile
)

// ReadEvalFolder reads the <id>_result.json files of a folder: the harness's result path holds
// them flat, a published submission under logs/, this tool's evaluation folder one per instance
// folder; without any, the folder's result.json (the harness's aggregate) is read.
func (reports) ReadEvalFolder(dir string) (family.FolderVerdicts, bool, error) {
	format := FormatResultPath
	paths, _ := filepath.Glob(filepath.Join(dir, "*"+ResultSuffix))
	if len(paths) == 0 {
		paths, _ = filepath.Glob(filepath.Join(dir, "logs", "*"+ResultSuffix))
		format = FormatSubmission
	}
	var nested []string
	all, _ := filepath.Glob(filepath.Join(dir, "*", "*"+ResultSuffix))
	for _, p := range all {
		if filepath.Base(p) == filepath.Base(filepath.Dir(p))+ResultSuffix { // <id>/<id>_result.json
			nested = append(nested, p)
		}
	}
	if len(paths) == 0 && len(nested) > 0 {
		format = FormatInstanceFolders
	}
	paths = append(paths, nested...)
	if len(paths) == 0 {
		data, err := os.ReadFile(filepath.Join(dir, AggregateFile))
		if err != nil {
			return family.FolderVerdicts{}, false, nil
		}
		return readAggregate(filepath.Join(dir, AggregateFile), data)
	}
	fv := family.FolderVerdicts{Format: format, Verdicts: map[string]family.InstanceVerdict{}}
	for _, p := range paths {
		o, err := ReadResult(p)
		if err != nil {
			return fv, true, err
		}
		fv.Verdicts[o.InstanceID] = verdict(o)
	}
	return fv, true, nil
}

// ReadReportFile reads one <id>_result.json, or the harness's result.json.
func (reports) ReadReportFile(p string, data []byte) (family.FolderVerdicts, bool, error) {
	if !strings.HasSuffix(p, ResultSuffix) {
		return readAggregate(p, data)
	}
	o, err := ReadResult(p)
	if err != nil {
		return family.FolderVerdicts{}, true, err
	}
	return family.FolderVerdicts{Format: FormatResultPath, Verdicts: map[string]family.InstanceVerdict{o.InstanceID: verdict(o)}}, true, nil
}

// readAggregate reads the harness's result.json; ok is false for other JSON. Its lists give what
// each instance's result did (resolved, generation, patch_applied), read as verdict reads them.
func readAggregate(p string, data []byte) (family.FolderVerdicts, bool, error) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return family.FolderVerdicts{}, false, nil
	}
	for _, k := range []string{"resolved", "not_resolved", "generation", "no_generation", "patch_applied"} {
		if _, ok := keys[k]; !ok {
			return family.FolderVerdicts{}, false, nil
		}
	}
	var a Aggregate
	if err := json.Unmarshal(data, &a); err != nil {
		return family.FolderVerdicts{}, true, fmt.Errorf("%s: %s: %w", p, FormatAggregate, err)
	}
	in := func(ids []string) map[string]bool {
		m := make(map[string]bool, len(ids))
		for _, id := range ids {
			m[id] = true
		}
		return m
	}
	resolved, generation, applied := in(a.Resolved), in(a.Generation), in(a.PatchApplied)
	fv := family.FolderVerdicts{Format: FormatAggregate, Verdicts: map[string]family.InstanceVerdict{}}
	for _, id := range append(append([]string{}, a.Resolved...), a.NotResolved...) {
		fv.Verdicts[id] = verdict(Output{InstanceID: id, Resolved: resolved[id], Generation: generation[id], PatchApplied: applied[id]})
	}
	return fv, true, nil
}

// verdict maps a result to compare's verdicts: no generated patch is an empty patch. The
// result's passed and failed tests are one group (the harness does not split them).
func verdict(o Output) family.InstanceVerdict {
	var v family.InstanceVerdict
	switch {
	case o.Resolved:
		v = family.InstanceVerdict{Outcome: family.Resolved}
	case !o.Generation && !o.PatchApplied:
		return family.InstanceVerdict{Outcome: family.EmptyPatch}
	case !o.PatchApplied:
		return family.InstanceVerdict{Outcome: family.Unresolved, Detail: "patch not applied"}
	default:
		v = family.InstanceVerdict{Outcome: family.Unresolved}
	}
	if len(o.PassedTests)+len(o.FailedTests) > 0 {
		v.Tests = map[string]family.TestGroup{"tests": family.Group(o.PassedTests, o.FailedTests)}
	}
	return v
}
