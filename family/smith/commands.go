package smith

import (
	"fmt"
	"strings"
)

// Workdir is where SWE-smith's images hold the repository.
const Workdir = "/testbed"

// PatchPath is where the harness copies a prediction in the container.
const PatchPath = "/tmp/patch.diff"

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// AgentStart is what runs before an agent starts, as SWE-agent and OpenHands prepare a SWE-smith
// instance: the repository checked out at the instance's branch, whose head holds the bug with the
// FAIL_TO_PASS tests' files removed. The image's clean checkout has neither.
func AgentStart(instanceID string) string {
	id := shellQuote(instanceID)
	return fmt.Sprintf("cd %s && (git checkout -q %s 2>/dev/null || (git fetch -q origin %s && git checkout -q %s))", Workdir, id, id, id)
}

// EvalCheckout are the harness's steps before an evaluation applies the prediction: fetch (its
// failure ignored), check out the instance's branch, then its parent commit (the bug with the
// tests still there).
func EvalCheckout(instanceID string) (fetch string, checkout []string) {
	return "git fetch", []string{"git checkout " + shellQuote(instanceID), "git checkout HEAD~1"}
}

// ApplyCommands are the harness's attempts at applying the prediction at PatchPath, in order.
func ApplyCommands() []string {
	return []string{
		"git apply --verbose " + PatchPath,
		"git apply --verbose --reject " + PatchPath,
		"patch --batch --fuzz=5 -p1 -i " + PatchPath,
	}
}

// RestoreFiles is `git checkout -- <files>`: what the harness runs on the files a prediction
// changes before applying it, and on the instance's test files after (so that a prediction cannot
// change the tests). "" for no files.
func RestoreFiles(files []string) string {
	if len(files) == 0 {
		return ""
	}
	q := make([]string, len(files))
	for i, f := range files {
		q[i] = shellQuote(f)
	}
	return "git checkout -- " + strings.Join(q, " ")
}

// EvalScript is the harness's eval.sh: xtrace on, the test command between the markers.
func EvalScript(testCommand string) string {
	return strings.Join([]string{"#!/bin/bash", "set -uxo pipefail", "cd " + Workdir,
		": '" + MarkerStart + "'", testCommand, ": '" + MarkerEnd + "'"}, "\n") + "\n"
}

// TimeoutNote is what the harness appends to the test output of a run that outlived the
// profile's timeout.
func TimeoutNote(seconds int) string {
	return fmt.Sprintf("\n\n%s: %d seconds exceeded", MarkerTimedOut, seconds)
}

// GoTestFilesScript prints the _test.go files (relative to the repository) that define any of the
// given test functions, one per line: the Go profiles' test files, found where the harness
// scans a clone of the mirror.
func GoTestFilesScript(tests []string) string {
	var names []string
	for _, t := range tests {
		if isGoIdent(t) {
			names = append(names, t)
		}
	}
	if len(names) == 0 {
		return "true"
	}
	return fmt.Sprintf(`cd %s && grep -rlE --include='*_test.go' '^[[:space:]]*func[[:space:]]+(%s)\b' . | sed 's#^\./##' | sort -u`,
		Workdir, strings.Join(names, "|"))
}

// isGoIdent reports whether a test name can be a Go function (subtests "Test/case" cannot: the
// harness looks names up as functions).
func isGoIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}
