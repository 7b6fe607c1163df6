package multiswebench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/results"
)

// FamilyName is the family's name in instances and named datasets.
const FamilyName = "multiswebench"

// Files an evaluation keeps per instance, in the harness's names (its evals/pr-N folder).
const (
	fixPatchFile  = "fix.patch"
	fixLogFile    = "fix-patch-run.log"
	reportFile    = "report.json"
	finalReport   = "final_report.json"
	patchesExport = "multi_swe_bench_patches.jsonl"
)

// Profile is the Multi-SWE-bench family (ByteDance's Multi-SWE-bench, mini and flash).
type Profile struct{}

var (
	_ family.Profile          = Profile{}
	_ family.PredictionReader = Profile{}
	_ dataset.IDNamer         = Profile{}
	_ family.Grader           = grader{}
	_ family.ReportReader     = reports{}
)

// Name implements dataset.Family.
func (Profile) Name() string { return FamilyName }

// Title implements family.Profile.
func (Profile) Title() string { return "Multi-SWE-bench" }

// Match implements dataset.Family: a row with org, number and the reference runs, and no
// problem_statement.
func (Profile) Match(inst *dataset.Instance) bool {
	if inst.ProblemStatement != "" {
		return false
	}
	for _, col := range []string{"org", "number", "resolved_issues", "run_result"} {
		if _, ok := inst.Extra[col]; !ok {
			return false
		}
	}
	return true
}

// IDColumns implements dataset.IDNamer: the harness's own dataset files have no instance_id
// column; a row is named by its org, repo and number.
func (Profile) IDColumns() []string { return []string{"org", "repo", "number"} }

// InstanceIDOf implements dataset.IDNamer: "org__repo-number", as the published datasets name
// their rows.
func (Profile) InstanceIDOf(cols map[string]any) string {
	org, _ := cols["org"].(string)
	repo, _ := cols["repo"].(string)
	var n int64
	switch v := cols["number"].(type) {
	case json.Number:
		i, err := v.Int64()
		if err != nil {
			return ""
		}
		n = i
	case int64:
		n = v
	case float64:
		if v != float64(int64(v)) {
			return ""
		}
		n = int64(v)
	default:
		return ""
	}
	if org == "" || repo == "" {
		return ""
	}
	return fmt.Sprintf("%s__%s-%d", org, repo, n)
}

// rowOf decodes the instance's Multi-SWE-bench columns (Prepare keeps them in Extra).
func rowOf(inst *dataset.Instance) (*Row, error) {
	cols := make(map[string]any, len(inst.Extra)+2)
	for k, v := range inst.Extra {
		cols[k] = v
	}
	if _, ok := cols["repo"]; !ok {
		cols["repo"] = inst.Repo
	}
	if _, ok := cols["test_patch"]; !ok {
		cols["test_patch"] = inst.TestPatch
	}
	data, err := json.Marshal(cols)
	if err != nil {
		return nil, err
	}
	return ParseRow(data)
}

var missingField = regexp.MustCompile(`^field (\S+) (.*)$`)

// Prepare implements dataset.Family: the task is the first resolved issue, the image
// mswebench/org_m_repo:pr-N, the repository /home/<repo>; the gold and test patches the harness
// leaves in /home are removed before the agent starts.
func (Profile) Prepare(inst *dataset.Instance) error {
	row, err := rowOf(inst)
	if err != nil {
		if m := missingField.FindStringSubmatch(err.Error()); m != nil {
			return &dataset.FieldError{Field: m[1], Reason: m[2]}
		}
		return &dataset.FieldError{Field: "row", Reason: err.Error()}
	}
	// Keep the row's own columns for grading; Instance.Repo becomes "org/repo" as elsewhere.
	inst.Extra["repo"] = row.Repo
	inst.Extra["test_patch"] = row.TestPatch
	if inst.InstanceID == "" {
		inst.InstanceID = row.InstanceID()
	}
	inst.Repo = row.Org + "/" + row.Repo
	inst.BaseCommit = row.Base.SHA
	inst.Patch = row.FixPatch
	inst.TestPatch = row.TestPatch
	inst.Task = row.ProblemStatement()
	inst.Image = row.Image()
	inst.WorkDir = row.Workdir()
	// Empty sets are common in published rows (p2p_tests: {}, or no f2p, s2p and n2p tests at
	// all): they are empty lists, which evaluation accepts, never absent ones.
	inst.FailToPass = append(append(append([]string{}, sortedKeys(row.F2PTests)...), sortedKeys(row.S2PTests)...), sortedKeys(row.N2PTests)...)
	inst.PassToPass = append([]string{}, sortedKeys(row.P2PTests)...)
	inst.PreAgentCommands = []string{"rm -f /home/fix.patch /home/test.patch"}
	// Checked last, the instance otherwise complete: a row of such a repository is refused for
	// this one reason.
	if _, ok := repositories[row.Org+"/"+row.Repo]; !ok {
		return &dataset.FieldError{Field: "repo", Reason: fmt.Sprintf("%s/%s is not a repository of Multi-SWE-bench, mini or flash: the harness has no parser for it", row.Org, row.Repo)}
	}
	return nil
}

