package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/export"
	"github.com/swebench-run/swebench-run/runner"
)

const exportExitCodes = `  0    written
  1    an input could not be read, no trajectory passed the filters, or the output could not be
       written (nothing is written then)
  2    bad command line
  130  interrupted (Ctrl-C): nothing is written`

type exportFlags struct {
	out, format, perInstance, systemPrompt, progress string
	evalLogs                                         []string
	resolved, excludeFlagged, dropFormatErrors       bool
	quiet, asJSON                                    bool
	statuses, models, configHashes, datasets         []string
	repeats                                          []int
	minSteps, maxSteps                               int
	minCost, maxCost                                 float64
	valFraction                                      float64
	seed                                             uint64
}

func newExportCmd(stop <-chan struct{}) *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:     "export RUN|SWEEP|TRAJ… -o FILE --format openai|sharegpt|parquet|swesmith [flags]",
		Short:   "write trajectories as training data: OpenAI fine-tuning, ShareGPT, Parquet for the hub, SWE-smith SFT",
		GroupID: groupResults,
		Long: `Writes the trajectories of runs as training data, the conversation as the model saw it: the system
prompt as sent, observations as sent (truncated as sent), the tool calls and the tools offered;
secrets and this machine's paths replaced by [redacted] and [host-path].

Formats: openai, OpenAI's chat fine-tuning JSONL (messages, tools, weight 1 on the trained
replies, 0 on a reply a format error answered); sharegpt, ShareGPT JSONL in LLaMA-Factory's
convention (system, human, gpt, function_call, observation); parquet, one row per trajectory
with its instance, dataset and revision, family, model, config hash, verdict, cost, tokens,
steps, flags and messages, and a dataset card (README.md) beside it for the HuggingFace hub;
swesmith, SWE-smith's SFT JSONL as its transform_traj_xml writes it (give its system template
with --system-prompt to match its files).

RUN|SWEEP|TRAJ is our output directory, a sweep folder (every cell), mini-swe-agent 1.x or 2.x
output (<id>/<id>.traj.json), a folder of SWE-agent .traj files, or one trajectory file.
Verdicts come from the run's evaluation (eval/), or from --eval-logs, read as compare and report
read them. Trajectories are read one at a time and wait in a spool file beside the output until
the selection is made: memory stays flat however many there are.

--per-instance best keeps, of each instance's trajectories, a resolved one first, then the one
with the fewest steps, then the cheapest, then the first. --val-fraction F splits by repository
(no repository in both): FILE's name gets .train and .validation before its extension. Details:
docs/export.md.`,
		Example: `  swebench-run export runs/sonnet -o sonnet.jsonl --format openai --resolved
  # a sweep: resolved, no flagged command, the best trajectory per instance, 10% validation
  swebench-run export sweeps/nightly -o data/trajs.parquet --format parquet \
      --resolved --exclude-flagged --per-instance best --val-fraction 0.1 --seed 7
  # mini-swe-agent output graded by the harness, as ShareGPT
  swebench-run export out/ --eval-logs logs/run_evaluation/r1/deepseek__deepseek-chat -o d.jsonl --format sharegpt
  # SWE-agent trajectories in SWE-smith's SFT format, with SWE-smith's system prompt
  swebench-run export trajectories/alice/run-1 --eval-logs logs/run_evaluation/run-1 --resolved \
      -o ft_xml.jsonl --format swesmith --system-prompt agent/swesmith_infer.yaml`,
		Annotations: map[string]string{annExitCodes: exportExitCodes},
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return fmt.Errorf("%w: export needs at least one run, sweep or trajectory", errUsage)
			case f.out == "":
				return fmt.Errorf("%w: export needs -o FILE, the file to write", errUsage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), stop, cmd, args, f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeDirs,
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.out, "output", "o", "", "the file to write (with --val-fraction, FILE.train and FILE.validation, the extension kept last)")
	fs.StringVar(&f.format, "format", "", "openai, sharegpt, parquet or swesmith (default: parquet for a .parquet FILE)")
	fs.StringArrayVar(&f.evalLogs, "eval-logs", nil, "harness logs (<DIR>/<id>/report.json) or a run report giving the verdicts of an input without its own evaluation; INPUT= names the input (needless with one input)")
	fs.BoolVar(&f.resolved, "resolved", false, "only trajectories whose evaluation resolved their instance")
	fs.StringSliceVar(&f.statuses, "status", nil, "only these exit statuses (Submitted, LimitsExceeded, …; repeatable or comma-separated)")
	fs.IntVar(&f.minSteps, "min-steps", 0, "only trajectories of at least N model calls")
	fs.IntVar(&f.maxSteps, "max-steps", 0, "only trajectories of at most N model calls")
	fs.Float64Var(&f.minCost, "min-cost", 0, "only trajectories that cost at least this many dollars (an unknown cost is left out)")
	fs.Float64Var(&f.maxCost, "max-cost", 0, "only trajectories that cost at most this many dollars (an unknown cost is left out)")
	fs.BoolVar(&f.excludeFlagged, "exclude-flagged", false, "leave out trajectories with a command that reached beyond the task's start (see audit)")
	fs.StringSliceVar(&f.models, "model", nil, "only runs of this model: a sweep cell's variant or model, or a run's model")
	fs.StringSliceVar(&f.configHashes, "config-hash", nil, "only runs of this config hash (6 digits or more)")
	fs.StringSliceVar(&f.datasets, "dataset", nil, "only runs on this dataset (as sweep.json or run.json records it, e.g. SWE-bench/SWE-bench_Verified:test or SWE-bench_Verified)")
	fs.IntSliceVar(&f.repeats, "repeat", nil, "only these repeats of a sweep's cells")
	fs.StringVar(&f.perInstance, "per-instance", "all", "all, first or best trajectory of each instance")
	fs.Float64Var(&f.valFraction, "val-fraction", 0, "put about this fraction of the trajectories into a validation file, split by repository")
	fs.Uint64Var(&f.seed, "seed", 42, "orders the repositories of the split")
	fs.BoolVar(&f.dropFormatErrors, "drop-format-errors", false, "leave out format-error messages (and the mini-swe-agent 1.x replies they answer); kept, such a reply has weight 0")
	fs.StringVar(&f.systemPrompt, "system-prompt", "", "replace every system prompt by this file's text (a .yaml file: its agent.templates.system_template, as SWE-agent configs and SWE-smith's agent/swesmith_infer.yaml hold it, or agent.system_template)")
	fs.StringVar(&f.progress, "progress", "auto", "progress display: auto, bar, lines, json or none")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress display (same as --progress none)")
	fs.BoolVar(&f.asJSON, "json", false, "print what was written as JSON on stdout")
	for name, v := range map[string]string{"output": "FILE", "format": "FORMAT", "eval-logs": "[INPUT=]DIR", "status": "STATUS", "min-steps": "N", "max-steps": "N",
		"min-cost": "DOLLARS", "max-cost": "DOLLARS", "model": "NAME", "config-hash": "HASH", "dataset": "NAME", "repeat": "N", "per-instance": "WHICH",
		"val-fraction": "F", "seed": "N", "system-prompt": "FILE", "progress": "MODE"} {
		metavar(fs, name, v)
	}
	flagGroup(fs, "Output", "output", "format", "system-prompt", "drop-format-errors", "val-fraction", "seed", "progress", "quiet", "json")
	flagGroup(fs, "Selection", "eval-logs", "resolved", "status", "min-steps", "max-steps", "min-cost", "max-cost", "exclude-flagged", "per-instance")
	flagGroup(fs, "Selection of runs (sweep cells)", "model", "config-hash", "dataset", "repeat")
	completeFlags(cmd, map[string]cobra.CompletionFunc{
		"format": oneOf("openai", "sharegpt", "parquet", "swesmith"), "per-instance": oneOf("all", "first", "best"),
		"progress": oneOf("auto", "bar", "lines", "json", "none"), "eval-logs": completeDirs,
		"output": cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault), "system-prompt": cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault),
	})
	return cmd
}

