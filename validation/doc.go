// Package validation is the data of whether an instance's environment is sound: its gold patch
// resolves it every time, its empty patch never does, and the verdict repeats. `swebench-run
// validate` computes it with eval's engine (eval.Validate) and keeps one Record per instance in a
// Store under the user's cache, keyed by the dataset and its revision (the folder) and by the
// instance image's digest (in the record), so that a nightly validation redoes only what
// changed; compare, sweeps, report, stats, submission --check and eval read it to set broken
// instances apart.
//
// Outcomes (Outcome): OK; GoldFails (with the tests that fail under the gold patch and how:
// failed, error, missing — not collected —, skipped); EmptyPasses (the FAIL_TO_PASS tests pass
// without the fix: they do not test the bug); Flaky (the verdict, or the status of a named test,
// differs between repeats of the same patch); Infrastructure (the image, the container, a
// timeout); KnownBad (listed broken by a file a benchmark's maintainers publish, ReadKnownBad,
// without a validation of ours). Broken reports the outcomes that leave paired statistics.
//
// Classify turns the gradings of an instance (Grading: one patch, one repeat, its verdict and
// the status of each expected test) into its outcome, reason and the tests concerned.
//
// Layout of a Store (Dir, default DefaultDir):
//
//	<dir>/<dataset slug>-<12 hex of dataset and revision>/
//	    instances/<instance id>.json   one Record each, written atomically as it is computed
//	    validation.json                every record of the folder (File), written at the end of a validate
//	    logs/<gold|empty>-<k>/<id>/…    the gradings' files, in eval's layout (kept for evidence)
//
// This package imports no other package of the project but internal/atomicfile and
// internal/names.
package validation