// Grader implements family.Profile.
func (Profile) Grader() family.Grader { return grader{} }

// Reports implements family.Profile.
func (Profile) Reports() family.ReportReader { return reports{} }

// splitID reads "org__repo-number".
func splitID(id string) (org, repo string, number int, ok bool) {
	org, rest, found := strings.Cut(id, "__")
	i := strings.LastIndexByte(rest, '-')
	if !found || i <= 0 {
		return "", "", 0, false
	}
	n, err := strconv.Atoi(rest[i+1:])
	if err != nil {
		return "", "", 0, false
	}
	return org, rest[:i], n, true
}

// ExportPredictions implements family.Profile: the harness's patch file, one
// {org, repo, number, fix_patch} line per prediction.
func (Profile) ExportPredictions(preds []family.Prediction) (string, []byte, error) {
	var b strings.Builder
	for _, p := range preds {
		org, repo, n, ok := splitID(p.InstanceID)
		if !ok {
			return "", nil, fmt.Errorf("prediction %q: not a Multi-SWE-bench instance id (org__repo-number)", p.InstanceID)
		}
		line, err := json.Marshal(Prediction{Org: org, Repo: repo, Number: n, FixPatch: p.Patch()})
		if err != nil {
			return "", nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return patchesExport, []byte(b.String()), nil
}

// ReadPredictions implements family.PredictionReader: the harness's patch file (JSON lines of
// org, repo, number, fix_patch).
func (Profile) ReadPredictions(path string, data []byte) (map[string]family.Prediction, bool, error) {
	preds := map[string]family.Prediction{}
	lines := strings.Split(string(data), "\n")
	for k, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &fields); err != nil {
			if len(preds) == 0 {
				return nil, false, nil
			}
			return nil, true, fmt.Errorf("%s line %d: %w", path, k+1, err)
		}
		_, hasOrg := fields["org"]
		_, hasFix := fields["fix_patch"]
		if !hasOrg || !hasFix {
			if len(preds) == 0 {
				return nil, false, nil
			}
			return nil, true, fmt.Errorf("%s line %d: not a Multi-SWE-bench patch line (org, repo, number, fix_patch)", path, k+1)
		}
		var p Prediction
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			return nil, true, fmt.Errorf("%s line %d: %w", path, k+1, err)
		}
		id := fmt.Sprintf("%s__%s-%d", p.Org, p.Repo, p.Number)
		patch := p.FixPatch
		preds[id] = family.Prediction{InstanceID: id, ModelPatch: &patch}
	}
	return preds, len(preds) > 0, nil
}

type grader struct{}

// Check implements family.Grader.
func (grader) Check(insts []dataset.Instance) error {
	var errs []error
	for _, inst := range insts {
		row, err := rowOf(&inst)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", inst.InstanceID, err))
			continue
		}
		if _, ok := repositories[row.Org+"/"+row.Repo]; !ok {
			errs = append(errs, fmt.Errorf("%s: repository %s/%s has no Multi-SWE-bench parser", inst.InstanceID, row.Org, row.Repo))
		}
	}
	return errors.Join(errs...)
}

// Reuse implements family.Grader: an earlier fix run of the same patch is graded again from its
// log.
func (g grader) Reuse(inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, bool) {
	patch, err := os.ReadFile(filepath.Join(dir, fixPatchFile))
	if err != nil || string(patch) != pred.Patch() {
		return family.Verdict{}, false
	}
	log, err := os.ReadFile(filepath.Join(dir, fixLogFile))
	if err != nil {
		return family.Verdict{}, false
	}
	v, err := g.judge(inst, string(log), dir)
	if err != nil {
		return family.Verdict{}, false
	}
	return v, true
}

