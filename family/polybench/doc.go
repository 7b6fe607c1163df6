// Package polybench grades SWE-PolyBench rows (AmazonScience/SWE-PolyBench, _500 and _Verified:
// Java, JavaScript, TypeScript and Python) exactly as that dataset's harness does
// (src/poly_bench_evaluation of github.com/amazon-science/SWE-PolyBench):
//
//   - in the instance's image, in its WorkingDir, the test patch then the prediction are applied
//     (git apply --reject, then patch --fuzz=5: ApplyCommands); a test patch that fails leaves
//     the instance unapplied, as does a prediction that fails;
//   - eval.sh (set -uxo pipefail, the row's test_command: Task.Script) runs for up to 30 minutes
//     (Java) or 20; the log is its stderr, then its stdout, then the harness's "Container exited"
//     lines (RunLog);
//   - the repository's parser class reads the log (ParserFor: Maven Surefire XML, Mocha JSON,
//     TAP, Jest JSON, Bazel, pytest and unittest); some classes return the harness's empty dict
//     when the log holds no report (Results nil: no logs);
//   - an instance is resolved iff every F2P test passed and no P2P test failed (Score);
//   - the per-instance report is <instance_id>_result.json (Output, ReadResult, WriteResult).
package polybench
