package rebenchv2

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/rebench"
	"github.com/swebench-run/swebench-run/internal/pytext"
	"github.com/swebench-run/swebench-run/results"
)

// Name is the family's name (Instance.Family, NamedDataset.Family).
const Name = "rebench-v2"

// Profile is SWE-rebench-V2's dataset family.
type Profile struct{}

var (
	_ family.Profile          = Profile{}
	_ family.PredictionReader = Profile{}
)

// Name implements dataset.Family.
func (Profile) Name() string { return Name }

// Title implements family.Profile.
func (Profile) Title() string { return "SWE-rebench-V2" }

// Match implements dataset.Family: a row whose install_config SWE-rebench-V2's scripts/eval.py
// grades and SWE-rebench v1's harness fork (SWE-rebench/SWE-bench-fork) does not take for its
// own. eval.py takes test_cmd as a command or a list of them and log_parser as a name of its
// log_parsers; v1's fork prefixes test_cmd and install with a string (a list fails there) and
// knows three pytest parsers. So the row is V2's when its install_config has
//
//   - test_cmd or install as a list, or
//   - a key of V2's install_config that v1's has not (base_image_name, log_parsers), even null:
//     V2 publishes its rows with every key, null where unset, or
//   - a log_parser V2's harness knows and v1's fork does not.
//
// Any other install_config (a test_cmd string, a v1 parser) is SWE-rebench v1's.
func (Profile) Match(inst *dataset.Instance) bool {
	// The object with its null values kept (rebench.InstallConfig drops them, as the harnesses
	// read them): V2 publishes its rows with every key, null where unset.
	cfg, ok, err := inst.ObjectColumn(rebench.Column)
	if err != nil || !ok {
		return false
	}
	for _, k := range []string{"test_cmd", "install"} {
		if _, list := cfg[k].([]any); list {
			return true
		}
	}
	for _, k := range []string{"base_image_name", "log_parsers"} {
		if _, has := cfg[k]; has {
			return true
		}
	}
	name, _ := cfg["log_parser"].(string)
	if _, err := Parser(name); err != nil || name == "" {
		return false
	}
	return !slices.Contains(v1Parsers, name)
}

// v1Parsers are the parser names SWE-rebench v1's harness fork looks install_config.log_parser up
// by (MAP_REPO_TO_PARSER_PY of swebench/harness/log_parsers/python.py, SWE-rebench/SWE-bench-fork
// at 39316f79; its other keys are repositories).
var v1Parsers = []string{"parse_log_pytest", "parse_log_pytest_options", "parse_log_pytest_v2"}

// Prepare implements dataset.Family: the agent works in /<repository name> of the row's
// image_name, as the harness runs the tests there; created_at, a timestamp (epoch milliseconds
// in the harness's JSON files), becomes a date (createdAt).
func (Profile) Prepare(inst *dataset.Instance) error {
	var errs []error
	if _, name, ok := strings.Cut(inst.Repo, "/"); !ok || name == "" {
		errs = append(errs, &dataset.FieldError{Field: "repo", Reason: fmt.Sprintf("%q is not owner/name; SWE-rebench-V2 works in /<name>", inst.Repo)})
	} else {
		inst.WorkDir = "/" + name
	}
	if inst.Image == "" {
		errs = append(errs, &dataset.FieldError{Field: "image_name", Reason: "missing or empty: SWE-rebench-V2 rows name their image"})
	}
	inst.CreatedAt = createdAt(inst.CreatedAt)
	return errors.Join(errs...)
}

// Grader implements family.Profile.
func (Profile) Grader() family.Grader { return grader{} }

// PatchesFile is the name of the predictions file exported in the harness's --patches format.
const PatchesFile = "rebench_v2_patches.json"

// patchEntry is one entry of the harness's --patches file.
type patchEntry struct {
	InstanceID string `json:"instance_id"`
	Patch      string `json:"patch"`
}

