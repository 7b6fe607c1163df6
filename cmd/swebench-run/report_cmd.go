package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/report"
	"github.com/swebench-run/swebench-run/validation"
)

// reportInputFlags are the flags report and view share: how the inputs are read.
type reportInputFlags struct {
	evalLogs         []string
	baseline         string
	historyFile      string
	historyNights    int
	split            string
	title            string
	allowUnevaluated bool
	validation       string
	includeBroken    bool
}

func (f *reportInputFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringArrayVar(&f.evalLogs, "eval-logs", nil, "harness logs (<DIR>/<id>/report.json) of a mini-swe-agent input; INPUT= names the input by its label or path (needless with one input)")
	fs.StringVar(&f.baseline, "baseline", "", "the reference input (its label, path, sweep folder or sweep name): flips and the gate are against it")
	fs.StringVar(&f.historyFile, "history", "", "history file (history.jsonl) of nightly sweeps: the overview draws the trend, and instances that changed between nights are flaky")
	fs.IntVar(&f.historyNights, "history-nights", 30, "nights of each variant in the trend (0: all)")
	fs.StringVar(&f.split, "split", "", "dataset of the problem statements (as run's --split), for inputs whose run.json names none or one not on this machine (run.json's are read from the local cache only)")
	fs.StringVar(&f.title, "title", "", "the report's title (default: the inputs' names)")
	fs.BoolVar(&f.allowUnevaluated, "allow-unevaluated", false, "read run directories without an evaluation (their instances are not submitted)")
	fs.StringVar(&f.validation, "validation", "", "the instances' validation (a validation.json, or a store; default: the store of `swebench-run validate`, for the inputs' datasets): each instance shows its environment's outcome")
	fs.BoolVar(&f.includeBroken, "include-broken", false, "keep the instances whose environment is broken in the comparison's figures, as compare --include-broken")
	metavar(fs, "eval-logs", "[INPUT=]DIR")
	metavar(fs, "validation", "PATH")
	metavar(fs, "baseline", "INPUT")
	metavar(fs, "history", "FILE")
	metavar(fs, "history-nights", "N")
	metavar(fs, "split", "DATASET")
	metavar(fs, "title", "TEXT")
	flagGroup(fs, "Inputs", "eval-logs", "baseline", "history", "history-nights", "split", "allow-unevaluated", "validation", "include-broken")
	completeFlags(cmd, map[string]cobra.CompletionFunc{"eval-logs": completeDirs, "history": cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault)})
}

// sources parses the inputs and gives each its --eval-logs; a baseline given by path only is read
// as the first input, as compare does.
func (f *reportInputFlags) sources(args []string) ([]compare.Source, error) {
	if f.historyNights < 0 {
		return nil, fmt.Errorf("%w: --history-nights must not be negative", errUsage)
	}
	srcs := make([]compare.Source, len(args))
	for k, a := range args {
		srcs[k] = compare.ParseSource(a)
	}
	if b := f.baseline; b != "" && !namesSource(srcs, b) {
		if _, err := os.Stat(b); err == nil {
			srcs = append([]compare.Source{{Path: b}}, srcs...)
		}
	}
	if err := assignEvalLogs(srcs, f.evalLogs); err != nil {
		return nil, err
	}
	return srcs, nil
}

func (f *reportInputFlags) options() report.Options {
	return report.Options{Baseline: f.baseline, HistoryFile: f.historyFile, HistoryNights: f.historyNights, Dataset: f.split,
		Title: f.title, AllowUnevaluated: f.allowUnevaluated, Version: version, IncludeBroken: f.includeBroken,
		Validation: func(runs []*compare.Run) (map[string]validation.Record, string, error) {
			return runsValidation(runs, f.validation)
		}}
}

func newReportCmd() *cobra.Command {
	var (
		f   reportInputFlags
		out string
	)
	cmd := &cobra.Command{
		Use:     "report [flags] [LABEL=]INPUT … -o DIR",
		Short:   "write a static HTML report of runs: overview, instances, trajectories, comparison",
		GroupID: groupResults,
		Long: `Writes a self-contained static site into DIR: an overview of every input (resolved rate with its
confidence interval, statuses, cost, cost per resolved instance, tokens, steps, durations,
infrastructure failures, charts), a table of all instances with search (ids, problem statements and
the text of the trajectories), filters and sorting, one page per instance (problem statement, the
trajectory step by step, the patch as a coloured diff, the verdict test by test, the test output,
cost and time per step, side by side with another run), and a compare page (flips, the instance ×
input matrix). It opens from the file system (file://) or any static host; nothing is fetched from
the network. Trajectories load one instance at a time; the search index loads in shards on the
first search. Configs are shown with secrets redacted.

INPUT is anything compare reads: a swebench-run output directory, a sweep folder, mini-swe-agent
output (give its harness logs with --eval-logs), a harness or sb-cli run report, a folder of
<id>/report.json, an experiments results.json. DIR is replaced when it holds an earlier report;
any other non-empty folder is refused.`,
		Example: `  swebench-run report runs/sonnet -o site/
  # two runs side by side, flips against the baseline
  swebench-run report base=runs/sonnet-4 new=runs/sonnet-4-5 --baseline base -o site/
  # a mini-swe-agent run graded by the harness
  swebench-run report out/ --eval-logs logs/run_evaluation/r1/deepseek__deepseek-chat --split lite-dev -o site/
  # a nightly sweep with its trend
  swebench-run report sweeps/nightly-2026-08-12 --history sweeps/history.jsonl -o site/`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return fmt.Errorf("%w: report needs at least one input", errUsage)
			case out == "":
				return fmt.Errorf("%w: report needs -o DIR, the folder to write the site into", errUsage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeReport(cmd, args, f, out, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeDirs,
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "folder to write the site into")
	metavar(cmd.Flags(), "output", "DIR")
	f.register(cmd)
	flagGroup(cmd.Flags(), "Output", "output", "title")
	completeFlags(cmd, map[string]cobra.CompletionFunc{"output": completeDirs})
	return cmd
}

func writeReport(cmd *cobra.Command, args []string, f reportInputFlags, out string, stdout, stderr io.Writer) error {
	srcs, err := f.sources(args)
	if err != nil {
		return err
	}
	rep, err := report.Load(cmd.Context(), srcs, f.options())
	if err != nil {
		return err
	}
	st, err := rep.Write(cmd.Context(), out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %d files, %s (%d instance pages, %s; search index %s in %d shards) in %.1fs\n",
		st.Files, mib(st.Bytes), st.InstanceFiles, mib(st.InstanceBytes), mib(st.IndexBytes), st.IndexShards, st.Elapsed.Seconds())
	fmt.Fprintln(stdout, out+"/index.html")
	return nil
}

func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.0f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
