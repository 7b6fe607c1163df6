package live

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Paths in the container.
const (
	// TestPatchPath and PatchPath hold the row's test_patch and the prediction's patch.
	TestPatchPath = "/tmp/live_test_patch.diff"
	PatchPath     = "/tmp/patch.diff"
	// ScriptPath holds Script's output; it runs as `bash -i ScriptPath`.
	ScriptPath = "/eval.sh"
	// PrintOutputPath keeps the print commands' output as bytes: the sandbox replaces invalid
	// UTF-8 in what a command prints, where the harness drops it (RawPrintLog).
	PrintOutputPath = "/tmp/live_print_output"
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
// exit status of no command stops the script, as in the harness's session. What the print
// commands print is also kept in PrintOutputPath.
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
	// The print commands as the harness runs them, their output also kept in PrintOutputPath
	// (an image without tee prints it only).
	b.WriteString("if command -v tee >/dev/null 2>&1; then\n{ " + printCmd + "\n} 2>&1 | tee " + PrintOutputPath + "\nelse\n{ " + printCmd + "\n}\nfi\n")
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

// RawPrintLog is the log the harness reads from the print commands' output as bytes (the
// content of PrintOutputPath): decoded as its session decodes what the container prints
// (RepoLaunch's LinuxRuntime, bytes.decode("utf-8", errors="ignore"): invalid UTF-8 is dropped),
// then cleaned as CleanLog cleans it. The harness decodes the output in chunks of 4096 bytes, so
// that a character split between two chunks is dropped too; here nothing valid is.
func RawPrintLog(b []byte) string { return CleanLog(dropInvalidUTF8(b)) }

// dropInvalidUTF8 decodes b as UTF-8, dropping every byte that is not part of a valid sequence
// (Python's errors="ignore").
func dropInvalidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r != utf8.RuneError || n > 1 {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}

// CleanLog removes ANSI escape sequences and carriage returns, as the harness does with what its
// session prints.
func CleanLog(s string) string {
	return strings.ReplaceAll(ansiEscape.ReplaceAllString(s, ""), "\r", "")
}