// ExportPredictions implements family.Profile: the harness's --patches file, a list of
// {"instance_id", "patch"}.
func (Profile) ExportPredictions(preds []family.Prediction) (string, []byte, error) {
	list := make([]patchEntry, 0, len(preds))
	for _, p := range preds {
		list = append(list, patchEntry{InstanceID: p.InstanceID, Patch: p.Patch()})
	}
	b, err := pytext.JSONDumps(list, 2, false)
	return PatchesFile, b, err
}

// ReadPredictions implements family.PredictionReader: the harness's --patches file (a list of
// objects with exactly instance_id and patch).
func (Profile) ReadPredictions(path string, data []byte) (map[string]family.Prediction, bool, error) {
	var raw []map[string]json.RawMessage
	if json.Unmarshal(data, &raw) != nil || len(raw) == 0 {
		return nil, false, nil
	}
	for _, e := range raw {
		_, id := e["instance_id"]
		_, patch := e["patch"]
		if len(e) != 2 || !id || !patch {
			return nil, false, nil
		}
	}
	var list []patchEntry
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, true, fmt.Errorf("%s: SWE-rebench-V2 patches file: %w", path, err)
	}
	out := make(map[string]family.Prediction, len(list))
	for k, e := range list {
		if e.InstanceID == "" {
			return nil, true, fmt.Errorf("%s: entry %d has no instance_id", path, k+1)
		}
		if _, dup := out[e.InstanceID]; dup {
			return nil, true, fmt.Errorf("%s: instance %s appears twice", path, e.InstanceID)
		}
		patch := e.Patch
		out[e.InstanceID] = family.Prediction{InstanceID: e.InstanceID, ModelNameOrPath: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), ModelPatch: &patch}
	}
	return out, true, nil
}

// Reports implements family.Profile.
func (Profile) Reports() family.ReportReader { return reports{} }

// Files an evaluation keeps, in the harness's names: the log of each instance
// (logs/<id>_log.txt there, <id>/<id>_log.txt here), its item of the report, and the run's
// eval_report.json.
const (
	ItemFile   = "eval_report_item.json"
	ReportFile = "eval_report.json"
)

// LogFile is the name of an instance's log.
func LogFile(id string) string { return id + "_log.txt" }

type grader struct{}

