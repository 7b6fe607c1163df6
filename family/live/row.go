// Package live is the dataset family of SWE-bench-Live (github.com/microsoft/SWE-bench-Live): the
// Python tasks of SWE-bench-Live/SWE-bench-Live (splits lite, verified, full, test) and the
// multi-language tasks of SWE-bench-Live/MultiLang (one split per language), whose rows carry
// their own commands — rebuild_cmds, test_cmds, print_cmds — and their own log parser: "pytest"
// (SWE-bench's pytest parser) or Python source defining parser(log) -> {test: status}.
//
// Evaluation is that of the harness's evaluation/evaluation.py, in one fresh container of the
// instance's image (the row's docker_image, else starryzhang/sweb.eval.x86_64.<id, __ → _1776_>),
// in /testbed, in an interactive bash as the harness's session is: the test patch, then the
// prediction, each with `git apply --reject --whitespace=nowarn` (a patch that does not apply
// does not stop the evaluation), the rebuild commands, the test commands and the print
// commands, each list joined with " ; " (rows without print commands run their test commands
// from run_test.sh into testlog.out and print that, as the harness does for the Python
// dataset). The print commands' output, ANSI escapes and carriage returns removed, is the log;
// the row's parser reads it — the Python source in a sandbox (package pyparser), never in this
// process. A test passes when its status contains "pass", fails when it contains "fail";
// resolved means no PASS_TO_PASS and no FAIL_TO_PASS test failed and every FAIL_TO_PASS test
// passed. The harness's files are written per instance: post_patch_log.txt, status.json and
// its report.json ({instance_id, resolved, PASS_TO_PASS, FAIL_TO_PASS}), and its results.json
// for the run.
//
// Windows tasks (SWE-bench-Live/Windows, images sweb.eval.win.*) need Windows containers and are
// refused.
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
	colParser      = "parser" // read when log_parser is absent, as the harness does
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
// log_parser that is "pytest" or Python source.
func HasLiveColumns(inst *dataset.Instance) bool {
	if _, ok := inst.Extra[colTestCmds]; !ok {
		return false
	}
	r := Row{Parser: parserColumn(inst)}
	return r.IsPytest() || isPythonParser(r.Parser)
}

// parserColumn is the row's log_parser, else its parser column (the harness reads
// instance.get("log_parser", instance.get("parser", ""))).
func parserColumn(inst *dataset.Instance) string {
	if inst.LogParser != "" {
		return inst.LogParser
	}
	s, _ := inst.Extra[colParser].(string)
	return s
}

func isPythonParser(s string) bool { return strings.Contains(s, "def parser(") }

// RowOf reads the harness's columns of a row. A missing or bad column is a *dataset.FieldError
// naming it (several joined).
func RowOf(inst *dataset.Instance) (Row, error) {
	r := Row{InstanceID: inst.InstanceID, Parser: parserColumn(inst)}
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
	if !r.IsPytest() && !isPythonParser(r.Parser) {
		reason := fmt.Sprintf("want %q or Python source defining parser(log), got %q", PytestParser, abbreviate(r.Parser))
		if strings.TrimSpace(r.Parser) == "" {
			reason = fmt.Sprintf("missing or empty: want %q or Python source defining parser(log)", PytestParser)
		}
		errs = append(errs, &dataset.FieldError{Field: colLogParser, Reason: reason})
	}
	if inst.FailToPass == nil {
		errs = append(errs, &dataset.FieldError{Field: "FAIL_TO_PASS", Reason: "missing: grading needs the tests the patch must make pass"})
	}
	if inst.PassToPass == nil {
		errs = append(errs, &dataset.FieldError{Field: "PASS_TO_PASS", Reason: "missing: grading needs the tests that must keep passing"})
	}
	if w := windowsReason(inst); w != "" {
		errs = append(errs, &dataset.FieldError{Field: "docker_image", Reason: w})
	}
	return r, errors.Join(errs...)
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
