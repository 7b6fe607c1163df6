package submission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
)

// checkPredictions checks a predictions file against the split: entries that are not
// predictions, ids predicted twice, more than one model name, predictions for instances outside
// the split (all failures), instances of the split without a prediction (a warning: they count
// as no_generation, i.e. unresolved; why, when known, from why), and empty patches (a note).
func checkPredictions(pf *predFile, insts []dataset.Instance, why map[string]string) Findings {
	var out Findings
	name := pf.Path
	if len(pf.Bad) > 0 {
		out = append(out, Finding{Check: CheckPredictions, Severity: Fail,
			Message: fmt.Sprintf("%s: %d entries are not predictions ({instance_id, model_name_or_path, model_patch}): %s", name, len(pf.Bad), idList(pf.Bad, 10))})
	}
	if dups := pf.duplicates(); len(dups) > 0 {
		ids := sortedIDs(dups)
		var parts []string
		for _, id := range ids {
			parts = append(parts, fmt.Sprintf("%s (%s)", id, strings.Join(dups[id], ", ")))
		}
		out = append(out, Finding{Check: CheckDuplicates, Severity: Fail, IDs: ids,
			Message: fmt.Sprintf("%s: %d instance ids appear more than once (sb-cli refuses such a file; keep one prediction per instance): %s", name, len(ids), idList(parts, 10))})
	}
	if models := pf.models(); len(models) > 1 {
		var parts []string
		for _, m := range sortedIDs(models) {
			ids := models[m]
			sort.Strings(ids)
			parts = append(parts, fmt.Sprintf("%q (%d: %s)", m, len(ids), idList(ids, 3)))
		}
		out = append(out, Finding{Check: CheckModelName, Severity: Fail,
			Message: fmt.Sprintf("%s: %d values of model_name_or_path; a submission (and an sb-cli file) has one: %s", name, len(models), strings.Join(parts, "; "))})
	}
	known := make(map[string]bool, len(insts))
	for _, inst := range insts {
		known[inst.InstanceID] = true
	}
	preds := pf.byID()
	var unknown, missing, empty []string
	for _, id := range sortedIDs(preds) {
		if !known[id] {
			unknown = append(unknown, id)
		} else if preds[id].Empty() {
			empty = append(empty, id)
		}
	}
	if len(unknown) > 0 {
		out = append(out, Finding{Check: CheckUnknown, Severity: Fail, IDs: unknown,
			Message: fmt.Sprintf("%d predictions are for instances that are not in the split: %s; check the split and the dataset, or remove them", len(unknown), idList(unknown, 10))})
	}
	for _, inst := range insts {
		if _, ok := preds[inst.InstanceID]; !ok {
			missing = append(missing, inst.InstanceID)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		var parts []string
		for _, id := range missing {
			if w := why[id]; w != "" {
				parts = append(parts, id+" ("+w+")")
			} else {
				parts = append(parts, id)
			}
		}
		out = append(out, Finding{Check: CheckMissing, Severity: Warn, IDs: missing,
			Message: fmt.Sprintf("%d of the %d instances of the split have no prediction; they are listed as no_generation and count as unresolved: %s", len(missing), len(insts), idList(parts, 10))})
	}
	if len(empty) > 0 {
		out = append(out, Finding{Check: CheckMissing, Severity: Note, IDs: empty,
			Message: fmt.Sprintf("%d predictions have an empty patch; they have no evaluation log and are listed as no_generation: %s", len(empty), idList(empty, 10))})
	}
	return out
}

// forbidden are the dataset columns a leaderboard system's prompts must not use, with why.
var forbidden = map[string]string{
	"FAIL_TO_PASS": "SWE-bench test knowledge (the tests that must pass)",
	"PASS_TO_PASS": "SWE-bench test knowledge (the tests that must keep passing)",
	"hints_text":   "the hints field",
	"patch":        "the gold patch",
	"test_patch":   "the gold tests",
	"eval_script":  "the evaluation script (it carries the gold tests and the test command)",
}

// namedConfig is a resolved config and where it was read from.
type namedConfig struct {
	Source string
	Config map[string]any
}

// checkTemplates looks at every template of every config (the keys ending in _template, and
// run.env_startup_command, which is rendered too) for variables of the forbidden columns.
func checkTemplates(configs []namedConfig, unknown string) Findings {
	if len(configs) == 0 {
		return Findings{{Check: CheckTemplates, Severity: Warn,
			Message: "no config is recorded (" + unknown + "), so its templates could not be checked for FAIL_TO_PASS, PASS_TO_PASS, hints_text or the gold patches; look at the prompts yourself"}}
	}
	var out Findings
	checked := 0
	for _, c := range configs {
		walkStrings(c.Config, nil, func(keyPath []string, s string) {
			if !isTemplateKey(keyPath) {
				return
			}
			key := strings.Join(keyPath, ".")
			checked++
			names, err := agent.TemplateNames(s)
			if err != nil {
				out = append(out, Finding{Check: CheckTemplates, Severity: Fail,
					Message: fmt.Sprintf("%s: %s is not a valid template: %v", c.Source, key, err)})
				return
			}
			seen := map[string]bool{}
			for _, n := range names {
				why, bad := forbidden[n.Name]
				if !bad || seen[n.Name] {
					continue
				}
				seen[n.Name] = true
				out = append(out, Finding{Check: CheckTemplates, Severity: Fail,
					Message: fmt.Sprintf("%s: %s uses {{%s}} (line %d), %s; the leaderboard does not accept systems that see it", c.Source, key, n.Name, n.Line, why)})
			}
		})
	}
	if checked == 0 {
		out = append(out, Finding{Check: CheckTemplates, Severity: Warn,
			Message: fmt.Sprintf("%s holds no templates (no *_template keys); look at the prompts yourself", configs[0].Source)})
	}
	return out
}

// walkStrings calls fn for every string value of a nested map, with its key path.
func walkStrings(v any, keyPath []string, fn func([]string, string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedIDs(x) {
			walkStrings(x[k], append(append([]string(nil), keyPath...), k), fn)
		}
	case string:
		if len(keyPath) > 0 {
			fn(keyPath, x)
		}
	}
}

// trajectoryConfig reads info.config of a trajectory (nil when it records none).
func trajectoryConfig(t *results.Trajectory) map[string]any {
	if t == nil {
		return nil
	}
	switch c := t.Info.Config.(type) {
	case map[string]any:
		return c
	}
	return nil
}

// distinctConfigs keeps one config of each set of templates (configs of one run differ in
// per-instance keys such as environment.image), naming where each was seen first and how often.
func distinctConfigs(cs []namedConfig) []namedConfig {
	var out []namedConfig
	count := map[string]int{}
	index := map[string]int{}
	for _, c := range cs {
		templates := map[string]string{}
		walkStrings(c.Config, nil, func(keyPath []string, s string) {
			if isTemplateKey(keyPath) {
				templates[strings.Join(keyPath, ".")] = s
			}
		})
		data, _ := json.Marshal(templates)
		k := string(data)
		if _, ok := index[k]; !ok {
			index[k] = len(out)
			out = append(out, c)
		}
		count[k]++
	}
	for k, i := range index {
		if n := count[k]; n > 1 {
			out[i].Source = fmt.Sprintf("%s (and %d more with the same templates)", out[i].Source, n-1)
		}
	}
	return out
}

// isTemplateKey reports whether a config key is rendered as a template: the *_template keys and
// run.env_startup_command.
func isTemplateKey(keyPath []string) bool {
	return len(keyPath) > 0 && (strings.HasSuffix(keyPath[len(keyPath)-1], "_template") || strings.Join(keyPath, ".") == "run.env_startup_command")
}

// checkTrajectory compares a trajectory's submission with the prediction: the trajectory must
// show how the submitted patch was made.
func checkTrajectory(id string, t *results.Trajectory, p eval.Prediction) (string, bool) {
	if t == nil || t.Info.Submission == "" || p.Empty() {
		return "", true
	}
	norm := func(s string) string { return strings.TrimRight(s, "\n") }
	if norm(t.Info.Submission) != norm(p.Patch()) {
		return fmt.Sprintf("%s (the trajectory ends with a %d-byte submission, the prediction has %d bytes)", id, len(t.Info.Submission), len(p.Patch())), false
	}
	return "", true
}

// checkTestFiles lists the predicted patches that edit test files: files the instance's
// test_patch touches (a patch creating one can make the gold tests pass for the wrong reason,
// SWE-bench #538; editing them is what #393 counted), and conftest.py (loaded by pytest whatever
// tests run, #631) are warnings; other files that look like tests are a note.
func checkTestFiles(preds map[string]eval.Prediction, byID map[string]dataset.Instance) Findings {
	var risky, other []string
	var riskyIDs, otherIDs []string
	for _, id := range sortedIDs(preds) {
		p := preds[id]
		if p.Empty() {
			continue
		}
		gold := map[string]bool{}
		if inst, ok := byID[id]; ok {
			for _, f := range patchFiles(inst.TestPatch) {
				gold[f] = true
			}
		}
		var r, o []string
		for _, f := range patchFiles(p.Patch()) {
			switch {
			case gold[f]:
				r = append(r, f+" (in the test_patch)")
			case path.Base(f) == "conftest.py":
				r = append(r, f+" (conftest.py)")
			case looksLikeTest(f):
				o = append(o, f)
			}
		}
		if len(r) > 0 {
			risky = append(risky, id+": "+strings.Join(r, ", "))
			riskyIDs = append(riskyIDs, id)
		}
		if len(o) > 0 {
			other = append(other, id+": "+strings.Join(o, ", "))
			otherIDs = append(otherIDs, id)
		}
	}
	var out Findings
	if len(risky) > 0 {
		out = append(out, Finding{Check: CheckTestFiles, Severity: Warn, IDs: riskyIDs,
			Message: fmt.Sprintf("%d patches edit files the evaluation depends on (files of the instance's test_patch, or conftest.py): %s", len(risky), strings.Join(risky, "; "))})
	}
	if len(other) > 0 {
		out = append(out, Finding{Check: CheckTestFiles, Severity: Note, IDs: otherIDs,
			Message: fmt.Sprintf("%d patches edit or add other test files: %s", len(other), strings.Join(other, "; "))})
	}
	return out
}

// patchFiles lists the files a diff touches (old and new paths, without a/ and b/).
func patchFiles(diff string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = strings.Trim(strings.TrimSpace(p), `"`)
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i] // "--- a/x.py\t2024-01-01 …"
		}
		if p == "" || p == "/dev/null" {
			return
		}
		if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
			p = p[2:]
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			rest := strings.TrimPrefix(line, "diff --git ")
			if i := strings.Index(rest, " b/"); i >= 0 {
				add(rest[:i])
				add(rest[i+1:])
			}
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "):
			add(line[4:])
		}
	}
	return out
}

