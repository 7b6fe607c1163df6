package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/internal/pytext"
	"github.com/swebench-run/swebench-run/results"
)

// MarshalJSON writes the report as the harness does: {"<instance_id>": {…}}.
func (r InstanceReport) MarshalJSON() ([]byte, error) {
	type plain InstanceReport
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]plain{r.InstanceID: plain(r)}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads a report.json of exactly one instance in the harness's layout (ReadReport
// reads every layout).
func (r *InstanceReport) UnmarshalJSON(data []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	rep, err := decodeHarness(data, keys, "")
	if err != nil {
		return err
	}
	*r = rep
	return nil
}

// harnessJSON encodes v the way Python's json.dumps(v, indent=4) does (ensure_ascii on).
func harnessJSON(v any) ([]byte, error) { return pytext.JSONDumps(v, 4, true) }

// MarshalReport returns the bytes of report.json as the harness writes them.
func MarshalReport(r InstanceReport) ([]byte, error) { return harnessJSON(r) }

// Outcome is what became of one prediction in an evaluation (family.Outcome, shared by every
// family's grader).
type Outcome = family.Outcome

// Outcomes of one prediction. Error is kept apart from Unresolved: it means the prediction could
// not be graded (patch did not apply, image missing, container died, timeout, …), see ErrorKind.
const (
	Resolved   = family.Resolved
	Unresolved = family.Unresolved
	EmptyPatch = family.EmptyPatch
	Error      = family.Error
)

// ErrorKind classifies an Error outcome (family.ErrorKind).
type ErrorKind = family.ErrorKind

// Error kinds. The infrastructure kinds (ImageMissing, Container, Timeout) say nothing about the
// patch; PatchApplyFailed and NotADiff are the prediction's fault; Grading means the log could
// not be read the harness's way.
const (
	KindImageMissing     = family.KindImageMissing
	KindContainer        = family.KindContainer
	KindTimeout          = family.KindTimeout
	KindPatchApplyFailed = family.KindPatchApplyFailed
	KindNotADiff         = family.KindNotADiff
	KindGrading          = family.KindGrading
	KindNoTestOutput     = family.KindNoTestOutput
	KindAssets           = family.KindAssets
)

// Result is the evaluation of one prediction.
type Result struct {
	InstanceID string
	Outcome    Outcome
	ErrorKind  ErrorKind       // set when Outcome is Error
	Reason     string          // human-readable cause when Outcome is Error
	Report     *InstanceReport // set when the prediction was graded (Resolved or Unresolved)
	// FromReport is set when the verdict was not graded here but taken from an existing
	// report.json (regrading a folder without test output): the layout it was read in.
	FromReport ReportLayout
	// Environment is set on an Unresolved result whose failure is its environment's (Options.Validation,
	// or the log alone): the outcome stays Unresolved, as the harness counts it.
	Environment *Environment
	// Repeats are the outcomes of the repeated gradings (Options.Repeat), the first included.
	Repeats []Outcome
}

// RunReport is the harness's run report (schema_version 2), written as
// <model with / → __>.<run_id>.json. ErrorReasons (an addition of ours) gives the cause of every
// error id; the fields after SchemaVersion are ours too.
type RunReport struct {
	TotalInstances      int               `json:"total_instances"`
	SubmittedInstances  int               `json:"submitted_instances"`
	CompletedInstances  int               `json:"completed_instances"`
	ResolvedInstances   int               `json:"resolved_instances"`
	UnresolvedInstances int               `json:"unresolved_instances"`
	EmptyPatchInstances int               `json:"empty_patch_instances"`
	ErrorInstances      int               `json:"error_instances"`
	CompletedIDs        []string          `json:"completed_ids"`
	IncompleteIDs       []string          `json:"incomplete_ids"`
	EmptyPatchIDs       []string          `json:"empty_patch_ids"`
	SubmittedIDs        []string          `json:"submitted_ids"`
	ResolvedIDs         []string          `json:"resolved_ids"`
	UnresolvedIDs       []string          `json:"unresolved_ids"`
	ErrorIDs            []string          `json:"error_ids"`
	ErrorReasons        map[string]string `json:"error_reasons"`
	SchemaVersion       int               `json:"schema_version"`

	// Additions of this tool, absent when empty (a report without them has the harness's keys
	// only): the unresolved instances whose failure is their environment's, with the evidence
	// (they stay in unresolved_ids), and, with eval --repeat, the instances whose verdict changed
	// between the gradings, with the verdicts.
	EnvironmentInstances int                 `json:"environment_instances,omitempty"`
	EnvironmentIDs       []string            `json:"environment_ids,omitempty"`
	EnvironmentEvidence  map[string]string   `json:"environment_evidence,omitempty"`
	GradingRepeats       int                 `json:"grading_repeats,omitempty"`
	FlakyIDs             []string            `json:"flaky_ids,omitempty"`
	FlakyVerdicts        map[string][]string `json:"flaky_verdicts,omitempty"`
}

