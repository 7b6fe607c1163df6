package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/compare"
)

// exitRegression is compare's exit code when --fail-on-regression finds an input that regressed
// significantly against the baseline.
const exitRegression = 4

const compareExitCodes = `  0    compared (with --fail-on-regression: no input regressed significantly)
  1    an input could not be read (the message names it and what was expected)
  2    bad command line
  4    --fail-on-regression: an input regressed significantly against the baseline`

type compareFlags struct {
	baseline         string
	failOnRegression bool
	alpha            float64
	evalLogs         []string
	history          int
	historyFile      string
	asJSON, markdown bool
	asCSV            bool
	seed             uint64
	resamples        int
	allowUnevaluated bool
	validation       string
	includeBroken    bool
}

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:     "compare [flags] [LABEL=]INPUT …",
		Short:   "compare runs and reports: flips, paired CI, McNemar, regression gate",
		GroupID: groupResults,
		Long: `Reads every INPUT into one verdict per instance (resolved, unresolved, error, empty patch, not
submitted), groups the inputs by dataset (its name and revision; a sweep's datasets) and compares
them within each dataset, never across, on the instances both cover: resolved rates, the instances
newly resolved and regressed, the paired difference with Tango's score interval, McNemar's exact
test, per repository, costs and statuses side by side. Three or more inputs of a dataset add an
instance × input matrix and each input against the best. Repeats (the cells of one sweep variant)
add the mean over repeats with a bootstrap interval clustered by instance, pass@k and pass^k.
Instances whose verdict differs between repeats, or between nights of the same config in the
history file, are flaky: listed, and left out of the paired figures and the gate. Inputs of one
name on several datasets (a sweep's models) are also pooled over them, and the gate corrects
their p-values for the number of datasets (Holm). With a validation of the instances'
environments (swebench-run validate; --validation, else its store), instances whose environment
is broken (gold fails, empty passes, infrastructure, known bad) leave the paired figures and the
gate, and its flaky instances are flaky; the output says which and why (--include-broken keeps
them).

An INPUT is a swebench-run output directory (evaluated), a sweep folder (every cell), mini-swe-agent
output (give its harness logs with --eval-logs), a harness run report <model>.<run_id>.json, an
sb-cli report, a folder of <id>/report.json, or an experiments results/results.json (or its
submission folder). LABEL= names it in the output.`,
		Example: `  # two runs
  swebench-run compare runs/sonnet runs/gpt5
  # tonight's sweep against last night's, failing CI on a significant drop
  swebench-run compare sweeps/nightly-2026-08-12 --baseline sweeps/nightly-2026-08-11 --fail-on-regression --markdown
  # a mini-swe-agent run graded by the harness, against an sb-cli report
  swebench-run compare mini=out/ --eval-logs mini=logs/run_evaluation/r1/deepseek__deepseek-chat sbcli=swe-bench_lite__dev__r2.json
  # the last 7 nights of every variant
  swebench-run compare sweeps/nightly-2026-08-12 --history 7`,
		Annotations: map[string]string{annExitCodes: compareExitCodes},
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return fmt.Errorf("%w: compare needs at least one input", errUsage)
			case f.alpha <= 0 || f.alpha >= 1:
				return fmt.Errorf("%w: --alpha must lie between 0 and 1, got %g", errUsage, f.alpha)
			case f.failOnRegression && f.baseline == "":
				return fmt.Errorf("%w: --fail-on-regression needs --baseline", errUsage)
			case f.history < 0 || f.resamples < 0:
				return fmt.Errorf("%w: --history and --resamples must not be negative", errUsage)
			case btoi(f.asJSON)+btoi(f.markdown)+btoi(f.asCSV) > 1:
				return fmt.Errorf("%w: --json, --markdown and --csv are exclusive", errUsage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return compareInputs(args, f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeDirs,
	}
	fs := cmd.Flags()
	fs.StringVar(&f.baseline, "baseline", "", "the reference input (its label, path, sweep folder or sweep name; a path not among the inputs is read too); a sweep is compared variant by variant")
	fs.BoolVar(&f.failOnRegression, "fail-on-regression", false, "exit 4 when an input regressed significantly against --baseline")
	fs.Float64Var(&f.alpha, "alpha", 0.05, "significance level of the regression gate; intervals are at 1 − alpha")
	fs.StringArrayVar(&f.evalLogs, "eval-logs", nil, "harness logs (<DIR>/<id>/report.json) of a mini-swe-agent input; INPUT= names the input by its label or path (needless with one input)")
	fs.IntVar(&f.history, "history", 0, "print the last N nights of every variant from the history file, with the trend")
	fs.StringVar(&f.historyFile, "history-file", "", "history file (default: history.jsonl beside the first sweep folder, when it exists); used for flaky instances too")
	fs.BoolVar(&f.asJSON, "json", false, "print the comparison as JSON (schema: compare/JSON.md)")
	fs.BoolVar(&f.markdown, "markdown", false, "print the comparison as Markdown (for CI comments)")
	fs.BoolVar(&f.asCSV, "csv", false, "print one CSV row per instance and run")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the bootstrap (printed with its intervals)")
	fs.IntVar(&f.resamples, "resamples", 2000, "bootstrap resamples")
	fs.BoolVar(&f.allowUnevaluated, "allow-unevaluated", false, "read run directories without an evaluation (their instances are not submitted)")
	fs.StringVar(&f.validation, "validation", "", "the instances' validation (a validation.json, or a store; default: the store of `swebench-run validate`, for the inputs' datasets)")
	fs.BoolVar(&f.includeBroken, "include-broken", false, "keep the instances whose environment the validation found broken (and its flaky ones) in the paired figures and the gate")
	metavar(fs, "baseline", "INPUT")
	metavar(fs, "alpha", "P")
	metavar(fs, "eval-logs", "[INPUT=]DIR")
	metavar(fs, "history", "N")
	metavar(fs, "history-file", "FILE")
	metavar(fs, "seed", "N")
	metavar(fs, "resamples", "N")
	metavar(fs, "validation", "PATH")
	flagGroup(fs, "Gate", "baseline", "fail-on-regression", "alpha")
	flagGroup(fs, "Inputs", "eval-logs", "allow-unevaluated", "history", "history-file", "validation", "include-broken")
	flagGroup(fs, "Output", "json", "markdown", "csv", "seed", "resamples")
	completeFlags(cmd, map[string]cobra.CompletionFunc{"eval-logs": completeDirs, "history-file": cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault)})
	return cmd
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// compareInputs reads the inputs, compares them and prints the result; a significant regression
// with --fail-on-regression is exit code 4.
func compareInputs(args []string, f compareFlags, stdout, stderr io.Writer) error {
	srcs := make([]compare.Source, len(args))
	for k, a := range args {
		srcs[k] = compare.ParseSource(a)
	}
	if b := f.baseline; b != "" && !namesSource(srcs, b) {
		// A baseline given by path only (last night's sweep folder) is read as the first input.
		if _, err := os.Stat(b); err == nil {
			srcs = append([]compare.Source{{Path: b}}, srcs...)
		}
	}
	if err := assignEvalLogs(srcs, f.evalLogs); err != nil {
		return err
	}
	runs, err := compare.ReadAll(srcs, compare.ReadOptions{AllowUnevaluated: f.allowUnevaluated})
	if err != nil {
		return err
	}
	opts := compare.Options{Baseline: f.baseline, Alpha: f.alpha, Seed: f.seed, Resamples: f.resamples, IncludeBroken: f.includeBroken}
	if opts.Validation, opts.ValidationSource, err = runsValidation(runs, f.validation); err != nil {
		return err
	}
	histPath := f.historyFile
	if histPath == "" {
		histPath = defaultHistoryFile(runs)
	}
	var history []compare.HistoryEntry
	if histPath != "" {
		var torn bool
		if history, torn, err = compare.ReadHistory(histPath); err != nil {
			return err
		}
		if torn {
			fmt.Fprintf(stderr, "warning: %s: the last line is torn (a crash while appending) and was ignored\n", histPath)
		}
		opts.History = history
	} else if f.history > 0 {
		return fmt.Errorf("%w: --history needs a history file: give --history-file, or a sweep folder with history.jsonl beside it", errUsage)
	}
	res, err := compare.Compare(runs, opts)
	if err != nil {
		return err
	}
	if f.history > 0 {
		res.Trend = compare.Trend(history, f.history)
	}
	switch {
	case f.asJSON:
		err = compare.WriteJSON(stdout, res)
	case f.markdown:
		err = compare.WriteMarkdown(stdout, res)
	case f.asCSV:
		err = compare.WriteCSV(stdout, res)
	default:
		err = compare.WriteText(stdout, res)
	}
	if err != nil {
		return err
	}
	if f.failOnRegression && res.Gate != nil && res.Gate.Regression {
		var lines []string
		for _, v := range res.Gate.Verdicts {
			if v.Regression {
				lines = append(lines, res.GateSubject(v)+": "+v.Line)
			}
		}
		return &exitStatusError{code: exitRegression, msg: strings.Join(lines, "\n")}
	}
	return nil
}

