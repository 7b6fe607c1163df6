// Package gym is the dataset family of SWE-Gym (SWE-Gym/SWE-Gym, SWE-Gym/SWE-Gym-Lite: Python
// tasks from 11 repositories, for training agents). Its rows are SWE-bench rows without
// eval_script: SWE-Gym's harness fork (github.com/SWE-Gym/SWE-Bench-Fork, built on SWE-bench
// harness 2.0) builds the eval script from its per-repository, per-version specifications
// (specs.go) and grades with SWE-bench's rules of that version. This package does the same:
//
//   - image docker.io/xingyaoww/sweb.eval.x86_64.<instance id, __ → _s_, lower-cased>, in
//     /testbed with the conda environment testbed;
//   - the prediction applied with `git apply --allow-empty -v`, else `patch --batch --fuzz=5
//     -p1`;
//   - EvalScript: the fork's make_eval_script_list (no output markers; `set -xo pipefail`);
//   - Grade: the fork's get_eval_report — the whole log parsed with the repository's parser
//     (SWE-bench's pytest parser, pydantic's variant for pydantic/pydantic), a test passes when
//     PASSED or XFAIL and fails when FAILED, ERROR or missing (a SKIPPED test is neither),
//     resolved when every FAIL_TO_PASS and PASS_TO_PASS test that passed or failed passed; a log
//     without "applied patch" (the test patch's `git apply -v`) or with an error marker is not
//     graded. The report is SWE-bench's report.json.
package gym

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Hub datasets of the family.
const (
	Hub     = "SWE-Gym/SWE-Gym"
	HubLite = "SWE-Gym/SWE-Gym-Lite"
)

// WorkDir is where the repository is in SWE-Gym's images.
const WorkDir = "/testbed"

// specs indexes specGroups: lower-cased repository → version → spec.
var specs = func() map[string]map[string]spec {
	m := map[string]map[string]spec{}
	for _, g := range specGroups {
		if m[g.repo] == nil {
			m[g.repo] = map[string]spec{}
		}
		for _, v := range g.versions {
			m[g.repo][v] = g.spec
		}
	}
	return m
}()

// Repos lists the repositories the fork has specifications for, lower-cased, sorted.
func Repos() []string {
	out := make([]string, 0, len(specs))
	for r := range specs {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// HasSpec reports whether the fork has a specification for a row's repository (any version).
func HasSpec(repo string) bool { return specs[strings.ToLower(repo)] != nil }

// specOf returns the specification of a row, or a *dataset.FieldError naming repo or version.
func specOf(inst *dataset.Instance) (spec, error) {
	versions := specs[strings.ToLower(inst.Repo)]
	if versions == nil {
		return spec{}, &dataset.FieldError{Field: "repo", Reason: fmt.Sprintf("%q is not a repository SWE-Gym's harness has specifications for (%s)", inst.Repo, strings.Join(Repos(), ", "))}
	}
	s, ok := versions[inst.Version]
	if !ok {
		known := make([]string, 0, len(versions))
		for v := range versions {
			known = append(known, v)
		}
		sort.Strings(known)
		return spec{}, &dataset.FieldError{Field: "version", Reason: fmt.Sprintf("%q: SWE-Gym's harness has no specification for this version of %s (it has %s)", inst.Version, inst.Repo, strings.Join(known, ", "))}
	}
	return s, nil
}

// DefaultImage is SWE-Gym's image of an instance: docker.io/xingyaoww/sweb.eval.x86_64.<id with
// __ → _s_, lower-cased>:latest.
func DefaultImage(instanceID string) string {
	return "docker.io/xingyaoww/sweb.eval.x86_64." + strings.ToLower(strings.ReplaceAll(instanceID, "__", "_s_")) + ":latest"
}

// PatchCommands are the fork's ways to apply the prediction (written to /tmp/patch.diff), tried
// in order.
var PatchCommands = []string{
	"git apply --allow-empty -v /tmp/patch.diff",
	"patch --batch --fuzz=5 -p1 -i /tmp/patch.diff",
}

// heredoc delimits the test patch in the eval script, as in the fork.
const heredoc = "EOF_114329324912"

// nonTestExts are the endings of test_patch files that are not run as tests (the fork's
// NON_TEST_EXTS; "csv" has no dot there).
var nonTestExts = []string{".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml"}

// The fork's patterns, read as Python reads them (pytext.Re).
var (
	modifiedFileRe = pytext.Re(`--- a/(.*)`)
	diffFileRe     = pytext.Re(`diff --git a/.* b/(.*)`)
	mypyCaseRe     = pytext.Re(`\[case ([^\]]+)\]`)
)

// EvalScript returns the eval script SWE-Gym's harness fork builds for a row (its TestSpec's
// eval_script): activate the testbed environment, run the spec's eval_commands, record the
// repository's state, rerun the spec's install, check out the files the test patch modifies at
// base_commit, apply the test patch, run the test command, and check the files out again. The
// test command is the spec's test_cmd followed by the test patch's files less data files, or —
// for python/mypy — by the quoted "or" of the test cases the test patch names ([case X]).
func EvalScript(inst *dataset.Instance) (string, error) {
	s, err := specOf(inst)
	if err != nil {
		return "", fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	if inst.BaseCommit == "" {
		return "", fmt.Errorf("instance %s: %w", inst.InstanceID, &dataset.FieldError{Field: "base_commit", Reason: "missing or empty: the eval script checks the test files out at it"})
	}
	var files []string
	for _, m := range modifiedFileRe.FindAllStringSubmatch(inst.TestPatch, -1) {
		files = append(files, m[1])
	}
	reset := "git checkout " + inst.BaseCommit + " " + strings.Join(files, " ")
	const env, dir = "testbed", WorkDir
	lines := []string{
		"source /opt/miniconda3/bin/activate",
		"conda activate " + env,
		"cd " + dir,
	}
	lines = append(lines, s.EvalCommands...)
	lines = append(lines,
		"git config --global --add safe.directory "+dir,
		"cd "+dir,
		"git status",
		"git show",
		"git diff "+inst.BaseCommit,
		"source /opt/miniconda3/bin/activate",
		"conda activate "+env,
	)
	if s.Install != "" {
		lines = append(lines, s.Install)
	}
	lines = append(lines,
		reset,
		"git apply -v - <<'"+heredoc+"'\n"+inst.TestPatch+"\n"+heredoc,
		testCommand(inst, s),
		reset,
	)
	return "#!/bin/bash\nset -xo pipefail\n" + strings.Join(lines, "\n") + "\n", nil
}

// testCommand is the fork's make_test_command.
func testCommand(inst *dataset.Instance, s spec) string {
	if inst.Repo == "python/mypy" {
		var keys []string
		for _, m := range mypyCaseRe.FindAllStringSubmatch(inst.TestPatch, -1) {
			keys = append(keys, m[1])
		}
		return s.TestCmd + " " + `"` + strings.Join(keys, " or ") + `"`
	}
	parts := []string{s.TestCmd}
	for _, m := range diffFileRe.FindAllStringSubmatch(inst.TestPatch, -1) {
		d := m[1]
		if !slices.ContainsFunc(nonTestExts, func(ext string) bool { return strings.HasSuffix(d, ext) }) {
			parts = append(parts, d)
		}
	}
	return strings.Join(parts, " ")
}
