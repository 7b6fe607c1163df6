// Package live is the dataset family of SWE-bench-Live (github.com/microsoft/SWE-bench-Live): the
// Python tasks of SWE-bench-Live/SWE-bench-Live (splits lite, verified, full, test) and the
// multi-language tasks of SWE-bench-Live/MultiLang (one split per language), whose rows carry
// their own commands — rebuild_cmds, test_cmds, print_cmds — and their own log parser: "pytest"
// (the harness's copy of SWE-bench's pytest parser) or Python source defining parser(log) ->
// {test: status}.
//
// Evaluation is that of the harness's evaluation/evaluation.py (read at microsoft/SWE-bench-Live
// 70ec57e852e3f2d195790fe71f553e272c691833, with its RepoLaunch submodule at
// 7735b1e7363dd3bbc69bd0ef80db646a2ae391fd), in one fresh container of the instance's image (the
// row's docker_image, else starryzhang/sweb.eval.x86_64.<id, __ → _1776_>), in /testbed, in an
// interactive bash as the harness's session is: the test patch, then the prediction, each with
// `git apply --reject --whitespace=nowarn` (a patch that does not apply does not stop the
// evaluation), the rebuild commands, the test commands and the print commands, each list joined
// with " ; " (rows without print commands run their test commands from run_test.sh into
// testlog.out and print that, as the harness does for the Python dataset). The print commands'
// output — decoded dropping invalid UTF-8, ANSI escapes and carriage returns removed — is the
// log; the row's parser reads it — the Python source in a sandbox (package pyparser), never in
// this process. A test passes when its status contains "pass", fails when it contains "fail";
// resolved means no PASS_TO_PASS and no FAIL_TO_PASS test failed and every FAIL_TO_PASS test
// passed. The harness's files are written per instance: post_patch_log.txt, status.json and its
// report.json ({instance_id, resolved, PASS_TO_PASS, FAIL_TO_PASS}), and its results.json for the
// run.
//
// Rows without FAIL_TO_PASS or PASS_TO_PASS (tasks before validation, as RepoLaunch's
// instance.json) load, and can be run, but the harness cannot grade them: eval says so (Gradable).
// Windows tasks (SWE-bench-Live/Windows, images sweb.eval.win.*) load too; their evaluation needs
// Windows containers and is refused, their logs regrade.
package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
)

// Hub datasets of the family.
const (
	HubPython    = "SWE-bench-Live/SWE-bench-Live"
	HubMultiLang = "SWE-bench-Live/MultiLang"
)

// Columns of a SWE-bench-Live row that the harness reads besides SWE-bench's.
const (
	colTestCmds    = "test_cmds"
	colPrintCmds   = "print_cmds"
	colRebuildCmds = "rebuild_cmds"
	colLogParser   = "log_parser"
	colParser      = "parser" // read when the row has no log_parser column, as the harness does
	colPlatform    = "platform"
)

// PytestParser is the log_parser value of the Python dataset's rows: SWE-bench's pytest parser.
const PytestParser = "pytest"

// WorkDir is where the repository is in the family's images.
const WorkDir = "/testbed"

// Row is what the harness reads of a SWE-bench-Live row.
type Row struct {
	InstanceID  string
	TestCmds    []string
	PrintCmds   []string
	RebuildCmds []string
	// Parser is the row's log_parser: PytestParser or Python source defining parser(log).
	Parser string
}

// IsPytest reports whether the row is graded with SWE-bench's pytest parser (the harness
// compares the lowered, stripped value with "pytest").
func (r Row) IsPytest() bool { return strings.ToLower(strings.TrimSpace(r.Parser)) == PytestParser }

// HasLiveColumns reports whether a decoded row has SWE-bench-Live's columns: test_cmds and a
// parser column (see parserColumn) that is "pytest" or Python source, or a log_parser column that
// is there but empty (the harness takes it as it is; RowOf says why it cannot grade with it).
func HasLiveColumns(inst *dataset.Instance) bool {
	if _, ok := inst.Extra[colTestCmds]; !ok {
		return false
	}
	p, col, _ := parserColumn(inst)
	r := Row{Parser: p}
	return r.IsPytest() || isPythonParser(p) || (col == colLogParser && strings.TrimSpace(p) == "")
}