// namesSource reports whether name is the label or the path of one of srcs.
func namesSource(srcs []compare.Source, name string) bool {
	for _, s := range srcs {
		if s.Label == name || filepath.Clean(s.Path) == filepath.Clean(name) {
			return true
		}
	}
	return false
}

// assignEvalLogs gives each --eval-logs [INPUT=]DIR to the input it names (by label or path), or
// without INPUT= to the only input.
func assignEvalLogs(srcs []compare.Source, specs []string) error {
	for _, spec := range specs {
		key, dir, named := strings.Cut(spec, "=")
		if !named {
			if len(srcs) != 1 {
				return fmt.Errorf("%w: --eval-logs %s: with several inputs, name the input: --eval-logs INPUT=%s", errUsage, spec, spec)
			}
			srcs[0].EvalLogs = spec
			continue
		}
		found := false
		for k := range srcs {
			if namesSource(srcs[k:k+1], key) {
				srcs[k].EvalLogs, found = dir, true
			}
		}
		if !found {
			return fmt.Errorf("%w: --eval-logs %s: no input is labelled or located %q", errUsage, spec, key)
		}
	}
	return nil
}

// defaultHistoryFile is history.jsonl beside the first sweep folder among the runs, when it exists.
func defaultHistoryFile(runs []*compare.Run) string {
	for _, r := range runs {
		if r.SweepDir == "" {
			continue
		}
		p := filepath.Join(filepath.Dir(filepath.Clean(r.SweepDir)), compare.HistoryFile)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		return ""
	}
	return ""
}
