// Package rebenchv2 grades SWE-rebench-V2 rows (nebius/SWE-rebench-V2: 32k tasks in 20 languages)
// exactly as that dataset's harness does (scripts/eval.py and lib/agent/log_parsers.py of
// github.com/SWE-rebench/SWE-rebench-V2):
//
//   - in the row's image (image_name), in /<repository name>, bash runs with set -e: git reset
//     --hard HEAD, git apply --3way of the patch and of the test patch, then
//     install_config.test_cmd (Task.Script); the log is the script's stdout followed by its
//     stderr;
//   - the log is read by the parser install_config.log_parser names (Parser: the 76 names of the
//     harness's NAME_TO_PARSER and the SWE-bench parsers its module keeps; where the harness took
//     a SWE-bench parser unchanged, package logparse's is used);
//   - timings some runners put in names (" [1.3 ms]", " in 29 msec", " (12ms)") are stripped from
//     parsed and expected names (NormalizeName);
//   - an instance is resolved iff the sorted names that PASSED equal the sorted PASS_TO_PASS +
//     FAIL_TO_PASS: an extra passing test fails it as much as a missing one (Grade);
//   - the harness's per-instance report is an item of its eval_report.json (ReportItem).
//
// A parser that raises in the harness (an IndexError on an odd line) returns an error here: the
// harness records such an instance as an error, not as unresolved.
package rebenchv2
