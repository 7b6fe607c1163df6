package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/results"
)

func newStatsCmd() *cobra.Command {
	var asJSON, rebuild bool
	cmd := &cobra.Command{
		Use:     "stats [--json] [--rebuild] OUTPUT_DIR",
		Short:   "statuses, cost, steps, tokens, durations and resolved rate of a run",
		GroupID: groupResults,
		Long: `Summarises a run's output directory: exit statuses, cost (total, mean, p50/p90), steps, tokens,
durations, infrastructure failures with their reasons, and the resolved rate when it was evaluated.`,
		Example: `  swebench-run stats runs/sonnet
  # machine-readable
  swebench-run stats --json runs/sonnet | jq .cost
  # regenerate preds.json and the exit-status file from the ledger and the trajectories first
  swebench-run stats --rebuild runs/sonnet`,
		Args: argsRange(1, 1, "one output directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return showStats(args[0], asJSON, rebuild, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeDirs,
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the statistics as JSON")
	cmd.Flags().BoolVar(&rebuild, "rebuild", false, "regenerate preds.json and exit_statuses_<time>.yaml from the ledger and the trajectories first")
	return cmd
}

// showStats prints the statistics of the output directory dir.
func showStats(dir string, asJSON, rebuild bool, stdout, stderr io.Writer) error {
	if rebuild {
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
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	printStats(stdout, st)
	return nil
}

func printStats(w io.Writer, st *results.Stats) {
	fmt.Fprintf(w, "%s: %d instances, %d attempts\n", st.Dir, st.Instances, st.Attempts)
	if st.FromTrajectories {
		fmt.Fprintf(w, "(no %s: read from the trajectories, as mini-swe-agent wrote them; no times or tokens)\n", results.LedgerFile)
	}
	fmt.Fprintln(w)
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
		fmt.Fprintf(w, "resolved: %d of %d instances (%.1f%%); %d evaluated, %d patches applied\n", st.Eval.Resolved, st.Instances-len(st.Unfinished), 100*st.Eval.Rate, st.Eval.Evaluated, st.Eval.Applied)
	}
	if len(st.Unfinished) > 0 {
		fmt.Fprintf(w, "\n%d unfinished (cut by the run's cost limit; neither resolved nor unresolved, they run again when a run has budget left): %s\n",
			len(st.Unfinished), strings.Join(st.Unfinished, ", "))
	}
	if len(st.Retried) > 0 {
		fmt.Fprintf(w, "\nretried (attempted more than once; infrastructure failures are retried within a run and on resume, up to --max-attempts):\n")
		for _, r := range st.Retried {
			fmt.Fprintf(w, "  %s  %d attempts: %s\n", r.InstanceID, r.Attempts, strings.Join(r.Statuses, " → "))
		}
	}
	if len(st.Failures) > 0 {
		fmt.Fprintf(w, "\ninfrastructure failures that remain (retried when the run is resumed, up to --max-attempts over all runs):\n")
		for _, f := range st.Failures {
			msg := f.Error
			if len(msg) > 160 {
				msg = msg[:160] + "…"
			}
			fmt.Fprintf(w, "  %s  %s after %d attempts: %s\n", f.InstanceID, f.ExitStatus, f.Attempts, msg)
		}
	}
}