// parserColumn is the parser the harness reads, instance.get("log_parser", instance.get("parser",
// "")) (evaluation/evaluation.py, run_instance): the row's log_parser column whenever the row has
// one, empty or not, else its parser column, else "". col names the column read ("" when
// neither is there); str is false when the value is not a string (null: the harness's None).
func parserColumn(inst *dataset.Instance) (parser, col string, str bool) {
	// dataset keeps log_parser's raw value in Extra: there whenever the row has the column.
	raw, ok := inst.Extra[colLogParser]
	if !ok && inst.LogParser != "" {
		raw, ok = inst.LogParser, true
	}
	col = colLogParser
	if !ok {
		if raw, ok = inst.Extra[colParser]; !ok {
			return "", "", true
		}
		col = colParser
	}
	s, str := raw.(string)
	return s, col, str
}

func isPythonParser(s string) bool { return strings.Contains(s, "def parser(") }

// RowOf reads the harness's columns of a row: its commands and its parser. A missing or bad
// column is a *dataset.FieldError naming it (several joined). What grading needs besides
// (Gradable) is not checked here: a row lacking it can still be run.
func RowOf(inst *dataset.Instance) (Row, error) {
	p, col, str := parserColumn(inst)
	r := Row{InstanceID: inst.InstanceID, Parser: p}
	var errs []error
	var err error
	if r.TestCmds, err = stringList(inst, colTestCmds); err != nil {
		errs = append(errs, err)
	} else if strings.TrimSpace(strings.Join(r.TestCmds, "")) == "" {
		errs = append(errs, &dataset.FieldError{Field: colTestCmds, Reason: "missing or empty: the harness runs these commands to test the patch"})
	}
	if r.PrintCmds, err = stringList(inst, colPrintCmds); err != nil {
		errs = append(errs, err)
	}
	if r.RebuildCmds, err = stringList(inst, colRebuildCmds); err != nil {
		errs = append(errs, err)
	}
	if err := parserError(p, col, str); err != nil {
		errs = append(errs, err)
	}
	return r, errors.Join(errs...)
}

// parserError says why the harness cannot grade with the parser parserColumn read, nil when it
// can: "pytest" (any case, spaces around) or Python source defining parser(log).
func parserError(p, col string, str bool) error {
	want := fmt.Sprintf("want %q or Python source defining parser(log)", PytestParser)
	switch {
	case col == "":
		return &dataset.FieldError{Field: colLogParser, Reason: "missing: " + want}
	case !str:
		return &dataset.FieldError{Field: col, Reason: "null: the harness fails on it (" + want + ")"}
	case col == colLogParser && strings.TrimSpace(p) == "":
		return &dataset.FieldError{Field: colLogParser, Reason: "empty: SWE-bench-Live's evaluation.py takes log_parser as it is whenever the row has the column (it reads the parser column only when log_parser is absent), and an empty parser defines no function parser, so the harness counts the instance as an error; " + want}
	case strings.TrimSpace(p) == "":
		return &dataset.FieldError{Field: col, Reason: "empty: " + want}
	case !(Row{Parser: p}).IsPytest() && !isPythonParser(p):
		return &dataset.FieldError{Field: col, Reason: fmt.Sprintf("%s, got %q", want, abbreviate(p))}
	}
	return nil
}

// Gradable says why the harness cannot grade a row here, nil when it can: a row without
// FAIL_TO_PASS or PASS_TO_PASS (the harness's evaluation.py fails on it; see testListsError), or a
// Windows task (when inContainer: its tests need Windows containers; a Windows task's logs regrade
// without one). Errors are *dataset.FieldError values, joined.
func Gradable(inst *dataset.Instance, inContainer bool) error {
	var errs []error
	if err := testListsError(inst); err != nil {
		errs = append(errs, err)
	}
	if w := windowsReason(inst); w != "" && inContainer {
		errs = append(errs, &dataset.FieldError{Field: "docker_image", Reason: w})
	}
	return errors.Join(errs...)
}

