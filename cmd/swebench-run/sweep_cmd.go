package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/sweep"
)

const sweepExitCodes = `  0    every cell finished
  1    the sweep failed (bad sweep file or input, the backend away longer than backend_wait,
       output not writable), a cell stopped on a fatal model error (the others finished), or
       a cost limit was spent
  2    bad command line
  3    the sweep finished, but infrastructure failures remain after the retries within the
       sweep: rerun the same command to retry them
  130  interrupted (Ctrl-C, SIGTERM, SIGHUP or --max-duration): rerun the same command to resume`

type sweepFlags struct {
	run       runFlags // where containers run, limits, progress: run's flags
	file      string
	models    []string
	runConfig []string
	splits    []string
	filter    string
	slice     string
	ids       string
	exclude   string
	shard     string
	repeats   int
	maxCost   float64
	maxDur    time.Duration
	eval      bool
	evalTO    time.Duration
	name      string
	output    string
	history   string
	baseline  string
	maxTries  int
	force     bool
	dryRun    bool
	// includeBroken keeps the instances whose environment is broken in compare.json's figures.
	includeBroken bool
	fs            *pflag.FlagSet
}

func newSweepCmd(stop <-chan struct{}) *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:     "sweep -c SWEEP.yaml [flags]",
		Short:   "run a matrix of models × configs × datasets × repeats in one job, then compare",
		GroupID: groupBatch,
		Long: `Runs a sweep: every model of the sweep file (each with its own configs: two temperatures of one
model are two models) on every dataset, repeats times. Each cell (model × dataset × repeat) is an
ordinary output directory inside the sweep folder <output>/<name>, so stats, eval, merge, inspect,
compare and resume work on a cell as on any run; sweep.json records the matrix.

One worker pool and one backend serve all cells, in paired order: instance i runs for every cell
before instance i+1 starts anywhere, so a sweep stopped by its deadline or a budget leaves every
cell on the same instances. Cells calling one provider's model share its rate limits; an image
several cells need is pulled once and kept until its last cell is done. A cell whose model fails
fatally (a refused API key, an unknown model) stops alone, with the reason; the others go on.

Cost limits hold across resumes: max_cost for the whole sweep, and per model (over its cells).
At the end the sweep writes compare.json and compare.md (the cells compared dataset by dataset,
repeats grouped by model, against the baseline model when given, and pooled over the datasets)
and, with evaluation, appends one line per cell to the history file beside the sweep folders,
which 'compare --history' reads. Rerunning the same command resumes the sweep; a changed matrix
is refused unless --force.

Flags override the sweep file; without a file, --model and --split make the matrix.`,
		Example: `  # tonight's sweep from its file (its keys: docs/sweeps.md)
  swebench-run sweep -c nightly.yaml
  # two models on 50 Lite instances, 3 repeats each, evaluated, without a file
  swebench-run sweep --model sonnet=anthropic/claude-sonnet-4-5 --model gpt5=openai/gpt-5 \
      --split lite --slice 0:50 --repeats 3 --eval --max-cost 40 --name lite-{date}
  # the matrix a sweep file makes, without Docker or a model
  swebench-run sweep -c nightly.yaml --dry-run`,
		Annotations: map[string]string{annExitCodes: sweepExitCodes},
		Args:        noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.run.be.check(cmd.Flags(), dockerOnlyFlags...); err != nil {
				return err
			}
			return runSweep(cmd.Context(), stop, &f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f.register(cmd.Flags())
	f.run.be.register(cmd, cmd.Flags())
	registerBackendWait(cmd.Flags(), &f.run.backendWait)
	completeFlags(cmd, map[string]cobra.CompletionFunc{
		"config":      cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault),
		"split":       completeDataset,
		"run-config":  completeConfig,
		"pull":        oneOf("missing", "always", "never"),
		"image-cache": oneOf("keep", "remove", "budget="),
		"network":     oneOf("bridge", "none"),
		"progress":    oneOf("auto", "bar", "lines", "json", "none"),
		"output":      completeDirs,
	})
	return cmd
}

