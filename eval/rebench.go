package eval

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval/logparse"
)

// SWE-rebench rows carry no eval_script: its harness fork (github.com/SWE-rebench/SWE-bench-fork,
// built on SWE-bench harness 4.0) builds the eval script from the row's install_config and
// test_patch, and grades with the parser named by install_config.log_parser. This file does the
// same, so that a row is graded exactly as that harness grades it.

// rebenchEnvPrefix is what the fork puts before install_config's install and test_cmd when it
// loads a dataset.
const rebenchEnvPrefix = "LANG=C.UTF-8 LC_ALL=C.UTF-8 "

// rebenchHeredoc delimits the test patch in the eval script, as in the harness.
const rebenchHeredoc = "EOF_114329324912"

// nonTestExts are the endings of test_patch files that are not run as tests (the harness's
// NON_TEST_EXTS; "csv" has no dot there).
var nonTestExts = []string{".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml"}

// failOnlyRepos are graded fail_only by the fork (its FAIL_ONLY_REPOS); every other repository
// pass_and_fail.
var failOnlyRepos = []string{"chartjs/Chart.js", "processing/p5.js", "markedjs/marked"}

// rebenchConfig is the part of an install_config the eval script and grading read.
type rebenchConfig struct {
	testCmd      string
	install      string
	hasInstall   bool
	evalCommands []string
	logParser    string
}

func rebenchConfigOf(inst dataset.Instance) (rebenchConfig, error) {
	var c rebenchConfig
	m, ok, err := inst.InstallConfig()
	if err != nil {
		return c, err
	}
	if !ok {
		return c, errors.New("no install_config")
	}
	var isStr bool
	if c.testCmd, isStr = m["test_cmd"].(string); !isStr {
		return c, fmt.Errorf("install_config.test_cmd: want a string, got %v", describe(m["test_cmd"]))
	}
	if v, has := m["install"]; has {
		if c.install, isStr = v.(string); !isStr {
			return c, fmt.Errorf("install_config.install: want a string, got %v", describe(v))
		}
		c.hasInstall = true
	}
	if v, has := m["eval_commands"]; has {
		list, isList := v.([]any)
		if !isList {
			return c, fmt.Errorf("install_config.eval_commands: want a list of strings, got %v", describe(v))
		}
		for _, e := range list {
			s, isStr := e.(string)
			if !isStr {
				return c, fmt.Errorf("install_config.eval_commands: want a list of strings, found %v", describe(e))
			}
			c.evalCommands = append(c.evalCommands, s)
		}
	}
	if c.logParser, isStr = m["log_parser"].(string); !isStr || c.logParser == "" {
		return c, fmt.Errorf("install_config.log_parser: want a parser name (one of %s), got %v",
			strings.Join(logparse.SWERebenchNames(), ", "), describe(m["log_parser"]))
	}
	return c, nil
}

func describe(v any) string {
	if v == nil {
		return "nothing"
	}
	return fmt.Sprintf("%T %v", v, v)
}

// RebenchScript returns the eval script SWE-rebench's harness fork runs for a row with an
// install_config: activate the testbed environment, run install_config.eval_commands, record the
// repository state, rerun install_config.install, reset the test files the test_patch touches to
// base_commit, apply the test_patch, run "LANG=C.UTF-8 LC_ALL=C.UTF-8 <test_cmd> <test
// files>" between the output markers, and reset the test files again. The test files are the
// test_patch's files that it does not delete, less data files (.json, .png, .txt, .md, …); for
// django/django they are module names (tests/a/b.py → a.b).
func RebenchScript(inst dataset.Instance) (string, error) {
	cfg, err := rebenchConfigOf(inst)
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
		lines = append(lines, rebenchEnvPrefix+cfg.install)
	}
	lines = append(lines,
		reset,
		"git apply -v - <<'"+rebenchHeredoc+"'\n"+inst.TestPatch+"\n"+rebenchHeredoc,
		": '"+MarkerStart+"'",
		strings.Join(append([]string{rebenchEnvPrefix + cfg.testCmd}, testDirectives(inst.Repo, files)...), " "),
		": '"+MarkerEnd+"'",
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

// rebenchEvalType is the fork's rule: fail_only for its FAIL_ONLY_REPOS, else pass_and_fail.
func rebenchEvalType(repo string) string {
	if slices.Contains(failOnlyRepos, repo) {
		return EvalFailOnly
	}
	return EvalPassAndFail
}

// gradeRebench grades a test log as the fork does (its get_logs_eval and get_eval_tests_report):
// a failure marker or missing start/end markers leave the patch "not applied"; otherwise only the
// text between the markers is parsed (no fallback to the whole log, no exit-code check). Under
// pass_and_fail a test succeeds when PASSED or XFAIL and fails when FAILED, ERROR or missing
// (any other status, SKIPPED included, counts in neither list); under fail_only it fails only
// when FAILED. Test ids match exactly. Resolved means every FAIL_TO_PASS and PASS_TO_PASS test
// succeeded.
func gradeRebench(inst dataset.Instance, testOutput string) (InstanceReport, error) {
	r := InstanceReport{InstanceID: inst.InstanceID, PatchExists: true}
	cfg, err := rebenchConfigOf(inst)
	if err != nil {
		return r, fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	parse, err := logparse.GetSWERebench(cfg.logParser)
	if err != nil {
		return r, fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	log := universalNewlines(testOutput)
	for _, bad := range []string{markerApplyFailed, markerResetFailed, markerTestsErrored, markerTimedOut} {
		if strings.Contains(log, bad) {
			return r, nil
		}
	}
	if !strings.Contains(log, MarkerStart) || !strings.Contains(log, MarkerEnd) {
		return r, nil
	}
	sliced := strings.SplitN(log, MarkerStart, 3)[1]
	sliced = strings.SplitN(sliced, MarkerEnd, 2)[0]
	sm, err := parse(sliced, inst.InstanceID)
	if err != nil {
		return r, fmt.Errorf("instance %s: %s: %w", inst.InstanceID, cfg.logParser, err)
	}
	r.PatchSuccessfullyApplied = true
	failOnly := rebenchEvalType(inst.Repo) == EvalFailOnly
	check := func(tests []string, res *TestResults) {
		for _, t := range tests {
			s, found := sm.Get(t)
			switch {
			case failOnly && found && s == logparse.Failed:
				res.Failure = append(res.Failure, t)
			case failOnly:
				res.Success = append(res.Success, t)
			case found && isPassing(s):
				res.Success = append(res.Success, t)
			case !found || s == logparse.Failed || s == logparse.Error:
				res.Failure = append(res.Failure, t)
			}
		}
	}
	ts := TestsStatus{FailToPass: emptyResults(), PassToPass: emptyResults(), FailToFail: emptyResults(), PassToFail: emptyResults()}
	check(inst.FailToPass, &ts.FailToPass)
	check(inst.PassToPass, &ts.PassToPass)
	r.TestsStatus = &ts
	r.Resolved = fullyResolved(ts)
	return r, nil
}
