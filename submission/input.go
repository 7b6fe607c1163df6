package submission

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

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family/swebench"
	"github.com/swebench-run/swebench-run/results"
)

// InputKind names the form of a run a submission is built from.
type InputKind string

// Input kinds.
const (
	InputRun  InputKind = "swebench-run" // our output directory: run.json, status.jsonl, preds.json, eval/
	InputMini InputKind = "mini-swe-agent"
)

// Input is a finished run: its predictions, trajectories, evaluation logs and, for our runs, its
// manifest and ledger.
type Input struct {
	Path string
	Kind InputKind
	// EvalDir holds the evaluation logs, <EvalDir>/<id>/{patch.diff,eval.sh,test_output.txt,
	// report.json}: the harness's logs/run_evaluation/<run_id>/<model>/ or our eval/. Missing
	// logs are evaluated into it.
	EvalDir  string
	Manifest *results.Manifest           // our runs
	Ledger   map[string][]results.Record // our runs
	preds    *predFile
}

// OpenInput reads a run: our output directory (run.json or status.jsonl, preds.json, eval/) or
// mini-swe-agent's (preds.json, <id>/<id>.traj.json). evalLogs, when set, is the folder of its
// evaluation logs (the harness's logs/run_evaluation/<run_id>/ or the model folder under it, or
// our eval/); by default <path>/eval.
func OpenInput(path, evalLogs string) (*Input, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("input %s is a file; pass the run's folder (our output directory, or mini-swe-agent's with preds.json and <id>/<id>.traj.json)", path)
	}
	in := &Input{Path: path, Kind: InputMini}
	if IsRunDir(path) {
		in.Kind = InputRun
		if in.Manifest, err = results.ReadManifest(path); err != nil {
			return nil, err
		}
		history, torn, err := results.ReadLedger(path)
		if err != nil {
			return nil, err
		}
		if torn {
			return nil, fmt.Errorf("input %s: the ledger's last line is torn (a crash while writing it); rerun or resume the run first", path)
		}
		in.Ledger = history
	}
	predsPath := filepath.Join(path, results.PredsFile)
	if in.preds, err = readPredFile(predsPath); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("input %s has no %s; expected our output directory (run.json, status.jsonl, preds.json) or mini-swe-agent's output (preds.json, <id>/<id>.traj.json)", path, results.PredsFile)
	} else if err != nil {
		return nil, err
	}
	in.EvalDir = filepath.Join(path, "eval")
	if evalLogs != "" {
		in.EvalDir = resolveLogsDir(evalLogs, in.model())
	}
	return in, nil
}

// IsRunDir reports whether path is our output directory (it has run.json or status.jsonl).
func IsRunDir(path string) bool {
	return exists(filepath.Join(path, results.ManifestFile)) || exists(filepath.Join(path, results.LedgerFile))
}

// resolveLogsDir finds the folder of per-instance logs: the harness writes
// logs/run_evaluation/<run_id>/<model with / as __>/<id>/.
func resolveLogsDir(dir, model string) string {
	if model != "" {
		sub := filepath.Join(dir, strings.ReplaceAll(model, "/", "__"))
		if fi, err := os.Stat(sub); err == nil && fi.IsDir() {
			return sub
		}
	}
	return dir
}

// model is the run's model: the manifest's, else the predictions' (the first in id order).
func (in *Input) model() string {
	if in.Manifest != nil && in.Manifest.Model != "" {
		return in.Manifest.Model
	}
	return eval.ModelName(in.preds.byID())
}

// Predictions returns the run's predictions by id.
func (in *Input) Predictions() map[string]eval.Prediction { return in.preds.byID() }

// TrajectoryPath is where the run keeps the trajectory of id.
func (in *Input) TrajectoryPath(id string) string {
	return filepath.Join(in.Path, id, id+".traj.json")
}

// NeedsEvaluation lists the predictions with a patch whose evaluation folder has neither
// test_output.txt nor report.json: they have no log yet.
func (in *Input) NeedsEvaluation() []string {
	var out []string
	preds := in.Predictions()
	for _, id := range sortedIDs(preds) {
		if preds[id].Empty() {
			continue
		}
		s := readLogState(filepath.Join(in.EvalDir, id))
		if !s.HasOutput && !s.HasReport {
			out = append(out, id)
		}
	}
	return out
}