func (f *sweepFlags) register(fs *pflag.FlagSet) {
	fs.SortFlags = false
	f.fs = fs

	fs.StringVarP(&f.file, "config", "c", "", "the sweep file (YAML): models, datasets, repeats, budgets, … (see docs/sweeps.md)")
	fs.StringArrayVar(&f.models, "model", nil, "a model of the matrix, named NAME (default: from MODEL); replaces the file's models")
	fs.StringArrayVar(&f.runConfig, "run-config", nil, "config file, shipped config or key.path=value override for every model, after the file's config")
	fs.IntVar(&f.repeats, "repeats", 0, "runs of every model × dataset (default 1)")
	flagGroup(fs, "Matrix", "config", "model", "run-config", "repeats")
	metavar(fs, "config", "SWEEP.yaml")
	metavar(fs, "model", "[NAME=]MODEL")
	metavar(fs, "run-config", "FILE|KEY=VALUE")
	metavar(fs, "repeats", "N")

	fs.StringArrayVar(&f.splits, "split", nil, "a dataset of the matrix, as run's --split; replaces the file's datasets")
	fs.StringVar(&f.filter, "filter", "", "regex matched at the start of instance ids, for every dataset")
	fs.StringVar(&f.slice, "slice", "", "Python-style slice of every dataset's selection, e.g. 0:50")
	fs.StringVar(&f.ids, "instance-ids", "", "only these ids: id,id,… or @FILE, for every dataset")
	fs.StringVar(&f.exclude, "exclude", "", "skip these ids: id,id,… or @FILE")
	fs.StringVar(&f.shard, "shard", "", "run part I of N (I/N) of every dataset's selection")
	fs.BoolVar(&f.dryRun, "dry-run", false, "check the sweep (file, configs, models, datasets), print its cells and exit without Docker or a model")
	flagGroup(fs, groupSelection, "split", "filter", "slice", "instance-ids", "exclude", "shard", "dry-run")
	metavar(fs, "split", "DATASET")
	metavar(fs, "filter", "REGEX")
	metavar(fs, "slice", "START:STOP[:STEP]")
	metavar(fs, "instance-ids", "IDS")
	metavar(fs, "exclude", "IDS")
	metavar(fs, "shard", "I/N")

	f.run.registerDocker(fs)

	fs.StringVar(&f.run.memory, "memory", "", "memory limit per container, e.g. 8g (default unlimited)")
	fs.Float64Var(&f.run.cpus, "cpus", 0, "CPUs per container (default unlimited)")
	fs.Int64Var(&f.run.pids, "pids-limit", 0, "process limit per container (default 4096; -1 unlimited)")
	fs.Float64Var(&f.maxCost, "max-cost", 0, "cost limit in dollars of the whole sweep, across resumes (0 = none; per-model limits: max_cost of a model in the file)")
	fs.DurationVar(&f.maxDur, "max-duration", 0, "sweep deadline, e.g. 8h: then running instances are cancelled (and retried on resume), the comparison is written and the sweep exits 130 (0 = none)")
	flagGroup(fs, groupLimits, "memory", "cpus", "pids-limit", "max-cost", "max-duration")
	metavar(fs, "memory", "SIZE")
	metavar(fs, "max-cost", "DOLLARS")

	fs.IntVar(&f.maxTries, "max-attempts", 3, "attempts per instance for infrastructure failures, over all resumes")
	fs.BoolVar(&f.force, "force", false, "resume even if the matrix (cells, models, configs, datasets) differs from the sweep folder's sweep.json")
	flagGroup(fs, groupResume, "max-attempts", "force")

	fs.BoolVar(&f.eval, "eval", false, "evaluate each prediction as soon as it exists; the comparison then has resolved rates, and the history a line per cell")
	fs.DurationVar(&f.evalTO, "eval-timeout", eval.DefaultTimeout, "with --eval: time limit of one instance's eval script")
	flagGroup(fs, groupEval, "eval", "eval-timeout")

	fs.StringVar(&f.name, "name", "", "name template of the sweep folder: {date} (YYYY-MM-DD) and {time} (HHMMSS), local time (default "+sweep.DefaultName+")")
	fs.StringVarP(&f.output, "output", "o", "", "folder of the sweep folders and the history file (default "+sweep.DefaultOutput+")")
	fs.StringVar(&f.history, "history-file", "", "history file (default <output>/"+compare.HistoryFile+")")
	fs.StringVar(&f.baseline, "baseline", "", "the model the others are compared with in compare.json, on each dataset; its regressions are listed")
	fs.BoolVar(&f.includeBroken, "include-broken", false, "keep the instances whose environment the validation (swebench-run validate) found broken in compare.json's figures")
	fs.StringVar(&f.run.progress, "progress", "auto", "progress display: auto, bar, lines, json or none")
	fs.BoolVar(&f.run.quiet, "quiet", false, "no progress display (same as --progress none)")
	waitFlag(fs, &f.run.wait)
	flagGroup(fs, groupOutput, "name", "output", "history-file", "baseline", "include-broken", "progress", "quiet", "wait")
	metavar(fs, "name", "TEMPLATE")
	metavar(fs, "output", "DIR")
	metavar(fs, "history-file", "FILE")
	metavar(fs, "baseline", "NAME")
	metavar(fs, "progress", "MODE")
}

// changed reports whether the flag was given on the command line.
func (f *sweepFlags) changed(name string) bool {
	return f.fs != nil && f.fs.Changed(name)
}

