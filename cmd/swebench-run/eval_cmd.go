package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
)

type evalFlags struct {
	predsPath, split, out, runID, fromLogs, ids string
	configs                                     []string // -c: files and key=value overrides
	modelName                                   string
	imageTemplate, pull, dockerHost, filter     string
	workers, repeat                             int
	validation                                  string
	timeout                                     time.Duration
	redo, wait                                  bool
	imageTemplateSet                            bool // --image-template given: it names every row's image
	be                                          backendFlags
}

func newEvalCmd(stop <-chan struct{}) *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:     "eval --predictions PATH|gold --split DATASET [flags]",
		Short:   "grade predictions like the SWE-bench harness",
		GroupID: groupBatch,
		Long: `Grades predictions like the SWE-bench harness, each in a fresh container from the instance's
image, and writes <out>/<id>/{patch.diff,eval.sh,test_output.txt,report.json} and the run report
<out>/<model>.<run_id>.json. Instances that already have a report.json are kept (--redo grades
them again). With --from-logs, regrades existing logs without containers.`,
		Example: `  # grade a run's predictions (the report goes to runs/gpt5/eval/)
  swebench-run eval --predictions runs/gpt5/preds.json --split lite --workers 8
  # check the images and the harness with the dataset's gold patches
  swebench-run eval --predictions gold --split verified --instance-ids django__django-11099
  # regrade the logs of a SWE-bench harness run, without Docker
  swebench-run eval --predictions preds.json --split lite --from-logs logs/run_evaluation/my-run/my-model`,
		Annotations: map[string]string{annExitCodes: `  0    every selected prediction was graded
  1    the evaluation failed (bad input, Docker unreachable, output not writable)
  2    bad command line
  3    some instances could not be evaluated (see error_reasons in the run report)
  130  interrupted (Ctrl-C, SIGTERM or SIGHUP): rerun the same command to resume`},
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.imageTemplateSet = cmd.Flags().Changed("image-template")
			if err := f.be.check(cmd.Flags(), "docker-host"); err != nil {
				return err
			}
			return runEval(cmd.Context(), stop, &f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&f.predsPath, "predictions", "", "predictions: a preds.json (object keyed by id), a JSON list, a .jsonl file, or gold for the dataset's gold patches")
	fs.StringVar(&f.split, "split", "", "dataset the predictions are for (as for run)")
	fs.StringVar(&f.ids, "instance-ids", "", "only these ids: id,id,… or @FILE")
	fs.StringVar(&f.filter, "filter", "", "only ids matching this regex at their start")
	fs.StringArrayVarP(&f.configs, "config", "c", nil, "config file or key.path=value override, as for run; eval reads its families section (the families' options, e.g. families.pro.scripts_dir=DIR) and, on Kubernetes, its kubernetes section")
	flagGroup(fs, "Input", "predictions", "split", "instance-ids", "filter", "config")
	metavar(fs, "predictions", "PATH|gold")
	metavar(fs, "split", "DATASET")
	metavar(fs, "instance-ids", "IDS")
	metavar(fs, "filter", "REGEX")
	metavar(fs, "config", "FILE|KEY=VALUE")

	fs.IntVar(&f.workers, "workers", 4, "instances evaluated at once")
	fs.DurationVar(&f.timeout, "timeout", eval.DefaultTimeout, "time limit of one instance's eval script (e.g. 1800s, 30m)")
	fs.StringVar(&f.imageTemplate, "image-template", dataset.DefaultImageTemplate, "image of every row when given, else of rows without an image column (as for run)")
	fs.StringVar(&f.pull, "pull", "missing", "when to pull images: missing, always or never")
	fs.StringVar(&f.dockerHost, "docker-host", "", "Docker engine address (default DOCKER_HOST or the local socket)")
	flagGroup(fs, "Docker", "workers", "timeout", "image-template", "pull", "docker-host")
	metavar(fs, "image-template", "TEMPLATE")
	metavar(fs, "pull", "POLICY")
	metavar(fs, "docker-host", "URL")
	f.be.register(cmd, fs)

	fs.StringVarP(&f.out, "output", "o", "", "output directory (default: eval/ beside the predictions file, or runs/eval-<run id> for gold)")
	fs.StringVar(&f.runID, "run-id", "", "run id naming the run report (default: the run's id from run.json beside the predictions, else a new one)")
	fs.StringVar(&f.modelName, "model-name", "", "model name of predictions that carry none (a harness's own prediction files, e.g. Multi-SWE-bench's patches; default: the predictions file's name)")
	fs.BoolVar(&f.redo, "redo", false, "re-evaluate instances that already have a report.json")
	fs.IntVar(&f.repeat, "repeat", 1, "grade each prediction this many times, each in a fresh container, and list the instances whose verdict changes (flaky_ids)")
	fs.StringVar(&f.validation, "validation", "", "the validation of the dataset (a validation.json, or a store; default: the store of `swebench-run validate`): failures that match the environment's are marked environment")
	fs.StringVar(&f.fromLogs, "from-logs", "", "regrade existing logs in DIR (harness logs/run_evaluation/<run_id>/<model>/ or our eval/) without containers")
	waitFlag(fs, &f.wait)
	flagGroup(fs, "Output", "output", "run-id", "model-name", "redo", "repeat", "validation", "from-logs", "wait")
	metavar(fs, "output", "DIR")
	metavar(fs, "run-id", "ID")
	metavar(fs, "model-name", "NAME")
	metavar(fs, "from-logs", "DIR")
	metavar(fs, "repeat", "N")
	metavar(fs, "validation", "PATH")
	completeFlags(cmd, map[string]cobra.CompletionFunc{
		"split":     completeDataset,
		"config":    completeConfig,
		"pull":      oneOf("missing", "always", "never"),
		"output":    completeDirs,
		"from-logs": completeDirs,
	})
	return cmd
}