// looksLikeTest reports whether a path looks like a test file: under a test directory, or named
// like a test in the common languages.
func looksLikeTest(p string) bool {
	for _, dir := range strings.Split(path.Dir(p), "/") {
		switch strings.ToLower(dir) {
		case "test", "tests", "testing", "__tests__", "spec", "specs":
			return true
		}
	}
	base := strings.ToLower(path.Base(p))
	for _, suffix := range []string{"_test.py", "_tests.py", "_test.go", "_test.rs", "test.java", "tests.java", "_spec.rb", "_test.rb"} {
		if strings.HasSuffix(base, suffix) {
			return true
		}
	}
	for _, mid := range []string{".test.", ".spec."} {
		if strings.Contains(base, mid) {
			return true
		}
	}
	return strings.HasPrefix(base, "test_") || base == "tests.py" || base == "test.py"
}

// logState is what an instance's evaluation folder holds.
type logState struct {
	Dir        string
	HasOutput  bool   // test_output.txt
	HasReport  bool   // a readable report.json, in any layout eval.ReadReport knows
	Patch      string // patch.diff ("" when absent)
	HasPatch   bool
	ReportSays *bool             // report.json's resolved
	Layout     eval.ReportLayout // the layout report.json was read in
	ReportErr  string            // why report.json could not be read ("" when it was, or is absent)
}