// judge grades a fix run's log and writes report.json.
func (grader) judge(inst dataset.Instance, log, dir string) (family.Verdict, error) {
	row, err := rowOf(&inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	ev, err := Evaluate(row, log)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	data, _ := ev.Report.MarshalJSON()
	if err := results.WriteFileAtomic(filepath.Join(dir, reportFile), data, 0o644); err != nil {
		return family.Verdict{}, err
	}
	v := family.Graded(ev.Resolved, ev.Report)
	if !ev.Resolved {
		v.Reason = ev.Reason
	}
	return v, nil
}

// Grade implements family.Grader: the prediction becomes /home/fix.patch, the image's
// fix-run.sh runs, and its log is judged against the row.
func (g grader) Grade(ctx context.Context, env family.GradeEnv, sb family.Sandbox, inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, error) {
	if err := results.WriteFileAtomic(filepath.Join(dir, fixPatchFile), []byte(pred.Patch()), 0o644); err != nil {
		return family.Verdict{}, err
	}
	if env.Log != nil {
		fmt.Fprintf(env.Log, "Writing the prediction to %s and running %s\n", FixPatchPath, FixRunCommand)
	}
	log, err := RunFix(ctx, sb, pred.Patch(), env.Timeout)
	if ctx.Err() != nil {
		return family.Verdict{}, ctx.Err()
	}
	if werr := results.WriteFileAtomic(filepath.Join(dir, fixLogFile), []byte(log), 0o644); werr != nil {
		return family.Verdict{}, werr
	}
	if err != nil {
		if errors.Is(err, ErrFixTimeout) {
			return family.Errorf(family.KindTimeout, "%v", err), nil
		}
		return family.Errorf(family.KindContainer, "%v", err), nil
	}
	return g.judge(inst, log, dir)
}

// Regrade implements family.Grader: the log is this tool's <dir>/<instance_id>/fix-patch-run.log,
// the harness's <workdir>/<org>/<repo>/evals/pr-<number>/fix-patch-run.log (run_evaluation.py's
// instance folder) or a leaderboard submission's <dir>/logs/<org>/<repo>/evals/pr-<number>/ (the
// harness's workdir published as logs/, as multi-swe-bench/experiments keeps them).
func (g grader) Regrade(inst dataset.Instance, pred family.Prediction, logDirs []string, dir string) (family.Verdict, bool, error) {
	row, err := rowOf(&inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), true, nil
	}
	harnessDir := filepath.Join(row.Org, row.Repo, "evals", "pr-"+strconv.Itoa(row.Number))
	for _, d := range logDirs {
		for _, p := range []string{
			filepath.Join(d, inst.InstanceID, fixLogFile),
			filepath.Join(d, harnessDir, fixLogFile),
			filepath.Join(d, "logs", harnessDir, fixLogFile),
		} {
			log, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return family.Verdict{}, true, err
			}
			if err := results.WriteFileAtomic(filepath.Join(dir, fixLogFile), log, 0o644); err != nil {
				return family.Verdict{}, true, err
			}
			if err := results.WriteFileAtomic(filepath.Join(dir, fixPatchFile), []byte(pred.Patch()), 0o644); err != nil {
				return family.Verdict{}, true, err
			}
			v, err := g.judge(inst, string(log), dir)
			return v, true, err
		}
	}
	return family.Verdict{}, false, nil
}

// Finish implements family.Grader: final_report.json. The harness grades an empty patch (it
// does not apply, no tests run) and counts it unresolved; so does this file.
func (grader) Finish(outDir string, preds map[string]family.Prediction, verdicts map[string]family.Verdict) error {
	var f FinalReport
	for id, v := range verdicts {
		org, repo, n, ok := splitID(id)
		if !ok {
			continue
		}
		in := Instance{Org: org, Repo: repo, Number: n}
		switch v.Outcome {
		case family.Resolved:
			f.Resolved = append(f.Resolved, in)
		case family.Unresolved, family.EmptyPatch:
			f.Unresolved = append(f.Unresolved, in)
		default:
			f.Errors = append(f.Errors, in)
		}
	}
	data, _ := f.MarshalJSON()
	return results.WriteFileAtomic(filepath.Join(outDir, finalReport), data, 0o644)
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
