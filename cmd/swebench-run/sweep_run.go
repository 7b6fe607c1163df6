package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/swebench-run/swebench-run/agent/installed"
	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/runner"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/sweep"
)

// runSweep runs the sweep f describes.
func runSweep(ctx context.Context, stop <-chan struct{}, f *sweepFlags, stdout, stderr io.Writer) error {
	now := time.Now()
	sf, err := f.load()
	if err != nil {
		return err
	}
	plan, err := sf.Plan(sweep.Options{Workers: f.run.workers, PullWorkers: f.run.pullWorkers}, now)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	p := &sweepJob{Plan: plan, run: f.run, includeBroken: f.includeBroken}
	pull := dockerenv.PullPolicy(p.run.pull)
	switch pull {
	case dockerenv.PullMissing, dockerenv.PullAlways, dockerenv.PullNever:
	default:
		return fmt.Errorf("%w: %spull %q: want missing, always or never", errUsage, sf.At("pull"), p.run.pull)
	}
	limits, err := p.run.limits()
	if err != nil {
		return err
	}
	st, err := p.prepare(ctx, stderr)
	if err != nil {
		return err
	}
	if f.dryRun {
		printPlan(stdout, p, st)
		return nil
	}
	return p.execute(ctx, stop, st, pull, limits, now, stdout, stderr)
}

// sweepJob is a planned sweep with the command line's settings of where and how it runs.
type sweepJob struct {
	*sweep.Plan
	run           runFlags // containers, limits, progress
	includeBroken bool     // --include-broken
}

// sweepState is what prepare builds for each model and cell before anything runs.
type sweepState struct {
	configs     []*configs.Config // by model
	families    *all.Registry     // with the models' families section
	loaded      []*dataset.Loaded // by dataset
	modelBudget []*model.Budget   // by model
	sweepBudget *model.Budget
	cells       []*cellState
}

// cellState is one cell being run.
type cellState struct {
	*sweep.Cell
	loaded    *dataset.Loaded
	cfg       *configs.Config
	models    runner.Models
	modelName string
	budget    *model.Budget
	// install is the verified install of the cell's installed agent (nil for the loop);
	// limiters are the sweep's, shared with the proxy of the cell.
	install  *installed.Install
	limiters *model.Limiters
	path     string // <sweep>/<dir>
	out      *results.Dir
	runID    string
	logger   *slog.Logger
	eval     *eval.Evaluator
}