func readLogState(dir string) logState {
	s := logState{Dir: dir}
	s.HasOutput = exists(filepath.Join(dir, "test_output.txt"))
	if data, err := os.ReadFile(filepath.Join(dir, "patch.diff")); err == nil {
		s.Patch, s.HasPatch = string(data), true
	}
	rep, layout, err := eval.ReadReport(filepath.Join(dir, "report.json"))
	switch {
	case err == nil:
		s.HasReport, s.Layout = true, layout
		r := rep.Resolved
		s.ReportSays = &r
	case !errors.Is(err, fs.ErrNotExist):
		s.ReportErr = err.Error()
	}
	return s
}

// checkLogs checks the evaluation folder of every predicted instance with a patch. A log made for
// another patch than the prediction is a failure. Missing pieces are separate findings, as
// get_results counts them: no log at all (no patch.diff, test_output.txt nor report.json:
// no_generation), a patch.diff without test output (no_logs), test output without patch.diff
// (no_generation) and an unreadable report.json are warnings; a log without report.json (graded
// from its test output) is a note. A log holding only report.json — as published folders keep
// them — is graded from that report (Compute; checkFromReports says so).
func checkLogs(preds map[string]eval.Prediction, logs map[string]logState, why map[string]string) Findings {
	var stale, noLog, noOutput, noPatch, noReport, badReport []string
	var noLogIDs, noOutputIDs, noPatchIDs, noReportIDs, badReportIDs []string
	for _, id := range sortedIDs(preds) {
		p := preds[id]
		if p.Empty() {
			continue
		}
		s := logs[id]
		reason := func(def string) string {
			if w := why[id]; w != "" {
				return id + " (" + w + ")"
			}
			return id + " (" + def + ")"
		}
		if s.ReportErr != "" {
			badReport = append(badReport, s.ReportErr)
			badReportIDs = append(badReportIDs, id)
		}
		switch {
		case s.HasPatch && strings.TrimRight(s.Patch, "\n") != strings.TrimRight(p.Patch(), "\n"):
			stale = append(stale, id)
		case !s.HasPatch && !s.HasOutput && !s.HasReport:
			noLog = append(noLog, reason("no log"))
			noLogIDs = append(noLogIDs, id)
		case !s.HasPatch && !s.HasOutput:
			// report.json alone: graded from it.
		case !s.HasOutput:
			noOutput = append(noOutput, reason("no test_output.txt"))
			noOutputIDs = append(noOutputIDs, id)
		case !s.HasPatch:
			noPatch = append(noPatch, id)
			noPatchIDs = append(noPatchIDs, id)
		case !s.HasReport && s.ReportErr == "":
			noReport = append(noReport, id)
			noReportIDs = append(noReportIDs, id)
		}
	}
	var out Findings
	if len(stale) > 0 {
		out = append(out, Finding{Check: CheckStaleLogs, Severity: Fail, IDs: stale,
			Message: fmt.Sprintf("%d evaluation logs were made for another patch than the prediction (patch.diff differs from model_patch): %s; evaluate them again (swebench-run eval --redo --instance-ids …)", len(stale), idList(stale, 10))})
	}
	if len(noLog) > 0 {
		out = append(out, Finding{Check: CheckLogs, Severity: Warn, IDs: noLogIDs,
			Message: fmt.Sprintf("%d predicted instances have no evaluation log (no logs/<id>/ with patch.diff, test_output.txt or report.json); they count as no_generation, i.e. unresolved: %s", len(noLog), idList(noLog, 10))})
	}
	if len(noOutput) > 0 {
		out = append(out, Finding{Check: CheckLogs, Severity: Warn, IDs: noOutputIDs,
			Message: fmt.Sprintf("%d predicted instances have no test output (the evaluation failed before the tests ran); they count as no_logs, i.e. unresolved: %s", len(noOutput), idList(noOutput, 10))})
	}
	if len(noPatch) > 0 {
		out = append(out, Finding{Check: CheckLogs, Severity: Warn, IDs: noPatchIDs,
			Message: fmt.Sprintf("%d evaluation logs have test output but no patch.diff; get_results counts them as no_generation, i.e. unresolved: %s", len(noPatch), idList(noPatch, 10))})
	}
	if len(badReport) > 0 {
		out = append(out, Finding{Check: CheckLogs, Severity: Warn, IDs: badReportIDs,
			Message: fmt.Sprintf("%d report.json files cannot be read: %s", len(badReport), idList(badReport, 5))})
	}
	if len(noReport) > 0 {
		out = append(out, Finding{Check: CheckLogs, Severity: Note, IDs: noReportIDs,
			Message: fmt.Sprintf("%d evaluation logs have no report.json; they are graded from their test_output.txt: %s", len(noReport), idList(noReport, 10))})
	}
	return out
}

