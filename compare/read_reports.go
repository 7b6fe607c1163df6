package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/all"
)

// runReport is a harness run report (schema_version 2) or an sb-cli report, which adds
// pending and failed ids and has no empty-patch ids.
type runReport struct {
	eval.RunReport
	PendingIDs []string `json:"pending_ids"`
	FailedIDs  []string `json:"failed_ids"`
}

// readRunReport reads a harness run report or an sb-cli report. Instances are those the report
// evaluated against (completed, incomplete, empty, error, pending, failed); submitted ids outside
// them were not part of that evaluation and are left out.
func readRunReport(path string, data []byte, keys map[string]json.RawMessage) (*Run, error) {
	var rep runReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("input %s: not a run report (%v); expected the harness's <model>.<run_id>.json (schema_version 2) or an sb-cli report", path, err)
	}
	r := &Run{Path: path, Kind: KindHarnessReport, Total: rep.TotalInstances, GradingFlaky: rep.FlakyIDs}
	_, pending := keys["pending_ids"]
	_, failed := keys["failed_ids"]
	if pending || failed {
		r.Kind = KindSBCLIReport
		// sb-cli names its reports <subset>__<split>__<run_id>.json.
		if parts := strings.Split(strings.TrimSuffix(filepath.Base(path), ".json"), "__"); len(parts) == 3 {
			r.Dataset = parts[0] + ":" + parts[1]
		}
	}
	if _, ok := keys["schema_version"]; !ok {
		r.Warnings = append(r.Warnings, "the report has no schema_version; read as schema_version 2")
	} else if rep.SchemaVersion != 2 {
		return nil, fmt.Errorf("input %s: run report schema_version %d; this version reads schema_version 2 (SWE-bench harness ≥ 2.1, sb-cli)", path, rep.SchemaVersion)
	}
	m := map[string]*Instance{}
	set := func(ids []string, v Verdict, detail func(string) string) {
		for _, id := range ids {
			if in, ok := m[id]; ok && in.Verdict != v {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s is listed as both %s and %s; taken as %s", id, in.Verdict, v, v))
			}
			in := &Instance{Verdict: v}
			if detail != nil {
				in.Detail = detail(id)
			}
			m[id] = in
		}
	}
	fixed := func(s string) func(string) string { return func(string) string { return s } }
	set(rep.IncompleteIDs, NotSubmitted, fixed("no prediction"))
	set(rep.PendingIDs, NotSubmitted, fixed("evaluation pending"))
	set(rep.EmptyPatchIDs, EmptyPatch, nil)
	set(rep.FailedIDs, Error, fixed("evaluation failed"))
	set(rep.ErrorIDs, Error, func(id string) string { return rep.ErrorReasons[id] })
	set(rep.UnresolvedIDs, Unresolved, nil)
	set(rep.ResolvedIDs, Resolved, nil)
	for _, id := range rep.CompletedIDs {
		if _, ok := m[id]; !ok {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s is completed but neither resolved nor unresolved; taken as unresolved", id))
			m[id] = &Instance{Verdict: Unresolved}
		}
	}
	outside := 0
	for _, id := range rep.SubmittedIDs {
		if _, ok := m[id]; !ok {
			outside++
		}
	}
	if outside > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d submitted ids lie outside the %d instances this report evaluated and are left out", outside, len(m)))
	}
	if rep.ResolvedInstances != len(rep.ResolvedIDs) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("resolved_instances is %d but resolved_ids lists %d; the ids count", rep.ResolvedInstances, len(rep.ResolvedIDs)))
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("input %s: the run report lists no instance ids", path)
	}
	r.Instances = instancesFrom(m)
	return r, nil
}

// experimentsResults is SWE-bench/experiments' evaluation/<split>/<name>/results/results.json.
// Current submissions list resolved, no_generation and no_logs; older ones also list the stages
// an instance passed (generated, with_logs, applied) and where it failed.
type experimentsResults struct {
	Resolved     []string `json:"resolved"`
	NoGeneration []string `json:"no_generation"`
	NoLogs       []string `json:"no_logs"`
	InstallFail  []string `json:"install_fail"`
	ResetFailed  []string `json:"reset_failed"`
	NoApply      []string `json:"no_apply"`
	TestErrored  []string `json:"test_errored"`
	TestTimeout  []string `json:"test_timeout"`
}

// experimentsSplits are the sizes of the splits the experiments repository evaluates on, by the
// folder name under evaluation/.
var experimentsSplits = map[string]struct {
	dataset string
	size    int
}{
	"lite":         {"princeton-nlp/SWE-bench_Lite:test", 300},
	"verified":     {"princeton-nlp/SWE-bench_Verified:test", 500},
	"bash-only":    {"princeton-nlp/SWE-bench_Verified:test", 500},
	"test":         {"princeton-nlp/SWE-bench:test", 2294},
	"multimodal":   {"princeton-nlp/SWE-bench_Multimodal:test", 0},
	"multilingual": {"SWE-bench/SWE-bench_Multilingual:test", 300},
}

