package main

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/runner"
	"github.com/swebench-run/swebench-run/sandbox"
)

// Files a sweep writes into its folder besides the cells and sweep.json.
const (
	sweepCompareJSON = "compare.json"
	sweepCompareMD   = "compare.md"
)

// runSweep runs the sweep f describes.
func runSweep(ctx context.Context, stop <-chan struct{}, f *sweepFlags, stdout, stderr io.Writer) error {
	now := time.Now()
	sf, err := f.load()
	if err != nil {
		return err
	}
	p, err := sf.plan(f.run, now)
	if err != nil {
		return err
	}
	pull := dockerenv.PullPolicy(p.run.pull)
	switch pull {
	case dockerenv.PullMissing, dockerenv.PullAlways, dockerenv.PullNever:
	default:
		return fmt.Errorf("%w: %spull %q: want missing, always or never", errUsage, sf.at(sf.lines.keys["pull"]), p.run.pull)
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
		printPlan(stdout, p)
		return nil
	}
	return p.execute(ctx, stop, st, pull, limits, now, stdout, stderr)
}

// sweepState is what prepare builds for each model and cell before anything runs.
type sweepState struct {
	configs     []*configs.Config // by model
	modelBudget []*model.Budget   // by model
	sweepBudget *model.Budget
	cells       []*cellState
}

// cellState is one cell being run.
type cellState struct {
	*sweepCell
	cfg       *configs.Config
	models    runner.Models
	modelName string
	budget    *model.Budget
	path      string // <sweep>/<dir>
	out       *results.Dir
	runID     string
	logger    *slog.Logger
	eval      *eval.Evaluator
}

// prepare checks everything that can be checked before anything runs: every model's config
// (loaded strictly), every dataset (loaded and selected; evaluable with eval), and every cell's
// model (known price, API key). Errors name the sweep file's entry and line.
func (p *sweepPlan) prepare(ctx context.Context, stderr io.Writer) (*sweepState, error) {
	sf := p.file
	st := &sweepState{sweepBudget: model.NewBudget(sf.MaxCost)}
	for _, m := range p.models {
		var vals []string
		for _, v := range append(append([]string{}, sf.Config...), m.spec.Config...) {
			if files, _ := splitConfigArgs([]string{v}); len(files) == 1 {
				v = sf.relToFile(v)
			}
			vals = append(vals, v)
		}
		files, overrides := splitConfigArgs(vals)
		cfg, err := configs.Load(files, overrides)
		if err != nil {
			return nil, fmt.Errorf("%smodels[%d] (%s): %w", sf.modelAt(m.index), m.index, m.name, err)
		}
		cfg.Model.ModelName = m.spec.Model
		cfg.Set("model.model_name", m.spec.Model)
		for _, k := range cfg.Ignored {
			fmt.Fprintf(stderr, "swebench-run: %s: config key %s has no meaning here and is ignored\n", m.name, k)
		}
		st.configs = append(st.configs, cfg)
		st.modelBudget = append(st.modelBudget, model.NewBudget(m.spec.MaxCost, st.sweepBudget))
	}
	require := dataset.RequireRun
	if sf.Eval {
		require = dataset.RequireEval
	}
	for _, d := range p.datasets {
		sel := d.sel
		loaded, err := dataset.Load(ctx, d.split, dataset.LoadOptions{Progress: stderr, Selection: &sel, Require: require, Complete: sf.Eval})
		if err != nil {
			return nil, fmt.Errorf("%sdatasets[%d] (%s): %w", sf.datasetAt(d.index), d.index, d.name, err)
		}
		// An image template given explicitly (the dataset's, else the sweep's) names every row's
		// image, as --image-template does for run.
		if tmpl := d.spec.ImageTemplate; tmpl != "" || p.run.imageTemplateSet {
			if tmpl == "" {
				tmpl = p.run.imageTemplate
			}
			if err := dataset.ApplyImageTemplate(loaded.Instances, tmpl); err != nil {
				return nil, fmt.Errorf("%sdatasets[%d] (%s): %w", sf.datasetAt(d.index), d.index, d.name, err)
			}
		}
		if sf.Eval {
			if err := eval.CheckInstances(loaded.Instances); err != nil {
				return nil, fmt.Errorf("%sdatasets[%d] (%s): %w", sf.datasetAt(d.index), d.index, d.name, err)
			}
		}
		if len(loaded.Instances) == 0 {
			return nil, fmt.Errorf("%sdatasets[%d] (%s): the selection is empty", sf.datasetAt(d.index), d.index, d.name)
		}
		d.loaded = loaded
	}
	// One rate limiter per provider endpoint, model and key over all cells.
	limiters := model.NewLimiters()
	for _, c := range p.cells {
		cs := &cellState{sweepCell: c, cfg: st.configs[c.model.index], path: filepath.Join(p.dir, c.dir)}
		cs.budget = model.NewBudget(0, st.modelBudget[c.model.index])
		var err error
		if cs.models, cs.modelName, err = newProvider(cs.cfg, c.data.split, cs.budget, limiters); err != nil {
			return nil, fmt.Errorf("%smodels[%d] (%s): %w", sf.modelAt(c.model.index), c.model.index, c.model.name, err)
		}
		st.cells = append(st.cells, cs)
	}
	return st, nil
}

