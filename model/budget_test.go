package model

import (
	"errors"
	"testing"
)

// admit begins a call and returns its end, failing the test when the budget refuses it.
func admit(t *testing.T, b *Budget) func() {
	t.Helper()
	end, err := b.begin()
	if err != nil {
		t.Fatalf("call refused: %v", err)
	}
	return end
}

func TestBudgetAdmission(t *testing.T) {
	tests := []struct {
		name     string
		limit    float64
		spent    float64 // restored from earlier runs
		calls    int
		inflight int
		wantOK   bool
	}{
		{name: "unlimited", limit: 0, spent: 100, calls: 1, inflight: 5, wantOK: true},
		{name: "nothing known yet", limit: 7, wantOK: true},
		{name: "nothing known, calls in flight", limit: 7, inflight: 3, wantOK: true},
		{name: "limit reached without estimate", limit: 7, spent: 7, wantOK: false},
		{name: "left covers one call", limit: 7, spent: 5.25, calls: 5, wantOK: true},         // left 1.75 ≥ 1.05
		{name: "left covers one call, not two", limit: 7, spent: 5.25, calls: 5, inflight: 1}, // 1.75 < 2.10
		{name: "left below one call", limit: 7, spent: 6.3, calls: 6, wantOK: false},          // 0.70 < 1.05
		{name: "left exactly one call", limit: 2, spent: 1, calls: 1, wantOK: true},
		{name: "overspent", limit: 7, spent: 8.4, calls: 8, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBudget(tt.limit)
			b.Restore(tt.spent, tt.calls)
			for range tt.inflight {
				b.inflight++
			}
			wasExhausted := b.Exhausted()
			end, err := b.begin()
			if got := err == nil; got != tt.wantOK {
				t.Fatalf("admitted = %v (err %v), want %v", got, err, tt.wantOK)
			}
			if wasExhausted == tt.wantOK {
				t.Errorf("Exhausted() = %v before the call, want %v", wasExhausted, !tt.wantOK)
			}
			if err == nil {
				end()
				if b.inflight != tt.inflight {
					t.Errorf("in flight after end = %d, want %d", b.inflight, tt.inflight)
				}
				return
			}
			var be *BudgetError
			if !errors.As(err, &be) || !errors.Is(err, ErrBudgetExhausted) || be.ExitStatus() != StatusRunBudgetExhausted {
				t.Errorf("err = %#v, want a *BudgetError with status %s", err, StatusRunBudgetExhausted)
			}
		})
	}
}

// The scenario of issue 20: calls of $1.05, a $7 limit, two workers calling at once. The
// estimate stops new calls early enough that the limit holds when every call costs the mean.
func TestBudgetOvershootBound(t *testing.T) {
	const call, limit = 1.05, 7.0
	b := NewBudget(limit)
	calls := 0
	for {
		end1, err1 := b.begin()
		end2, err2 := b.begin()
		if err1 == nil {
			b.Add(call)
			end1()
			calls++
		}
		if err2 == nil {
			b.Add(call)
			end2()
			calls++
		}
		if err1 != nil && err2 != nil {
			break
		}
	}
	if b.Spent() > limit {
		t.Errorf("spent $%.2f over the $%.2f limit in %d calls", b.Spent(), limit, calls)
	}
	if left := limit - b.Spent(); left >= call {
		t.Errorf("stopped with $%.2f left, enough for another $%.2f call", left, call)
	}
}

func TestBudgetRestoreCountsEarlierRuns(t *testing.T) {
	b := NewBudget(10)
	b.Restore(9.5, 3)
	if got := b.Earlier(); got != 9.5 {
		t.Errorf("Earlier() = %v, want 9.5", got)
	}
	if got := b.Left(); got != 0.5 {
		t.Errorf("Left() = %v, want 0.5", got)
	}
	// A limit below what earlier runs spent admits nothing.
	low := NewBudget(5)
	low.Restore(9.5, 3)
	if _, err := low.begin(); err == nil {
		t.Fatal("a resumed budget below its earlier spending admitted a call")
	}
}

func TestBudgetParents(t *testing.T) {
	sweep := NewBudget(3)
	modelA := NewBudget(0, sweep) // unlimited per model, bounded by the sweep
	cellA := NewBudget(0, modelA)
	cellB := NewBudget(2, sweep)

	end := admit(t, cellA)
	cellA.Add(1)
	end()
	end = admit(t, cellB)
	cellB.Add(1)
	end()
	if sweep.Spent() != 2 || modelA.Spent() != 1 || cellA.Spent() != 1 || cellB.Spent() != 1 {
		t.Fatalf("spent: sweep %v model %v cellA %v cellB %v", sweep.Spent(), modelA.Spent(), cellA.Spent(), cellB.Spent())
	}
	// The sweep has $1 left and a $1 mean: one more call fits, and a second one in flight does not.
	end = admit(t, cellA)
	if _, err := cellB.begin(); err == nil {
		t.Fatal("the sweep admitted a call its $1 left cannot cover with another in flight")
	}
	if sweep.inflight != 1 || cellB.inflight != 0 {
		t.Errorf("a refused call kept its reservations: sweep %d, cellB %d", sweep.inflight, cellB.inflight)
	}
	cellA.Add(1)
	end()
	if !cellA.Exhausted() || !cellB.Exhausted() {
		t.Error("cells of a spent sweep are not exhausted")
	}
	if modelA.Spent() != 2 {
		t.Errorf("model budget spent %v, want 2", modelA.Spent())
	}
}
