// Package compare reads the results of runs in any of the SWE-bench ecosystem's forms into one
// verdict per instance, compares them pairwise with paired statistics, detects flaky instances,
// gates regressions against a baseline, and keeps a history of nightly sweeps. The `compare`
// command, the sweep, the HTML report and the submission builder all use it.
//
// # Reading
//
// Read (ReadAll for many) detects the form of each Source:
//
//   - a swebench-run output directory (run.json, status.jsonl, preds.json, eval/): the ledger's
//     last record of an instance decides whether it finished — any category other than "model"
//     (an infrastructure failure, an interruption, a run-wide budget cut) leaves it NotSubmitted,
//     never Unresolved; a finished instance is graded by eval/<id>/report.json, else by the run
//     report eval/<model>.<run_id>.json (errors, empty patches), else by its prediction (empty
//     patch); a finished instance never evaluated is NotSubmitted ("not evaluated"). A run with
//     no evaluation at all is refused unless ReadOptions.AllowUnevaluated.
//   - a sweep folder (sweep.json, see Sweep): every cell is a run directory; cells of one variant
//     become the repeats of one comparison input.
//   - mini-swe-agent output (preds.json, exit_statuses_*.yaml, <id>/<id>.traj.json) with its
//     harness logs given as Source.EvalLogs (<logs>/<id>/report.json).
//   - a harness run report <model>.<run_id>.json (schema_version 2) or an sb-cli report
//     (pending_ids, failed_ids): incomplete and pending ids are NotSubmitted, error and failed
//     ids Error; submitted ids outside the report's instances are left out.
//   - a folder of per-instance reports, <id>/report.json (the harness's log layout, which the
//     experiments repository's logs/ folders share), each in the harness's layout or sb-cli's
//     (eval.ReadReport); Run.ReportLayouts counts the layouts read.
//
// A figure of an instance (cost, steps, tokens, duration) that is not known is nil, never 0, and
// the metrics are taken over the known ones, saying over how many (Dist.N of Dist.Of).
//   - the experiments repository's results/results.json ({"resolved", "no_generation",
//     "no_logs"}, older files also "no_apply", "test_timeout", …) or its submission folder: only
//     resolved and failed ids are listed, so every other instance the comparison knows (and
//     Options.Universe) is Unresolved.
//
// # Comparing
//
// Compare first puts every run on its dataset (DatasetGroup): runs recording the same dataset
// name and the same revision, or revisions that share instances (two revisions of one dataset,
// with a warning); a sweep's cells on the sweep's datasets (Run.DatasetName); a run that records
// no dataset on the one it shares the most instances with. Inputs are compared only within their
// dataset, never across.
//
// Within a dataset it groups the runs into inputs (a run, or the repeats of a sweep variant) and
// computes, for each pair on the instances both cover (Verdict.Covered): resolved counts and
// rates, the flips (newly resolved, regressed) with their ids, both, neither, the instances each
// covers alone, the paired difference of the resolved rate with Tango's score interval
// (TangoCI), McNemar's exact test (McNemarExact), and per repository the same counts. With
// repeats an instance's result is its mean resolved over the repeats; the pair adds a bootstrap
// interval of the mean difference resampled by instance (BootstrapMeanCI, seed printed, with the
// p-value that inverts it), and each input its pass@k and pass^k. Three or more inputs of a
// dataset get the instance × input matrix (Result.Rows) and each input against the best one.
//
// Inputs of one name on several datasets (a sweep's models) are pooled over them (Pooled): the
// pairs of each dataset together, McNemar's exact test on all their discordant pairs (each
// instance its own stratum), the difference weighted by instance and macro-averaged over the
// datasets, each with the MOVER interval of the datasets' Tango intervals (MOVER), or with
// repeats a bootstrap resampling within each dataset (StratifiedBootstrap); Variants sums each
// input's resolved rate over its datasets.
//
// An instance is flaky for an input when its verdict differs between the input's repeats, or
// between history entries (and this run) of the same model, config hash, dataset and dataset
// revision. Flaky instances are left out of the flips, the interval, the test and the gate, and
// counted separately.
//
// With Options.Baseline, Result.Gate holds a one-line verdict per input and dataset against the
// baseline's input on that dataset, and whether any regressed significantly at Options.Alpha: by
// McNemar's test for single runs, by the bootstrap when an input has repeats, each p-value
// adjusted by Holm's step-down over the datasets the input was tested on (HolmAdjust).
//
// # History
//
// AppendHistory adds one line per run and night to a JSONL file (HistoryEntry: a sweep's model on
// one dataset) in a single locked, fsynced write; ReadHistory tolerates a torn last line; Trend
// gives the last nights of each variant on each dataset.
//
// # Output
//
// WriteText (terminal tables), WriteMarkdown (CI comments), WriteCSV (one row per instance and
// run) and WriteJSON, whose schema is documented in JSON.md and versioned by SchemaVersion.
package compare
