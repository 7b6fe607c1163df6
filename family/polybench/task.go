package polybench

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Task is what SWE-PolyBench's harness (run_evaluation.py, docker_utils.py) reads from a row.
type Task struct {
	InstanceID  string
	Repo        string
	Language    string // Java, JavaScript, TypeScript or Python
	TestCommand string
	Patch       string // the gold patch
	TestPatch   string
	F2P, P2P    []string
	ParserName  string
	Parse       Parser
}

// TaskOf reads a SWE-PolyBench row: F2P and P2P are Python list literals, as in the dataset (or
// lists); the repository must be one the harness has a parser for.
func TaskOf(inst dataset.Instance) (Task, error) {
	t := Task{InstanceID: inst.InstanceID, Repo: inst.Repo, Patch: inst.Patch, TestPatch: inst.TestPatch}
	row := func(format string, args ...any) error {
		return fmt.Errorf("SWE-PolyBench row %s: "+format, append([]any{t.InstanceID}, args...)...)
	}
	if t.InstanceID == "" {
		return t, fmt.Errorf("SWE-PolyBench row without instance_id")
	}
	var err error
	if t.Parse, t.ParserName, err = ParserFor(t.Repo); err != nil {
		return t, row("%w", err)
	}
	t.Language, _ = inst.Extra["language"].(string)
	if t.Language == "" {
		return t, row("no language column (Java, JavaScript, TypeScript or Python)")
	}
	t.TestCommand, _ = inst.Extra["test_command"].(string)
	if strings.TrimSpace(t.TestCommand) == "" {
		return t, row("no test_command column; SWE-PolyBench rows carry the command that runs their tests")
	}
	if t.F2P, err = testList(inst, "F2P", inst.FailToPass); err != nil {
		return t, row("%w", err)
	}
	if t.P2P, err = testList(inst, "P2P", inst.PassToPass); err != nil {
		return t, row("%w", err)
	}
	return t, nil
}

// testList reads a column holding a Python list literal of test names (or a list), falling back
// to the standard column's list.
func testList(inst dataset.Instance, col string, standard []string) ([]string, error) {
	switch v := inst.Extra[col].(type) {
	case nil:
		if standard != nil {
			return standard, nil
		}
		return nil, fmt.Errorf("no %s column (the tests the harness checks)", col)
	case string:
		l, err := pytext.LiteralStrings(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", col, err)
		}
		return l, nil
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s: element %d is not a string", col, i)
			}
			out[i] = s
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%s: want a list of test names, got %T", col, v)
	}
}

// Timeout is how long the harness lets the test command run: 30 minutes for Java, 20 otherwise.
func (t Task) Timeout() time.Duration {
	if strings.EqualFold(t.Language, "java") {
		return 1800 * time.Second
	}
	return 1200 * time.Second
}

// Script is eval.sh as the harness writes it into the working directory and runs with
// /bin/bash: xtrace on, the row's test command.
func (t Task) Script() string {
	return strings.Join([]string{"#!/bin/bash", "set -uxo pipefail", t.TestCommand}, "\n")
}

// ApplyCommands are the harness's attempts at applying a patch file (in the working directory),
// in order: git apply with --reject, then patch with fuzz. The test patch is applied before the
// prediction; a prediction that neither applies leaves patch_applied false.
func ApplyCommands(workdir, file string) []string {
	p := workdir + "/" + file
	return []string{
		"git apply -v --ignore-whitespace --reject " + p,
		"patch --batch --fuzz=5 -p1 -f -i " + p,
	}
}

// Patch file names in the working directory.
const (
	TestPatchFile = "patch_test.diff"
	CodePatchFile = "patch_code.diff"
)

// TimedOutLog is the whole run log after the test command outlived its timeout.
const TimedOutLog = "Container operation timed out"

// RunLog is the log the harness parses: the test run's stderr, then its stdout, then twice the
// line "Container exited with status code: N".
func RunLog(stderr, stdout string, exitCode int) string {
	exited := "Container exited with status code: " + strconv.Itoa(exitCode)
	return stderr + stdout + "\n" + exited + "\n" + exited
}
