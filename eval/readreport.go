package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/results"
)

// ReportLayout names the layout a per-instance report.json was written in.
type ReportLayout string

// The per-instance report layouts ReadReport knows.
const (
	// LayoutHarness is the SWE-bench harness's, and this package's:
	// {"<instance_id>": {"patch_is_None": …, "resolved": …, "tests_status": …}}.
	LayoutHarness ReportLayout = "harness"
	// LayoutSBCLI is sb-cli's: the same object without the outer key, {"patch_is_None": …,
	// "resolved": …, "tests_status": …}; the instance is the one its folder is named after
	// (logs/<instance_id>/report.json), as published submission folders keep them.
	LayoutSBCLI ReportLayout = "sb-cli"
)

// ErrReportUnnamed is wrapped by the error for a report that does not name its instance when no
// folder names it either (a report in sb-cli's layout read without its <id>/ folder).
var ErrReportUnnamed = errors.New("the report does not name its instance")

// ErrNotAReport is wrapped by the error for a JSON object that is no per-instance report of the
// SWE-bench harness in any layout (another dataset family's report.json, read by its family).
var ErrNotAReport = errors.New("not a per-instance report")

// ErrReportMismatch is wrapped by the error for a report that names another instance than the
// folder it is in.
var ErrReportMismatch = errors.New("the report names another instance than its folder")

// reportFormat is one layout of a per-instance report: how to recognise it by the keys of its
// top-level JSON object, and how to decode it. decode gets the instance its folder names ("" when
// none does) and returns the report with InstanceID set.
type reportFormat struct {
	layout ReportLayout
	match  func(keys map[string]json.RawMessage) bool
	decode func(data []byte, keys map[string]json.RawMessage, folderID string) (InstanceReport, error)
}

// reportFormats are the layouts ReadReportBytes tries, in order; the first that matches decodes
// the report. This is the one place where a per-instance report is read: a harness writing a
// report of its own shape adds its layout here, decoding into InstanceReport (the verdict every
// reader uses), and every reader (compare, report, submission, eval --from-logs, stats) takes it.
var reportFormats = []reportFormat{
	{layout: LayoutHarness, match: matchHarness, decode: decodeHarness},
	{layout: LayoutSBCLI, match: matchBare, decode: decodeBare},
}

// expectedLayouts describes the layouts for error messages.
const expectedLayouts = `expected the harness's {"<instance_id>": {"resolved": …, "tests_status": …}} or sb-cli's {"resolved": …, "tests_status": …} in the folder <instance_id>/`

// ReadReport reads a per-instance report.json in any layout reportFormats knows. The report is of
// the instance its folder is named after (<dir>/<instance_id>/report.json): a report that names
// another instance is an error naming both. It returns the report with InstanceID set and the
// layout it was read in.
func ReadReport(path string) (InstanceReport, ReportLayout, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return InstanceReport{}, "", err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return InstanceReport{}, "", fmt.Errorf("read report %s: the file is empty", path)
	}
	rep, layout, err := ReadReportBytes(data, FolderInstance(path))
	if err != nil {
		return rep, layout, fmt.Errorf("read report %s: %w", path, err)
	}
	return rep, layout, nil
}

// FolderInstance is the instance a report.json's folder names: the name of the folder holding
// path; "" when path has no folder of its own.
func FolderInstance(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	dir := filepath.Dir(filepath.Clean(path))
	name := filepath.Base(dir)
	if name == "." || name == string(filepath.Separator) || name == ".." {
		return ""
	}
	return name
}

// ReadReportBytes decodes a per-instance report of instance folderID (the name of its folder; ""
// when no folder names it, then only layouts that name their instance are read: others fail
// with ErrReportUnnamed). A report naming another instance than folderID is an error.
func ReadReportBytes(data []byte, folderID string) (InstanceReport, ReportLayout, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return InstanceReport{}, "", fmt.Errorf("not a JSON object (%v); %s", err, expectedLayouts)
	}
	for _, f := range reportFormats {
		if !f.match(keys) {
			continue
		}
		rep, err := f.decode(data, keys, folderID)
		if err != nil {
			return InstanceReport{}, f.layout, fmt.Errorf("%s layout: %w", f.layout, err)
		}
		return rep, f.layout, nil
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	return InstanceReport{}, "", fmt.Errorf("%w (keys: %s); %s", ErrNotAReport, strings.Join(names, ", "), expectedLayouts)
}

