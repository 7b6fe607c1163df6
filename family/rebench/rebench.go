// Package rebench is the profile of SWE-rebench (v1; nebius/SWE-rebench on the hub), graded as
// its harness fork grades it (github.com/SWE-rebench/SWE-bench-fork, built on SWE-bench harness
// 4.0).
//
// Rows are SWE-bench rows without the harness-v5 columns: each carries an install_config (its
// test_cmd a string, its log_parser one of the fork's parser names) and names its image in
// docker_image; the agent works in /testbed on the problem statement. A row of another dataset is
// SWE-rebench's when it has an install_config and no eval_script (SWE-rebench-V2's rows, whose
// install_config has a list of test commands or a base image, are that family's).
//
// Grading is the SWE-bench harness's (eval.HarnessGrader: the patch with the harness's fallbacks,
// /eval.sh, test_output.txt, report.json), with the fork's eval script (Script: built from
// install_config and test_patch) and the fork's grading (Grade: its get_logs_eval and
// get_eval_tests_report, with its older parsers). Predictions are the run's preds.json and
// verdicts report.json and the run report, as for SWE-bench.
package rebench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/eval/logparse"
)

// envPrefix is what the fork puts before install_config's install and test_cmd when it loads a
// dataset.
const envPrefix = "LANG=C.UTF-8 LC_ALL=C.UTF-8 "

// heredoc delimits the test patch in the eval script, as in the harness.
const heredoc = "EOF_114329324912"

// nonTestExts are the endings of test_patch files that are not run as tests (the harness's
// NON_TEST_EXTS; "csv" has no dot there).
var nonTestExts = []string{".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml"}

// failOnlyRepos are graded fail_only by the fork (its FAIL_ONLY_REPOS); every other repository
// pass_and_fail.
var failOnlyRepos = []string{"chartjs/Chart.js", "processing/p5.js", "markedjs/marked"}