// retried lists the instances with more than one model outcome in the ledger: their model
// attempt was repeated (--retry-failed, --redo-existing, or runs merged that both ran them).
// Infrastructure failures and budget cuts are not attempts of the model.
func (in *Input) retried() []string {
	var out []string
	for id, recs := range in.Ledger {
		n := 0
		for _, r := range recs {
			if r.Category == results.CategoryModel {
				n++
			}
		}
		if n > 1 {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// verdicts reads the run through compare (the form detection, the ledger's meaning of unfinished
// instances, the harness logs) into one verdict per instance; nil when it cannot be read (an
// input without any evaluation yet).
func (in *Input) verdicts() *compare.Run {
	runs, err := compare.Read(compare.Source{Path: in.Path, EvalLogs: in.EvalDir}, compare.ReadOptions{AllowUnevaluated: true})
	if err != nil || len(runs) != 1 {
		return nil
	}
	return runs[0]
}

// configs returns the run's resolved config: run.json's for our runs, else the distinct
// info.config of its trajectories.
func (in *Input) configs(trajs map[string]*results.Trajectory) ([]namedConfig, string) {
	if in.Manifest != nil && len(in.Manifest.Config) > 0 {
		return []namedConfig{{Source: results.ManifestFile, Config: in.Manifest.Config}}, ""
	}
	var cs []namedConfig
	for _, id := range sortedIDs(trajs) {
		if c := trajectoryConfig(trajs[id]); c != nil {
			cs = append(cs, namedConfig{Source: filepath.Join(id, id+".traj.json"), Config: c})
		}
	}
	return distinctConfigs(cs), "the trajectories have no info.config and there is no run.json"
}

// Dataset is the dataset a submission is graded against: the whole split.
type Dataset struct {
	Spec      string // as given (a named dataset, hf:…, a path)
	Instances []dataset.Instance
	Source    dataset.Source
}

// officialFor reports whether d is the split's own dataset (its SWE-bench/* repository and
// split, in either id form).
func (d Dataset) officialFor(s Split) bool {
	return s.Official() && d.Source.HFRepo != "" && swebench.CanonicalRepo(d.Source.HFRepo) == s.HFRepo && d.Source.Split == s.HFSplit
}

// describe names a dataset source with its revision: SWE-bench/SWE-bench_Lite:test@3f0a…, or a
// file with its sha256.
func describe(s dataset.Source) string {
	switch {
	case s.HFRepo != "":
		name := s.HFRepo + ":" + s.Split
		if s.ResolvedSHA != "" {
			name += "@" + short(s.ResolvedSHA)
		}
		return name
	case len(s.Files) == 1:
		return fmt.Sprintf("%s (sha256 %s)", s.Files[0].Path, short(s.Files[0].SHA256))
	case len(s.Files) > 1:
		return fmt.Sprintf("%s (%d files)", s.Spec, len(s.Files))
	}
	return s.Spec
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func fileSums(s dataset.Source) string {
	sums := make([]string, len(s.Files))
	for k, f := range s.Files {
		sums[k] = f.SHA256
	}
	sort.Strings(sums)
	return strings.Join(sums, ",")
}

// LoadFunc loads the rows of a dataset spec (a named dataset, hf:ORG/NAME:SPLIT@SHA, a path).
type LoadFunc func(ctx context.Context, spec string) ([]dataset.Instance, error)

// checkDataset decides whether the run's dataset is the official one for the split. The
// official dataset of a split is the SWE-bench/* repository and split get_results loads (either
// id form), at the revision the leaderboard grades against today: the hub's main, which is what
// the grading dataset resolves to unless --dataset names another. The run's dataset (run.json)
// is official when its files are the grading dataset's (same sha256), or, when they differ (an
// older revision, a local copy, the princeton-nlp/* copy), when the rows of every predicted
// instance agree on what the agent saw and what the grade depends on: repo, base_commit,
// problem_statement, version, environment_setup_commit, test_patch, FAIL_TO_PASS and
// PASS_TO_PASS. Rows that differ are a warning naming them; a run whose rows cannot be read to
// compare is a warning too.
func checkDataset(ctx context.Context, in *Input, split Split, ds Dataset, load LoadFunc) Findings {
	var out Findings
	switch {
	case !split.Official():
		out = append(out, Finding{Check: CheckDataset, Severity: Note,
			Message: fmt.Sprintf("%s is not a leaderboard split; the folder is graded against %s, for trying the pipeline, not for a pull request", split.Name, describe(ds.Source))})
	case !ds.officialFor(split):
		out = append(out, Finding{Check: CheckDataset, Severity: Note,
			Message: fmt.Sprintf("graded against %s as asked, not against %s, the split's official dataset, which the leaderboard uses", describe(ds.Source), split.DisplayName())})
	default:
		if !split.Leaderboard {
			out = append(out, Finding{Check: CheckDataset, Severity: Note,
				Message: fmt.Sprintf("%s is not a leaderboard split (graded against %s): the folder is for trying the pipeline, not for a pull request", split.Name, describe(ds.Source))})
		}
	}
	if in == nil {
		return out
	}
	if in.Manifest == nil || len(in.Manifest.Dataset) == 0 {
		return append(out, Finding{Check: CheckDataset, Severity: Note,
			Message: fmt.Sprintf("the run (%s) records no dataset revision; it is assumed to be %s", in.Kind, describe(ds.Source))})
	}
	var man dataset.Manifest
	if err := json.Unmarshal(in.Manifest.Dataset, &man); err != nil {
		return append(out, Finding{Check: CheckDataset, Severity: Warn,
			Message: fmt.Sprintf("run.json's dataset record is unreadable (%v); the run's dataset revision cannot be checked", err)})
	}
	run := man.Source
	if fileSums(run) != "" && fileSums(run) == fileSums(ds.Source) {
		return append(out, Finding{Check: CheckDataset, Severity: Note,
			Message: fmt.Sprintf("the run used the graded dataset itself: %s", describe(run))})
	}
	rows, err := loadRunRows(ctx, run, load)
	if err != nil {
		return append(out, Finding{Check: CheckDataset, Severity: Warn,
			Message: fmt.Sprintf("the run used %s, the folder is graded against %s, and the run's rows could not be read to compare them (%v)", describe(run), describe(ds.Source), err)})
	}
	graded := make(map[string]dataset.Instance, len(ds.Instances))
	for _, inst := range ds.Instances {
		graded[inst.InstanceID] = inst
	}
	preds := in.Predictions()
	var diffs, ids []string
	compared := 0
	for _, r := range rows {
		if _, ok := preds[r.InstanceID]; !ok {
			continue
		}
		g, ok := graded[r.InstanceID]
		if !ok {
			continue // a prediction outside the split: CheckUnknown
		}
		compared++
		if fields := rowDiff(r, g); len(fields) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s (%s)", r.InstanceID, strings.Join(fields, ", ")))
			ids = append(ids, r.InstanceID)
		}
	}
	if len(diffs) > 0 {
		return append(out, Finding{Check: CheckDataset, Severity: Warn, IDs: ids,
			Message: fmt.Sprintf("the run used %s, not %s: %d of its instances differ in what the agent saw or what the grade depends on: %s; rerun them on the graded revision", describe(run), describe(ds.Source), len(diffs), idList(diffs, 10))})
	}
	return append(out, Finding{Check: CheckDataset, Severity: Note,
		Message: fmt.Sprintf("the run used %s, graded against %s: the rows of its %d predicted instances are the same", describe(run), describe(ds.Source), compared)})
}

// loadRunRows reads the rows a run used: its local files when they are still there with the same
// sha256, else its hub revision.
func loadRunRows(ctx context.Context, s dataset.Source, load LoadFunc) ([]dataset.Instance, error) {
	if s.Kind == "file" || (s.HFRepo == "" && len(s.Files) > 0) {
		if len(s.Files) != 1 {
			return nil, fmt.Errorf("%s: %d files", s.Spec, len(s.Files))
		}
		f := s.Files[0]
		sum, err := fileSHA256(f.Path)
		if err != nil {
			return nil, err
		}
		if sum != f.SHA256 {
			return nil, fmt.Errorf("%s changed since the run (sha256 %s, then %s)", f.Path, short(sum), short(f.SHA256))
		}
		return load(ctx, f.Path)
	}
	if s.HFRepo != "" && s.ResolvedSHA != "" {
		split := s.Split
		if s.Config != "" && s.Config != "default" {
			split = s.Config + "/" + split
		}
		return load(ctx, fmt.Sprintf("hf:%s:%s@%s", s.HFRepo, split, s.ResolvedSHA))
	}
	return nil, fmt.Errorf("run.json names neither the dataset's files nor its revision")
}

// rowDiff names the fields that differ between two rows of one instance.
func rowDiff(a, b dataset.Instance) []string {
	var out []string
	cmp := func(name string, x, y any) {
		xa, _ := json.Marshal(x)
		ya, _ := json.Marshal(y)
		if string(xa) != string(ya) {
			out = append(out, name)
		}
	}
	cmp("repo", a.Repo, b.Repo)
	cmp("base_commit", a.BaseCommit, b.BaseCommit)
	cmp("problem_statement", a.ProblemStatement, b.ProblemStatement)
	cmp("version", a.Version, b.Version)
	cmp("environment_setup_commit", a.EnvironmentSetupCommit, b.EnvironmentSetupCommit)
	cmp("test_patch", a.TestPatch, b.TestPatch)
	cmp("FAIL_TO_PASS", nonNil(a.FailToPass), nonNil(b.FailToPass))
	cmp("PASS_TO_PASS", nonNil(a.PassToPass), nonNil(b.PassToPass))
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// checkAttempts decides tags.system.attempts. A run whose ledger shows a model outcome repeated
// for an instance (--retry-failed, --redo-existing, merged repeats) made several attempts and
// picked one: "2+", and declaring "1" is a failure. Without a ledger (mini-swe-agent output),
// "1" is assumed unless declared.
func checkAttempts(in *Input, declared string) (string, Findings) {
	if in == nil || in.Kind != InputRun {
		if declared == "" {
			return AttemptsOne, Findings{{Check: CheckAttempts, Severity: Note,
				Message: "the run records no attempt history (mini-swe-agent output); tags.system.attempts \"1\" is assumed: declare \"2+\" (--attempts 2+) if any instance was run more than once"}}
		}
		return declared, nil
	}
	retried := in.retried()
	if len(retried) == 0 {
		if declared == "" {
			declared = AttemptsOne
		}
		return declared, Findings{{Check: CheckAttempts, Severity: Note,
			Message: fmt.Sprintf("the ledger shows one model attempt per instance (infrastructure retries are not attempts); tags.system.attempts %q", declared)}}
	}
	msg := fmt.Sprintf("%d instances have more than one model outcome in the ledger (rerun with --retry-failed or --redo-existing, or runs merged that both ran them), so the submission picked one of several attempts: %s", len(retried), idList(retried, 10))
	if declared == AttemptsOne {
		return declared, Findings{{Check: CheckAttempts, Severity: Fail, IDs: retried,
			Message: msg + "; tags.system.attempts is declared \"1\": declare \"2+\" (a pass@k result is not accepted at all)"}}
	}
	return AttemptsMany, Findings{{Check: CheckAttempts, Severity: Note, IDs: retried,
		Message: msg + "; tags.system.attempts \"2+\", and the checklist's pass@1 box stays unchecked"}}
}

// unfinishedWhy explains instances without a final outcome from the run's verdicts: unfinished
// (an infrastructure failure, a budget cut), never run, not evaluated.
func unfinishedWhy(r *compare.Run) map[string]string {
	out := map[string]string{}
	if r == nil {
		return out
	}
	for _, inst := range r.Instances {
		if inst.Detail != "" {
			out[inst.ID] = inst.Detail
		}
	}
	return out
}