func readExperimentsFile(path string) (*Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	return readExperiments(path, data)
}

// readExperiments reads results.json. It lists only resolved and failed ids: every other
// instance of the split is unresolved (ImpliedUnresolved), so Compare completes it from the
// other inputs' instances.
func readExperiments(path string, data []byte) (*Run, error) {
	var res experimentsResults
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("input %s: not an experiments results.json (%v); expected {\"resolved\": [ids], \"no_generation\": [ids], \"no_logs\": [ids]}", path, err)
	}
	r := &Run{Path: path, Kind: KindExperiments, ImpliedUnresolved: true}
	// evaluation/<split>/<submission>/results/results.json
	if abs, err := filepath.Abs(path); err == nil {
		parts := strings.Split(filepath.ToSlash(abs), "/")
		if n := len(parts); n >= 5 && parts[n-2] == "results" && parts[n-5] == "evaluation" {
			if sp, ok := experimentsSplits[parts[n-4]]; ok {
				r.Dataset, r.Total = sp.dataset, sp.size
			}
			r.Label = parts[n-3]
		}
	}
	m := map[string]*Instance{}
	set := func(ids []string, v Verdict, detail string) {
		for _, id := range ids {
			m[id] = &Instance{Verdict: v, Detail: detail}
		}
	}
	set(res.TestTimeout, Error, "test timeout")
	set(res.TestErrored, Error, "tests errored")
	set(res.NoApply, Error, "patch did not apply")
	set(res.ResetFailed, Error, "reset failed")
	set(res.InstallFail, Error, "install failed")
	set(res.NoLogs, Error, "no evaluation logs")
	set(res.NoGeneration, EmptyPatch, "no generation")
	for _, id := range res.Resolved {
		if in, ok := m[id]; ok {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s is listed as resolved and as %s; taken as resolved", id, in.Detail))
		}
		m[id] = &Instance{Verdict: Resolved}
	}
	r.Instances = instancesFrom(m)
	r.Warnings = append(r.Warnings, "results.json lists resolved and failed instances only; every other instance the comparison knows is counted as unresolved")
	return r, nil
}

// readFamilyFile reads a verdict file of another dataset family's harness (SWE-bench Pro's
// eval_results.json); ok is false when no family takes it.
func readFamilyFile(path string, data []byte) (*Run, bool, error) {
	fv, ok, err := all.ReadReportFile(path, data)
	if err != nil {
		return nil, true, fmt.Errorf("input %s: %w", path, err)
	}
	if !ok {
		return nil, false, nil
	}
	r := &Run{Path: path, Kind: KindFamilyReport, ReportLayouts: map[string]int{fv.Format: len(fv.Verdicts)}}
	m := map[string]*Instance{}
	for id, v := range fv.Verdicts {
		m[id] = &Instance{Verdict: familyVerdict(v), Detail: v.Detail, Tests: v.Tests, Log: v.Log, FamilyLayout: fv.Format}
	}
	r.Instances = instancesFrom(m)
	return r, true, nil
}

// readSingleReport reads one per-instance report given as a file, in any layout eval.ReadReport
// knows: a report that names its instance (the harness's) is read as it is; one that does not
// (sb-cli's) is of the instance its folder is named after.
func readSingleReport(path string, data []byte) (*Run, error) {
	rep, layout, err := eval.ReadReportBytes(data, "")
	if errors.Is(err, eval.ErrReportUnnamed) {
		rep, layout, err = eval.ReadReportBytes(data, eval.FolderInstance(path))
	}
	if err != nil {
		return nil, err
	}
	r := &Run{Path: path, Kind: KindReportDir, ReportLayouts: map[string]int{string(layout): 1}}
	r.Instances = []Instance{{ID: rep.InstanceID, Verdict: reportVerdict(rep)}}
	return r, nil
}

// reportVerdict grades one report.json the harness's way: a report exists, so the instance was
// completed, resolved or not.
func reportVerdict(rep eval.InstanceReport) Verdict {
	if rep.Resolved {
		return Resolved
	}
	return Unresolved
}

// evalFolder is a folder of per-instance evaluation output: <dir>/<id>/report.json, with
// <dir>/<id>/ present but no report.json when the evaluation could not grade the instance, or a
// dataset family's harness output (read through the family registry).
type evalFolder struct {
	reports map[string]eval.InstanceReport
	tried   map[string]bool // a folder without report.json
	// family holds the verdicts the folder keeps in another dataset family's layout (SWE-bench
	// Pro's eval_results.json and instance folders, Multi-SWE-bench's workdir, …).
	family map[string]family.InstanceVerdict
	// familyLayout is the layout each of family was read in (family.FolderVerdicts.Format).
	familyLayout map[string]string
	// layouts counts the instances read per layout: SWE-bench's report.json layouts
	// (eval.ReportLayout) and the families' (family.FolderVerdicts.Format).
	layouts map[string]int
}