// manifest is the sweep.json of the planned matrix.
func (p *sweepPlan) manifest(st *sweepState, now time.Time) (*compare.Sweep, error) {
	s := &compare.Sweep{SchemaVersion: compare.SweepSchemaVersion, Name: p.name, Created: now.UTC().Truncate(time.Second)}
	for _, cs := range st.cells {
		config, _ := normalize(cs.cfg.Dump()).(map[string]any)
		ds, err := json.Marshal(cs.data.loaded.Manifest())
		if err != nil {
			return nil, err
		}
		name, rev := compare.DatasetOf(ds)
		s.Cells = append(s.Cells, compare.Cell{Name: cs.name, Variant: cs.variant, Dir: cs.dir, Model: cs.modelName,
			ConfigHash: compare.ConfigHash(config), Dataset: name, DatasetRevision: rev, Repeat: cs.repeat})
	}
	return s, s.Validate()
}

// matrixChanges names what differs between the matrix of a sweep folder and the planned one.
func matrixChanges(prev, cur *compare.Sweep) []string {
	var out []string
	old := map[string]compare.Cell{}
	for _, c := range prev.Cells {
		old[c.Name] = c
	}
	seen := map[string]bool{}
	for _, c := range cur.Cells {
		seen[c.Name] = true
		o, ok := old[c.Name]
		if !ok {
			out = append(out, fmt.Sprintf("cell %s added", c.Name))
			continue
		}
		for _, d := range []struct{ what, a, b string }{
			{"variant", o.Variant, c.Variant}, {"dir", o.Dir, c.Dir}, {"model", o.Model, c.Model},
			{"config_hash", o.ConfigHash, c.ConfigHash}, {"dataset", o.Dataset, c.Dataset},
			{"dataset_revision", o.DatasetRevision, c.DatasetRevision}, {"repeat", fmt.Sprint(o.Repeat), fmt.Sprint(c.Repeat)},
		} {
			if d.a != d.b {
				out = append(out, fmt.Sprintf("cell %s: %s %s → %s", c.Name, d.what, short(d.a), short(d.b)))
			}
		}
	}
	for _, c := range prev.Cells {
		if !seen[c.Name] {
			out = append(out, fmt.Sprintf("cell %s removed", c.Name))
		}
	}
	return out
}

func short(s string) string {
	if len(s) > 24 {
		return s[:21] + "…"
	}
	if s == "" {
		return `""`
	}
	return s
}

