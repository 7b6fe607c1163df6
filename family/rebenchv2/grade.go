package rebenchv2

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/family/rebench"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Task is what SWE-rebench-V2's harness (scripts/eval.py) reads from a dataset row to grade it.
type Task struct {
	InstanceID string
	Repo       string   // owner/name
	Image      string   // image_name
	TestCmds   []string // install_config.test_cmd, one command or several
	LogParser  string   // install_config.log_parser
	Patch      string   // the gold patch
	TestPatch  string
	FailToPass []string
	PassToPass []string
}

// TaskOf reads a row as the harness does, refusing what it refuses: no repo of the form
// owner/name, no test command, no or an unknown log parser, no patch or test patch.
func TaskOf(inst dataset.Instance) (Task, error) {
	t := Task{
		InstanceID: inst.InstanceID, Repo: inst.Repo, Patch: inst.Patch, TestPatch: inst.TestPatch,
		FailToPass: inst.FailToPass, PassToPass: inst.PassToPass,
	}
	if t.InstanceID == "" {
		return t, fmt.Errorf("row has no instance_id")
	}
	row := func(format string, args ...any) error {
		return fmt.Errorf("SWE-rebench-V2 row %s: "+format, append([]any{t.InstanceID}, args...)...)
	}
	if !strings.Contains(t.Repo, "/") {
		return t, row("repo %q is not owner/name", t.Repo)
	}
	t.Image = inst.Image // image_name
	cfg, ok, err := rebench.InstallConfig(&inst)
	if err != nil {
		return t, row("%w", err)
	}
	if !ok {
		return t, row("no install_config column; SWE-rebench-V2 rows carry one (test_cmd, log_parser)")
	}
	if t.TestCmds, err = testCommands(cfg["test_cmd"]); err != nil {
		return t, row("install_config.test_cmd: %w", err)
	}
	name, _ := cfg["log_parser"].(string)
	if name == "" {
		return t, row("install_config.log_parser is missing; it names the parser of lib/agent/log_parsers.py to grade with")
	}
	if _, err := Parser(name); err != nil {
		return t, row("%w", err)
	}
	t.LogParser = name
	if t.Patch == "" || t.TestPatch == "" {
		return t, row("patch or test_patch is empty; the harness needs both")
	}
	return t, nil
}

// testCommands is the harness's normalize_command_list: a command or a list of them, blank ones
// and non-strings dropped, at least one left.
func testCommands(v any) ([]string, error) {
	var items []any
	switch t := v.(type) {
	case string:
		items = []any{t}
	case []any:
		items = t
	case []string:
		for _, s := range t {
			items = append(items, s)
		}
	default:
		return nil, fmt.Errorf("want a command or a list of commands, got %T", v)
	}
	var cmds []string
	for _, it := range items {
		if s, ok := it.(string); ok && pytext.Strip(s) != "" {
			cmds = append(cmds, s)
		}
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("no command in %v", v)
	}
	return cmds, nil
}

// Workdir is where the harness runs the script: /<repository name>.
func (t Task) Workdir() string {
	_, name, _ := strings.Cut(t.Repo, "/")
	return "/" + name
}

// Paths of the two patches in the container, as the harness mounts them.
const (
	PatchPath     = "/patches/patch.diff"
	TestPatchPath = "/patches/test_patch.diff"
)

// Env is the environment the harness's `docker run` gives the script.
var Env = []string{"_JAVA_OPTIONS=-Djava.net.preferIPv6Addresses=false"}

// Script is the bash script the harness runs (bash -c, in Workdir): with set -e, reset the tree,
// apply the patch and the test patch with git apply --3way, then the test commands, one per line.
func (t Task) Script() string {
	const apply = "git apply -v --3way --recount --ignore-space-change --whitespace=nowarn "
	lines := []string{"set -e", "git reset --hard HEAD", apply + PatchPath, apply + TestPatchPath}
	return strings.Join(append(lines, t.TestCmds...), "\n")
}

// timingSuffixes are the harness's _TIMING_NORMALIZE_RES, applied in order.
var timingSuffixes = []string{
	`(?i)\s*\[\s*\d+(?:\.\d+)?\s*(?:ms|s)\s*\]\s*$`, // " [1.34 ms]"
	`(?i)\s+in\s+\d+(?:\.\d+)?\s+(?:msec|sec)\b`,    // Botan's " in 29.08 msec", anywhere
	`(?i)\s*\(\s*\d+(?:\.\d+)?\s*(?:ms|s)\s*\)\s*$`, // " (1.234s)"
}

var timingRes = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(timingSuffixes))
	for i, p := range timingSuffixes {
		out[i] = pytext.Re(p)
	}
	return out
}()

// NormalizeName strips the timings some runners put in test names, as the harness does to both
// the parsed names and the expected ones.
func NormalizeName(name string) string {
	for _, r := range timingRes {
		name = r.ReplaceAllString(name, "")
	}
	return pytext.Strip(name)
}