// BuildRunReport counts an evaluation the harness's way. insts is the dataset evaluated against
// (total_instances), preds the submitted predictions, results the outcome of each prediction that
// was evaluated. A dataset instance without a prediction is incomplete; a prediction with an
// empty patch is counted, not run; a submitted prediction without a result is an error.
func BuildRunReport(insts []dataset.Instance, preds map[string]Prediction, results map[string]Result) RunReport {
	rep := RunReport{
		TotalInstances: len(insts), SubmittedInstances: len(preds), SchemaVersion: 2,
		CompletedIDs: []string{}, IncompleteIDs: []string{}, EmptyPatchIDs: []string{}, SubmittedIDs: []string{},
		ResolvedIDs: []string{}, UnresolvedIDs: []string{}, ErrorIDs: []string{}, ErrorReasons: map[string]string{},
	}
	for id := range preds {
		rep.SubmittedIDs = append(rep.SubmittedIDs, id)
	}
	for _, inst := range insts {
		id := inst.InstanceID
		p, ok := preds[id]
		if !ok {
			rep.IncompleteIDs = append(rep.IncompleteIDs, id)
			continue
		}
		if p.Empty() {
			rep.EmptyPatchIDs = append(rep.EmptyPatchIDs, id)
			continue
		}
		res, ok := results[id]
		switch {
		case !ok:
			rep.ErrorIDs = append(rep.ErrorIDs, id)
			rep.ErrorReasons[id] = "not evaluated"
		case res.Outcome == Resolved:
			rep.CompletedIDs = append(rep.CompletedIDs, id)
			rep.ResolvedIDs = append(rep.ResolvedIDs, id)
		case res.Outcome == Unresolved:
			rep.CompletedIDs = append(rep.CompletedIDs, id)
			rep.UnresolvedIDs = append(rep.UnresolvedIDs, id)
		case res.Outcome == EmptyPatch:
			rep.EmptyPatchIDs = append(rep.EmptyPatchIDs, id)
		default:
			rep.ErrorIDs = append(rep.ErrorIDs, id)
			rep.ErrorReasons[id] = string(res.ErrorKind) + ": " + res.Reason
		}
	}
	for _, l := range [][]string{rep.CompletedIDs, rep.IncompleteIDs, rep.EmptyPatchIDs, rep.SubmittedIDs, rep.ResolvedIDs, rep.UnresolvedIDs, rep.ErrorIDs} {
		sort.Strings(l)
	}
	rep.CompletedInstances = len(rep.CompletedIDs)
	rep.ResolvedInstances = len(rep.ResolvedIDs)
	rep.UnresolvedInstances = len(rep.UnresolvedIDs)
	rep.EmptyPatchInstances = len(rep.EmptyPatchIDs)
	rep.ErrorInstances = len(rep.ErrorIDs)
	return rep
}

// RunReportName is the harness's file name of a run report: <model with / → __>.<run_id>.json.
func RunReportName(model, runID string) string {
	return family.FileSafeModel(model) + "." + runID + ".json"
}

// WriteRunReport writes rep atomically into dir as RunReportName(model, runID) and returns the
// path.
func WriteRunReport(dir, model, runID string, rep RunReport) (string, error) {
	if runID == "" {
		return "", errors.New("write run report: empty run id")
	}
	data, err := harnessJSON(rep)
	if err != nil {
		return "", fmt.Errorf("write run report: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write run report: %w", err)
	}
	path := filepath.Join(dir, RunReportName(model, runID))
	return path, results.WriteFileAtomic(path, append(data, '\n'), 0o644)
}
