package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/internal/names"
	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/runner"
	"github.com/swebench-run/swebench-run/sandbox"
)

type runFlags struct {
	split, model, out, runID   string
	workers, maxAttempts       int
	configs                    []string
	sel                        dataset.Selection
	ids, exclude               string
	imageTemplate, pull        string
	imageTemplateSet           bool // --image-template given: it names every row's image
	dockerHosts                []string
	pullWorkers                int
	platform, imageCache       string
	redo, dryRun, force, quiet bool
	wait                       bool
	progress                   string
	memory, network            string
	cpus                       float64
	pids                       int64
	maxCost                    float64
	eval                       bool
	evalTimeout                time.Duration
	maxDuration                time.Duration
	retryFailed                bool
	backendWait                time.Duration
	be                         backendFlags
}

// Help sections of run's flags.
const (
	groupSelection = "Selection"
	groupModel     = "Model and config"
	groupDocker    = "Docker"
	groupLimits    = "Limits"
	groupResume    = "Resume"
	groupEval      = "Evaluation"
	groupOutput    = "Output"
)

func newRunCmd(stop <-chan struct{}) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:     "run --split DATASET --model MODEL [flags]",
		Short:   "run a batch: an agent on every selected instance (the default command)",
		GroupID: groupBatch,
		Long: `Runs a coding agent on every selected instance of a dataset, each in its own Docker
container, and writes per-instance trajectories, a ledger and a preds.json to the output
directory. An instance that fails for infrastructure reasons (its container died, the engine
restarted, an image pull failed) runs again in a fresh container, in the same run, up to
--max-attempts; while the backend does not answer, no instance starts (up to --backend-wait).
Rerunning the same command resumes: finished instances are skipped, failures with attempts left
are retried. The first Ctrl-C stops starting instances and lets running ones finish their
current step; the second cancels them.

run is the default command: 'swebench-run --split … --model …' is 'swebench-run run --split …'.`,
		Example: `  # SWE-bench Verified with Claude, 16 instances at a time
  swebench-run --split verified --model anthropic/claude-sonnet-4-5 --workers 16 -o runs/sonnet
  # 20 instances of Lite, a config override, and the predictions graded as they come
  swebench-run run --split lite --slice 0:20 --model openai/gpt-5 -c agent.step_limit=100 --eval
  # a local dataset with its own images, spread over two Docker engines
  swebench-run --split ./tasks.jsonl --model openai/gpt-5 --image-template 'ghcr.io/me/{id}:latest' \
      --docker-host unix:///var/run/docker.sock --docker-host ssh://me@big-box,workers=32
  # what would run, without Docker or a model
  swebench-run --split lite --filter django__ --shard 1/4 --dry-run`,
		Annotations: map[string]string{
			annUsage: "swebench-run run --split DATASET --model MODEL [flags]\n" +
				"swebench-run --split DATASET --model MODEL [flags]",
			annExitCodes: exitCodesHelp,
		},
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.imageTemplateSet = cmd.Flags().Changed("image-template")
			if err := f.be.check(cmd.Flags(), dockerOnlyFlags...); err != nil {
				return err
			}
			return runBatch(cmd.Context(), stop, &f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f.register(cmd.Flags())
	f.be.register(cmd, cmd.Flags())
	registerBackendWait(cmd.Flags(), &f.backendWait)
	completeFlags(cmd, map[string]cobra.CompletionFunc{
		"split":       completeDataset,
		"config":      completeConfig,
		"pull":        oneOf("missing", "always", "never"),
		"image-cache": oneOf("keep", "remove", "budget="),
		"network":     oneOf("bridge", "none"),
		"progress":    oneOf("auto", "bar", "lines", "json", "none"),
		"output":      completeDirs,
	})
	return cmd
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	fs.SortFlags = false

	fs.StringVar(&f.split, "split", "", "dataset: a named dataset (see 'swebench-run datasets'), hf:ORG/NAME[:SPLIT][@REVISION], or a .parquet/.jsonl/.json file or directory")
	fs.StringVar(&f.sel.Filter, "filter", "", "regex matched at the start of instance ids")
	fs.StringVar(&f.sel.Slice, "slice", "", "Python-style slice of the selection, e.g. 0:10 or ::2")
	fs.BoolVar(&f.sel.Shuffle, "shuffle", false, "shuffle the instances (sorted by id first, then seeded)")
	fs.Int64Var(&f.sel.Seed, "seed", dataset.DefaultSeed, "seed for --shuffle")
	fs.StringVar(&f.ids, "instance-ids", "", "only these ids: id,id,… or @FILE with one id per line")
	fs.StringVar(&f.exclude, "exclude", "", "skip these ids: id,id,… or @FILE")
	fs.StringVar(&f.sel.Shard, "shard", "", "run part I of N (I/N, 1-based) of the selection")
	fs.BoolVar(&f.dryRun, "dry-run", false, "load and select, print the instances (id, image) and exit without Docker or a model")
	flagGroup(fs, groupSelection, "split", "filter", "slice", "shuffle", "seed", "instance-ids", "exclude", "shard", "dry-run")
	metavar(fs, "split", "DATASET")
	metavar(fs, "filter", "REGEX")
	metavar(fs, "slice", "START:STOP[:STEP]")
	metavar(fs, "instance-ids", "IDS")
	metavar(fs, "exclude", "IDS")
	metavar(fs, "shard", "I/N")

	fs.StringVar(&f.model, "model", "", "model name (e.g. anthropic/claude-sonnet-4-5, openai/gpt-5), scripted[:FILE] or replay:DIR")
	fs.StringArrayVarP(&f.configs, "config", "c", nil, "config file or shipped config name, or key.path=value override (later wins)")
	flagGroup(fs, groupModel, "model", "config")
	metavar(fs, "model", "MODEL")
	metavar(fs, "config", "FILE|KEY=VALUE")

	f.registerDocker(fs)

	fs.StringVar(&f.memory, "memory", "", "memory limit per container, e.g. 8g (default unlimited)")
	fs.Float64Var(&f.cpus, "cpus", 0, "CPUs per container (default unlimited)")
	fs.Int64Var(&f.pids, "pids-limit", 0, "process limit per container (default 4096; -1 unlimited)")
	fs.Float64Var(&f.maxCost, "max-cost", 0, "cost limit in dollars of the output directory as a whole, across resumes: no model call starts when what is left does not cover it; instances cut by it run again when a run has budget left (0 = none)")
	fs.DurationVar(&f.maxDuration, "max-duration", 0, "run deadline, e.g. 8h: then running instances are cancelled (and retried on resume) and the run exits 130 (0 = none)")
	flagGroup(fs, groupLimits, "memory", "cpus", "pids-limit", "max-cost", "max-duration")
	metavar(fs, "memory", "SIZE")
	metavar(fs, "max-cost", "DOLLARS")

	fs.BoolVar(&f.redo, "redo-existing", false, "rerun instances that already finished in this output directory")
	fs.BoolVar(&f.retryFailed, "retry-failed", false, "also rerun instances whose model outcome was not Submitted (LimitsExceeded, format errors, …)")
	fs.IntVar(&f.maxAttempts, "max-attempts", 3, "attempts per instance for infrastructure failures, over all resumes")
	fs.BoolVar(&f.force, "force", false, "resume even if model, config or dataset differ from the output directory's run.json")
	fs.StringVar(&f.runID, "run-id", "", "run id (default: the output directory's, or a new one)")
	flagGroup(fs, groupResume, "redo-existing", "retry-failed", "max-attempts", "force", "run-id")
	metavar(fs, "run-id", "ID")

	fs.BoolVar(&f.eval, "eval", false, "evaluate each prediction as soon as it exists (in a fresh container), and write the run report to <out>/eval")
	fs.DurationVar(&f.evalTimeout, "eval-timeout", eval.DefaultTimeout, "with --eval: time limit of one instance's eval script")
	flagGroup(fs, groupEval, "eval", "eval-timeout")

	fs.StringVarP(&f.out, "output", "o", "", "output directory; an existing one is resumed (default runs/<dataset>-<model>)")
	fs.StringVar(&f.progress, "progress", "auto", "progress display: auto, bar, lines, json or none")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress display (same as --progress none)")
	waitFlag(fs, &f.wait)
	flagGroup(fs, groupOutput, "output", "progress", "quiet", "wait")
	metavar(fs, "output", "DIR")
	metavar(fs, "progress", "MODE")
}