// reportBody is the object every layout so far shares (the harness's value, sb-cli's whole report).
type reportBody struct {
	PatchIsNone              bool         `json:"patch_is_None"`
	PatchExists              bool         `json:"patch_exists"`
	PatchSuccessfullyApplied bool         `json:"patch_successfully_applied"`
	Resolved                 *bool        `json:"resolved"`
	TestsStatus              *TestsStatus `json:"tests_status,omitempty"`
}

func (b reportBody) report(id string) (InstanceReport, error) {
	if b.Resolved == nil {
		return InstanceReport{}, errors.New(`"resolved" is null`)
	}
	return InstanceReport{InstanceID: id, PatchIsNone: b.PatchIsNone, PatchExists: b.PatchExists,
		PatchSuccessfullyApplied: b.PatchSuccessfullyApplied, Resolved: *b.Resolved, TestsStatus: b.TestsStatus}, nil
}

// hasResolved reports whether raw is a JSON object with a "resolved" key.
func hasResolved(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	_, ok := m["resolved"]
	return ok
}

// matchHarness: every top-level value is an object with "resolved" (one, for a valid report).
func matchHarness(keys map[string]json.RawMessage) bool {
	if len(keys) == 0 {
		return false
	}
	for _, v := range keys {
		if !hasResolved(v) {
			return false
		}
	}
	return true
}

func decodeHarness(_ []byte, keys map[string]json.RawMessage, folderID string) (InstanceReport, error) {
	if len(keys) != 1 {
		return InstanceReport{}, fmt.Errorf("the report holds %d instances, want exactly 1", len(keys))
	}
	for id, raw := range keys {
		var b reportBody
		if err := json.Unmarshal(raw, &b); err != nil {
			return InstanceReport{}, fmt.Errorf("instance %s: %w", id, err)
		}
		if folderID != "" && id != folderID {
			return InstanceReport{}, mismatch(id, folderID)
		}
		rep, err := b.report(id)
		if err != nil {
			return rep, fmt.Errorf("instance %s: %w", id, err)
		}
		return rep, nil
	}
	panic("unreachable")
}

// matchBare: the report object itself, "resolved" at the top.
func matchBare(keys map[string]json.RawMessage) bool {
	_, ok := keys["resolved"]
	return ok
}

func decodeBare(data []byte, keys map[string]json.RawMessage, folderID string) (InstanceReport, error) {
	var b reportBody
	if err := json.Unmarshal(data, &b); err != nil {
		return InstanceReport{}, err
	}
	id := folderID
	// A report that names its instance (not sb-cli's, but a bare object may) must name its folder's.
	if v, ok := keys["instance_id"]; ok {
		var named string
		if json.Unmarshal(v, &named) == nil && named != "" {
			if folderID != "" && named != folderID {
				return InstanceReport{}, mismatch(named, folderID)
			}
			id = named
		}
	}
	if id == "" {
		return InstanceReport{}, fmt.Errorf("%w: keep it as <instance_id>/report.json, as sb-cli writes it", ErrReportUnnamed)
	}
	return b.report(id)
}

func mismatch(named, folder string) error {
	return fmt.Errorf("%w: the report is of instance %s but its folder is named %s; a report.json belongs in the folder of its instance (<instance_id>/report.json)", ErrReportMismatch, named, folder)
}

// LayoutCounts describes how many reports were read in each layout: "sb-cli layout",
// "harness layout" when there is one, "3 in the harness's layout, 7 in sb-cli's" when mixed.
func LayoutCounts(n map[string]int) string {
	names := make([]string, 0, len(n))
	for k, c := range n {
		if c > 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	switch len(names) {
	case 0:
		return "no report"
	case 1:
		return names[0] + " layout"
	}
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%d in the %s layout", n[k], k)
	}
	return strings.Join(parts, ", ")
}

// ReportVerdict reads a per-instance report.json (ReadReport) for results.ComputeStats: whether
// it resolved its instance, whether the patch applied, and the layout it was read in; an empty
// layout and no error for another dataset family's report.json (ErrNotAReport), which that
// family's reader counts.
func ReportVerdict(path string) (resolved, applied bool, layout string, err error) {
	rep, l, err := ReadReport(path)
	if errors.Is(err, ErrNotAReport) {
		return false, false, "", nil
	}
	return rep.Resolved, rep.PatchSuccessfullyApplied, string(l), err
}

var _ results.ReportReader = ReportVerdict