// checkFromReports says which instances were graded from their report.json alone (Compute):
// their logs hold neither patch.diff nor test_output.txt, as published folders keep them.
func checkFromReports(c *Computed) Findings {
	if len(c.FromReports) == 0 {
		return nil
	}
	ids := sortedIDs(c.FromReports)
	layouts := map[string]int{}
	for _, id := range ids {
		layouts[string(c.FromReports[id])]++
	}
	resolved := 0
	for _, id := range c.Results.Resolved {
		if _, ok := c.FromReports[id]; ok {
			resolved++
		}
	}
	return Findings{{Check: CheckLogs, Severity: Note, IDs: ids,
		Message: fmt.Sprintf("%d instances are graded from their logs/<id>/report.json (%s), %d of them resolved: their logs hold no test_output.txt to grade again and no patch.diff to check against the prediction, as published folders keep them (get_results counts such logs as no_generation): %s",
			len(ids), eval.LayoutCounts(layouts), resolved, idList(ids, 10))}}
}

// checkRegrade compares what the logs' report.json files say with regrading test_output.txt,
// which is what get_results counts.
func checkRegrade(c *Computed, logs map[string]logState) Findings {
	var diff []string
	var ids []string
	for _, id := range sortedIDs(c.Regraded) {
		s, ok := logs[id]
		if !ok || s.ReportSays == nil {
			continue
		}
		if *s.ReportSays != c.Regraded[id] {
			diff = append(diff, fmt.Sprintf("%s (report.json: resolved %t, regraded: %t)", id, *s.ReportSays, c.Regraded[id]))
			ids = append(ids, id)
		}
	}
	var out Findings
	if len(diff) > 0 {
		out = append(out, Finding{Check: CheckRegrade, Severity: Warn, IDs: ids,
			Message: fmt.Sprintf("%d report.json files disagree with regrading their test_output.txt against the dataset, which is what get_results counts (a different dataset revision or harness version): %s", len(diff), idList(diff, 10))})
	}
	if len(c.GradeErrors) > 0 {
		var parts []string
		for _, id := range sortedIDs(c.GradeErrors) {
			parts = append(parts, id+": "+c.GradeErrors[id])
		}
		out = append(out, Finding{Check: CheckRegrade, Severity: Warn, IDs: sortedIDs(c.GradeErrors),
			Message: fmt.Sprintf("%d test logs could not be graded (counted as unresolved): %s", len(parts), idList(parts, 5))})
	}
	return out
}
