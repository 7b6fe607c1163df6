package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/swebench-run/swebench-run/results"
)

func statsCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the statistics as JSON")
	rebuild := fs.Bool("rebuild", false, "regenerate preds.json and exit_statuses_<time>.yaml from the ledger and the trajectories first")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: swebench-run stats [--json] [--rebuild] OUTPUT_DIR\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitStatusError{code: exitUsage}
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: stats takes one output directory", errUsage)
	}
	dir := fs.Arg(0)
	if *rebuild {
		n, err := results.Rebuild(dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "rebuilt %s with %d predictions\n", results.PredsFile, n)
	}
	st, err := results.ComputeStats(dir)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	printStats(stdout, st)
	return nil
}

func printStats(w io.Writer, st *results.Stats) {
	fmt.Fprintf(w, "%s: %d instances, %d attempts\n\n", st.Dir, st.Instances, st.Attempts)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXIT STATUS\tINSTANCES\tSHARE")
	keys := make([]string, 0, len(st.ByStatus))
	for k := range st.ByStatus {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if st.ByStatus[keys[i]] != st.ByStatus[keys[j]] {
			return st.ByStatus[keys[i]] > st.ByStatus[keys[j]]
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\n", k, st.ByStatus[k], 100*float64(st.ByStatus[k])/float64(st.Instances))
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PER INSTANCE\tTOTAL\tMEAN\tP50\tP90\tMAX")
	fmt.Fprintf(tw, "cost ($)\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n", st.Cost.Total, st.Cost.Mean, st.Cost.P50, st.Cost.P90, st.Cost.Max)
	fmt.Fprintf(tw, "steps\t%.0f\t%.1f\t%.0f\t%.0f\t%.0f\n", st.Steps.Total, st.Steps.Mean, st.Steps.P50, st.Steps.P90, st.Steps.Max)
	fmt.Fprintf(tw, "duration (s)\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\n", st.Seconds.Total, st.Seconds.Mean, st.Seconds.P50, st.Seconds.P90, st.Seconds.Max)
	tw.Flush()
	fmt.Fprintf(w, "\ntokens: %d in (%d cache read, %d cache write), %d out\n", st.Tokens.Input, st.Tokens.CacheRead, st.Tokens.CacheWrite, st.Tokens.Output)
	if st.Eval != nil {
		fmt.Fprintf(w, "resolved: %d of %d instances (%.1f%%); %d evaluated, %d patches applied\n", st.Eval.Resolved, st.Instances, 100*st.Eval.Rate, st.Eval.Evaluated, st.Eval.Applied)
	}
	if len(st.Failures) > 0 {
		fmt.Fprintf(w, "\ninfrastructure failures (retried when the run is resumed, up to --max-attempts):\n")
		for _, f := range st.Failures {
			msg := f.Error
			if len(msg) > 160 {
				msg = msg[:160] + "…"
			}
			fmt.Fprintf(w, "  %s  %s after %d attempts: %s\n", f.InstanceID, f.ExitStatus, f.Attempts, msg)
		}
	}
}
