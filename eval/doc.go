// Package eval grades predictions exactly like the SWE-bench harness, in our own containers.
//
// For each prediction with a non-empty patch, Evaluator.Evaluate starts a fresh container of the
// instance image through a Starter (never the container an agent used), writes the patch to
// /tmp/patch.diff, applies it with the harness's fallbacks (git apply --verbose, then
// git apply --verbose --reject, then patch --batch --forward --fuzz=5 -p1, resetting the tree
// between attempts, and accepting a patch that `git apply --check --reverse` shows is already
// applied), runs the row's eval_script as /eval.sh under a timeout enforced in the container, and
// grades the output with Grade. Evaluator.Run does this for a whole prediction set with a worker
// pool and writes the run report.
//
// Files, per instance, under Options.OutDir (the run's eval/ folder), in the harness's formats:
//
//	<id>/patch.diff        the prediction's patch
//	<id>/eval.sh           the script run (Script of the row)
//	<id>/test_output.txt   its output (with "Timeout error: N seconds exceeded." on timeout)
//	<id>/report.json       the grade (only for graded instances), see InstanceReport
//	<id>/run_instance.log  what happened (patch attempts, runtime), for humans
//	<model>.<run_id>.json  the run report (schema_version 2), see RunReport
//
// Outcomes: Resolved and Unresolved for graded predictions; EmptyPatch for empty or null patches
// (counted, not run); Error, with an ErrorKind and a reason, for everything that could not be
// graded — kept apart from Unresolved. ErrorKind.Infrastructure tells environment failures
// (image missing, container died, timeout) from the prediction's own (patch did not apply, not
// a diff).
//
// Rows: a row with an eval_script (harness v5) runs it as prepared by EvalScript and is graded by
// Grade with the harness-v5 parser of its log_parser. A row without one cannot be evaluated
// (CheckInstances; dataset.LoadOptions.Complete fills such rows from the official SWE-bench
// datasets first). A SWE-bench Multimodal row's image_assets (the binary files
// of its patch and test_patch) are downloaded, copied into the container under /image_assets and
// restored into the working tree just before the test output starts, as the harness does; the
// eval.sh kept is the script with those restore commands, and the files are kept under
// <id>/image_assets/.
//
// Families: the engine grades the rows of every dataset family (package family). A row of the
// SWE-bench harness's family is graded the built-in way above; a row of another family
// (Instance.Family) by its family.Grader, given by Options.Graders: the engine checks the
// instances with it before any container starts, reuses the verdicts it left (resume), starts
// the fresh sandbox of the instance's image in the instance's working directory, keeps
// run_instance.log and the run report, and lets the grader run the family's commands, write the
// harness's files per instance and, after the run, its run-level files (Finish). A family whose
// harness is a fork of SWE-bench's (SWE-rebench's, in family/rebench) gets its grader from
// HarnessGrader: the built-in grading above with the family's own Harness (check, eval script,
// grading rules), built from the exported pieces of this one (TestOutput, IsPassing,
// NewTestsStatus, FullyResolved).
//
// ReadReport is the one reader of a per-instance report.json: it detects the layout (the
// harness's {"<id>": {…}}, or sb-cli's bare object named by its folder), returns the verdict and
// the layout, and refuses a report that names another instance than its folder; every package
// that reads per-instance reports goes through it.
//
// RegradeFromLogs grades existing logs without containers (the harness's or ours; a log that kept
// only its report.json keeps that verdict), and package logparse holds the log parsers of every
// log_parser the datasets name.
package eval