// execute runs a prepared sweep: locks, sweep.json, the cells' directories and budgets, the
// backend, the runner, then the reports, the comparison and the history.
func (p *sweepPlan) execute(ctx context.Context, stop <-chan struct{}, st *sweepState, pull dockerenv.PullPolicy, limits sandbox.Limits, now time.Time, stdout, stderr io.Writer) error {
	sf, r := p.file, &p.run
	lock, err := lockOutput(ctx, p.dir, r.wait, stderr)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	man, err := p.manifest(st, now)
	if err != nil {
		return fmt.Errorf("sweep %s: %w", p.dir, err)
	}
	if _, err := os.Stat(filepath.Join(p.dir, compare.SweepFile)); err == nil {
		prev, err := compare.ReadSweep(p.dir)
		if err != nil {
			return err
		}
		if changes := matrixChanges(prev, man); len(changes) > 0 {
			if !r.force {
				return fmt.Errorf("%s holds a sweep with another matrix: %s. Resuming would mix incomparable results: rerun with the same sweep file and flags, use another --name, or --force to resume anyway",
					p.dir, strings.Join(changes, "; "))
			}
			fmt.Fprintf(stderr, "swebench-run: --force: resuming %s with a changed matrix: %s\n", p.dir, strings.Join(changes, "; "))
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
		m, err := prepareManifest(cs.out, "", r.force, cs.cfg, cs.data.loaded, cs.modelName)
		if err != nil {
			return fmt.Errorf("cell %s: %w", cs.name, err)
		}
		cs.runID = m.RunID
	}
	if err := compare.WriteSweep(p.dir, man); err != nil {
		return err
	}

	modelSpent := st.restoreBudgets(len(p.models))
	if sf.MaxCost > 0 {
		fmt.Fprintf(stderr, "swebench-run: sweep cost limit $%.2f: $%.4f spent by earlier runs of %s, $%.4f left\n", sf.MaxCost, st.sweepBudget.Earlier(), p.dir, st.sweepBudget.Left())
	}
	for k, m := range p.models {
		if m.spec.MaxCost > 0 {
			fmt.Fprintf(stderr, "swebench-run: cost limit of %s $%.2f: $%.4f spent by earlier runs, $%.4f left\n", m.name, m.spec.MaxCost, modelSpent[k], st.modelBudget[k].Left())
		}
	}

	logFile, err := os.OpenFile(filepath.Join(p.dir, results.LogFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	defer logFile.Close()
	logger := slog.New(slog.NewJSONHandler(logFile, nil)).With("sweep", p.name)
	for _, cs := range st.cells {
		f, err := os.OpenFile(filepath.Join(cs.path, results.LogFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("log file: %w", err)
		}
		defer f.Close()
		cs.logger = slog.New(slog.NewJSONHandler(f, nil)).With("run", cs.runID, "sweep", p.name, "cell", cs.name)
	}

	progress := chooseProgress(r, stderr)
	// The pods' settings come from the models' configs (their kubernetes section), which must
	// agree: one backend serves every cell.
	kubeCfg := st.configs[0]
	for k, cfg := range st.configs[1:] {
		if !reflect.DeepEqual(cfg.Kubernetes, kubeCfg.Kubernetes) {
			return fmt.Errorf("%smodels[%d] (%s): its config's kubernetes section differs from models[0]'s; one backend serves every cell, so give them the same", sf.modelAt(p.models[k+1].index), p.models[k+1].index, p.models[k+1].name)
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
		tmpl := cs.data.spec.ImageTemplate
		if tmpl == "" {
			tmpl = r.imageTemplate
		}
		cells[k] = runner.Cell{
			Name: cs.name, RunID: cs.runID, Config: cs.cfg, Models: cs.models, ModelName: cs.modelName,
			Out: cs.out, Instances: cs.data.loaded.Instances, ImageTemplate: tmpl, Budget: cs.budget, Logger: cs.logger,
			Resume: runner.Resume{MaxAttempts: sf.MaxAttempts},
		}
		if sf.Eval {
			if cs.eval, err = newEvaluator(backend, filepath.Join(cs.path, "eval"), cs.runID, r.workers, sf.EvalTimeout, false, tmpl, stop); err != nil {
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
			logger.Warn("removed containers left at the end of the sweep", "cell", cs.name, "count", n)
			time.Sleep(2 * time.Second)
		}
	}
	printSweepSummary(stderr, p, st, sw)
	if sf.Eval && runErr == nil {
		for _, cs := range st.cells {
			if _, _, _, err := writeEvalReport(ctx, cs.eval, cs.data.loaded.Instances, cs.out, cs.runID); err != nil {
				runErr = fmt.Errorf("cell %s: evaluation report: %w", cs.name, err)
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
		spentBy[cs.model.index] += spent
		callsBy[cs.model.index] += calls
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
		progress.Event(runner.Event{Cell: cs.name, Instance: inst.InstanceID, Phase: runner.PhaseEvaluating})
		patch := pred.ModelPatch
		res, err := cs.eval.Evaluate(ctx, inst, eval.Prediction{InstanceID: pred.InstanceID, ModelNameOrPath: pred.ModelNameOrPath, ModelPatch: &patch})
		if err != nil {
			cs.logger.Warn("evaluation failed", "instance", inst.InstanceID, "err", err)
			return
		}
		progress.Event(runner.Event{Cell: cs.name, Instance: inst.InstanceID, Phase: runner.PhaseEvaluated, Resolved: res.Outcome == eval.Resolved})
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
func printSweepSummary(w io.Writer, p *sweepPlan, st *sweepState, sw runner.SweepSummary) {
	width := 0
	for _, cs := range st.cells {
		width = max(width, len(cs.name))
	}
	fmt.Fprintf(w, "\nsweep %s:\n", p.dir)
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
		fmt.Fprintf(w, "  %-*s %d selected, %d skipped, %d ran, $%.4f  %s\n", width, cs.name, sum.Selected, sum.Skipped, sum.Ran, sum.Cost, strings.Join(parts, " "))
		if sum.Stopped != nil {
			fmt.Fprintf(w, "  %-*s stopped: %v\n", width, "", sum.Stopped)
		}
	}
	fmt.Fprintf(w, "spent $%.4f in all (earlier runs included)\n", st.sweepBudget.Spent())
}

// compare writes compare.json and compare.md over the cells (repeats grouped by variant,
// against the baseline when given), prints the comparison, and with evaluation appends a history
// line per cell beside the sweep folders.
func (p *sweepPlan) compare(stdout, stderr io.Writer, now time.Time) error {
	sf := p.file
	runs, err := compare.Read(compare.Source{Path: p.dir}, compare.ReadOptions{AllowUnevaluated: true})
	if err != nil {
		return err
	}
	history, torn, err := compare.ReadHistory(p.history)
	if err != nil {
		return err
	}
	if torn {
		fmt.Fprintf(stderr, "swebench-run: warning: %s: the last line is torn (a crash while appending) and was ignored\n", p.history)
	}
	res, err := compare.Compare(runs, compare.Options{Baseline: sf.Baseline, History: history})
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
	if err := results.WriteFileAtomic(filepath.Join(p.dir, sweepCompareJSON), js.Bytes(), 0o644); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(p.dir, sweepCompareMD), md.Bytes(), 0o644); err != nil {
		return err
	}
	if err := compare.WriteText(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "comparison: %s, %s\n", filepath.Join(p.dir, sweepCompareJSON), filepath.Join(p.dir, sweepCompareMD))
	if !sf.Eval {
		return nil
	}
	entries := newHistoryEntries(runs, history, now)
	if err := compare.AppendHistory(p.history, entries); err != nil {
		return err
	}
	if len(entries) > 0 {
		fmt.Fprintf(stderr, "history: %d lines appended to %s\n", len(entries), p.history)
	}
	return nil
}

// newHistoryEntries makes a history line per cell, leaving out the cells whose latest line
// already says the same (a resumed sweep that had nothing left to do appends nothing).
func newHistoryEntries(runs []*compare.Run, history []compare.HistoryEntry, now time.Time) []compare.HistoryEntry {
	latest := map[string]compare.HistoryEntry{}
	for _, e := range history {
		latest[e.Sweep+"\x00"+e.Cell] = e
	}
	var out []compare.HistoryEntry
	for _, r := range runs {
		e := compare.NewHistoryEntry(r, now)
		if prev, ok := latest[e.Sweep+"\x00"+e.Cell]; ok && sameResult(prev, e) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// sameResult reports whether two history lines of a cell hold the same result.
func sameResult(a, b compare.HistoryEntry) bool {
	return a.Counts == b.Counts && a.ConfigHash == b.ConfigHash && a.DatasetRevision == b.DatasetRevision &&
		reflect.DeepEqual(a.ResolvedIDs, b.ResolvedIDs) && reflect.DeepEqual(a.EvaluatedIDs, b.EvaluatedIDs) &&
		fmt.Sprintf("%.6f", a.Cost) == fmt.Sprintf("%.6f", b.Cost)
}

// sweepOutcome maps the sweep's end to the command's error and exit code.
func sweepOutcome(p *sweepPlan, st *sweepState, sw runner.SweepSummary, runErr error, deadline bool) error {
	sf := p.file
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
		return &exitStatusError{code: exitFailedInsts, msg: fmt.Sprintf("%d instances ended with infrastructure failures; rerun the same command to retry them", failed)}
	}
	return nil
}
