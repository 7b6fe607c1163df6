// Package submission builds, checks and lints the folders the SWE-bench leaderboard accepts: a
// submission to the SWE-bench/experiments repository, evaluation/<split>/<YYYYMMDD>_<name>/.
//
// # The folder
//
// As the repository's README, checklist.md and analysis/get_results.py define it:
//
//	all_preds.jsonl       the predictions, one JSON object per line (instance_id,
//	                      model_name_or_path, model_patch); one model name, each id once
//	metadata.yaml         info (name, site, report, authors, logo), assets (logs, trajs),
//	                      tags (checked, model, org, os_model, os_system, system.attempts "1"|"2+")
//	README.md             the get_results summary, the system, its authors, the checklist
//	trajs/                one trajectory per instance, named after it (we write <id>.traj.json)
//	logs/<id>/            patch.diff, eval.sh, test_output.txt, report.json of the evaluation
//	results/              results.json ({no_generation, no_logs, resolved}), resolved_by_repo.json
//	                      and resolved_by_time.json ({"resolved", "total"} per repository / year)
//
// get_results grades the whole split of its folder: lite against SWE-bench/SWE-bench_Lite,
// verified and bash-only against SWE-bench/SWE-bench_Verified, test against SWE-bench/SWE-bench,
// all on their test split. An instance without logs/<id>/ or without patch.diff there is
// no_generation, one without test_output.txt no_logs, and the rest are graded again from
// test_output.txt against the dataset row (never read from report.json). The denominator is the
// whole split. Compute does the same without touching the folder, except for logs as published
// folders keep them — only report.json, often in sb-cli's layout, no patch.diff nor
// test_output.txt — which it grades from that report (a note says so) where get_results has
// nothing to grade; get_results also deletes what a submission does not need, which Check
// reports instead. multimodal is graded by sb-cli on its
// hidden test split and is refused here with the way to submit it.
//
// # Building
//
// Build reads a finished run (OpenInput: our output directory, or mini-swe-agent's output with
// the harness's logs), checks it, evaluates the predictions that have no log yet (through
// Options.Evaluate: eval.Evaluator in fresh containers, into the run's evaluation folder), writes
// the folder in a temporary folder beside its place, checks it as Check checks any folder, and
// renames it into place, so that a failure leaves no half folder. With Options.SBCLI it also
// writes the predictions file sb-cli accepts (an object keyed by id, in
// <root>/sb-cli/<folder>/preds.json) and the `sb-cli submit <subset> <split>` command line, the
// subset mapped from the split (swe-bench_lite, swe-bench_verified; bash-only is Verified).
//
// # Checks
//
// Every finding names its check (the Check* constants), the instances or the config key at
// fault, and has a severity: a failure stops the build (and fails --check); a warning stops it
// unless forced, and is then written into the README with a marker that --check honours; a note
// is information for the README.
//
//   - predictions: entries that are not predictions, duplicate ids (a JSON object is read key by
//     key, so a repeated key is seen), more than one model_name_or_path, predictions for
//     instances outside the split (failures); instances of the split without a prediction
//     (warning: they count as no_generation, with the ledger's reason when known).
//   - trajectories: a trajectory for every prediction (failure); one that ends with another
//     submission than the prediction (warning).
//   - logs: a log for every prediction with a patch, made for that patch (patch.diff equal to
//     model_patch; otherwise a failure), with a test output (otherwise a warning: no_logs);
//     report.json disagreeing with the regrade, or a log that cannot be graded (warnings).
//   - templates: no template of the resolved config (every *_template key, and
//     run.env_startup_command) refers to FAIL_TO_PASS, PASS_TO_PASS, hints_text, patch,
//     test_patch or eval_script, in any branch (agent.TemplateNames); our runs are checked from
//     run.json, mini-swe-agent's and other folders from the trajectories' info.config.
//   - attempts: a model outcome recorded twice for an instance in the ledger (--retry-failed,
//     --redo-existing, merged repeats) makes tags.system.attempts "2+"; declaring "1" then
//     fails. Without a ledger "1" is assumed (a note).
//   - test files: patches editing files of the instance's test_patch (SWE-bench #393, #538) or a
//     conftest.py (#631) are warnings; other test-like files are listed in a note.
//   - dataset: the split's official dataset is the SWE-bench/* repository and split get_results
//     loads, at the revision the leaderboard grades against today (the hub's main, which the
//     grading dataset resolves to). The run's dataset (run.json) is official when its files are
//     the graded dataset's, or when the rows of every predicted instance agree on repo,
//     base_commit, problem_statement, version, environment_setup_commit, test_patch,
//     FAIL_TO_PASS and PASS_TO_PASS (an older revision, the princeton-nlp/* copy); rows that
//     differ, or cannot be read, are warnings. A split of one's own (any name, graded against
//     an explicit dataset) and lite-dev are notes: such a folder is not for a pull request.
//   - metadata: the keys above with their types; missing links and authors are warnings.
//   - results and files (Check): results/ recomputed and compared; files get_results deletes.
package submission