// Result is the harness's per-instance result (evaluate_instance).
type Result struct {
	InstanceID         string   `json:"instance_id"`
	ExitCode           int      `json:"exit_code"`
	PassedMatch        bool     `json:"passed_match"`
	PassToPassExpected []string `json:"pass_to_pass_expected"`
	FailToPassExpected []string `json:"fail_to_pass_expected"`
	PassedExpected     []string `json:"passed_expected"`
	PassedActual       []string `json:"passed_actual"`
	FailedActual       []string `json:"failed_actual"`
	LogLength          int      `json:"log_length"`
	LogPath            string   `json:"log_path"`
}

// Grade grades the output of the script (stdout, then stderr, as the harness joins them) exactly
// as scripts/eval.py: the row's parser, timing suffixes stripped from every name (later names
// win when two become equal), and the instance resolved iff the sorted names that PASSED equal
// the sorted PASS_TO_PASS + FAIL_TO_PASS (so a passing test the row does not list, or a listed
// test twice, fails it). An error means the parser raised, which the harness records as the
// instance's error.
func Grade(t Task, output string, exitCode int, logPath string) (Result, error) {
	parse, err := Parser(t.LogParser)
	if err != nil {
		return Result{}, err
	}
	sm, err := parse(output, t.InstanceID)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", t.InstanceID, err)
	}
	return gradeMap(t, sm, output, exitCode, logPath), nil
}

func gradeMap(t Task, sm *logparse.Map, output string, exitCode int, logPath string) Result {
	norm := logparse.NewMap()
	for _, name := range sm.Keys() {
		status, _ := sm.Get(name)
		norm.Set(NormalizeName(name), status)
	}
	passedActual, failedActual := []string{}, []string{}
	for _, name := range norm.Keys() {
		switch status, _ := norm.Get(name); status {
		case passed:
			passedActual = append(passedActual, name)
		case failed:
			failedActual = append(failedActual, name)
		}
	}
	sort.Strings(passedActual)
	sort.Strings(failedActual)
	expected := make([]string, 0, len(t.PassToPass)+len(t.FailToPass))
	for _, n := range append(append([]string{}, t.PassToPass...), t.FailToPass...) {
		expected = append(expected, NormalizeName(n))
	}
	sort.Strings(expected)
	return Result{
		InstanceID:         t.InstanceID,
		ExitCode:           exitCode,
		PassedMatch:        equal(passedActual, expected),
		PassToPassExpected: sorted(t.PassToPass),
		FailToPassExpected: sorted(t.FailToPass),
		PassedExpected:     expected,
		PassedActual:       passedActual,
		FailedActual:       failedActual,
		LogLength:          utf8.RuneCountInString(output),
		LogPath:            logPath,
	}
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ReportItem is one instance of the harness's eval_report.json (build_report_item): the expected
// FAIL_TO_PASS tests that passed, the PASS_TO_PASS tests that did not, whether the passed tests
// matched exactly (the resolved flag), and the error, if any ("" otherwise).
type ReportItem struct {
	InstanceID           string   `json:"instance_id"`
	FromFailToPass       []string `json:"from_fail_to_pass"`
	FailedFromPassToPass []string `json:"failed_from_pass_to_pass"`
	PassedMatch          *bool    `json:"passed_match,omitempty"`
	ExitCode             *int     `json:"exit_code,omitempty"`
	LogPath              *string  `json:"log_path,omitempty"`
	Error                string   `json:"error"`
}

// Resolved reports whether the item is a resolved instance (passed_match, no error).
func (it ReportItem) Resolved() bool {
	return it.Error == "" && it.PassedMatch != nil && *it.PassedMatch
}

// Item is the report item of a graded instance.
func (t Task) Item(r Result) ReportItem {
	passedSet := map[string]bool{}
	for _, n := range r.PassedActual {
		passedSet[n] = true
	}
	var f2p, p2pFailed []string
	for _, n := range normalizedSet(t.FailToPass) {
		if passedSet[n] {
			f2p = append(f2p, n)
		}
	}
	for _, n := range normalizedSet(t.PassToPass) {
		if !passedSet[n] {
			p2pFailed = append(p2pFailed, n)
		}
	}
	match, code, path := r.PassedMatch, r.ExitCode, r.LogPath
	return ReportItem{
		InstanceID: t.InstanceID, FromFailToPass: nonNil(f2p), FailedFromPassToPass: nonNil(p2pFailed),
		PassedMatch: &match, ExitCode: &code, LogPath: &path,
	}
}

// ErrorItem is the report item of an instance the harness could not grade: every PASS_TO_PASS
// test counts as failed.
func ErrorItem(id string, passToPass []string, err error) ReportItem {
	return ReportItem{InstanceID: id, FromFailToPass: []string{}, FailedFromPassToPass: nonNil(normalizedSet(passToPass)), Error: err.Error()}
}

// normalizedSet is sorted({NormalizeName(n) for n in names}).
func normalizedSet(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if k := NormalizeName(n); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