// Check reports the rows the fork could not build an eval script for or has no parser for, naming
// them (eval.Harness.Check).
func Check(insts []dataset.Instance) error {
	var bad []string
	for _, inst := range insts {
		if _, err := Script(inst); err != nil {
			bad = append(bad, err.Error())
		} else if cfg, _ := configOf(inst); cfg.logParser != "" {
			if _, err := Parser(cfg.logParser); err != nil {
				bad = append(bad, fmt.Sprintf("instance %s: %v", inst.InstanceID, err))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d rows cannot be graded: %s", len(bad), eval.Abbreviate(bad))
	}
	return nil
}

// Script returns the eval script SWE-rebench's harness fork runs for a row: activate the testbed
// environment, run install_config.eval_commands, record the repository state, rerun
// install_config.install, reset the test files the test_patch touches to base_commit, apply the
// test_patch, run "LANG=C.UTF-8 LC_ALL=C.UTF-8 <test_cmd> <test files>" between the output
// markers, and reset the test files again. The test files are the test_patch's files that it does
// not delete, less data files (.json, .png, .txt, .md, …); for django/django they are module
// names (tests/a/b.py → a.b).
func Script(inst dataset.Instance) (string, error) {
	cfg, err := configOf(inst)
	if err != nil {
		return "", fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	if inst.BaseCommit == "" {
		return "", fmt.Errorf("instance %s: no base_commit: the eval script resets the test files to it", inst.InstanceID)
	}
	files, err := parseUnidiff(inst.TestPatch)
	if err != nil {
		return "", fmt.Errorf("instance %s: test_patch is not a diff the harness can read: %w", inst.InstanceID, err)
	}
	const repoDir, env = "/testbed", "testbed"
	reset := "git checkout " + inst.BaseCommit + " " + strings.Join(modifiedFiles(files), " ")
	lines := []string{
		"source /opt/miniconda3/bin/activate",
		"conda activate " + env,
		"cd " + repoDir,
	}
	lines = append(lines, cfg.evalCommands...)
	lines = append(lines,
		"git config --global --add safe.directory "+repoDir,
		"cd "+repoDir,
		"git status",
		"git show",
		"git -c core.fileMode=false diff "+inst.BaseCommit,
		"source /opt/miniconda3/bin/activate",
		"conda activate "+env,
	)
	if cfg.hasInstall {
		lines = append(lines, envPrefix+cfg.install)
	}
	lines = append(lines,
		reset,
		"git apply -v - <<'"+heredoc+"'\n"+inst.TestPatch+"\n"+heredoc,
		": '"+eval.MarkerStart+"'",
		strings.Join(append([]string{envPrefix + cfg.testCmd}, testDirectives(inst.Repo, files)...), " "),
		": '"+eval.MarkerEnd+"'",
		reset,
	)
	return "#!/bin/bash\nset -uxo pipefail\n" + strings.Join(lines, "\n") + "\n", nil
}

// testDirectives is the fork's get_test_directives.
func testDirectives(repo string, files []*udFile) []string {
	switch repo {
	case "swe-bench/humaneval", "swe-bench/humanevalfix-python":
		return []string{"test.py"}
	case "swe-bench/humanevalfix-go", "swe-bench/humanevalfix-java":
		return nil
	case "swe-bench/humanevalfix-js":
		return []string{"test.js"}
	case "nebius/nebo":
		return []string{""}
	}
	var out []string
	for _, d := range changedFiles(files) {
		if slices.ContainsFunc(nonTestExts, func(ext string) bool { return strings.HasSuffix(d, ext) }) {
			continue
		}
		if repo == "django/django" {
			d = strings.TrimSuffix(d, ".py")
			d = strings.TrimPrefix(d, "tests/")
			d = strings.ReplaceAll(d, "/", ".")
		}
		out = append(out, d)
	}
	return out
}

// evalType is the fork's rule: fail_only for its FAIL_ONLY_REPOS, else pass_and_fail.
func evalType(repo string) string {
	if slices.Contains(failOnlyRepos, repo) {
		return eval.EvalFailOnly
	}
	return eval.EvalPassAndFail
}

// Grade grades a test log as the fork does (its get_logs_eval and get_eval_tests_report): a
// failure marker or missing start/end markers leave the patch "not applied"; otherwise only the
// text between the markers is parsed (no fallback to the whole log, no exit-code check). Under
// pass_and_fail a test succeeds when PASSED or XFAIL and fails when FAILED, ERROR or missing
// (any other status, SKIPPED included, counts in neither list); under fail_only it fails only
// when FAILED. Test ids match exactly. Resolved means every FAIL_TO_PASS and PASS_TO_PASS test
// succeeded.
func Grade(inst dataset.Instance, testOutput string) (eval.InstanceReport, error) {
	r := eval.InstanceReport{InstanceID: inst.InstanceID, PatchExists: true}
	cfg, err := configOf(inst)
	if err != nil {
		return r, fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	parse, err := Parser(cfg.logParser)
	if err != nil {
		return r, fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	sliced, ok := eval.TestOutput(testOutput)
	if !ok {
		return r, nil
	}
	sm, err := parse(sliced, inst.InstanceID)
	if err != nil {
		return r, fmt.Errorf("instance %s: %s: %w", inst.InstanceID, cfg.logParser, err)
	}
	r.PatchSuccessfullyApplied = true
	failOnly := evalType(inst.Repo) == eval.EvalFailOnly
	check := func(tests []string, res *eval.TestResults) {
		for _, t := range tests {
			s, found := sm.Get(t)
			switch {
			case failOnly && found && s == logparse.Failed:
				res.Failure = append(res.Failure, t)
			case failOnly:
				res.Success = append(res.Success, t)
			case found && eval.IsPassing(s):
				res.Success = append(res.Success, t)
			case !found || s == logparse.Failed || s == logparse.Error:
				res.Failure = append(res.Failure, t)
			}
		}
	}
	ts := eval.NewTestsStatus()
	check(inst.FailToPass, &ts.FailToPass)
	check(inst.PassToPass, &ts.PassToPass)
	r.TestsStatus = &ts
	r.Resolved = eval.FullyResolved(ts)
	return r, nil
}

// harness is the fork's way to grade, for eval.HarnessGrader.
var harness = eval.Harness{Check: Check, Script: Script, Grade: Grade}
