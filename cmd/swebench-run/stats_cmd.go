package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/audit"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/results"
)

func newStatsCmd() *cobra.Command {
	var asJSON, rebuild bool
	var validationPath string
	cmd := &cobra.Command{
		Use:     "stats [--json] [--rebuild] OUTPUT_DIR",
		Short:   "statuses, cost, steps, tokens, durations and resolved rate of a run",
		GroupID: groupResults,
		Long: `Summarises a run's output directory: exit statuses, cost (total, mean, p50/p90), steps, tokens,
durations, infrastructure failures with their reasons, and the resolved rate when it was evaluated;
with a validation of its dataset (swebench-run validate), its instances by their environment's
outcome, and the unresolved ones its evaluation marked as the environment's failures.`,
		Example: `  swebench-run stats runs/sonnet
  # machine-readable
  swebench-run stats --json runs/sonnet | jq .cost
  # regenerate preds.json and the exit-status file from the ledger and the trajectories first
  swebench-run stats --rebuild runs/sonnet`,
		Args: argsRange(1, 1, "one output directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return showStats(args[0], asJSON, rebuild, validationPath, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeDirs,
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the statistics as JSON")
	cmd.Flags().BoolVar(&rebuild, "rebuild", false, "regenerate preds.json and exit_statuses_<time>.yaml from the ledger and the trajectories first")
	cmd.Flags().StringVar(&validationPath, "validation", "", "the instances' validation (a validation.json, or a store; default: the store of `swebench-run validate`, for the run's dataset): counted by outcome")
	metavar(cmd.Flags(), "validation", "PATH")
	return cmd
}

// showStats prints the statistics of the output directory dir.
func showStats(dir string, asJSON, rebuild bool, validationPath string, stdout, stderr io.Writer) error {
	if rebuild {
		n, err := results.Rebuild(dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "rebuilt %s with %d predictions\n", results.PredsFile, n)
	}
	// The instances a dataset family's reader takes in <dir>/eval are that family's, even when
	// their report.json is also readable as SWE-bench's (SWE-smith's are): they are counted in
	// its layout, not SWE-bench's.
	folders, err := all.ReadEvalFolder(filepath.Join(dir, "eval"))
	if err != nil {
		return err
	}
	claimed := map[string]bool{}
	for _, fv := range folders {
		for id := range fv.Verdicts {
			claimed[id] = true
		}
	}
	readReport := func(path string) (bool, bool, string, error) {
		if claimed[filepath.Base(filepath.Dir(path))] {
			return false, false, "", nil
		}
		return eval.ReportVerdict(path)
	}
	st, err := results.ComputeStats(dir, readReport)
	if err != nil {
		// Not a run: a dataset family's evaluation or submission folder (SWE-PolyBench's
		// <id>_result.json files, SWE-smith's run, …) still has verdicts to count.
		if shown, ferr := showFamilyVerdicts(dir, asJSON, stdout); shown || ferr != nil {
			return ferr
		}
		return err
	}
	if st.Eval, err = familyEvalStats(dir, folders, st); err != nil {
		return err
	}
	if st.Flags, err = results.RunFlagStats(dir); err != nil {
		return err
	}
	vs, err := runValidationStats(dir, validationPath)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(statsWithValidation{Stats: st, Validation: vs})
	}
	printStats(stdout, st)
	printValidationStats(stdout, vs)
	return nil
}

// distRow prints one figure's distribution, over the instances whose value is known; "–" for
// every column when none is.
func distRow(w io.Writer, name string, d results.Dist, instances int, total, mean, rest string) {
	if d.N == 0 {
		fmt.Fprintf(w, "%s\t–\t–\t–\t–\t–\t0 of %d\n", name, instances)
		return
	}
	fmt.Fprintf(w, "%s\t"+total+"\t"+mean+"\t"+rest+"\t"+rest+"\t"+rest+"\t%d of %d\n", name, d.Total, d.Mean, d.P50, d.P90, d.Max, d.N, instances)
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
	// Each figure is over the instances whose value is known (OVER); an unknown one is "–".
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PER INSTANCE\tTOTAL\tMEAN\tP50\tP90\tMAX\tOVER")
	distRow(tw, "cost ($)", st.Cost, st.Instances, "%.4f", "%.4f", "%.4f")
	distRow(tw, "steps", st.Steps, st.Instances, "%.0f", "%.1f", "%.0f")
	distRow(tw, "duration (s)", st.Seconds, st.Instances, "%.0f", "%.1f", "%.1f")
	tw.Flush()
	switch {
	case st.TokensN == 0:
		fmt.Fprintf(w, "\ntokens: – (no usage recorded)\n")
	default:
		fmt.Fprintf(w, "\ntokens: %d in (%d cache read, %d cache write), %d out", st.Tokens.Input, st.Tokens.CacheRead, st.Tokens.CacheWrite, st.Tokens.Output)
		if st.Tokens.Reasoning > 0 {
			fmt.Fprintf(w, " (%d reasoning)", st.Tokens.Reasoning)
		}
		fmt.Fprintf(w, ", over %d of %d instances\n", st.TokensN, st.Instances)
	}
	switch {
	case st.Eval != nil && st.Eval.Format != "":
		fmt.Fprintf(w, "resolved: %d of %d instances (%.1f%%); %d evaluated (%s)\n", st.Eval.Resolved, st.Instances-len(st.Unfinished), 100*st.Eval.Rate, st.Eval.Evaluated, eval.LayoutCounts(st.Eval.Layouts))
	case st.Eval != nil:
		fmt.Fprintf(w, "resolved: %d of %d instances (%.1f%%); %d evaluated (report.json: %s), %d patches applied\n", st.Eval.Resolved, st.Instances-len(st.Unfinished), 100*st.Eval.Rate, st.Eval.Evaluated, eval.LayoutCounts(st.Eval.Layouts), st.Eval.Applied)
	}
	printFlagStats(w, st.Flags, st.Dir)
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

// FamilyVerdictStats counts the verdicts of a folder in a dataset family's harness format.
type FamilyVerdictStats struct {
	Dir    string `json:"dir"`
	Format string `json:"format"`
	// Layouts counts the instances read per layout, as report_layouts does for a run's eval/.
	Layouts    map[string]int `json:"report_layouts"`
	Instances  int            `json:"instances"`
	Resolved   int            `json:"resolved"`
	Unresolved int            `json:"unresolved"`
	EmptyPatch int            `json:"empty_patch"`
	Error      int            `json:"error"`
	Rate       float64        `json:"resolved_rate"`
}

// showFamilyVerdicts prints the verdicts of dir (or of its logs/ folder, as in a leaderboard
// submission) when they are in a dataset family's harness format; shown is false when there are
// none.
func showFamilyVerdicts(dir string, asJSON bool, stdout io.Writer) (bool, error) {
	for _, d := range []string{dir, filepath.Join(dir, "logs")} {
		fvs, err := all.ReadEvalFolder(d)
		if err != nil {
			return false, err
		}
		if len(fvs) == 0 {
			continue
		}
		for _, fv := range fvs {
			s := FamilyVerdictStats{Dir: d, Format: fv.Format, Instances: len(fv.Verdicts), Layouts: map[string]int{fv.Format: len(fv.Verdicts)}}
			for _, v := range fv.Verdicts {
				switch v.Outcome {
				case family.Resolved:
					s.Resolved++
				case family.Unresolved:
					s.Unresolved++
				case family.EmptyPatch:
					s.EmptyPatch++
				default:
					s.Error++
				}
			}
			if s.Instances > 0 {
				s.Rate = float64(s.Resolved) / float64(s.Instances)
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(s); err != nil {
					return true, err
				}
				continue
			}
			fmt.Fprintf(stdout, "%s: %d instances (%s, no run ledger)\nresolved: %d of %d instances (%.1f%%); %d unresolved, %d empty patches, %d errors\n",
				s.Dir, s.Instances, eval.LayoutCounts(s.Layouts), s.Resolved, s.Instances, 100*s.Rate, s.Unresolved, s.EmptyPatch, s.Error)
		}
		return true, nil
	}
	return false, nil
}

// printFlagStats prints the line of a run's flags (swebench-run audit lists them).
func printFlagStats(w io.Writer, f *results.FlagStats, dir string) {
	if f == nil {
		return
	}
	fmt.Fprintf(w, "flags: %d of %d instances flagged", f.Flagged, f.Scanned)
	if f.Flagged > 0 {
		var parts []string
		for _, c := range audit.Classes {
			if n := f.ByClass[string(c)]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", c, n))
			}
		}
		fmt.Fprintf(w, " (%s), %d revealed", strings.Join(parts, ", "), f.Revealed)
	}
	history := f.History
	if history == "" {
		history = "not recorded"
	}
	fmt.Fprintf(w, "; history: %s", history)
	if f.Flagged > 0 {
		fmt.Fprintf(w, " (swebench-run audit %s lists them)", dir)
	}
	fmt.Fprintln(w)
}

// familyEvalStats adds to st.Eval (SWE-bench's report.json files; nil when there are none) the
// verdicts that folders, the dataset families' layouts of <dir>/eval, hold, counted per layout;
// the instances counted are those of the ledger. It returns st.Eval when there are none.
func familyEvalStats(dir string, folders []family.FolderVerdicts, st *results.Stats) (*results.EvalStats, error) {
	if len(folders) == 0 {
		return st.Eval, nil
	}
	history, _, err := results.ReadLedger(dir)
	if err != nil {
		return nil, err
	}
	es := st.Eval
	if es == nil {
		es = &results.EvalStats{}
	}
	if es.Layouts == nil {
		es.Layouts = map[string]int{}
	}
	var formats []string
	for _, fv := range folders {
		formats = append(formats, fv.Format)
		for id, v := range fv.Verdicts {
			if _, ok := history[id]; !ok && len(history) > 0 {
				continue
			}
			es.Evaluated++
			es.Layouts[fv.Format]++
			switch v.Outcome {
			case family.Resolved:
				es.Resolved++
			case family.Unresolved:
				es.Unresolved++
			}
		}
	}
	es.Format = strings.Join(formats, ", ")
	if st.Instances > 0 {
		es.Rate = float64(es.Resolved) / float64(st.Instances)
	}
	return es, nil
}