func runExport(ctx context.Context, stop <-chan struct{}, cmd *cobra.Command, args []string, f exportFlags, stdout, stderr io.Writer) error {
	o, err := f.options(cmd, args)
	if err != nil {
		return err
	}
	o.Progress = exportProgress{chooseProgress(&runFlags{progress: f.progress, quiet: f.quiet}, stderr)}
	// Nothing to let finish: the first Ctrl-C stops the export (and nothing is written).
	select {
	case <-stop:
		return &exitStatusError{code: exitInterrupted, msg: "export interrupted; nothing was written"}
	default:
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	sum, err := export.Export(ctx, o)
	cancel()
	wg.Wait()
	if errors.Is(err, context.Canceled) {
		return &exitStatusError{code: exitInterrupted, msg: "export interrupted; nothing was written"}
	}
	if err != nil {
		return err
	}
	for _, w := range sum.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	fmt.Fprintf(stderr, "export: %d trajectories found, %d kept, %d written; left out: %s\n", sum.Found, sum.Kept, sum.Written, sum.SkippedLine())
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	for _, w := range sum.Files {
		fmt.Fprintf(stderr, "  %s: %d trajectories of %d repositories\n", w.Split, w.Trajectories, w.Repos)
		fmt.Fprintln(stdout, w.Path)
	}
	if sum.Card != "" {
		fmt.Fprintln(stdout, sum.Card)
	}
	return nil
}

// options checks the flags and makes the export's options.
func (f exportFlags) options(cmd *cobra.Command, args []string) (export.Options, error) {
	o := export.Options{Format: export.Format(f.format), Output: f.out, PerInstance: export.PerInstance(f.perInstance),
		ValFraction: f.valFraction, Seed: f.seed, DropFormatErrors: f.dropFormatErrors, Version: version}
	if o.Format == "" {
		if !strings.EqualFold(filepath.Ext(f.out), ".parquet") {
			return o, fmt.Errorf("%w: export needs --format openai, sharegpt, parquet or swesmith (parquet is the default only for a .parquet file)", errUsage)
		}
		o.Format = export.Parquet
	}
	if !validFormat(o.Format) {
		return o, fmt.Errorf("%w: --format %s: want openai, sharegpt, parquet or swesmith", errUsage, f.format)
	}
	switch o.PerInstance {
	case export.AllTrajectories, export.FirstTrajectory, export.BestTrajectory:
	default:
		return o, fmt.Errorf("%w: --per-instance %s: want all, first or best", errUsage, f.perInstance)
	}
	if f.valFraction < 0 || f.valFraction >= 1 {
		return o, fmt.Errorf("%w: --val-fraction %g: want a fraction from 0 up to (not including) 1", errUsage, f.valFraction)
	}
	if f.progress != "auto" && f.progress != "bar" && f.progress != "lines" && f.progress != "json" && f.progress != "none" {
		return o, fmt.Errorf("%w: --progress %s: want auto, bar, lines, json or none", errUsage, f.progress)
	}
	fl := cmd.Flags()
	o.Filter = export.Filter{Resolved: f.resolved, Statuses: f.statuses, ExcludeFlagged: f.excludeFlagged,
		Models: f.models, ConfigHashes: f.configHashes, Datasets: f.datasets, Repeats: f.repeats}
	if fl.Changed("min-steps") {
		o.Filter.MinSteps = &f.minSteps
	}
	if fl.Changed("max-steps") {
		o.Filter.MaxSteps = &f.maxSteps
	}
	if fl.Changed("min-cost") {
		o.Filter.MinCost = &f.minCost
	}
	if fl.Changed("max-cost") {
		o.Filter.MaxCost = &f.maxCost
	}
	for _, h := range f.configHashes {
		if len(h) < 6 {
			return o, fmt.Errorf("%w: --config-hash %s: give 6 digits or more", errUsage, h)
		}
	}
	srcs := make([]compare.Source, len(args))
	for k, a := range args {
		srcs[k] = compare.ParseSource(a)
	}
	if err := assignEvalLogs(srcs, f.evalLogs); err != nil {
		return o, err
	}
	for _, s := range srcs {
		o.Inputs = append(o.Inputs, export.Input{Label: s.Label, Path: s.Path, EvalLogs: s.EvalLogs})
	}
	if f.systemPrompt != "" {
		text, err := readSystemPrompt(f.systemPrompt)
		if err != nil {
			return o, err
		}
		o.SystemPrompt = &text
	}
	return o, nil
}

func validFormat(f export.Format) bool {
	for _, x := range export.Formats {
		if f == x {
			return true
		}
	}
	return false
}

// readSystemPrompt reads --system-prompt: a text file as it is, or from a .yaml file the
// system template of a SWE-agent config (agent.templates.system_template) or of a
// mini-swe-agent config (agent.system_template).
func readSystemPrompt(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--system-prompt: %w", err)
	}
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".yaml" && ext != ".yml" {
		return string(data), nil
	}
	var cfg struct {
		Agent struct {
			SystemTemplate string `yaml:"system_template"`
			Templates      struct {
				SystemTemplate string `yaml:"system_template"`
			} `yaml:"templates"`
		} `yaml:"agent"`
	}
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("--system-prompt %s: %w", path, err)
	}
	if s := cfg.Agent.Templates.SystemTemplate; s != "" {
		return s, nil
	}
	if s := cfg.Agent.SystemTemplate; s != "" {
		return s, nil
	}
	return "", fmt.Errorf("--system-prompt %s: no agent.templates.system_template (SWE-agent) or agent.system_template (mini-swe-agent) in it; give the prompt as a text file instead", path)
}

// exportProgress shows the export with the run's progress renderers: one event per trajectory
// read, its outcome in place of an exit status.
type exportProgress struct{ p runner.Progress }

func (e exportProgress) Start(total int) { e.p.Start(total, 0) }
func (e exportProgress) Trajectory(ev export.Event) {
	e.p.Event(runner.Event{Cell: ev.Run, Instance: ev.Instance, Phase: runner.PhaseDone, ExitStatus: ev.Outcome, Cost: ev.Cost})
}
func (e exportProgress) Finish() { e.p.Finish() }