// readEvalFolder reads the verdicts of dir: the layouts of the dataset families first (an
// instance a family's reader takes is that family's, even when its report.json is also
// readable as SWE-bench's, as SWE-smith's are), then every other <dir>/<id>/report.json. A
// missing dir is empty.
func readEvalFolder(dir string) (*evalFolder, error) {
	f := &evalFolder{reports: map[string]eval.InstanceReport{}, tried: map[string]bool{}, family: map[string]family.InstanceVerdict{},
		familyLayout: map[string]string{}, layouts: map[string]int{}}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("evaluation folder %s: %w", dir, err)
	}
	others, err := all.ReadEvalFolder(dir)
	if err != nil {
		return nil, err
	}
	for _, fv := range others {
		for id, v := range fv.Verdicts {
			f.family[id] = v
			f.familyLayout[id] = fv.Format
			f.layouts[fv.Format]++
		}
	}
	// A report.json that is not SWE-bench's (in any layout) may be another family's
	// (SWE-bench-Live's {"instance_id", "resolved", …}): an error only when no family reads that
	// instance.
	unread := map[string]error{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, ok := f.family[e.Name()]; ok {
			continue
		}
		p := filepath.Join(dir, e.Name(), "report.json")
		rep, layout, err := eval.ReadReport(p)
		if errors.Is(err, fs.ErrNotExist) {
			f.tried[e.Name()] = true
			continue
		}
		if errors.Is(err, eval.ErrReportMismatch) {
			return nil, err // a report naming another instance than its folder
		}
		if err != nil {
			unread[e.Name()] = err
			continue
		}
		if _, ok := f.family[rep.InstanceID]; ok {
			continue
		}
		f.reports[rep.InstanceID] = rep
		f.layouts[string(layout)]++
	}
	if len(f.reports) == 0 && len(f.family) > 0 {
		// Another family's folder: its reader says which instance folders failed; the folder's
		// other subfolders (a submission's logs/, a workdir's <org>/) are not SWE-bench
		// evaluations without a report.
		clear(f.tried)
	}
	if len(unread) > 0 {
		ids := make([]string, 0, len(unread))
		for id := range unread {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		return nil, unread[ids[0]]
	}
	return f, nil
}

// instanceIDs returns every instance the folder knows, sorted.
func (f *evalFolder) instanceIDs() []string {
	ids := make([]string, 0, len(f.reports)+len(f.tried)+len(f.family))
	for id := range f.reports {
		ids = append(ids, id)
	}
	for id := range f.tried {
		ids = append(ids, id)
	}
	for id := range f.family {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// familyVerdict maps another family's verdict to compare's.
func familyVerdict(v family.InstanceVerdict) Verdict {
	switch v.Outcome {
	case family.Resolved:
		return Resolved
	case family.Unresolved:
		return Unresolved
	case family.EmptyPatch:
		return EmptyPatch
	}
	return Error
}

// fill sets in's verdict from the folder, with what another family's verdict file adds (its
// tests, its test output, its layout); ok is false when the folder knows nothing of id.
func (f *evalFolder) fill(in *Instance, id string) bool {
	v, detail, ok := f.verdict(id)
	if !ok {
		return false
	}
	in.Verdict, in.Detail = v, detail
	if fv, ok := f.family[id]; ok {
		in.Tests, in.Log, in.FamilyLayout = fv.Tests, fv.Log, f.familyLayout[id]
	}
	return true
}

// verdict grades id from the folder: its report, or Error when the folder shows an evaluation
// that produced no report. ok is false when the folder knows nothing of id.
func (f *evalFolder) verdict(id string) (Verdict, string, bool) {
	if rep, ok := f.reports[id]; ok {
		return reportVerdict(rep), "", true
	}
	if v, ok := f.family[id]; ok {
		return familyVerdict(v), v.Detail, true
	}
	if f.tried[id] {
		return Error, "evaluation produced no report.json", true
	}
	return "", "", false
}

// readReportDir reads a folder of <id>/report.json (the harness's log layout, which the
// experiments repository's logs/ folders share).
func readReportDir(dir string) (*Run, error) {
	f, err := readEvalFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	r := &Run{Path: dir, Kind: KindReportDir, ReportLayouts: f.layouts}
	if len(f.reports) == 0 && len(f.family) > 0 {
		r.Kind = KindFamilyReport
	}
	for _, id := range f.instanceIDs() {
		in := Instance{ID: id}
		f.fill(&in, id)
		r.Instances = append(r.Instances, in)
	}
	return r, nil
}