// registerDocker registers the flags of where the containers run (the Docker group), shared by
// run and sweep.
func (f *runFlags) registerDocker(fs *pflag.FlagSet) {
	fs.IntVar(&f.workers, "workers", 4, "instances run at once")
	fs.StringArrayVar(&f.dockerHosts, "docker-host", nil, "Docker engine URL[,workers=N] (unix://, tcp:// with DOCKER_CERT_PATH/DOCKER_TLS_VERIFY, ssh://user@host); several spread the instances over the engines by free capacity (default DOCKER_HOST or the local socket, with --workers)")
	fs.StringVar(&f.imageTemplate, "image-template", dataset.DefaultImageTemplate, "image of every row, over its image column when given (a registry mirror); by default only rows without an image/image_name/docker_image column use it; placeholders {instance_id} (Docker Hub form), {id}, {arch}, {repo}")
	fs.StringVar(&f.pull, "pull", "missing", "when to pull images: missing, always or never")
	fs.IntVar(&f.pullWorkers, "pull-workers", 4, "concurrent image pulls per engine")
	fs.StringVar(&f.platform, "platform", "linux/amd64", "image platform (SWE-bench images are linux/amd64; other hosts run them under emulation)")
	fs.StringVar(&f.imageCache, "image-cache", "keep", "images this run pulled: keep, remove (after their last instance) or budget=SIZE (evict least recently used to stay under SIZE, e.g. budget=200GB); images you had before are never removed")
	fs.StringVar(&f.network, "network", "", "container network mode: bridge (default) or none")
	flagGroup(fs, groupDocker, "workers", "docker-host", "image-template", "pull", "pull-workers", "platform", "image-cache", "network")
	metavar(fs, "docker-host", "URL")
	metavar(fs, "image-template", "TEMPLATE")
	metavar(fs, "pull", "POLICY")
	metavar(fs, "platform", "OS/ARCH")
	metavar(fs, "image-cache", "POLICY")
	metavar(fs, "network", "MODE")
}