// prepare checks everything that can be checked before anything runs: every model's config
// (loaded strictly), every dataset (loaded and selected; evaluable with eval), and every cell's
// model (known price, API key). Errors name the sweep file's entry and line.
func (p *sweepJob) prepare(ctx context.Context, stderr io.Writer) (*sweepState, error) {
	sf := p.File
	st := &sweepState{sweepBudget: model.NewBudget(sf.MaxCost)}
	for _, m := range p.Models {
		var vals []string
		for _, v := range append(append([]string{}, sf.Config...), m.Spec.Config...) {
			if files, _ := splitConfigArgs([]string{v}); len(files) == 1 {
				v = sf.Resolve(v)
			}
			vals = append(vals, v)
		}
		files, overrides := splitConfigArgs(vals)
		cfg, err := configs.Load(files, overrides)
		if err != nil {
			return nil, fmt.Errorf("%smodels[%d] (%s): %w", sf.ModelAt(m.Index), m.Index, m.Name, err)
		}
		cfg.Model.ModelName = m.Spec.Model
		cfg.Set("model.model_name", m.Spec.Model)
		for _, k := range cfg.Ignored {
			fmt.Fprintf(stderr, "swebench-run: %s: config key %s has no meaning here and is ignored\n", m.Name, k)
		}
		st.configs = append(st.configs, cfg)
		st.modelBudget = append(st.modelBudget, model.NewBudget(m.Spec.MaxCost, st.sweepBudget))
	}
	// The families' options come from the models' configs (their families section), which must
	// agree: every dataset is loaded and checked once, for all its cells.
	for k, cfg := range st.configs[1:] {
		if !reflect.DeepEqual(cfg.Families, st.configs[0].Families) {
			m := p.Models[k+1]
			return nil, fmt.Errorf("%smodels[%d] (%s): its config's families section differs from models[0]'s; the datasets are loaded and graded once for every model, so give them the same", sf.ModelAt(m.Index), m.Index, m.Name)
		}
	}
	reg := families()
	if len(st.configs) > 0 {
		var err error
		if reg, err = familiesFor(st.configs[0]); err != nil {
			m := p.Models[0]
			return nil, fmt.Errorf("%smodels[%d] (%s): %w", sf.ModelAt(m.Index), m.Index, m.Name, err)
		}
	}
	st.families = reg
	require := dataset.RequireRun
	if sf.Eval {
		require = dataset.RequireEval
	}
	for _, d := range p.Datasets {
		sel := d.Selection
		loaded, err := dataset.Load(ctx, d.Split, dataset.LoadOptions{Progress: stderr, Selection: &sel, Require: require, Complete: sf.Eval, Families: reg.Families(), Named: reg.Named()})
		if err != nil {
			return nil, fmt.Errorf("%sdatasets[%d] (%s): %w", sf.DatasetAt(d.Index), d.Index, d.Name, err)
		}
		// An image template given explicitly (the dataset's, else the sweep's) names every row's
		// image, as --image-template does for run.
		if tmpl := d.Spec.ImageTemplate; tmpl != "" || p.run.imageTemplateSet {
			if tmpl == "" {
				tmpl = p.run.imageTemplate
			}
			if err := dataset.ApplyImageTemplate(loaded.Instances, tmpl); err != nil {
				return nil, fmt.Errorf("%sdatasets[%d] (%s): %w", sf.DatasetAt(d.Index), d.Index, d.Name, err)
			}
		}
		if sf.Eval {
			if err := eval.CheckFamilies(loaded.Instances, reg.Grader); err != nil {
				return nil, fmt.Errorf("%sdatasets[%d] (%s): %w", sf.DatasetAt(d.Index), d.Index, d.Name, err)
			}
		}
		if len(loaded.Instances) == 0 {
			return nil, fmt.Errorf("%sdatasets[%d] (%s): the selection is empty", sf.DatasetAt(d.Index), d.Index, d.Name)
		}
		st.loaded = append(st.loaded, loaded)
	}
	// One rate limiter per provider endpoint, model and key over all cells.
	limiters := model.NewLimiters()
	for _, c := range p.Cells {
		cs := &cellState{Cell: c, loaded: st.loaded[c.Dataset.Index], cfg: st.configs[c.Model.Index], path: filepath.Join(p.Dir, c.Dir)}
		cs.budget = model.NewBudget(0, st.modelBudget[c.Model.Index])
		var err error
		if cs.models, cs.modelName, err = newProvider(cs.cfg, c.Dataset.Split, cs.budget, limiters); err != nil {
			return nil, fmt.Errorf("%smodels[%d] (%s): %w", sf.ModelAt(c.Model.Index), c.Model.Index, c.Model.Name, err)
		}
		if cs.install, err = verifyInstall(cs.cfg); err != nil {
			return nil, fmt.Errorf("%smodels[%d] (%s): %w", sf.ModelAt(c.Model.Index), c.Model.Index, c.Model.Name, err)
		}
		cs.limiters = limiters
		st.cells = append(st.cells, cs)
	}
	return st, nil
}

// manifest is the sweep.json of the planned matrix, as prepared.
func (p *sweepJob) manifest(st *sweepState, now time.Time) (*compare.Sweep, error) {
	resolved := make([]sweep.Resolved, len(st.cells))
	for k, cs := range st.cells {
		config, _ := normalize(cs.cfg.Dump()).(map[string]any)
		resolved[k] = sweep.Resolved{Model: cs.modelName, Config: config, Dataset: cs.loaded}
	}
	return p.Manifest(resolved, now)
}