// runEval grades the predictions f names.
func runEval(ctx context.Context, stop <-chan struct{}, f *evalFlags, stdout, stderr io.Writer) error {
	out, runID := f.out, f.runID
	if f.workers < 1 || f.timeout <= 0 || f.repeat < 1 {
		return fmt.Errorf("%w: --workers and --repeat must be at least 1 and --timeout positive", errUsage)
	}
	if f.repeat > 1 && f.fromLogs != "" {
		return fmt.Errorf("%w: --repeat grades in containers; --from-logs regrades the logs once", errUsage)
	}
	if f.predsPath == "" || f.split == "" {
		return fmt.Errorf("%w: eval needs --predictions and --split", errUsage)
	}
	switch dockerenv.PullPolicy(f.pull) {
	case dockerenv.PullMissing, dockerenv.PullAlways, dockerenv.PullNever:
	default:
		return fmt.Errorf("%w: --pull %q: want missing, always or never", errUsage, f.pull)
	}
	sel := dataset.Selection{Filter: f.filter}
	var err error
	if sel.IDs, err = parseIDs(f.ids, "--instance-ids"); err != nil {
		return err
	}
	files, overrides := splitConfigArgs(f.configs)
	cfg, err := configs.Load(files, overrides)
	if err != nil {
		return err
	}
	if _, err := kubeenv.DecodeConfig(cfg.Kubernetes); err != nil {
		return err
	}
	f.be.kubeSection = cfg.Kubernetes
	reg, err := familiesFor(cfg)
	if err != nil {
		return err
	}
	loaded, err := dataset.Load(ctx, f.split, dataset.LoadOptions{Progress: stderr, Selection: &sel, Require: dataset.RequireEval, Complete: true, Families: reg.Families(), Named: reg.Named()})
	if err != nil {
		return err
	}
	insts := loaded.Instances
	if f.imageTemplateSet {
		if err := dataset.ApplyImageTemplate(insts, f.imageTemplate); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	envCheck, err := environmentCheck(f.validation, loaded)
	if err != nil {
		return err
	}

	var preds map[string]eval.Prediction
	if f.predsPath == "gold" {
		preds = eval.GoldPredictions(insts)
	} else if preds, err = reg.LoadPredictions(f.predsPath); err != nil {
		return err
	}
	if !sel.IsZero() {
		preds = onlySelected(preds, insts)
	}
	eval.NameUnnamed(preds, cmp.Or(f.modelName, predictionsName(f.predsPath)))
	if runID == "" {
		runID = defaultEvalRunID(f.predsPath)
	}
	if out == "" {
		if f.predsPath == "gold" {
			out = filepath.Join("runs", "eval-"+runID)
		} else {
			out = filepath.Join(filepath.Dir(f.predsPath), "eval")
		}
	}
	lock, err := lockOutput(ctx, out, f.wait, stderr)
	if err != nil {
		return err
	}
	defer lock.Unlock()

	logger, closeLog, err := openEvalLog(out, runID)
	if err != nil {
		return err
	}
	defer closeLog()

	var rep eval.RunReport
	var results []eval.Result
	if f.fromLogs != "" {
		ropts := eval.RegradeOptions{LogsDir: f.fromLogs, OutDir: out, RunID: runID, Graders: reg.Grader}
		if envCheck != nil {
			var o eval.Options
			envCheck(&o)
			ropts.Validation = o.Validation
		}
		rep, results, err = eval.RegradeFromLogs(ropts, insts, preds)
		if err != nil {
			return err
		}
	} else {
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
		ev, err := newEvaluator(engine, reg, out, runID, f.workers, f.timeout, f.redo, f.imageTemplate, stop, logger, envCheck, func(o *eval.Options) { o.Repeat = f.repeat })
		if err != nil {
			return err
		}
		rep, results, err = ev.Run(ctx, insts, preds)
		if n, serr := engine.Sweep(ctx, sandbox.Selector{RunID: runID}); serr == nil && n > 0 {
			fmt.Fprintf(stderr, "swebench-run: removed %d leftover eval containers\n", n)
		}
		if err != nil {
			if ctx.Err() != nil || isClosed(stop) {
				return &exitStatusError{code: exitInterrupted, msg: "evaluation interrupted; rerun the same command to resume"}
			}
			return err
		}
	}
	path, err := eval.WriteRunReport(out, eval.ModelName(preds), runID, rep)
	if err != nil {
		return err
	}
	printEvalSummary(stdout, rep, results, path)
	if isClosed(stop) {
		return &exitStatusError{code: exitInterrupted, msg: "evaluation interrupted; rerun the same command to resume"}
	}
	if rep.ErrorInstances > 0 {
		return &exitStatusError{code: exitFailedInsts, msg: fmt.Sprintf("%d instances could not be evaluated (see error_reasons in %s)", rep.ErrorInstances, path)}
	}
	return nil
}

// openEvalLog opens the log file of an evaluation folder and sends what the evaluation and the
// libraries under it log there (client-go's warnings on Kubernetes, containers that could not be
// removed), as a run does, not between the summary lines on the terminal. close restores the
// libraries' outputs and closes the file.
func openEvalLog(dir, runID string) (logger *slog.Logger, close func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("evaluation folder: %w", err)
	}
	file, err := os.OpenFile(filepath.Join(dir, results.LogFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("log file: %w", err)
	}
	logger = slog.New(slog.NewJSONHandler(file, nil)).With("eval", runID)
	restore := routeLibraryLogs(logger)
	return logger, func() { restore(); file.Close() }, nil
}

// The evaluations' containers start on a Docker engine.
var (
	_ sandbox.Starter = (*dockerenv.Engine)(nil)
	_ sandbox.Sweeper = (*dockerenv.Engine)(nil)
)

// newEvaluator wires a sandbox backend (its pull policy decides when images are pulled) into an
// Evaluator, grading each family's rows with the family's grader from reg; more changes the
// options further (environmentCheck, repeats).
func newEvaluator(backend sandbox.Starter, reg *all.Registry, out, runID string, workers int, timeout time.Duration, redo bool, imageTemplate string, stop <-chan struct{}, logger *slog.Logger, more ...func(*eval.Options)) (*eval.Evaluator, error) {
	opts := eval.Options{
		OutDir: out, RunID: runID, Workers: workers, Timeout: timeout, Redo: redo, Drain: stop,
		Starter: &eval.SandboxStarter{Backend: backend, RunID: runID},
		Image:   func(inst dataset.Instance) (string, error) { return inst.ImageName(imageTemplate) },
		Logger:  logger,
		Graders: reg.Grader,
	}
	for _, m := range more {
		if m != nil {
			m(&opts)
		}
	}
	return eval.New(opts)
}

func onlySelected(preds map[string]eval.Prediction, insts []dataset.Instance) map[string]eval.Prediction {
	keep := make(map[string]eval.Prediction, len(insts))
	for _, inst := range insts {
		if p, ok := preds[inst.InstanceID]; ok {
			keep[inst.InstanceID] = p
		}
	}
	return keep
}

// predictionsName is the model name given to predictions that carry none: the predictions
// file's name without its extensions (multi_swe_bench_patches.jsonl → multi_swe_bench_patches).
func predictionsName(predsPath string) string {
	base := filepath.Base(predsPath)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

func defaultEvalRunID(predsPath string) string {
	if predsPath != "gold" {
		if man, err := readManifestBeside(predsPath); err == nil && man != "" {
			return man
		}
	}
	return newRunID()
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func printEvalSummary(w io.Writer, rep eval.RunReport, results []eval.Result, path string) {
	fmt.Fprintf(w, "evaluated %d of %d instances: %d resolved, %d unresolved%s, %d empty patches, %d errors\n",
		rep.CompletedInstances+rep.ErrorInstances, rep.TotalInstances, rep.ResolvedInstances, rep.UnresolvedInstances, environmentNote(rep), rep.EmptyPatchInstances, rep.ErrorInstances)
	if rep.SubmittedInstances > 0 {
		fmt.Fprintf(w, "resolved rate: %.1f%% of submitted (%d/%d), %.1f%% of the dataset (%d/%d)\n",
			100*float64(rep.ResolvedInstances)/float64(rep.SubmittedInstances), rep.ResolvedInstances, rep.SubmittedInstances,
			100*float64(rep.ResolvedInstances)/float64(max(rep.TotalInstances, 1)), rep.ResolvedInstances, rep.TotalInstances)
	}
	ids := make([]string, 0, len(rep.ErrorReasons))
	for id := range rep.ErrorReasons {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(w, "  error %s: %s\n", id, rep.ErrorReasons[id])
	}
	printEvalMarks(w, rep)
	layouts := map[string]int{}
	taken := 0
	for _, r := range results {
		if r.FromReport != "" {
			layouts[string(r.FromReport)]++
			taken++
		}
	}
	if taken > 0 {
		fmt.Fprintf(w, "note: %d verdicts are those of their report.json (%s), not regraded: their folders hold no test_output.txt\n", taken, eval.LayoutCounts(layouts))
	}
	fmt.Fprintf(w, "report: %s\n", path)
}