// load reads the sweep file (when given) and applies the flags over it.
func (f *sweepFlags) load() (*sweep.File, error) {
	sf := sweep.NewFile()
	if f.file != "" {
		var err error
		if sf, err = sweep.ReadFile(f.file); err != nil {
			return nil, err
		}
	}
	if len(f.models) > 0 {
		var models []sweep.ModelSpec
		for _, m := range f.models {
			name, mod, ok := strings.Cut(m, "=")
			if !ok {
				name, mod = "", m
			}
			models = append(models, sweep.ModelSpec{Name: name, Model: mod})
		}
		sf.ReplaceModels(models)
	}
	if len(f.splits) > 0 {
		var datasets []sweep.DatasetSpec
		for _, s := range f.splits {
			datasets = append(datasets, sweep.DatasetSpec{Split: s})
		}
		sf.ReplaceDatasets(datasets)
	}
	ids, err := parseIDs(f.ids, "--instance-ids")
	if err != nil {
		return nil, err
	}
	exclude, err := parseIDs(f.exclude, "--exclude")
	if err != nil {
		return nil, err
	}
	for k := range sf.Datasets {
		d := &sf.Datasets[k]
		if f.changed("filter") {
			d.Filter = f.filter
		}
		if f.changed("slice") {
			d.Slice = f.slice
		}
		if f.changed("shard") {
			d.Shard = f.shard
		}
		if ids != nil {
			d.InstanceIDs = ids
		}
		if exclude != nil {
			d.Exclude = exclude
		}
	}
	sf.Config = append(sf.Config, f.runConfig...)
	override := func(flag string, apply func()) {
		if f.changed(flag) {
			apply()
		}
	}
	override("repeats", func() { sf.Repeats = f.repeats })
	override("max-cost", func() { sf.MaxCost = f.maxCost })
	override("max-duration", func() { sf.MaxDuration = f.maxDur })
	override("eval", func() { sf.Eval = f.eval })
	override("eval-timeout", func() { sf.EvalTimeout = f.evalTO })
	override("name", func() { sf.Name = f.name })
	override("output", func() { sf.Output = f.output })
	override("history-file", func() { sf.History = f.history })
	override("baseline", func() { sf.Baseline = f.baseline })
	override("max-attempts", func() { sf.MaxAttempts = f.maxTries })
	override("backend-wait", func() { sf.BackendWait = f.run.backendWait })
	// Where containers run: the file's value where the flag was not given.
	r := &f.run
	fromFile := func(flag string, set bool, apply func()) {
		if !f.changed(flag) && set {
			apply()
		}
	}
	fromFile("workers", sf.Workers != 0, func() { r.workers = sf.Workers })
	fromFile("docker-host", len(sf.DockerHosts) > 0, func() { r.dockerHosts = sf.DockerHosts })
	r.imageTemplateSet = f.changed("image-template")
	fromFile("image-template", sf.ImageTemplate != "", func() { r.imageTemplate, r.imageTemplateSet = sf.ImageTemplate, true })
	fromFile("pull", sf.Pull != "", func() { r.pull = sf.Pull })
	fromFile("pull-workers", sf.PullWorkers != 0, func() { r.pullWorkers = sf.PullWorkers })
	fromFile("platform", sf.Platform != "", func() { r.platform = sf.Platform })
	fromFile("image-cache", sf.ImageCache != "", func() { r.imageCache = sf.ImageCache })
	fromFile("network", sf.Network != "", func() { r.network = sf.Network })
	fromFile("memory", sf.Memory != "", func() { r.memory = sf.Memory })
	fromFile("cpus", sf.CPUs != 0, func() { r.cpus = sf.CPUs })
	fromFile("pids-limit", sf.PidsLimit != 0, func() { r.pids = sf.PidsLimit })
	if err := sweepBackend(r, sf.Backend, f.changed("backend")); err != nil {
		return nil, fmt.Errorf("%s%w", sf.At("backend"), err)
	}

	defaults := sweep.Defaults{Repeats: 1, MaxAttempts: f.maxTries, EvalTimeout: eval.DefaultTimeout, BackendWait: f.run.backendWait}
	if f.changed("repeats") {
		defaults.Repeats = 0 // --repeats 0 is refused, not defaulted
	}
	sf.FillDefaults(defaults)
	r.maxAttempts, r.eval, r.evalTimeout, r.maxDuration, r.force = sf.MaxAttempts, sf.Eval, sf.EvalTimeout, sf.MaxDuration, f.force
	r.backendWait = sf.BackendWait
	return sf, nil
}

// sweepBackend applies the sweep file's backend (docker or kubernetes) unless --backend was
// given.
func sweepBackend(r *runFlags, name string, flagSet bool) error {
	switch {
	case name == "" || flagSet:
		return nil
	case name == backendDocker || name == backendKubernetes:
		r.be.backend = name
		return nil
	}
	return fmt.Errorf("backend %q: want docker or kubernetes", name)
}

// printPlan prints the cells of a prepared sweep (the dry run).
func printPlan(w io.Writer, p *sweepJob, st *sweepState) {
	fmt.Fprintf(w, "sweep %s: %d cells (%d models × %d datasets × %d repeats)\n", p.Dir, len(p.Cells), len(p.Models), len(p.Datasets), p.File.Repeats)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CELL\tVARIANT\tREPEAT\tMODEL\tDATASET\tINSTANCES")
	for _, cs := range st.cells {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\n", cs.Name, cs.Variant, cs.Repeat, cs.Model.Spec.Model, cs.Dataset.Split, len(cs.loaded.Instances))
	}
	tw.Flush()
}
