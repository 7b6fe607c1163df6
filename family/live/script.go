package live

import (
	"regexp"
	"strings"
)

// Paths in the container.
const (
	// TestPatchPath and PatchPath hold the row's test_patch and the prediction's patch.
	TestPatchPath = "/tmp/live_test_patch.diff"
	PatchPath     = "/tmp/patch.diff"
	// ScriptPath holds Script's output; it runs as `bash -i ScriptPath`.
	ScriptPath = "/eval.sh"
)

// Lines the script prints around the print commands' output, the log the parser reads.
const (
	MarkerStart = ">>>>> Start Test Output"
	MarkerEnd   = ">>>>> End Test Output"
)

// RunCommand runs the script: an interactive bash, as the harness's session (a bash on a
// terminal) is, so that ~/.bashrc sets the environment the image was built in.
const RunCommand = "bash -i " + ScriptPath + " 2>&1"

// applyCommand is how the harness applies both patches (RepoLaunch's apply_patch).
const applyCommand = "git apply --reject --whitespace=nowarn "

// heredoc delimits run_test.sh as the harness writes it.
const heredoc = "CC_PROMPT"

// Script returns the commands the harness sends to its shell for a row, as one bash script run
// by RunCommand in the instance's container after the test patch and the prediction were written
// to TestPatchPath and PatchPath: apply the test patch, then the prediction, run the rebuild
// commands, the test commands and — between MarkerStart and MarkerEnd — the print commands, each
// list joined with " ; ". A row without print commands has its test commands written to
// run_test.sh and run as `bash run_test.sh > testlog.out 2>&1`, and testlog.out printed. The
// exit status of no command stops the script, as in the harness's session.
func Script(r Row) string {
	test := strings.Join(r.TestCmds, " ; ")
	printCmd := strings.Join(r.PrintCmds, " ; ")
	rebuild := strings.Join(r.RebuildCmds, " ; ")
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	b.WriteString("# SWE-bench-Live's evaluation (evaluation/evaluation.py) of " + r.InstanceID + ", as run by swebench-run.\n")
	// History expansion would drop a command holding "!x" (bash -i turns it on); the harness's
	// commands are meant literally.
	b.WriteString("set +H\n")
	b.WriteString("cd " + WorkDir + "\n")
	b.WriteString(applyCommand + TestPatchPath + "\n")
	b.WriteString(applyCommand + PatchPath + "\n")
	if strings.TrimSpace(rebuild) != "" {
		b.WriteString(rebuild + "\n")
	}
	if strings.TrimSpace(printCmd) == "" {
		b.WriteString("cat > run_test.sh <<'" + heredoc + "'\n" + test + "\n" + heredoc + "\n")
		test = "bash run_test.sh > testlog.out 2>&1"
		printCmd = "cat testlog.out"
	}
	b.WriteString(test + "\n")
	// Each marker on a line of its own, whatever the output before it ended with; PrintLog
	// drops the newline printed before the end marker.
	b.WriteString("printf '\\n%s\\n' '" + MarkerStart + "'\n")
	b.WriteString(printCmd + "\n")
	b.WriteString("printf '\\n%s\\n' '" + MarkerEnd + "'\n")
	return b.String()
}

// ansiEscape is the harness's ANSI_ESCAPE: the escape sequences removed from a session's output.
var ansiEscape = regexp.MustCompile(`\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])`)

// PrintLog returns the log the row's parser reads from the output of the script: what the print
// commands printed (between the last MarkerStart before the last MarkerEnd and that MarkerEnd),
// with ANSI escape sequences and carriage returns removed as the harness removes them from its
// session's output. ok is false when the output has no such section (the script did not get to
// the print commands).
func PrintLog(output string) (log string, ok bool) {
	end := strings.LastIndex(output+"\n", "\n"+MarkerEnd+"\n")
	if end < 0 {
		return "", false
	}
	startLine := "\n" + MarkerStart + "\n"
	start := strings.LastIndex(output[:end], startLine)
	if start < 0 {
		return "", false
	}
	return CleanLog(output[start+len(startLine) : end]), true
}

// CleanLog removes ANSI escape sequences and carriage returns, as the harness does with what its
// session prints.
func CleanLog(s string) string {
	return strings.ReplaceAll(ansiEscape.ReplaceAllString(s, ""), "\r", "")
}
