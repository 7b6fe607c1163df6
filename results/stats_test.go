package results

import (
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
		{InstanceID: "a__b-1", Attempt: 1, ExitStatus: "Submitted", Category: CategoryModel, Cost: 3.15, APICalls: 3},
		{InstanceID: "a__b-2", Attempt: 1, ExitStatus: "RunBudgetExhausted", Category: CategoryUnfinished, Cost: 1.05, APICalls: 1},
		{InstanceID: "a__b-3", Attempt: 1, ExitStatus: "RunBudgetExhausted", Category: CategoryUnfinished, Cost: 2.10, APICalls: 2},
		{InstanceID: "a__b-3", Attempt: 2, ExitStatus: "Submitted", Category: CategoryModel, Cost: 3.15, APICalls: 3},
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
	st, err := ComputeStats(dir)
	if err != nil {
		t.Fatal(err)
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
