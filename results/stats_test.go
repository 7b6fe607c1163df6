package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestStatsUnfinished(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := []Record{
		{InstanceID: "a__b-1", Attempt: 1, ExitStatus: "Submitted", Category: CategoryModel, Cost: 3.15, APICalls: 3,
			Tokens: Tokens{Input: 3000, Output: 900, CacheRead: 2000, Reasoning: 600}},
		{InstanceID: "a__b-2", Attempt: 1, ExitStatus: "RunBudgetExhausted", Category: CategoryUnfinished, Cost: 1.05, APICalls: 1},
		{InstanceID: "a__b-3", Attempt: 1, ExitStatus: "RunBudgetExhausted", Category: CategoryUnfinished, Cost: 2.10, APICalls: 2},
		{InstanceID: "a__b-3", Attempt: 2, ExitStatus: "Submitted", Category: CategoryModel, Cost: 3.15, APICalls: 3,
			Tokens: Tokens{Input: 1000, Output: 100, CacheWrite: 500, Reasoning: 40}},
		{InstanceID: "a__b-4", Attempt: 1, ExitStatus: "ContainerDied", Category: CategoryInfrastructure},
	}
	for _, r := range recs {
		var pred *Prediction
		if r.Category == CategoryModel {
			pred = &Prediction{ModelNameOrPath: "m", InstanceID: r.InstanceID, ModelPatch: "diff"}
		}
		if err := d.Record(r, pred); err != nil {
			t.Fatal(err)
		}
	}
	cost, calls := d.Spent()
	d.Close()
	if want := 3.15 + 1.05 + 2.10 + 3.15; cost < want-1e-9 || cost > want+1e-9 || calls != 9 {
		t.Errorf("Spent() = $%v in %d calls, want $%v in 9", cost, calls, want)
	}
	// a__b-1 resolved, a__b-3 not.
	for id, resolved := range map[string]bool{"a__b-1": true, "a__b-3": false} {
		body := `{"` + id + `": {"resolved": ` + map[bool]string{true: "true", false: "false"}[resolved] + `, "patch_successfully_applied": true}}`
		if err := os.MkdirAll(filepath.Join(dir, "eval", id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "eval", id, "report.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := ComputeStats(dir, harnessVerdict)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Tokens{Input: 4000, Output: 1000, CacheRead: 2000, CacheWrite: 500, Reasoning: 640}); st.Tokens != want {
		t.Errorf("Tokens = %+v, want %+v", st.Tokens, want)
	}
	if got, want := st.Unfinished, []string{"a__b-2"}; !slices.Equal(got, want) {
		t.Errorf("Unfinished = %v, want %v", got, want)
	}
	if got := st.ByCategory[CategoryUnfinished]; got != 1 {
		t.Errorf("ByCategory[unfinished] = %d, want 1", got)
	}
	if len(st.Failures) != 1 || st.Failures[0].InstanceID != "a__b-4" {
		t.Errorf("Failures = %+v, want a__b-4 only", st.Failures)
	}
	// Attempts per instance: the one attempted twice is listed with both statuses.
	if len(st.Retried) != 1 || st.Retried[0].InstanceID != "a__b-3" || st.Retried[0].Attempts != 2 ||
		!slices.Equal(st.Retried[0].Statuses, []string{"RunBudgetExhausted", "Submitted"}) {
		t.Errorf("Retried = %+v, want a__b-3 with RunBudgetExhausted, Submitted", st.Retried)
	}
	// The unfinished instance is not in the resolved rate's denominator: 1 of 3, not 1 of 4.
	if st.Eval == nil || st.Eval.Resolved != 1 || st.Eval.Rate != 1.0/3 {
		t.Errorf("Eval = %+v, want 1 resolved at rate 1/3", st.Eval)
	}
}

// harnessVerdict reads a report.json in the harness's layout, for tests of this package (the
// program passes eval.ReportVerdict, which reads every layout).
func harnessVerdict(path string) (resolved, applied bool, layout string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, false, "", err
	}
	var rep map[string]struct {
		Resolved bool `json:"resolved"`
		Applied  bool `json:"patch_successfully_applied"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || len(rep) != 1 {
		return false, false, "", fmt.Errorf("%s: not a harness report (%v)", path, err)
	}
	for _, r := range rep {
		resolved, applied = r.Resolved, r.Applied
	}
	return resolved, applied, "harness", nil
}

// A figure that is not known is left out of the statistics, never counted as zero: the cost of
// calls made with cost tracking off, the tokens of calls whose provider reported no usage, the
// duration of an attempt without a queue time. Each says over how many instances it is taken.
func TestStatsUnknownFigures(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteJSON(ManifestFile, Manifest{Tool: "swebench-run", RunID: "r", Model: "m",
		Config: map[string]any{"model": map[string]any{"model_name": "m", "cost_tracking": "ignore_errors"}}}); err != nil {
		t.Fatal(err)
	}
	recs := []Record{
		// Priced: cost and tokens known.
		{InstanceID: "a__b-1", Attempt: 1, ExitStatus: "Submitted", Category: CategoryModel, Cost: 0.5, APICalls: 5, Steps: 5, Tokens: Tokens{Input: 1000, Output: 100}, Queued: 10, End: 70},
		// No price, no usage: 4 calls at $0 and no tokens are not known figures.
		{InstanceID: "a__b-2", Attempt: 1, ExitStatus: "Submitted", Category: CategoryModel, Cost: 0, APICalls: 4, Steps: 4, End: 50},
		// Failed before any call: $0 and no tokens are known.
		{InstanceID: "a__b-3", Attempt: 1, ExitStatus: "ContainerDied", Category: CategoryInfrastructure, Queued: 10, End: 20},
	}
	for _, r := range recs {
		if err := d.Record(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	st, err := ComputeStats(dir, harnessVerdict)
	if err != nil {
		t.Fatal(err)
	}
	if st.Cost.N != 2 || st.Cost.Total != 0.5 || st.Cost.Mean != 0.25 {
		t.Errorf("cost = %+v, want 2 known (0.5 and 0), mean 0.25", st.Cost)
	}
	if st.Steps.N != 3 || st.Steps.Total != 9 {
		t.Errorf("steps = %+v, want 9 over 3", st.Steps)
	}
	if st.Seconds.N != 2 || st.Seconds.Total != 70 {
		t.Errorf("duration = %+v, want 60 s and 10 s over 2 (a__b-2 has no queue time)", st.Seconds)
	}
	if st.TokensN != 2 || st.Tokens.Input != 1000 {
		t.Errorf("tokens = %+v over %d, want 1000 in over 2", st.Tokens, st.TokensN)
	}
	data, err := json.Marshal(Dist{})
	if err != nil || string(data) != `{"n":0,"total":null,"mean":null,"p50":null,"p90":null,"max":null}` {
		t.Errorf("an empty Dist marshals as %s (%v), want null figures", data, err)
	}
}
