package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
)

// sbcliReports holds 10 per-instance reports in sb-cli's layout from the published artifacts of a
// Verified bash-only submission (20251118_mini-v1.15.0_gemini-3-pro-preview-20251118); all but
// django__django-11477 are resolved.
const sbcliReports = "reports/sb-cli-per-instance"

func TestReadReportBytesLayouts(t *testing.T) {
	const body = `{"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": true, "tests_status": {"FAIL_TO_PASS": {"success": ["t1"], "failure": []}}}`
	tests := []struct {
		name, data, folder string
		wantID             string
		wantLayout         ReportLayout
		wantErr            string
		wantIs             error
	}{
		{name: "harness", data: `{"o__r-1": ` + body + `}`, folder: "o__r-1", wantID: "o__r-1", wantLayout: LayoutHarness},
		{name: "harness without a folder", data: `{"o__r-1": ` + body + `}`, wantID: "o__r-1", wantLayout: LayoutHarness},
		{name: "harness with a byte order mark", data: "\ufeff" + `{"o__r-1": ` + body + `}`, folder: "o__r-1", wantID: "o__r-1", wantLayout: LayoutHarness},
		{name: "sb-cli", data: body, folder: "o__r-1", wantID: "o__r-1", wantLayout: LayoutSBCLI},
		{name: "sb-cli without a folder", data: body, wantErr: "does not name its instance", wantIs: ErrReportUnnamed},
		{name: "bare object naming its instance", data: `{"instance_id": "o__r-1", "resolved": false}`, wantID: "o__r-1", wantLayout: LayoutSBCLI},
		{name: "harness in another instance's folder", data: `{"o__r-2": ` + body + `}`, folder: "o__r-1", wantErr: "of instance o__r-2 but its folder is named o__r-1"},
		{name: "bare object naming another instance", data: `{"instance_id": "o__r-2", "resolved": false}`, folder: "o__r-1", wantErr: "of instance o__r-2 but its folder is named o__r-1"},
		{name: "two instances", data: `{"o__r-1": ` + body + `, "o__r-2": ` + body + `}`, folder: "o__r-1", wantErr: "holds 2 instances"},
		{name: "resolved null", data: `{"resolved": null}`, folder: "o__r-1", wantErr: `"resolved" is null`},
		{name: "resolved not a bool", data: `{"resolved": "yes"}`, folder: "o__r-1", wantErr: "sb-cli layout"},
		{name: "not a report", data: `{"total_instances": 3}`, folder: "o__r-1", wantErr: "not a per-instance report (keys: total_instances); expected the harness's"},
		{name: "not JSON", data: `{"o__r-1": `, folder: "o__r-1", wantErr: "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, layout, err := ReadReportBytes([]byte(tt.data), tt.folder)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
					t.Errorf("err = %v, want errors.Is %v", err, tt.wantIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.InstanceID != tt.wantID || layout != tt.wantLayout {
				t.Errorf("got %s in layout %q, want %s in %q", rep.InstanceID, layout, tt.wantID, tt.wantLayout)
			}
		})
	}
}

// The published sb-cli reports read with the verdicts the submission published, named by their
// folders; the same report in the harness's layout reads the same.
func TestReadReportSBCLIFixtures(t *testing.T) {
	dir := fixture(t, sbcliReports)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 10 {
		t.Fatalf("%d reports in the corpus folder, want 10", len(entries))
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name(), "report.json")
		rep, layout, err := ReadReport(p)
		if err != nil {
			t.Fatal(err)
		}
		if rep.InstanceID != e.Name() || layout != LayoutSBCLI || rep.Resolved != (e.Name() != "django__django-11477") || !rep.PatchSuccessfullyApplied || rep.TestsStatus == nil {
			t.Errorf("%s: got %s, layout %q, resolved %t, applied %t", p, rep.InstanceID, layout, rep.Resolved, rep.PatchSuccessfullyApplied)
		}
		harness, err := MarshalReport(rep)
		if err != nil {
			t.Fatal(err)
		}
		back, layout, err := ReadReportBytes(harness, e.Name())
		if err != nil || layout != LayoutHarness || back.Resolved != rep.Resolved || len(back.TestsStatus.PassToPass.Success) != len(rep.TestsStatus.PassToPass.Success) {
			t.Errorf("%s in the harness's layout: %+v, %q, %v", e.Name(), back, layout, err)
		}
	}
	if _, _, err := ReadReport(filepath.Join(dir, "missing", "report.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing report: err = %v, want fs.ErrNotExist", err)
	}
}

// `eval --from-logs` on a folder as published (report.json only, in sb-cli's layout) keeps the
// reports' verdicts, says which layout each was read in, and writes them in the harness's layout
// without passing off a patch.diff as the evaluated one.
func TestRegradeFromSBCLIReports(t *testing.T) {
	logs := fixture(t, sbcliReports)
	loaded, err := dataset.Load(context.Background(), fixture(t, "datasets/SWE-bench_Verified.test.parquet"), dataset.LoadOptions{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(logs)
	want := map[string]bool{}
	preds := map[string]Prediction{}
	for _, e := range entries {
		want[e.Name()] = true
		preds[e.Name()] = pred(e.Name(), "diff --git a/x b/x\n")
	}
	var insts []dataset.Instance
	for _, in := range loaded.Instances {
		if want[in.InstanceID] {
			insts = append(insts, in)
		}
	}
	out := t.TempDir()
	rep, results, err := RegradeFromLogs(RegradeOptions{LogsDir: logs, OutDir: out, RunID: "published"}, insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ResolvedInstances != 9 || rep.UnresolvedInstances != 1 || rep.ErrorInstances != 0 {
		t.Errorf("run report: %d resolved, %d unresolved, %d errors (%v); want 9, 1, 0", rep.ResolvedInstances, rep.UnresolvedInstances, rep.ErrorInstances, rep.ErrorReasons)
	}
	for _, r := range results {
		if r.FromReport != LayoutSBCLI {
			t.Errorf("%s: taken from %q, want sb-cli's report", r.InstanceID, r.FromReport)
		}
		got, layout, err := ReadReport(filepath.Join(out, r.InstanceID, "report.json"))
		if err != nil || layout != LayoutHarness || got.Resolved != (r.Outcome == Resolved) {
			t.Errorf("%s: written report %+v in %q (%v)", r.InstanceID, got, layout, err)
		}
		if _, err := os.Stat(filepath.Join(out, r.InstanceID, "patch.diff")); err == nil {
			t.Errorf("%s: a patch.diff was written though the log kept none", r.InstanceID)
		}
	}
}
