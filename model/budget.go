package model

import "sync"

// Budget is the run-wide cost limit shared by all workers. Every billed model call adds its
// cost; once the spent amount reaches the limit, queries fail with a *BudgetError before any
// further call is made. Calls already in flight when the limit is reached still complete, so the
// overshoot is at most one call per worker. A nil *Budget or a limit <= 0 never runs out.
type Budget struct {
	mu    sync.Mutex
	limit float64
	spent float64
	calls int
}

// NewBudget returns a budget of limit dollars (<= 0: unlimited, only counting).
func NewBudget(limit float64) *Budget { return &Budget{limit: limit} }

// Add records one billed call of the given cost.
func (b *Budget) Add(cost float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.spent += cost
	b.calls++
	b.mu.Unlock()
}

// Spent returns the dollars spent so far.
func (b *Budget) Spent() float64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Calls returns the number of billed calls so far.
func (b *Budget) Calls() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls
}

// Limit returns the limit in dollars (<= 0: unlimited).
func (b *Budget) Limit() float64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Exhausted reports whether the limit has been reached.
func (b *Budget) Exhausted() bool { return b.check() != nil }

// check returns a *BudgetError when the limit has been reached.
func (b *Budget) check() error {
	if b == nil || b.limit <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent >= b.limit {
		return &BudgetError{Spent: b.spent, Limit: b.limit}
	}
	return nil
}
