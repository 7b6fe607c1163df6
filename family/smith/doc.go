// Package smith runs and grades SWE-smith instances (SWE-bench/SWE-smith: synthetic bugs in 543
// repositories) as SWE-smith's harness does (swesmith/harness and swesmith/profiles of
// github.com/SWE-bench/SWE-smith):
//
//   - every instance belongs to a repository profile (ProfileFor: by the row's repo, else by its
//     id's prefix <owner>__<repo>.<commit>), which gives its image, test command, timeout, log
//     parser and test files (profiles.tsv, from the harness's profile classes);
//   - an instance's bug lives on a branch named after it in the image's repository: agents start
//     on it (AgentStart), as SWE-agent and OpenHands start them; evaluation checks out the
//     branch's parent, which still has the tests (EvalCheckout), applies the prediction
//     (ApplyCommands), restores the test files, and runs eval.sh (EvalScript);
//   - the output between the start and end markers is read by the profile's parser, and the
//     instance is resolved iff every FAIL_TO_PASS and PASS_TO_PASS test passed — a test the log
//     does not mention fails (Grade); report.json is the harness's (Report), and validation runs
//     compare two logs (Validate).
package smith