func (grader) Check(insts []dataset.Instance) error {
	var errs []error
	for _, inst := range insts {
		if _, err := TaskOf(inst); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (grader) Reuse(inst dataset.Instance, _ family.Prediction, dir string) (family.Verdict, bool) {
	it, err := readItem(filepath.Join(dir, ItemFile))
	if err != nil {
		return family.Verdict{}, false
	}
	return itemVerdict(it), true
}

func readItem(path string) (ReportItem, error) {
	var it ReportItem
	data, err := os.ReadFile(path)
	if err != nil {
		return it, err
	}
	if err := json.Unmarshal(data, &it); err != nil {
		return it, fmt.Errorf("%s: not an item of SWE-rebench-V2's eval_report.json: %w", path, err)
	}
	return it, nil
}

// itemVerdict is the verdict of a report item: resolved when the passed tests matched, an error
// when the harness recorded one.
func itemVerdict(it ReportItem) family.Verdict {
	if it.Error != "" {
		return family.Verdict{Outcome: family.Error, ErrorKind: family.KindGrading, Reason: it.Error, Report: it}
	}
	return family.Graded(it.Resolved(), it)
}

// scriptCommand runs the harness's script with its environment and returns its stdout followed
// by its stderr (the harness joins them so), keeping the script's exit code.
func scriptCommand(script string) string {
	var env strings.Builder
	for _, e := range Env {
		env.WriteString("export " + e + "; ")
	}
	return fmt.Sprintf("%s/bin/bash -c %s >/tmp/rebench_stdout 2>/tmp/rebench_stderr; code=$?; cat /tmp/rebench_stdout /tmp/rebench_stderr; exit $code",
		env.String(), shellQuote(script))
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (grader) Grade(ctx context.Context, env family.GradeEnv, sb family.Sandbox, inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, error) {
	t, err := TaskOf(inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	t.Patch = pred.Patch()
	if out, code, _, err := sb.Exec(ctx, "mkdir -p /patches", time.Minute); err != nil || code != 0 {
		return family.Errorf(family.KindContainer, "mkdir /patches: exit %d, %v: %s", code, err, out), nil
	}
	for path, text := range map[string]string{PatchPath: t.Patch, TestPatchPath: t.TestPatch} {
		if err := sb.WriteFile(ctx, path, []byte(text)); err != nil {
			return family.Errorf(family.KindContainer, "write %s: %v", path, err), nil
		}
	}
	fmt.Fprintf(env.Log, "Running in %s:\n%s\n", t.Workdir(), t.Script())
	out, code, timedOut, err := sb.Exec(ctx, scriptCommand(t.Script()), env.Timeout)
	if err != nil {
		return family.Errorf(family.KindContainer, "run the tests: %v", err), nil
	}
	logPath := filepath.Join(dir, LogFile(t.InstanceID))
	if err := results.WriteFileAtomic(logPath, []byte(out), 0o644); err != nil {
		return family.Verdict{}, err
	}
	if timedOut {
		return family.Errorf(family.KindTimeout, "the tests ran longer than %v", env.Timeout), nil
	}
	return gradeAndWrite(t, out, &code, logPath, dir)
}

// gradeAndWrite grades a log and writes the instance's report item.
func gradeAndWrite(t Task, out string, code *int, logPath, dir string) (family.Verdict, error) {
	var it ReportItem
	r, err := Grade(t, out, 0, logPath)
	if err != nil {
		it = ErrorItem(t.InstanceID, t.PassToPass, err)
	} else {
		it = t.Item(r)
		it.ExitCode = code
	}
	b, err := pytext.JSONDumps(it, 2, false)
	if err != nil {
		return family.Verdict{}, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, ItemFile), b, 0o644); err != nil {
		return family.Verdict{}, err
	}
	return itemVerdict(it), nil
}

func (grader) Regrade(inst dataset.Instance, pred family.Prediction, logDirs []string, dir string) (family.Verdict, bool, error) {
	t, err := TaskOf(inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), true, nil
	}
	for _, d := range logDirs {
		// This tool's layout (<dir>/<id>/<id>_log.txt), then the harness's (logs/<id>_log.txt).
		for _, p := range []string{filepath.Join(d, t.InstanceID, LogFile(t.InstanceID)), filepath.Join(d, LogFile(t.InstanceID))} {
			data, err := os.ReadFile(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return family.Verdict{}, false, err
			}
			var code *int
			if old, err := readItem(filepath.Join(filepath.Dir(p), ItemFile)); err == nil {
				code = old.ExitCode
			}
			logPath := filepath.Join(dir, LogFile(t.InstanceID))
			if filepath.Clean(p) != filepath.Clean(logPath) {
				if err := results.WriteFileAtomic(logPath, data, 0o644); err != nil {
					return family.Verdict{}, false, err
				}
			}
			v, err := gradeAndWrite(t, string(data), code, logPath, dir)
			return v, true, err
		}
	}
	return family.Verdict{}, false, nil
}

// EvalReport is the harness's eval_report.json. (The harness also records max_workers, which an
// evaluation here does not know at the end; it is left out.)
type EvalReport struct {
	Total int          `json:"total"`
	AllOK bool         `json:"all_ok"`
	Items []ReportItem `json:"items"`
}

func (grader) Finish(outDir string, preds map[string]family.Prediction, verdicts map[string]family.Verdict) error {
	ids := make([]string, 0, len(preds))
	for id := range preds {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rep := EvalReport{AllOK: true, Items: []ReportItem{}}
	for _, id := range ids {
		it, err := readItem(filepath.Join(outDir, id, ItemFile))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err != nil {
			// Empty predictions and instances that produced no item, as the harness records them.
			reason := "No outcome produced."
			if preds[id].Empty() {
				reason = fmt.Sprintf("Task %s missing patch/test_patch.", id)
			} else if v, ok := verdicts[id]; ok && v.Reason != "" {
				reason = v.Reason
			}
			it = ReportItem{InstanceID: id, FromFailToPass: []string{}, FailedFromPassToPass: []string{}, Error: reason}
		}
		if !it.Resolved() {
			rep.AllOK = false
		}
		rep.Items = append(rep.Items, it)
	}
	rep.Total = len(rep.Items)
	b, err := pytext.JSONDumps(rep, 2, false)
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(outDir, ReportFile), b, 0o644)
}

type reports struct{}

// The layouts the reader reads (family.FolderVerdicts.Format).
const (
	// FormatEvalReport is the harness's --report-json (scripts/eval.py: eval_report.json, items
	// of {instance_id, from_fail_to_pass, failed_from_pass_to_pass, passed_match, exit_code,
	// log_path, error}), alone or in the folder it was written in, where log_path
	// (logs/<instance_id>_log.txt) names each instance's test output.
	FormatEvalReport = "SWE-rebench-V2 " + ReportFile
	// FormatItems is this tool's evaluation folder before its eval_report.json is written:
	// <instance_id>/eval_report_item.json.
	FormatItems = "SWE-rebench-V2 <id>/" + ItemFile
)

// ReadEvalFolder reads eval_report.json, or, for an evaluation that did not finish, the items of
// the instance folders.
func (reports) ReadEvalFolder(dir string) (family.FolderVerdicts, bool, error) {
	data, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err == nil {
		fv, ok, err := readEvalReport(filepath.Join(dir, ReportFile), data)
		if ok || err != nil {
			return fv, ok, err
		}
	}
	items, _ := filepath.Glob(filepath.Join(dir, "*", ItemFile))
	if len(items) == 0 {
		return family.FolderVerdicts{}, false, nil
	}
	fv := family.FolderVerdicts{Format: FormatItems, Verdicts: map[string]family.InstanceVerdict{}}
	for _, p := range items {
		it, err := readItem(p)
		if err != nil {
			return fv, true, err
		}
		fv.Verdicts[it.InstanceID] = instanceVerdict(it)
	}
	return fv, true, nil
}

func (reports) ReadReportFile(path string, data []byte) (family.FolderVerdicts, bool, error) {
	return readEvalReport(path, data)
}

// readEvalReport reads an eval_report.json (an object with total, all_ok and items); ok is false
// for other JSON.
func readEvalReport(path string, data []byte) (family.FolderVerdicts, bool, error) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return family.FolderVerdicts{}, false, nil
	}
	for _, k := range []string{"total", "all_ok", "items"} {
		if _, ok := keys[k]; !ok {
			return family.FolderVerdicts{}, false, nil
		}
	}
	var rep EvalReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return family.FolderVerdicts{}, true, fmt.Errorf("%s: %s: %w", path, FormatEvalReport, err)
	}
	fv := family.FolderVerdicts{Format: FormatEvalReport, Verdicts: map[string]family.InstanceVerdict{}}
	for k, it := range rep.Items {
		if it.InstanceID == "" {
			return fv, true, fmt.Errorf("%s: item %d has no instance_id", path, k+1)
		}
		v := instanceVerdict(it)
		if it.LogPath != nil && *it.LogPath != "" {
			// The harness writes log_path relative to the folder it ran in, where it writes the
			// report by default.
			log := filepath.FromSlash(*it.LogPath)
			if !filepath.IsAbs(log) {
				log = filepath.Join(filepath.Dir(path), log)
			}
			if fi, err := os.Stat(log); err == nil && fi.Mode().IsRegular() {
				v.Log = log
			}
		}
		fv.Verdicts[it.InstanceID] = v
	}
	return fv, true, nil
}

func instanceVerdict(it ReportItem) family.InstanceVerdict {
	switch {
	case strings.HasSuffix(it.Error, "missing patch/test_patch."):
		return family.InstanceVerdict{Outcome: family.EmptyPatch}
	case it.Error != "":
		return family.InstanceVerdict{Outcome: family.Error, Detail: it.Error}
	case it.Resolved():
		return family.InstanceVerdict{Outcome: family.Resolved}
	}
	return family.InstanceVerdict{Outcome: family.Unresolved}
}