// testListsError says that the row has no FAIL_TO_PASS or PASS_TO_PASS. SWE-bench-Live's
// evaluation.py reads both (run_instance: instance["PASS_TO_PASS"]) after running the tests, and
// a row without them raises there: the instance is among the run's error_ids. Such rows are tasks
// before validation (RepoLaunch's instance.json): evaluation/validation.py derives both from runs
// before and after the gold patch (compare: PASS_TO_PASS = passing before ∩ after, FAIL_TO_PASS =
// after − before), and the published datasets carry them.
func testListsError(inst *dataset.Instance) error {
	var missing []string
	if inst.FailToPass == nil {
		missing = append(missing, "FAIL_TO_PASS")
	}
	if inst.PassToPass == nil {
		missing = append(missing, "PASS_TO_PASS")
	}
	if len(missing) == 0 {
		return nil
	}
	return &dataset.FieldError{Field: missing[0], Reason: "missing (the row has no " + strings.Join(missing, " and ") + "): " +
		"SWE-bench-Live's evaluation.py cannot grade it (it fails on the missing column and lists the instance among its error_ids). " +
		"The row is a task before validation, as RepoLaunch's instance.json is: SWE-bench-Live's evaluation/validation.py derives " +
		"FAIL_TO_PASS (the tests that pass with the gold patch and not without it) and PASS_TO_PASS (those that pass with and without it), " +
		"and the published rows (SWE-bench-Live/SWE-bench-Live, SWE-bench-Live/MultiLang) carry both: evaluate against those, or add the two lists to the row"}
}

// stringList reads a column holding a list of strings (a parquet list, a JSON array, or a
// JSON-encoded string of one); an absent or null column is an empty list.
func stringList(inst *dataset.Instance, col string) ([]string, error) {
	v, ok := inst.Extra[col]
	if !ok || v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, 0, len(x))
		for k, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, &dataset.FieldError{Field: col, Reason: fmt.Sprintf("item %d is %T, want a string", k, e)}
			}
			out = append(out, s)
		}
		return out, nil
	case string:
		var out []string
		if err := json.Unmarshal([]byte(x), &out); err != nil {
			return nil, &dataset.FieldError{Field: col, Reason: fmt.Sprintf("want a list of strings, got the string %q", abbreviate(x))}
		}
		return out, nil
	}
	return nil, &dataset.FieldError{Field: col, Reason: fmt.Sprintf("want a list of strings, got %T", v)}
}

// DefaultImage is the harness's image of an instance without a docker_image: the Linux image of
// its instance id (starryzhang/sweb.eval.x86_64.<id with __ → _1776_, lower-cased>), qualified.
func DefaultImage(instanceID string) string {
	return "docker.io/starryzhang/sweb.eval.x86_64." + strings.ToLower(strings.ReplaceAll(instanceID, "__", "_1776_")) + ":latest"
}

// windowsReason says why a row is a Windows task ("" when it is not): its platform column, or
// an image of the harness's Windows naming (sweb.eval.win.*, RepoLaunch's *_windows).
func windowsReason(inst *dataset.Instance) string {
	if p, _ := inst.Extra[colPlatform].(string); strings.EqualFold(p, "windows") {
		return "the row's platform is windows: SWE-bench-Live's Windows tasks need Windows containers, which swebench-run does not run; use the harness on a Windows host (evaluation.py --platform windows)"
	}
	img := strings.ToLower(inst.Image)
	if strings.Contains(img, "sweb.eval.win.") || strings.HasSuffix(img, "_windows") {
		return fmt.Sprintf("image %s is a Windows image: SWE-bench-Live's Windows tasks need Windows containers, which swebench-run does not run; use the harness on a Windows host (evaluation.py --platform windows)", inst.Image)
	}
	return ""
}

func abbreviate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
