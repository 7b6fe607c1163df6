package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestRecordAndReopen(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := "o__r-" + string(rune('a'+i))
			rec := Record{InstanceID: id, Attempt: 1, ExitStatus: "Submitted", Category: CategoryModel}
			if err := d.Record(rec, &Prediction{ModelNameOrPath: "m", InstanceID: id, ModelPatch: "diff <&>\n"}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if err := d.Record(Record{InstanceID: "o__r-z", Attempt: 1, ExitStatus: "ContainerDied", Category: CategoryInfrastructure}, nil); err != nil {
		t.Fatal(err)
	}
	d.Close()

	data, err := os.ReadFile(filepath.Join(dir, PredsFile))
	if err != nil {
		t.Fatal(err)
	}
	var preds map[string]Prediction
	if err := json.Unmarshal(data, &preds); err != nil {
		t.Fatal(err)
	}
	if len(preds) != 20 || preds["o__r-a"].ModelPatch != "diff <&>\n" {
		t.Errorf("preds = %d entries, a = %+v", len(preds), preds["o__r-a"])
	}
	if strings.Contains(string(data), `\u003c`) {
		t.Error("preds.json escapes < as \\u003c")
	}
	d2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if got := len(d2.History()); got != 21 {
		t.Errorf("reopened history has %d instances, want 21", got)
	}
	if got := len(d2.Predictions()); got != 20 {
		t.Errorf("reopened preds has %d, want 20", got)
	}
}

func TestTornLedger(t *testing.T) {
	dir := t.TempDir()
	good := `{"instance_id":"a__b-1","attempt":1,"exit_status":"Submitted","category":"model","ended_at":1}` + "\n"
	tests := []struct {
		name     string
		content  string
		wantErr  bool
		wantTorn bool
		wantN    int
	}{
		{"clean", good + good, false, false, 1},
		{"torn last line", good + `{"instance_id":"a__b-2","att`, false, true, 1},
		{"corrupt middle line", good + "garbage\n" + good, true, false, 0},
		{"empty", "", false, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			os.MkdirAll(sub, 0o755)
			os.WriteFile(filepath.Join(sub, LedgerFile), []byte(tt.content), 0o644)
			d, err := Open(sub)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "line 2") {
					t.Errorf("error %q does not name the line", err)
				}
				return
			}
			defer d.Close()
			if d.TornLedger != tt.wantTorn || len(d.History()) != tt.wantN {
				t.Errorf("torn %v, %d instances; want %v, %d", d.TornLedger, len(d.History()), tt.wantTorn, tt.wantN)
			}
			// After a torn line the next record starts on a line of its own.
			if err := d.Record(Record{InstanceID: "c__d-1", Attempt: 1, ExitStatus: "Submitted", Category: CategoryModel}, nil); err != nil {
				t.Fatal(err)
			}
			h, torn, err := ReadLedger(sub)
			if err != nil || torn || len(h["c__d-1"]) != 1 {
				t.Errorf("after append: %v torn=%v %v", err, torn, h)
			}
		})
	}
}

func TestWriteFileAtomicLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	for i := 0; i < 3; i++ {
		if err := WriteFileAtomic(p, []byte("v"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only x.json", len(entries))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x"), []byte("v"), 0o644); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// A crash of an earlier version between the ledger line and preds.json left a finished instance
// without its prediction: Open restores it from the trajectory and names what it cannot restore.
func TestOpenRepairsPredictionsFromTrajectories(t *testing.T) {
	dir := t.TempDir()
	ledger := `{"instance_id":"a__b-1","attempt":1,"exit_status":"Submitted","category":"model","model_name":"m","ended_at":1}
{"instance_id":"a__b-2","attempt":1,"exit_status":"Submitted","category":"model","model_name":"m","ended_at":2}
{"instance_id":"a__b-3","attempt":1,"exit_status":"ContainerDied","category":"infrastructure","model_name":"m","ended_at":3}
`
	if err := os.WriteFile(filepath.Join(dir, LedgerFile), []byte(ledger), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "a__b-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	traj := `{"info":{"submission":"diff --git a/x b/x\n"},"messages":[],"trajectory_format":"mini-swe-agent-1.1","instance_id":"a__b-1"}`
	if err := os.WriteFile(filepath.Join(dir, "a__b-1", "a__b-1.traj.json"), []byte(traj), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.RepairedPreds != 1 || len(d.MissingPreds) != 1 || d.MissingPreds[0] != "a__b-2" {
		t.Errorf("repaired %d, missing %v; want 1 repaired, a__b-2 missing", d.RepairedPreds, d.MissingPreds)
	}
	data, err := os.ReadFile(filepath.Join(dir, PredsFile))
	if err != nil {
		t.Fatal(err)
	}
	var preds map[string]Prediction
	if err := json.Unmarshal(data, &preds); err != nil {
		t.Fatal(err)
	}
	if got := preds["a__b-1"]; got.ModelPatch != "diff --git a/x b/x\n" || got.ModelNameOrPath != "m" || len(preds) != 1 {
		t.Errorf("preds.json = %+v, want a__b-1's submission only", preds)
	}
}
