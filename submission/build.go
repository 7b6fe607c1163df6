package submission

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
)

// File and folder names of a submission folder.
const (
	PredsFile  = "all_preds.jsonl"
	ReadmeFile = "README.md"
	TrajsDir   = "trajs"
	LogsDir    = "logs"
)

// EvaluateFunc evaluates predictions that have no log yet into in.EvalDir, in fresh containers
// (eval.Evaluator), against the split's rows.
type EvaluateFunc func(ctx context.Context, in *Input, insts []dataset.Instance, preds map[string]eval.Prediction) error

// Options configure Build.
type Options struct {
	Split   Split
	Dataset Dataset // the whole split, with the eval columns
	Name    string  // the folder is <Date>_<Name>
	Date    string  // YYYYMMDD
	// Metadata starts metadata.yaml: fields left empty get defaults (info.name: Name; tags.model:
	// the run's model; assets: the convention's s3:// paths). Metadata.Attempts, when set, is a
	// declaration the ledger is checked against.
	Metadata Metadata
	// Force accepts soft failures (they go into the README) and replaces an existing folder.
	Force bool
	// Evaluate evaluates what has no log yet; nil refuses to (--no-eval): missing logs fail.
	Evaluate EvaluateFunc
	// Load reads another revision of the dataset, to compare the run's rows with the graded ones
	// (nil: dataset.Load with default options).
	Load LoadFunc
	// SBCLI also writes the predictions file sb-cli accepts, beside the evaluation/ tree.
	SBCLI bool
	// Tool names the program and its version, for the README.
	Tool string
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Built describes a folder Build wrote.
type Built struct {
	Dir      string // <root>/evaluation/<split>/<folder>
	Folder   string // <date>_<name>
	Computed *Computed
	Findings Findings
	Attempts string
	// SBCLIFile and SBCLICommand are set with Options.SBCLI: the predictions file for sb-cli and
	// the command line that submits it.
	SBCLIFile, SBCLICommand string
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// FolderName checks a submission name and date and returns the folder name <date>_<name>.
func FolderName(date, name string) (string, error) {
	if _, err := time.Parse("20060102", date); err != nil || len(date) != 8 {
		return "", fmt.Errorf("date %q: want YYYYMMDD, e.g. %s", date, time.Now().Format("20060102"))
	}
	if !nameRe.MatchString(name) {
		return "", fmt.Errorf("name %q: use letters, digits, '.', '_', '+' and '-' (e.g. mini-v2_claude-sonnet-4-5), starting with a letter or digit", name)
	}
	return date + "_" + name, nil
}

// Build makes the experiments repository's folder for a run,
// <root>/evaluation/<split>/<date>_<name>/:
//
//	all_preds.jsonl      one prediction per line: instance_id, model_name_or_path, model_patch
//	metadata.yaml        info, assets, tags (see Metadata)
//	README.md            the system, the get_results summary, the checklist as far as we can
//	                     tell, how the run was made, findings accepted with --force
//	trajs/<id>.traj.json the trajectory of every predicted instance
//	logs/<id>/           patch.diff, eval.sh, test_output.txt, report.json of every prediction
//	                     with a patch (the harness's files; run_instance.log is left out, as
//	                     get_results removes it)
//	results/             results.json, resolved_by_repo.json, resolved_by_time.json (Compute)
//
// It checks the run first (see the Check* constants): hard failures stop before anything is
// evaluated or written; predictions without a log are evaluated (opts.Evaluate) or, without it,
// fail; soft failures stop unless opts.Force. The folder is written in a temporary folder beside
// its place, checked again as --check checks any folder, and renamed into place: a failure
// leaves no half folder.
func Build(ctx context.Context, in *Input, root string, opts Options) (*Built, error) {
	folder, err := FolderName(opts.Date, opts.Name)
	if err != nil {
		return nil, err
	}
	parent := filepath.Join(root, "evaluation", opts.Split.Name)
	final := filepath.Join(parent, folder)
	if exists(final) && !opts.Force {
		return nil, fmt.Errorf("%s exists; remove it, or pass --force to replace it", final)
	}
	if opts.SBCLI && opts.Split.SBCLISubset == "" {
		return nil, fmt.Errorf("--sb-cli: sb-cli does not grade split %s (its subsets are swe-bench_lite, swe-bench_verified and swe-bench-m)", opts.Split.Name)
	}
	if opts.Load == nil {
		opts.Load = func(ctx context.Context, spec string) ([]dataset.Instance, error) {
			l, err := dataset.Load(ctx, spec, dataset.LoadOptions{})
			if err != nil {
				return nil, err
			}
			return l.Instances, nil
		}
	}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	insts := opts.Dataset.Instances
	byID := make(map[string]dataset.Instance, len(insts))
	for _, inst := range insts {
		byID[inst.InstanceID] = inst
	}
	preds := in.Predictions()

	// Checks of the run itself, before anything is evaluated.
	var found Findings
	// The run read through compare: why instances have no final outcome, exit statuses, cost.
	// Read again once missing logs are evaluated.
	verdicts := in.verdicts()
	found = append(found, checkPredictions(in.preds, insts, unfinishedWhy(verdicts))...)
	trajs, tf := readTrajectories(preds, in.TrajectoryPath)
	found = append(found, tf...)
	configs, unknown := in.configs(trajs)
	found = append(found, checkTemplates(configs, unknown)...)
	attempts, af := checkAttempts(in, opts.Metadata.Attempts)
	found = append(found, af...)
	found = append(found, checkTestFiles(preds, byID)...)
	found = append(found, checkDataset(ctx, in, opts.Split, opts.Dataset, opts.Load)...)
	if found.Worst() == Fail {
		return nil, &ChecksError{Findings: found.Sorted()}
	}

	if need := in.NeedsEvaluation(); len(need) > 0 {
		if opts.Evaluate == nil {
			found = append(found, Finding{Check: CheckLogs, Severity: Fail, IDs: need,
				Message: fmt.Sprintf("%d predictions have no evaluation log in %s and evaluation is off (--no-eval): %s; evaluate them (swebench-run eval --predictions %s --split … -o %s) or drop --no-eval",
					len(need), in.EvalDir, idList(need, 10), filepath.Join(in.Path, results.PredsFile), in.EvalDir)})
			return nil, &ChecksError{Findings: found.Sorted()}
		}
		logf("evaluating %d predictions that have no log yet, into %s", len(need), in.EvalDir)
		if err := opts.Evaluate(ctx, in, insts, preds); err != nil {
			return nil, err
		}
		verdicts = in.verdicts()
	}
	logs := map[string]logState{}
	for id, p := range preds {
		if !p.Empty() {
			logs[id] = readLogState(filepath.Join(in.EvalDir, id))
		}
	}
	found = append(found, checkLogs(preds, logs, unfinishedWhy(verdicts))...)

	meta := opts.Metadata
	meta.Attempts = attempts
	if meta.Name == "" {
		meta.Name = opts.Name
	}
	if len(meta.Models) == 0 {
		meta.Models = []string{modelTag(in.model())}
	}
	if meta.History == "" && in.Manifest != nil {
		meta.History = results.HistoryMode(in.Manifest.Config)
	}
	if meta.Logs == "" {
		meta.Logs = fmt.Sprintf("s3://swe-bench-submissions/%s/%s/logs", opts.Split.Name, folder)
	}
	if meta.Trajs == "" {
		meta.Trajs = fmt.Sprintf("s3://swe-bench-submissions/%s/%s/trajs", opts.Split.Name, folder)
	}
	metaData, err := meta.Marshal()
	if err != nil {
		return nil, err
	}
	found = append(found, checkMetadata(metaData, MetadataFile)...)
	if err := decide(found, opts.Force); err != nil {
		return nil, err
	}

	// Write everything in a temporary folder beside the final one.
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+folder+".tmp-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it private
		os.RemoveAll(tmp)
		return nil, err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	write := func(p string, data []byte) error {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return results.WriteFileAtomic(p, data, 0o644)
	}
	var lines []byte
	for _, id := range sortedIDs(preds) {
		line, err := marshalPredLine(preds[id])
		if err != nil {
			return nil, err
		}
		lines = append(lines, line...)
	}
	if err := write(filepath.Join(tmp, PredsFile), lines); err != nil {
		return nil, err
	}
	if err := write(filepath.Join(tmp, MetadataFile), metaData); err != nil {
		return nil, err
	}
	for _, id := range sortedIDs(preds) {
		data, err := os.ReadFile(in.TrajectoryPath(id))
		if err != nil {
			return nil, err
		}
		if err := write(filepath.Join(tmp, TrajsDir, id+".traj.json"), data); err != nil {
			return nil, err
		}
		p := preds[id]
		if p.Empty() {
			continue // the harness does not evaluate an empty patch: no log, no_generation
		}
		dst := filepath.Join(tmp, LogsDir, id)
		// A log that kept only its report.json (as sb-cli's are published) is copied as it is:
		// graded from that report, not passed off as an evaluation of this patch.
		if s := logs[id]; s.HasPatch || s.HasOutput || !s.HasReport {
			if err := write(filepath.Join(dst, "patch.diff"), []byte(p.Patch())); err != nil {
				return nil, err
			}
		}
		for _, name := range []string{"eval.sh", "test_output.txt", "report.json"} {
			data, err := os.ReadFile(filepath.Join(in.EvalDir, id, name))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if err := write(filepath.Join(dst, name), data); err != nil {
				return nil, err
			}
		}
	}
	computed, err := Compute(tmp, insts)
	if err != nil {
		return nil, err
	}
	found = append(found, checkFromReports(computed)...)
	found = append(found, checkRegrade(computed, logs)...)
	if err := decide(found, opts.Force); err != nil {
		return nil, err
	}
	if err := computed.Write(tmp, write); err != nil {
		return nil, err
	}
	built := &Built{Dir: final, Folder: folder, Computed: computed, Findings: found.Sorted(), Attempts: attempts}
	readme := renderReadme(readmeData{
		Folder: folder, Split: opts.Split, Dataset: opts.Dataset, Meta: meta, Input: in, Computed: computed,
		Findings: built.Findings, Configs: configs, Tool: opts.Tool, Verdicts: verdicts, MiniVersion: miniVersion(trajs),
	})
	if err := write(filepath.Join(tmp, ReadmeFile), []byte(readme)); err != nil {
		return nil, err
	}

	// The folder must pass the check any folder gets.
	rep, err := checkFolder(ctx, tmp, folder, CheckOptions{Split: opts.Split, Dataset: opts.Dataset, Force: opts.Force})
	if err != nil {
		return nil, err
	}
	if err := decide(rep.Findings, opts.Force); err != nil {
		return nil, fmt.Errorf("the folder built does not pass its own check (a bug): %w: %v", err, rep.Findings.Of(Fail))
	}
	if err := replaceDir(tmp, final); err != nil {
		return nil, err
	}
	done = true

	if opts.SBCLI {
		file, cmd, err := writeSBCLI(root, folder, opts.Split, preds)
		if err != nil {
			return built, err
		}
		built.SBCLIFile, built.SBCLICommand = file, cmd
	}
	return built, nil
}

// readTrajectories reads the trajectory of every prediction; a missing or unreadable one is a
// failure, a trajectory whose submission is not the prediction a warning.
func readTrajectories(preds map[string]eval.Prediction, pathOf func(string) string) (map[string]*results.Trajectory, Findings) {
	trajs := map[string]*results.Trajectory{}
	var missing, bad, mismatch []string
	for _, id := range sortedIDs(preds) {
		p := pathOf(id)
		t, err := results.ReadTrajectory(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, id)
			continue
		case err != nil:
			bad = append(bad, fmt.Sprintf("%s (%v)", id, err))
			continue
		}
		trajs[id] = t
		if msg, ok := checkTrajectory(id, t, preds[id]); !ok {
			mismatch = append(mismatch, msg)
		}
	}
	var out Findings
	if len(missing) > 0 {
		out = append(out, Finding{Check: CheckTrajectories, Severity: Fail, IDs: missing,
			Message: fmt.Sprintf("%d predicted instances have no trajectory (the leaderboard requires one per instance): %s", len(missing), idList(missing, 10))})
	}
	if len(bad) > 0 {
		out = append(out, Finding{Check: CheckTrajectories, Severity: Fail,
			Message: fmt.Sprintf("%d trajectories cannot be read: %s", len(bad), idList(bad, 5))})
	}
	if len(mismatch) > 0 {
		out = append(out, Finding{Check: CheckTrajSubmission, Severity: Warn,
			Message: fmt.Sprintf("%d trajectories end with another submission than the prediction, so they do not show how the submitted patch was made: %s", len(mismatch), idList(mismatch, 5))})
	}
	return trajs, out
}

// modelTag is the model's name for tags.model: the provider prefix dropped
// (anthropic/claude-sonnet-4-5 → claude-sonnet-4-5).
func modelTag(model string) string {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		return model[i+1:]
	}
	return model
}

// replaceDir renames the finished folder tmp to final, replacing an existing final: the old
// folder is moved aside first and put back if the rename fails.
func replaceDir(tmp, final string) error {
	if !exists(final) {
		return os.Rename(tmp, final)
	}
	old := tmp + ".old"
	if err := os.Rename(final, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		if rerr := os.Rename(old, final); rerr != nil {
			return fmt.Errorf("%w (and the old folder stays at %s: %v)", err, old, rerr)
		}
		return err
	}
	return os.RemoveAll(old)
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