// registerBackendWait registers --backend-wait (run and sweep) in the Backend group.
func registerBackendWait(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "backend-wait", runner.DefaultBackendWait, "how long to wait for a backend that stops answering (the Docker engine, the Kubernetes API server) before stopping the run; meanwhile no instance starts and those whose commands broke are retried once it answers (0 = stop at once)")
	flagGroup(fs, groupBackend, "backend-wait")
	metavar(fs, "backend-wait", "DURATION")
}

// splitConfigArgs separates -c values into files and key=value overrides.
func splitConfigArgs(vals []string) (files, overrides []string) {
	for _, v := range vals {
		if strings.Contains(v, "=") && !strings.HasSuffix(v, ".yaml") && !strings.HasSuffix(v, ".yml") {
			overrides = append(overrides, v)
		} else {
			files = append(files, v)
		}
	}
	return files, overrides
}

// runBatch runs the batch f describes.
func runBatch(ctx context.Context, stop <-chan struct{}, f *runFlags, stdout, stderr io.Writer) error {
	switch {
	case f.workers < 1:
		return fmt.Errorf("%w: --workers %d: want at least 1", errUsage, f.workers)
	case f.maxAttempts < 1:
		return fmt.Errorf("%w: --max-attempts %d: want at least 1", errUsage, f.maxAttempts)
	case f.pullWorkers < 1:
		return fmt.Errorf("%w: --pull-workers %d: want at least 1", errUsage, f.pullWorkers)
	case f.maxCost < 0 || f.maxDuration < 0 || f.evalTimeout <= 0:
		return fmt.Errorf("%w: --max-cost and --max-duration must not be negative, --eval-timeout must be positive", errUsage)
	case f.backendWait < 0:
		return fmt.Errorf("%w: --backend-wait %s must not be negative (0 stops the run as soon as the backend does not answer)", errUsage, f.backendWait)
	}
	if f.split == "" {
		return fmt.Errorf("%w: --split is required (a named dataset such as verified, or a file; see `swebench-run datasets`)", errUsage)
	}
	var err error
	if f.sel.IDs, err = parseIDs(f.ids, "--instance-ids"); err != nil {
		return err
	}
	if f.sel.Exclude, err = parseIDs(f.exclude, "--exclude"); err != nil {
		return err
	}
	if err := f.sel.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	pull := dockerenv.PullPolicy(f.pull)
	switch pull {
	case dockerenv.PullMissing, dockerenv.PullAlways, dockerenv.PullNever:
	default:
		return fmt.Errorf("%w: --pull %q: want missing, always or never", errUsage, f.pull)
	}
	limits, err := f.limits()
	if err != nil {
		return err
	}

	files, overrides := splitConfigArgs(f.configs)
	cfg, err := configs.Load(files, overrides)
	if err != nil {
		return err
	}
	if _, err := kubeenv.DecodeConfig(cfg.Kubernetes); err != nil {
		return err // checked with any backend, before a dataset or a model is loaded
	}
	reg, err := familiesFor(cfg)
	if err != nil {
		return err
	}
	if f.model != "" {
		cfg.Model.ModelName = f.model
		cfg.Set("model.model_name", f.model)
	}
	if cfg.Model.ModelName == "" && !f.dryRun {
		return fmt.Errorf("%w: --model is required (or model.model_name in a config)", errUsage)
	}
	for _, k := range cfg.Ignored {
		fmt.Fprintf(stderr, "swebench-run: config key %s has no meaning here and is ignored\n", k)
	}
	if cfg.Layout == configs.LayoutV1 {
		fmt.Fprintf(stderr, "swebench-run: config layout: %s: the mini-swe-agent %s loop, mini-swe-agent-1 trajectories\n", cfg.LayoutNote(), configs.MiniVersionV1)
	}

	require := dataset.RequireRun
	if f.eval {
		require = dataset.RequireEval
	}
	loaded, err := dataset.Load(ctx, f.split, dataset.LoadOptions{Progress: stderr, Selection: &f.sel, Require: require, Complete: f.eval, Families: reg.Families(), Named: reg.Named()})
	if err != nil {
		return err
	}
	insts := loaded.Instances
	if f.imageTemplateSet {
		if err := dataset.ApplyImageTemplate(insts, f.imageTemplate); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	var envCheck func(*eval.Options)
	if f.eval {
		// Refuse before any model call, not when the first prediction is graded.
		if err := eval.CheckFamilies(insts, reg.Grader); err != nil {
			return err
		}
		if envCheck, err = environmentCheck("", loaded); err != nil {
			return err
		}
	}
	if f.dryRun {
		return printDryRun(stdout, stderr, insts, f.imageTemplate)
	}

	install, err := verifyInstall(cfg)
	if err != nil {
		return err
	}
	models, modelName, budget, err := buildModels(cfg, f.split, f.maxCost, stderr)
	if err != nil {
		return err
	}
	if f.out == "" {
		f.out = filepath.Join("runs", names.Safe(names.Stem(filepath.Base(f.split)))+"-"+names.Safe(modelName))
	}
	lock, err := lockOutput(ctx, f.out, f.wait, stderr)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	out, err := results.Open(f.out)
	if err != nil {
		return err
	}
	defer out.Close()
	if out.TornLedger {
		fmt.Fprintf(stderr, "swebench-run: %s: the last line of %s was torn by a crash and was dropped; that instance will run again\n", f.out, results.LedgerFile)
	}
	if out.RepairedPreds > 0 {
		fmt.Fprintf(stderr, "swebench-run: %s: restored %d predictions that a crash kept out of %s, from their trajectories\n", f.out, out.RepairedPreds, results.PredsFile)
	}
	if len(out.MissingPreds) > 0 {
		fmt.Fprintf(stderr, "swebench-run: warning: %s: %d finished instances have neither a prediction nor a trajectory (%s): rerun them with --instance-ids and --redo-existing\n", f.out, len(out.MissingPreds), strings.Join(out.MissingPreds, ","))
	}
	if budget != nil {
		// The limit is the output directory's, across resumes: what earlier runs spent counts.
		spent, calls := out.Spent()
		budget.Restore(spent, calls)
		fmt.Fprintf(stderr, "swebench-run: cost limit $%.2f: $%.4f spent by earlier runs of %s, $%.4f left\n", f.maxCost, spent, f.out, budget.Left())
	}
	man, err := prepareManifest(out, f.runID, f.force, cfg, loaded, modelName)
	if err != nil {
		return err
	}

	logFile, err := os.OpenFile(filepath.Join(f.out, results.LogFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	defer logFile.Close()
	logger := slog.New(slog.NewJSONHandler(logFile, nil)).With("run", man.RunID)
	defer routeLibraryLogs(logger)()

	progress := chooseProgress(f, stderr)
	pool, closeBackend, err := f.openBackend(ctx, cfg, pull, limits, logger, progress, stderr)
	if err != nil {
		return err
	}
	defer closeBackend()
	// Containers of a crashed earlier attempt of this run, or of any dead process of this
	// machine, are leftovers: remove them before starting new ones.
	if n, err := pool.Sweep(ctx, sandbox.Selector{RunID: man.RunID, Orphaned: true}); err != nil {
		fmt.Fprintln(stderr, "swebench-run: warning: sweeping leftover containers:", err)
	} else if n > 0 {
		fmt.Fprintf(stderr, "swebench-run: removed %d leftover containers of earlier runs\n", n)
	}

	inst, closeInstalled, err := prepareInstalled(ctx, cfg, installedSetup{split: f.split, insts: insts, budget: budget,
		backend: f.be.backend, pool: pool, network: f.network, stderr: stderr, install: install})
	if err != nil {
		return err
	}
	defer closeInstalled()
	var runBudget interface{ Exhausted() bool }
	if budget != nil {
		runBudget = budget
	}
	opts := runner.Options{
		RunID: man.RunID, Version: version, Workers: f.workers, Config: cfg, Models: models,
		ModelName: modelName, Backend: pool, Out: out, ImageTemplate: f.imageTemplate, History: reg.History,
		Limits: limits, Resume: runner.Resume{RedoExisting: f.redo, RetryFailed: f.retryFailed, MaxAttempts: f.maxAttempts}, Progress: progress,
		Logger: logger, Stop: stop, Budget: runBudget, BackendWait: f.backendWait, Installed: inst,
	}
	var ev *eval.Evaluator
	if f.eval {
		evalDir := filepath.Join(f.out, "eval")
		if ev, err = newEvaluator(pool, reg, evalDir, man.RunID, f.workers, f.evalTimeout, f.redo, f.imageTemplate, stop, logger.With("eval", man.RunID), envCheck); err != nil {
			return err
		}
		opts.AfterInstance = func(ctx context.Context, inst dataset.Instance, pred *results.Prediction) {
			if pred == nil {
				return
			}
			patch := pred.ModelPatch
			if _, err := ev.Evaluate(ctx, inst, eval.Prediction{InstanceID: pred.InstanceID, ModelNameOrPath: pred.ModelNameOrPath, ModelPatch: &patch}); err != nil {
				logger.Warn("evaluation failed", "instance", inst.InstanceID, "err", err)
			}
		}
	}
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	var deadlineHit atomic.Bool
	if f.maxDuration > 0 {
		t := time.AfterFunc(f.maxDuration, func() {
			deadlineHit.Store(true)
			logger.Warn("run deadline reached; cancelling running instances", "max_duration", f.maxDuration.String())
			cancelRun()
		})
		defer t.Stop()
	}
	sum, runErr := runner.Run(runCtx, insts, opts)
	// Safety net: whatever happened, no container of this run outlives it. After a
	// cancellation the engine may still be finishing creates the run gave up on, so sweep again
	// until a pass finds nothing.
	for pass := 0; pass < 3; pass++ {
		n, err := pool.Sweep(ctx, sandbox.Selector{RunID: man.RunID})
		if err != nil {
			fmt.Fprintln(stderr, "swebench-run: warning: removing this run's containers:", err)
			break
		}
		if n == 0 {
			break
		}
		logger.Warn("removed containers left at the end of the run", "count", n)
		time.Sleep(2 * time.Second)
	}
	printSummary(stderr, f.out, sum, out)
	if err := exportFamilyPredictions(f.out, insts, out, stderr); err != nil {
		fmt.Fprintln(stderr, "swebench-run: warning:", err)
	}
	if ev != nil && runErr == nil {
		if err := reportEval(ctx, ev, insts, out, man.RunID, stdout); err != nil {
			runErr = err
		}
	}
	switch {
	case errors.Is(runErr, runner.ErrInterrupted) && deadlineHit.Load():
		return &exitStatusError{code: exitInterrupted, msg: fmt.Sprintf("--max-duration %s reached; rerun the same command to resume", f.maxDuration)}
	case errors.Is(runErr, runner.ErrInterrupted):
		return &exitStatusError{code: exitInterrupted, msg: "interrupted; rerun the same command to resume"}
	case runErr != nil:
		return runErr
	case sum.BudgetExhausted:
		return fmt.Errorf("the cost limit of %s (--max-cost $%.2f, across resumes) is spent ($%.4f): %d running instances were cut (%s) and the instances not yet started were left; they run again from the start when you raise --max-cost and rerun the same command",
			f.out, f.maxCost, budget.Spent(), sum.Unfinished, model.StatusRunBudgetExhausted)
	case sum.Failed > 0:
		return &exitStatusError{code: exitFailedInsts, msg: failedMessage(sum.Failed, f.maxAttempts)}
	}
	return nil
}

// failedMessage says what exit code 3 means: failures that remain after the retries.
func failedMessage(failed, maxAttempts int) string {
	return fmt.Sprintf("%d instances ended with infrastructure failures that remain after their retries (see `swebench-run stats`); rerun the same command to retry those with attempts left (--max-attempts %d, over all runs)", failed, maxAttempts)
}

// reportEval writes the run report of `run --eval` from every prediction of the output directory
// (instances evaluated earlier keep their reports) and prints the resolved rate.
func reportEval(ctx context.Context, ev *eval.Evaluator, insts []dataset.Instance, out *results.Dir, runID string, stdout io.Writer) error {
	rep, results, path, err := writeEvalReport(ctx, ev, insts, out, runID)
	if err != nil {
		return err
	}
	printEvalSummary(stdout, rep, results, path)
	return nil
}

// writeEvalReport evaluates every prediction of the output directory for the selected instances
// (reusing the reports already there) and writes the run report to <out>/eval.
func writeEvalReport(ctx context.Context, ev *eval.Evaluator, insts []dataset.Instance, out *results.Dir, runID string) (eval.RunReport, []eval.Result, string, error) {
	preds := map[string]eval.Prediction{}
	for id, p := range out.Predictions() {
		patch := p.ModelPatch
		preds[id] = eval.Prediction{InstanceID: id, ModelNameOrPath: p.ModelNameOrPath, ModelPatch: &patch}
	}
	preds = onlySelected(preds, insts)
	rep, results, err := ev.Run(ctx, insts, preds)
	if err != nil {
		return rep, nil, "", err
	}
	path, err := eval.WriteRunReport(filepath.Join(out.Path(), "eval"), eval.ModelName(preds), runID, rep)
	return rep, results, path, err
}

// The run's sandboxes live on Docker engines: the pool is the runner's backend, starts the
// containers of `run --eval`, and sweeps.
var (
	_ sandbox.Backend = (*dockerenv.Pool)(nil)
	_ sandbox.Starter = (*dockerenv.Pool)(nil)
	_ sandbox.Sweeper = (*dockerenv.Pool)(nil)
	_ sandbox.Slot    = (*dockerenv.Slot)(nil)
	_ sandbox.Sandbox = (*dockerenv.Container)(nil)
)

// openBackend opens the backend of a run or a sweep: the Docker engines of the flags, or the
// Kubernetes cluster (cfg gives its kubernetes section); the func closes it.
func (f *runFlags) openBackend(ctx context.Context, cfg *configs.Config, pull dockerenv.PullPolicy, limits sandbox.Limits, logger *slog.Logger, progress runner.Progress, stderr io.Writer) (sandboxes, func(), error) {
	launcher := sandbox.Launcher(cfg.Environment.Launcher)
	return f.be.openBackend(ctx, cfg, kubeSettings{workers: f.workers, pull: f.pull, limits: limits, logger: logger, progress: progress, stderr: stderr, launcher: launcher},
		func() (sandboxes, func(), error) {
			p, err := f.connect(ctx, pull, logger, progress, launcher)
			if err != nil {
				return nil, nil, err
			}
			return p, func() { p.Close() }, nil
		})
}

// connect opens the run's Docker engines with their pull queues and image cache policy, and
// the config's environment.launcher.
func (f *runFlags) connect(ctx context.Context, pull dockerenv.PullPolicy, logger *slog.Logger, progress runner.Progress, launcher sandbox.Launcher) (*dockerenv.Pool, error) {
	cache, err := dockerenv.ParseCachePolicy(f.imageCache)
	if err != nil {
		return nil, fmt.Errorf("%w: --image-cache: %v", errUsage, err)
	}
	if _, err := dockerenv.ParsePlatform(f.platform); err != nil {
		return nil, fmt.Errorf("%w: --platform: %v", errUsage, err)
	}
	var specs []dockerenv.HostSpec
	for _, h := range f.dockerHosts {
		spec, err := dockerenv.ParseHostSpec(h)
		if err != nil {
			return nil, fmt.Errorf("%w: --docker-host: %v", errUsage, err)
		}
		specs = append(specs, spec)
	}
	return dockerenv.NewPool(ctx, specs, f.workers, dockerenv.Options{
		PullWorkers: f.pullWorkers, Platform: f.platform, Pull: pull, Cache: cache, Logger: logger,
		OnPull: func(p sandbox.PullProgress) { progress.Pull(p) }, Launcher: launcher, LauncherBinaries: launcherBinaries,
	})
}

func (f *runFlags) limits() (sandbox.Limits, error) {
	l := sandbox.Limits{CPUs: f.cpus, PidsLimit: f.pids, NetworkMode: f.network}
	if f.memory != "" {
		n, err := parseBytes(f.memory)
		if err != nil {
			return l, fmt.Errorf("%w: --memory %q: %v", errUsage, f.memory, err)
		}
		l.MemoryBytes = n
	}
	switch f.network {
	case "", "bridge", "none":
	default:
		return l, fmt.Errorf("%w: --network %q: want bridge or none", errUsage, f.network)
	}
	if f.cpus < 0 {
		return l, fmt.Errorf("%w: --cpus must be >= 0", errUsage)
	}
	return l, nil
}

func parseIDs(arg, flagName string) ([]string, error) {
	if arg == "" {
		return nil, nil
	}
	ids, err := dataset.ParseIDList(arg)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errUsage, flagName, err)
	}
	return ids, nil
}

// buildModels turns the model section into the run's model provider, with the run's budget.
func buildModels(cfg *configs.Config, split string, maxCost float64, stderr io.Writer) (runner.Models, string, *model.Budget, error) {
	var budget *model.Budget
	if maxCost > 0 {
		budget = model.NewBudget(maxCost)
	}
	p, name, err := newProvider(cfg, split, budget, nil)
	if err != nil {
		return nil, "", nil, err
	}
	return p, name, budget, nil
}

func printDryRun(stdout, stderr io.Writer, insts []dataset.Instance, tmpl string) error {
	fmt.Fprintf(stderr, "%d instances selected\n", len(insts))
	for i := range insts {
		img, err := insts[i].ImageName(tmpl)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\t%s\n", insts[i].InstanceID, img)
	}
	return nil
}

func chooseProgress(f *runFlags, stderr io.Writer) runner.Progress {
	mode := f.progress
	if f.quiet {
		mode = "none"
	}
	fd, isFile := stderr.(interface{ Fd() uintptr })
	if mode == "auto" {
		mode = "lines"
		if isFile && term.IsTerminal(int(fd.Fd())) {
			mode = "bar"
		}
	}
	switch mode {
	case "bar":
		b := &runner.Bar{W: stderr}
		if isFile && term.IsTerminal(int(fd.Fd())) {
			b.Width = func() int {
				w, _, err := term.GetSize(int(fd.Fd()))
				if err != nil {
					return 0
				}
				return w
			}
		}
		return b
	case "json":
		return &runner.JSONEvents{W: stderr}
	case "none":
		return runner.Quiet{}
	default:
		return &runner.Lines{W: stderr}
	}
}

func printSummary(w io.Writer, out string, sum runner.Summary, dir *results.Dir) {
	retried := ""
	if sum.Retried > 0 {
		retried = fmt.Sprintf(" (%d failed attempts retried)", sum.Retried)
	}
	fmt.Fprintf(w, "\n%d selected, %d skipped (already finished), %d ran%s, cost $%.4f\n", sum.Selected, sum.Skipped, sum.Ran, retried, sum.Cost)
	by := dir.ExitStatuses()
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-24s %d\n", k, len(by[k]))
	}
	fmt.Fprintf(w, "predictions: %s\n", filepath.Join(out, results.PredsFile))
}

func newRunID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

func parseBytes(s string) (int64, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for suffix, m := range map[string]int64{"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40} {
		if strings.HasSuffix(s, suffix) || strings.HasSuffix(s, suffix+"b") || strings.HasSuffix(s, suffix+"ib") {
			s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "ib"), "b"), suffix)
			mult = m
			break
		}
	}
	var n float64
	if _, err := fmt.Sscanf(s, "%g", &n); err != nil || n <= 0 {
		return 0, fmt.Errorf("want a size such as 512m or 8g")
	}
	return int64(n * float64(mult)), nil
}