// execute runs a prepared sweep: locks, sweep.json, the cells' directories and budgets, the
// backend, the runner, then the reports, the comparison and the history.
func (p *sweepJob) execute(ctx context.Context, stop <-chan struct{}, st *sweepState, pull dockerenv.PullPolicy, limits sandbox.Limits, now time.Time, stdout, stderr io.Writer) error {
	sf, r := p.File, &p.run
	lock, err := lockOutput(ctx, p.Dir, r.wait, stderr)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	man, err := p.manifest(st, now)
	if err != nil {
		return fmt.Errorf("sweep %s: %w", p.Dir, err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, compare.SweepFile)); err == nil {
		prev, err := compare.ReadSweep(p.Dir)
		if err != nil {
			return err
		}
		if changes := sweep.MatrixChanges(prev, man); len(changes) > 0 {
			if !r.force {
				return fmt.Errorf("%s holds a sweep with another matrix: %s. Resuming would mix incomparable results: rerun with the same sweep file and flags, use another --name, or --force to resume anyway",
					p.Dir, strings.Join(changes, "; "))
			}
			fmt.Fprintf(stderr, "swebench-run: --force: resuming %s with a changed matrix: %s\n", p.Dir, strings.Join(changes, "; "))
		}
		man.Created = prev.Created
	}

	// The cells: each an ordinary output directory, locked for the sweep's life.
	for _, cs := range st.cells {
		l, err := lockOutput(ctx, cs.path, r.wait, stderr)
		if err != nil {
			return err
		}
		defer l.Unlock()
		if cs.out, err = results.Open(cs.path); err != nil {
			return err
		}
		defer cs.out.Close()
		reportRepairs(stderr, cs.path, cs.out)
		m, err := prepareManifest(cs.out, "", r.force, cs.cfg, cs.loaded, cs.modelName)
		if err != nil {
			return fmt.Errorf("cell %s: %w", cs.Name, err)
		}
		cs.runID = m.RunID
	}
	if err := compare.WriteSweep(p.Dir, man); err != nil {
		return err
	}

	modelSpent := st.restoreBudgets(len(p.Models))
	if sf.MaxCost > 0 {
		fmt.Fprintf(stderr, "swebench-run: sweep cost limit $%.2f: $%.4f spent by earlier runs of %s, $%.4f left\n", sf.MaxCost, st.sweepBudget.Earlier(), p.Dir, st.sweepBudget.Left())
	}
	for k, m := range p.Models {
		if m.Spec.MaxCost > 0 {
			fmt.Fprintf(stderr, "swebench-run: cost limit of %s $%.2f: $%.4f spent by earlier runs, $%.4f left\n", m.Name, m.Spec.MaxCost, modelSpent[k], st.modelBudget[k].Left())
		}
	}

	logFile, err := os.OpenFile(filepath.Join(p.Dir, results.LogFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	defer logFile.Close()
	logger := slog.New(slog.NewJSONHandler(logFile, nil)).With("sweep", p.Name)
	defer routeLibraryLogs(logger)()
	for _, cs := range st.cells {
		f, err := os.OpenFile(filepath.Join(cs.path, results.LogFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("log file: %w", err)
		}
		defer f.Close()
		cs.logger = slog.New(slog.NewJSONHandler(f, nil)).With("run", cs.runID, "sweep", p.Name, "cell", cs.Name)
	}

	progress := chooseProgress(r, stderr)
	// The pods' settings come from the models' configs (their kubernetes section), which must
	// agree: one backend serves every cell.
	kubeCfg := st.configs[0]
	for k, cfg := range st.configs[1:] {
		if !reflect.DeepEqual(cfg.Kubernetes, kubeCfg.Kubernetes) {
			return fmt.Errorf("%smodels[%d] (%s): its config's kubernetes section differs from models[0]'s; one backend serves every cell, so give them the same", sf.ModelAt(p.Models[k+1].Index), p.Models[k+1].Index, p.Models[k+1].Name)
		}
	}
	backend, closeBackend, err := r.openBackend(ctx, kubeCfg, pull, limits, logger, progress, stderr)
	if err != nil {
		return err
	}
	defer closeBackend()
	// Containers of a crashed earlier attempt of this sweep, or of any dead process of this
	// machine, are leftovers: remove them before starting new ones.
	removed := 0
	for _, cs := range st.cells {
		n, err := backend.Sweep(ctx, sandbox.Selector{RunID: cs.runID, Orphaned: true})
		if err != nil {
			fmt.Fprintln(stderr, "swebench-run: warning: sweeping leftover containers:", err)
			break
		}
		removed += n
	}
	if removed > 0 {
		fmt.Fprintf(stderr, "swebench-run: removed %d leftover containers of earlier runs\n", removed)
	}

	cells := make([]runner.Cell, len(st.cells))
	for k, cs := range st.cells {
		tmpl := cs.Dataset.Spec.ImageTemplate
		if tmpl == "" {
			tmpl = r.imageTemplate
		}
		cells[k] = runner.Cell{
			Name: cs.Name, RunID: cs.runID, Config: cs.cfg, Models: cs.models, ModelName: cs.modelName,
			Out: cs.out, Instances: cs.loaded.Instances, ImageTemplate: tmpl, History: st.families.History, Budget: cs.budget, Logger: cs.logger,
			Resume: runner.Resume{MaxAttempts: sf.MaxAttempts},
		}
		ia, closeIA, err := prepareInstalled(ctx, cs.cfg, installedSetup{split: cs.Dataset.Split, insts: cs.loaded.Instances, budget: cs.budget,
			limiters: cs.limiters, backend: r.be.backend, pool: backend, network: r.network, stderr: stderr, install: cs.install})
		if err != nil {
			return fmt.Errorf("cell %s: %w", cs.Name, err)
		}
		defer closeIA()
		cells[k].Installed = ia
		if sf.Eval {
			if cs.eval, err = newEvaluator(backend, st.families, filepath.Join(cs.path, "eval"), cs.runID, r.workers, sf.EvalTimeout, false, tmpl, stop, cs.logger.With("eval", cs.runID), cellEnvironmentCheck(cs.loaded)); err != nil {
				return err
			}
			cells[k].AfterInstance = evalHook(cs, progress)
		}
	}

	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	var deadlineHit atomic.Bool
	if sf.MaxDuration > 0 {
		t := time.AfterFunc(sf.MaxDuration, func() {
			deadlineHit.Store(true)
			logger.Warn("sweep deadline reached; cancelling running instances", "max_duration", sf.MaxDuration.String())
			cancelRun()
		})
		defer t.Stop()
	}
	sw, runErr := runner.Sweep(runCtx, cells, runner.SweepOptions{
		Version: version, Workers: r.workers, Backend: backend, Limits: limits, Progress: progress, Stop: stop,
		BackendWait: r.backendWait, Logger: logger,
	})
	// Safety net: no container of the sweep outlives it.
	for _, cs := range st.cells {
		for pass := 0; pass < 3; pass++ {
			n, err := backend.Sweep(ctx, sandbox.Selector{RunID: cs.runID})
			if err != nil {
				fmt.Fprintln(stderr, "swebench-run: warning: removing the sweep's containers:", err)
				break
			}
			if n == 0 {
				break
			}
			logger.Warn("removed containers left at the end of the sweep", "cell", cs.Name, "count", n)
			time.Sleep(2 * time.Second)
		}
	}
	printSweepSummary(stderr, p, st, sw)
	for _, cs := range st.cells {
		if err := exportFamilyPredictions(cs.path, cs.loaded.Instances, cs.out, stderr); err != nil {
			fmt.Fprintf(stderr, "swebench-run: warning: cell %s: %v\n", cs.Name, err)
		}
	}
	if sf.Eval && runErr == nil {
		for _, cs := range st.cells {
			if _, _, _, err := writeEvalReport(ctx, cs.eval, cs.loaded.Instances, cs.out, cs.runID); err != nil {
				runErr = fmt.Errorf("cell %s: evaluation report: %w", cs.Name, err)
				break
			}
		}
	}
	if runErr == nil || errors.Is(runErr, runner.ErrInterrupted) {
		// A sweep cut by its deadline or a budget is still compared: every cell ran the same
		// instances.
		if err := p.compare(stdout, stderr, now); err != nil {
			fmt.Fprintln(stderr, "swebench-run: warning: comparing the cells:", err)
		}
	}
	return sweepOutcome(p, st, sw, runErr, deadlineHit.Load())
}

// restoreBudgets makes every budget count what the cells it covers spent in earlier runs (their
// ledgers), so that limits hold across resumes: a cell's own, its model's (over the model's
// cells) and the sweep's (over all cells). It returns what each model's cells spent.
func (st *sweepState) restoreBudgets(models int) []float64 {
	var total float64
	var totalCalls int
	spentBy := make([]float64, models)
	callsBy := make([]int, models)
	for _, cs := range st.cells {
		spent, calls := cs.out.Spent()
		cs.budget.Restore(spent, calls)
		spentBy[cs.Model.Index] += spent
		callsBy[cs.Model.Index] += calls
		total += spent
		totalCalls += calls
	}
	for k := range spentBy {
		st.modelBudget[k].Restore(spentBy[k], callsBy[k])
	}
	st.sweepBudget.Restore(total, totalCalls)
	return spentBy
}

// evalHook evaluates a cell's prediction as soon as it exists, and reports the verdict to the
// progress display.
func evalHook(cs *cellState, progress runner.Progress) func(context.Context, dataset.Instance, *results.Prediction) {
	return func(ctx context.Context, inst dataset.Instance, pred *results.Prediction) {
		if pred == nil {
			return
		}
		progress.Event(runner.Event{Cell: cs.Name, Instance: inst.InstanceID, Phase: runner.PhaseEvaluating})
		patch := pred.ModelPatch
		res, err := cs.eval.Evaluate(ctx, inst, eval.Prediction{InstanceID: pred.InstanceID, ModelNameOrPath: pred.ModelNameOrPath, ModelPatch: &patch})
		if err != nil {
			cs.logger.Warn("evaluation failed", "instance", inst.InstanceID, "err", err)
			return
		}
		progress.Event(runner.Event{Cell: cs.Name, Instance: inst.InstanceID, Phase: runner.PhaseEvaluated, Resolved: res.Outcome == eval.Resolved})
	}
}

// reportRepairs tells what results.Open repaired in an output directory.
func reportRepairs(stderr io.Writer, path string, out *results.Dir) {
	if out.TornLedger {
		fmt.Fprintf(stderr, "swebench-run: %s: the last line of %s was torn by a crash and was dropped; that instance will run again\n", path, results.LedgerFile)
	}
	if out.RepairedPreds > 0 {
		fmt.Fprintf(stderr, "swebench-run: %s: restored %d predictions that a crash kept out of %s, from their trajectories\n", path, out.RepairedPreds, results.PredsFile)
	}
	if len(out.MissingPreds) > 0 {
		fmt.Fprintf(stderr, "swebench-run: warning: %s: %d finished instances have neither a prediction nor a trajectory (%s): rerun them with --instance-ids and --redo-existing\n", path, len(out.MissingPreds), strings.Join(out.MissingPreds, ","))
	}
}

// printSweepSummary prints one line per cell: what ran, its cost, its statuses, why it stopped.
func printSweepSummary(w io.Writer, p *sweepJob, st *sweepState, sw runner.SweepSummary) {
	width := 0
	for _, cs := range st.cells {
		width = max(width, len(cs.Name))
	}
	fmt.Fprintf(w, "\nsweep %s:\n", p.Dir)
	for k, cs := range st.cells {
		var sum runner.CellSummary
		if k < len(sw.Cells) {
			sum = sw.Cells[k]
		}
		by := cs.out.ExitStatuses()
		keys := make([]string, 0, len(by))
		for s := range by {
			keys = append(keys, s)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, s := range keys {
			parts[i] = fmt.Sprintf("%s:%d", s, len(by[s]))
		}
		retried := ""
		if sum.Retried > 0 {
			retried = fmt.Sprintf(" (%d failed attempts retried)", sum.Retried)
		}
		fmt.Fprintf(w, "  %-*s %d selected, %d skipped, %d ran%s, $%.4f  %s\n", width, cs.Name, sum.Selected, sum.Skipped, sum.Ran, retried, sum.Cost, strings.Join(parts, " "))
		if sum.Stopped != nil {
			fmt.Fprintf(w, "  %-*s stopped: %v\n", width, "", sum.Stopped)
		}
	}
	fmt.Fprintf(w, "spent $%.4f in all (earlier runs included)\n", st.sweepBudget.Spent())
}

// compare writes compare.json and compare.md over the cells (repeats grouped by variant,
// against the baseline when given), prints the comparison, and with evaluation appends a history
// line per cell beside the sweep folders.
func (p *sweepJob) compare(stdout, stderr io.Writer, now time.Time) error {
	sf := p.File
	runs, err := compare.Read(compare.Source{Path: p.Dir}, compare.ReadOptions{AllowUnevaluated: true})
	if err != nil {
		return err
	}
	history, torn, err := compare.ReadHistory(p.History)
	if err != nil {
		return err
	}
	if torn {
		fmt.Fprintf(stderr, "swebench-run: warning: %s: the last line is torn (a crash while appending) and was ignored\n", p.History)
	}
	opts := compare.Options{Baseline: sf.Baseline, History: history, IncludeBroken: p.includeBroken}
	if opts.Validation, opts.ValidationSource, err = runsValidation(runs, ""); err != nil {
		return err
	}
	res, err := compare.Compare(runs, opts)
	if err != nil {
		return err
	}
	var js, md bytes.Buffer
	if err := compare.WriteJSON(&js, res); err != nil {
		return err
	}
	if err := compare.WriteMarkdown(&md, res); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(p.Dir, sweep.CompareJSON), js.Bytes(), 0o644); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(p.Dir, sweep.CompareMD), md.Bytes(), 0o644); err != nil {
		return err
	}
	if err := compare.WriteText(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "comparison: %s, %s\n", filepath.Join(p.Dir, sweep.CompareJSON), filepath.Join(p.Dir, sweep.CompareMD))
	if !sf.Eval {
		return nil
	}
	entries := sweep.NewHistoryEntries(runs, history, now)
	if err := compare.AppendHistory(p.History, entries); err != nil {
		return err
	}
	if len(entries) > 0 {
		fmt.Fprintf(stderr, "history: %d lines appended to %s\n", len(entries), p.History)
	}
	return nil
}

// sweepOutcome maps the sweep's end to the command's error and exit code.
func sweepOutcome(p *sweepJob, st *sweepState, sw runner.SweepSummary, runErr error, deadline bool) error {
	sf := p.File
	switch {
	case errors.Is(runErr, runner.ErrInterrupted) && deadline:
		return &exitStatusError{code: exitInterrupted, msg: fmt.Sprintf("max_duration %s reached; every cell stopped at the same instances; rerun the same command to resume", sf.MaxDuration)}
	case errors.Is(runErr, runner.ErrInterrupted):
		return &exitStatusError{code: exitInterrupted, msg: "interrupted; rerun the same command to resume"}
	case runErr != nil:
		return runErr
	}
	var stopped, budget []string
	failed, unfinished := 0, 0
	for _, c := range sw.Cells {
		if c.Stopped != nil {
			stopped = append(stopped, fmt.Sprintf("%s: %v", c.Name, c.Stopped))
		}
		if c.BudgetExhausted {
			budget = append(budget, c.Name)
		}
		failed += c.Failed
		unfinished += c.Unfinished
	}
	switch {
	case len(stopped) > 0:
		return fmt.Errorf("%d cells stopped on a fatal model error, the others finished:\n  %s\nfix those models' settings and rerun the same command to run the rest of their cells",
			len(stopped), strings.Join(stopped, "\n  "))
	case len(budget) > 0:
		return fmt.Errorf("a cost limit is spent (sweep max_cost $%.2f: $%.4f spent, across resumes; per model: max_cost of its entry): cells %s stopped, %d running instances were cut (%s); they run again from the start when you raise the limit and rerun the same command",
			sf.MaxCost, st.sweepBudget.Spent(), strings.Join(budget, ", "), unfinished, model.StatusRunBudgetExhausted)
	case failed > 0:
		return &exitStatusError{code: exitFailedInsts, msg: failedMessage(failed, sf.MaxAttempts)}
	}
	return nil
}
