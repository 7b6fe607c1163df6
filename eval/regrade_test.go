package eval

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const deepseekRun = "runs/deepseek-chat-lite-dev"

// TestRegradeFixtureLogs regrades the 23 real harness logs of a deepseek-chat run on Lite dev and
// checks every report.json against the harness's own, byte for byte, and the run report's counts.
func TestRegradeFixtureLogs(t *testing.T) {
	insts := loadJSONLInstances(t, fixture(t, "datasets/SWE-bench_Lite.dev.jsonl"))
	preds, err := LoadPredictions(fixture(t, deepseekRun+"/output/preds.json"))
	if err != nil {
		t.Fatal(err)
	}
	logs := fixture(t, deepseekRun+"/eval-logs")
	out := t.TempDir()

	rep, results, err := RegradeFromLogs(RegradeOptions{LogsDir: logs, OutDir: out, RunID: "regrade"}, insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(results), 23; got != want {
		t.Fatalf("got %d results, want %d", got, want)
	}
	wantResolved := 0
	for _, res := range results {
		id := res.InstanceID
		t.Run(id, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(logs, id, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(out, id, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				var g, w any
				json.Unmarshal(got, &g)
				json.Unmarshal(want, &w)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("report differs from the harness's:\n got: %s\nwant: %s", got, want)
				} else {
					t.Errorf("report has the harness's content but not its bytes:\n got: %q\nwant: %q", got, want)
				}
			}
			for _, name := range []string{"test_output.txt", "eval.sh"} {
				g, _ := os.ReadFile(filepath.Join(out, id, name))
				w, _ := os.ReadFile(filepath.Join(logs, id, name))
				if !bytes.Equal(g, w) {
					t.Errorf("%s not copied unchanged", name)
				}
			}
		})
		wr, _, err := ReadReport(filepath.Join(logs, id, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if wr.Resolved {
			wantResolved++
		}
	}
	if wantResolved != 6 {
		t.Fatalf("fixture has %d resolved reports, the fixture README says 6", wantResolved)
	}
	counts := map[string][2]int{
		"total":      {rep.TotalInstances, 23},
		"submitted":  {rep.SubmittedInstances, 23},
		"completed":  {rep.CompletedInstances, 23},
		"resolved":   {rep.ResolvedInstances, wantResolved},
		"unresolved": {rep.UnresolvedInstances, 23 - wantResolved},
		"empty":      {rep.EmptyPatchInstances, 0},
		"error":      {rep.ErrorInstances, 0},
		"incomplete": {len(rep.IncompleteIDs), 0},
	}
	for k, v := range counts {
		if v[0] != v[1] {
			t.Errorf("run report %s: got %d, want %d", k, v[0], v[1])
		}
	}
	if _, err := os.Stat(filepath.Join(out, "deepseek__deepseek-chat.regrade.json")); err != nil {
		t.Errorf("run report not written under the harness's name: %v", err)
	}
}

// copyLog copies a fixture instance folder's test_output.txt into dir/<id>/.
func copyLog(t *testing.T, dir, id string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixture(t, deepseekRun+"/eval-logs"), id, "test_output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, id), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id, "test_output.txt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRegradeLayouts(t *testing.T) {
	insts := loadJSONLInstances(t, fixture(t, "datasets/SWE-bench_Lite.dev.jsonl"))
	all, err := LoadPredictions(fixture(t, deepseekRun+"/output/preds.json"))
	if err != nil {
		t.Fatal(err)
	}
	const resolvedID, unresolvedID, missingID = "marshmallow-code__marshmallow-1343", "pvlib__pvlib-python-1072", "sqlfluff__sqlfluff-1517"
	preds := map[string]Prediction{resolvedID: all[resolvedID], unresolvedID: all[unresolvedID], missingID: all[missingID]}

	tests := []struct {
		name    string
		layout  func(root string) (logsDir string) // places the logs, returns the folder to pass
		inPlace bool
	}{
		{"harness run_id folder", func(root string) string {
			d := filepath.Join(root, "logs", "run_evaluation", "myrun", "deepseek__deepseek-chat")
			copyLog(t, d, resolvedID)
			copyLog(t, d, unresolvedID)
			return filepath.Join(root, "logs", "run_evaluation", "myrun")
		}, false},
		{"harness model folder", func(root string) string {
			d := filepath.Join(root, "deepseek__deepseek-chat")
			copyLog(t, d, resolvedID)
			copyLog(t, d, unresolvedID)
			return d
		}, false},
		{"our run folder with eval/", func(root string) string {
			d := filepath.Join(root, "run", "eval")
			copyLog(t, d, resolvedID)
			copyLog(t, d, unresolvedID)
			return filepath.Join(root, "run")
		}, false},
		{"in place", func(root string) string {
			d := filepath.Join(root, "eval")
			copyLog(t, d, resolvedID)
			copyLog(t, d, unresolvedID)
			return d
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			logs := tt.layout(root)
			out := filepath.Join(root, "out")
			if tt.inPlace {
				out = logs
			}
			rep, results, err := RegradeFromLogs(RegradeOptions{LogsDir: logs, OutDir: out, RunID: "myrun"}, insts, preds)
			if err != nil {
				t.Fatal(err)
			}
			if rep.ResolvedInstances != 1 || rep.UnresolvedInstances != 1 || rep.ErrorInstances != 1 || rep.TotalInstances != 23 || len(rep.IncompleteIDs) != 20 {
				t.Errorf("got report %+v", rep)
			}
			for _, r := range results {
				if r.InstanceID == missingID && (r.Outcome != Error || r.ErrorKind != KindNoTestOutput || !strings.Contains(rep.ErrorReasons[missingID], "no test_output.txt")) {
					t.Errorf("missing log: got %+v, reasons %v", r, rep.ErrorReasons)
				}
			}
			for _, id := range []string{resolvedID, unresolvedID} {
				got, err := os.ReadFile(filepath.Join(out, id, "report.json"))
				if err != nil {
					t.Fatal(err)
				}
				want, _ := os.ReadFile(filepath.Join(fixture(t, deepseekRun+"/eval-logs"), id, "report.json"))
				if !bytes.Equal(got, want) {
					t.Errorf("%s: report.json differs from the harness's", id)
				}
				patch, err := os.ReadFile(filepath.Join(out, id, "patch.diff"))
				if tt.inPlace {
					if err == nil {
						t.Errorf("%s: regrading in place wrote patch.diff", id)
					}
				} else if string(patch) != preds[id].Patch() {
					t.Errorf("%s: patch.diff is not the prediction's patch", id)
				}
			}
			if _, err := os.Stat(filepath.Join(out, "deepseek__deepseek-chat.myrun.json")); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRegradeRejectsBadInput(t *testing.T) {
	insts := loadJSONLInstances(t, fixture(t, "datasets/SWE-bench_Lite.dev.jsonl"))
	p := "diff"
	tests := []struct {
		name    string
		opts    RegradeOptions
		preds   map[string]Prediction
		wantErr string
	}{
		{"unknown prediction id", RegradeOptions{LogsDir: t.TempDir(), OutDir: t.TempDir(), RunID: "r"},
			map[string]Prediction{"nope__nope-1": {InstanceID: "nope__nope-1", ModelNameOrPath: "m", ModelPatch: &p}}, "nope__nope-1"},
		{"logs folder missing", RegradeOptions{LogsDir: "/nonexistent/logs", OutDir: t.TempDir(), RunID: "r"}, nil, "/nonexistent/logs"},
		{"no run id", RegradeOptions{LogsDir: t.TempDir(), OutDir: t.TempDir()}, nil, "run id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := RegradeFromLogs(tt.opts, insts, tt.preds)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error mentioning %q", err, tt.wantErr)
			}
		})
	}
}
