package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/submission"
)

// exitChecksFailed is submission's exit code when its checks fail.
const exitChecksFailed = 5

const submissionExitCodes = `  0    the folder was built (or, with --check, passes)
  1    failed: bad input, Docker unreachable, output not writable
  2    bad command line
  5    the checks failed: a hard failure, or warnings without --force (the findings are printed)
  130  interrupted while evaluating (Ctrl-C, SIGTERM or SIGHUP): rerun the same command to resume`

type submissionFlags struct {
	out, split, name, date, datasetSpec, evalLogs, check string
	metadataFile, systemName, site, report, logo         string
	attempts                                             string
	authors, models, orgs                                []string
	osModel, osSystem                                    bool
	noEval, sbcli, force, wait                           bool
	workers                                              int
	timeout                                              time.Duration
	imageTemplate, pull, dockerHost                      string
	validation                                           string
	be                                                   backendFlags
}

func newSubmissionCmd(stop <-chan struct{}) *cobra.Command {
	var f submissionFlags
	cmd := &cobra.Command{
		Use:     "submission RUN -o DIR --split SPLIT --name NAME [flags]",
		Short:   "build (or check) a leaderboard submission folder for SWE-bench/experiments",
		GroupID: groupResults,
		Long: `Builds the folder the SWE-bench leaderboard (the SWE-bench/experiments repository) accepts from
a finished run, in DIR/evaluation/<split>/<YYYYMMDD>_<name>/: all_preds.jsonl, metadata.yaml,
README.md (the get_results summary and the checklist, filled in from what the checks
established), trajs/<id>.traj.json, logs/<id>/{patch.diff,eval.sh,test_output.txt,report.json}
and results/ exactly as the repository's get_results computes it over the whole split. RUN is our
output directory, or mini-swe-agent's with its harness logs (--eval-logs). Predictions without an
evaluation log are evaluated first, in fresh containers like eval (into the run's eval/ folder,
or --eval-logs), unless --no-eval.

Before writing, the run is checked: every instance of the split has a prediction or counts as
no_generation; every prediction has a trajectory and a log made for its patch; one
model_name_or_path; no duplicate ids; no template of the config uses FAIL_TO_PASS, PASS_TO_PASS,
hints_text, patch, test_patch or eval_script; attempts are "2+" when the ledger shows a model
outcome retried (--retry-failed, --redo-existing, merged repeats); patches that edit test files
are listed; the run's dataset is the split's official one (same files, or the same rows for
every predicted instance). Hard failures stop; warnings need --force and go into the README.

--check DIR runs the checks that need only the folder on any submission folder, ours or anyone's,
and recomputes results/ to compare it: a linter for the experiments repository. Another dataset
family's leaderboard folder (a multi-swe-bench/experiments or SWE-PolyBench submission) is
checked by its harness's layout instead, without a split.

Splits: lite, verified, bash-only (graded against Verified), test, multilingual; lite-dev (Lite's
dev split: for trying the pipeline, not a leaderboard split). Any other folder name needs
--dataset, which grades against a dataset of your own (the folder is then not for a pull
request).`,
		Example: `  # our run, evaluated or not, to a folder in a clone of SWE-bench/experiments
  swebench-run submission runs/sonnet -o ~/experiments --split verified --name mini-v2_claude-sonnet-4-5 \
      --site https://example.org --report https://example.org/report --author "Ada Lovelace" --org Example
  # mini-swe-agent output with the harness's logs, and the sb-cli file and command
  swebench-run submission out/ --eval-logs logs/run_evaluation/r1 -o ~/experiments --split lite-dev --name deepseek --sb-cli
  # lint a submission folder (ours or anyone's)
  swebench-run submission --check ~/experiments/evaluation/verified/20250101_mine`,
		Annotations: map[string]string{
			annUsage: "swebench-run submission RUN -o DIR --split SPLIT --name NAME [flags]\n" +
				"swebench-run submission --check DIR [--split SPLIT] [--dataset DATASET]",
			annExitCodes: submissionExitCodes,
		},
		Args: func(cmd *cobra.Command, args []string) error {
			if f.check != "" {
				if len(args) > 0 {
					return fmt.Errorf("%w: --check takes the folder to check as its value; unexpected argument %q", errUsage, args[0])
				}
				return nil
			}
			switch {
			case len(args) != 1:
				return fmt.Errorf("%w: submission takes one run directory (got %d arguments), or --check DIR", errUsage, len(args))
			case f.out == "":
				return fmt.Errorf("%w: submission needs -o DIR (a clone of SWE-bench/experiments, or any folder)", errUsage)
			case f.split == "":
				return fmt.Errorf("%w: submission needs --split (%s)", errUsage, splitNames())
			case f.name == "":
				return fmt.Errorf("%w: submission needs --name (the folder is <date>_<name>)", errUsage)
			case f.attempts != "" && f.attempts != submission.AttemptsOne && f.attempts != submission.AttemptsMany:
				return fmt.Errorf("%w: --attempts %q: want 1 or 2+", errUsage, f.attempts)
			case f.workers < 1 || f.timeout <= 0:
				return fmt.Errorf("%w: --workers must be at least 1 and --timeout positive", errUsage)
			}
			switch dockerenv.PullPolicy(f.pull) {
			case dockerenv.PullMissing, dockerenv.PullAlways, dockerenv.PullNever:
			default:
				return fmt.Errorf("%w: --pull %q: want missing, always or never", errUsage, f.pull)
			}
			if f.date != "" {
				if _, err := submission.FolderName(f.date, "x"); err != nil {
					return fmt.Errorf("%w: --date: %v", errUsage, err)
				}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.be.check(cmd.Flags(), "docker-host"); err != nil {
				return err
			}
			if f.check != "" {
				return checkSubmission(cmd.Context(), &f, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			return buildSubmission(cmd.Context(), stop, cmd, args[0], &f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeDirs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&f.split, "split", "", "leaderboard split: the folder under evaluation/ ("+splitNames()+")")
	fs.StringVar(&f.datasetSpec, "dataset", "", "grade against this dataset instead of the split's official one (a named dataset, hf:…, or a file; for a split of your own)")
	fs.StringVar(&f.evalLogs, "eval-logs", "", "the run's evaluation logs, <DIR>/<id>/… (the harness's logs/run_evaluation/<run_id>/[<model>/], or our eval/); default RUN/eval")
	flagGroup(fs, "Input", "split", "dataset", "eval-logs")
	metavar(fs, "split", "SPLIT")
	metavar(fs, "dataset", "DATASET")
	metavar(fs, "eval-logs", "DIR")

	fs.StringVarP(&f.out, "output", "o", "", "where evaluation/<split>/<date>_<name>/ goes: a clone of SWE-bench/experiments, or any folder")
	fs.StringVar(&f.name, "name", "", "the submission's name: the folder is <date>_<name> (letters, digits, '.', '_', '+', '-')")
	fs.StringVar(&f.date, "date", "", "the folder's date, YYYYMMDD (default today)")
	fs.BoolVar(&f.force, "force", false, "accept the checks' warnings (they are written into the README) and replace an existing folder")
	fs.BoolVar(&f.sbcli, "sb-cli", false, "also write the predictions file sb-cli accepts (DIR/sb-cli/<date>_<name>/preds.json) and print the sb-cli submit command")
	waitFlag(fs, &f.wait)
	flagGroup(fs, "Output", "output", "name", "date", "force", "sb-cli", "wait")
	metavar(fs, "output", "DIR")
	metavar(fs, "name", "NAME")
	metavar(fs, "date", "YYYYMMDD")

	fs.StringVar(&f.metadataFile, "metadata", "", "a metadata.yaml to start from (its other keys are kept); the flags below override it")
	fs.StringVar(&f.systemName, "system-name", "", "info.name, the name the leaderboard shows (default --name)")
	fs.StringVar(&f.site, "site", "", "info.site: the system's web site or repository")
	fs.StringVar(&f.report, "report", "", "info.report: the technical report or blog post (the leaderboard requires one)")
	fs.StringArrayVar(&f.authors, "author", nil, "info.authors: a person who made the submission")
	fs.StringVar(&f.logo, "logo", "", "info.logo: URL of a logo")
	fs.StringArrayVar(&f.models, "model-tag", nil, "tags.model: a model the system uses (default: the run's model without its provider prefix)")
	fs.StringArrayVar(&f.orgs, "org", nil, "tags.org: an organisation behind the system")
	fs.BoolVar(&f.osModel, "os-model", false, "tags.os_model: the model's weights are open")
	fs.BoolVar(&f.osSystem, "os-system", false, "tags.os_system: the system (agent and config) is open source")
	fs.StringVar(&f.attempts, "attempts", "", "declare tags.system.attempts, 1 or 2+ (default from the run's ledger; declaring 1 for a run that retried model outcomes fails)")
	flagGroup(fs, "Metadata", "metadata", "system-name", "site", "report", "author", "logo", "model-tag", "org", "os-model", "os-system", "attempts")
	metavar(fs, "metadata", "FILE")
	metavar(fs, "system-name", "NAME")
	metavar(fs, "site", "URL")
	metavar(fs, "report", "URL")
	metavar(fs, "author", "NAME")
	metavar(fs, "logo", "URL")
	metavar(fs, "model-tag", "MODEL")
	metavar(fs, "org", "ORG")
	metavar(fs, "attempts", "1|2+")

	fs.BoolVar(&f.noEval, "no-eval", false, "never evaluate: predictions without a log fail the checks")
	fs.IntVar(&f.workers, "workers", 4, "instances evaluated at once")
	fs.DurationVar(&f.timeout, "timeout", eval.DefaultTimeout, "time limit of one instance's eval script")
	fs.StringVar(&f.imageTemplate, "image-template", dataset.DefaultImageTemplate, "image for rows without an image column (as for run)")
	fs.StringVar(&f.pull, "pull", "missing", "when to pull images: missing, always or never")
	fs.StringVar(&f.dockerHost, "docker-host", "", "Docker engine address (default DOCKER_HOST or the local socket)")
	flagGroup(fs, "Evaluation", "no-eval", "workers", "timeout", "image-template", "pull", "docker-host")
	metavar(fs, "workers", "N")
	metavar(fs, "image-template", "TEMPLATE")
	metavar(fs, "pull", "POLICY")
	metavar(fs, "docker-host", "URL")

	fs.StringVar(&f.check, "check", "", "check an existing submission folder instead of building one (its split defaults to the folder above it)")
	fs.StringVar(&f.validation, "validation", "", "with --check: the split's validation (a validation.json, or a store; default: the store of `swebench-run validate`): predicted instances whose environment is broken are noted")
	flagGroup(fs, "Check", "check", "validation")
	metavar(fs, "check", "DIR")
	metavar(fs, "validation", "PATH")
	f.be.register(cmd, cmd.Flags())
	completeFlags(cmd, map[string]cobra.CompletionFunc{
		"split":     oneOf(submissionSplitNames()...),
		"dataset":   completeDataset,
		"eval-logs": completeDirs,
		"output":    completeDirs,
		"check":     completeDirs,
		"pull":      oneOf("missing", "always", "never"),
		"attempts":  oneOf(submission.AttemptsOne, submission.AttemptsMany),
	})
	return cmd
}

func submissionSplitNames() []string {
	var out []string
	for _, s := range submission.Splits() {
		out = append(out, s.Name)
	}
	return out
}

func splitNames() string { return strings.Join(submissionSplitNames(), ", ") }

// gradingDataset loads the whole split the folder is graded against, with the eval columns.
func gradingDataset(ctx context.Context, split submission.Split, spec string, stderr io.Writer) (submission.Dataset, error) {
	if spec == "" {
		spec = split.Dataset
	}
	reg := families()
	l, err := dataset.Load(ctx, spec, dataset.LoadOptions{Progress: stderr, Require: dataset.RequireEval, Complete: true, Families: reg.Families(), Named: reg.Named()})
	if err != nil {
		return submission.Dataset{}, err
	}
	return submission.Dataset{Spec: spec, Instances: l.Instances, Source: l.Source}, nil
}

// buildSubmission builds the folder of one run.
func buildSubmission(ctx context.Context, stop <-chan struct{}, cmd *cobra.Command, runDir string, f *submissionFlags, stdout, stderr io.Writer) error {
	split, err := submission.LookupSplit(f.split, f.datasetSpec != "")
	if err != nil {
		return fmt.Errorf("%w: --split: %v", errUsage, err)
	}
	date := f.date
	if date == "" {
		date = time.Now().Format("20060102")
	}
	if _, err := submission.FolderName(date, f.name); err != nil {
		return fmt.Errorf("%w: --name: %v", errUsage, err)
	}
	meta := submission.Metadata{}
	if f.metadataFile != "" {
		m, err := submission.ReadMetadata(f.metadataFile)
		if err != nil {
			return err
		}
		meta = *m
	}
	changed := cmd.Flags().Changed
	setIf := func(name string, dst *string, v string) {
		if changed(name) {
			*dst = v
		}
	}
	setIf("system-name", &meta.Name, f.systemName)
	setIf("site", &meta.Site, f.site)
	setIf("report", &meta.Report, f.report)
	setIf("logo", &meta.Logo, f.logo)
	setIf("attempts", &meta.Attempts, f.attempts)
	if changed("author") {
		meta.Authors = f.authors
	}
	if changed("model-tag") {
		meta.Models = f.models
	}
	if changed("org") {
		meta.Orgs = f.orgs
	}
	if changed("os-model") {
		meta.OSModel = f.osModel
	}
	if changed("os-system") {
		meta.OSSystem = f.osSystem
	}

	// One process per directory: the output folder (its lock file goes when we finish, so the
	// submission folder stays clean), and our run, which must not be running meanwhile.
	outLock, err := lockOutput(ctx, f.out, f.wait, stderr)
	if err != nil {
		return err
	}
	defer outLock.Unlock()
	if submission.IsRunDir(runDir) && !samePath(runDir, f.out) {
		runLock, err := lockOutput(ctx, runDir, f.wait, stderr)
		if err != nil {
			return err
		}
		defer runLock.Unlock()
	}
	in, err := submission.OpenInput(runDir, f.evalLogs)
	if err != nil {
		return err
	}
	ds, err := gradingDataset(ctx, split, f.datasetSpec, stderr)
	if err != nil {
		return err
	}

	opts := submission.Options{
		Split: split, Dataset: ds, Name: f.name, Date: date, Metadata: meta, Force: f.force, SBCLI: f.sbcli,
		Tool: "swebench-run " + version, Log: stderr,
	}
	if !f.noEval {
		opts.Evaluate = func(ctx context.Context, in *submission.Input, insts []dataset.Instance, preds map[string]eval.Prediction) error {
			return evaluateForSubmission(ctx, stop, in, insts, preds, f, stderr)
		}
	}
	built, err := submission.Build(ctx, in, f.out, opts)
	var ce *submission.ChecksError
	if errors.As(err, &ce) {
		printFindings(stdout, ce.Findings)
		return &exitStatusError{code: exitChecksFailed, msg: ce.Error()}
	}
	if err != nil {
		return err
	}
	printFindings(stdout, built.Findings)
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, built.Computed.Summary(built.Folder, split.Name))
	fmt.Fprintf(stdout, "\nwrote %s\n", built.Dir)
	if built.SBCLIFile != "" {
		fmt.Fprintf(stdout, "sb-cli predictions: %s\nsubmit them with:\n  %s\n", built.SBCLIFile, built.SBCLICommand)
	}
	return nil
}

// evaluateForSubmission evaluates the run's predictions that have no log yet into its evaluation
// folder, in fresh containers, holding that folder's lock; predictions with a report are reused.
func evaluateForSubmission(ctx context.Context, stop <-chan struct{}, in *submission.Input, insts []dataset.Instance, preds map[string]eval.Prediction, f *submissionFlags, stderr io.Writer) error {
	lock, err := lockOutput(ctx, in.EvalDir, f.wait, stderr)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	runID := ""
	if in.Manifest != nil {
		runID = in.Manifest.RunID
	}
	if runID == "" {
		runID = newRunID()
	}
	logger, closeLog, err := openEvalLog(in.EvalDir, runID)
	if err != nil {
		return err
	}
	defer closeLog()
	engine, closeBackend, err := f.be.openSimple(ctx, f.workers, f.pull, stderr, func() (evalBackend, func(), error) {
		e, err := dockerenv.ConnectWith(ctx, f.dockerHost, dockerenv.Options{Pull: dockerenv.PullPolicy(f.pull), LauncherBinaries: launcherBinaries})
		if err != nil {
			return nil, nil, err
		}
		return e, func() { e.Close() }, nil
	})
	if err != nil {
		return err
	}
	defer closeBackend()
	ev, err := newEvaluator(engine, families(), in.EvalDir, runID, f.workers, f.timeout, false, f.imageTemplate, stop, logger)
	if err != nil {
		return err
	}
	rep, _, err := ev.Run(ctx, insts, preds)
	if n, serr := engine.Sweep(context.WithoutCancel(ctx), sandbox.Selector{RunID: runID}); serr == nil && n > 0 {
		fmt.Fprintf(stderr, "swebench-run: removed %d leftover eval containers\n", n)
	}
	if err != nil {
		if ctx.Err() != nil || isClosed(stop) {
			return &exitStatusError{code: exitInterrupted, msg: "evaluation interrupted; rerun the same command to resume"}
		}
		return err
	}
	if isClosed(stop) {
		return &exitStatusError{code: exitInterrupted, msg: "evaluation interrupted; rerun the same command to resume"}
	}
	fmt.Fprintf(stderr, "evaluated: %d resolved, %d unresolved, %d errors, %d empty patches\n", rep.ResolvedInstances, rep.UnresolvedInstances, rep.ErrorInstances, rep.EmptyPatchInstances)
	return nil
}

// checkSubmission lints an existing submission folder: another dataset family's leaderboard
// folder by its harness's layout (submission.CheckFamily), else SWE-bench's.
func checkSubmission(ctx context.Context, f *submissionFlags, stdout, stderr io.Writer) error {
	if rep, res, ok, err := submission.CheckFamily(f.check); err != nil {
		return err
	} else if ok {
		printFindings(stdout, rep.Findings)
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, res.Summary(rep.Folder))
		if err := rep.Err(f.force); err != nil {
			return &exitStatusError{code: exitChecksFailed, msg: fmt.Sprintf("%s does not pass: %v", f.check, err)}
		}
		fmt.Fprintf(stdout, "\n%s passes the checks\n", f.check)
		return nil
	}
	name := f.split
	if name == "" {
		abs, err := filepath.Abs(f.check)
		if err != nil {
			return err
		}
		name = filepath.Base(filepath.Dir(abs))
	}
	split, err := submission.LookupSplit(name, f.datasetSpec != "")
	if err != nil {
		return fmt.Errorf("%w: %v (the split is the folder above the submission, or --split)", errUsage, err)
	}
	ds, err := gradingDataset(ctx, split, f.datasetSpec, stderr)
	if err != nil {
		return err
	}
	recs, err := datasetValidation(f.validation, ds.Source)
	if err != nil {
		return err
	}
	rep, err := submission.Check(ctx, f.check, submission.CheckOptions{Split: split, Dataset: ds, Force: f.force, Validation: recs})
	if err != nil {
		return err
	}
	printFindings(stdout, rep.Findings)
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, rep.Computed.Summary(rep.Folder, split.Name))
	if err := rep.Err(f.force); err != nil {
		return &exitStatusError{code: exitChecksFailed, msg: fmt.Sprintf("%s does not pass: %v", f.check, err)}
	}
	fmt.Fprintf(stdout, "\n%s passes the checks\n", f.check)
	return nil
}

// printFindings prints one finding per paragraph, failures first.
func printFindings(w io.Writer, fs submission.Findings) {
	for _, f := range fs.Sorted() {
		fmt.Fprintf(w, "%-7s %s: %s\n", f.Severity, f.Check, f.Message)
	}
}

func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
