package model

import "sync"

// Budget is a cost limit shared by all workers: the run's --max-cost, and in a sweep also the
// sweep-wide and per-model limits (parents). Every billed model call adds its cost to the budget
// and its parents.
//
// Admission bounds the overshoot: a call starts only when the money left covers it and every
// call already in flight, each at the mean cost per call seen so far (earlier runs of the output
// directory included, see Restore). So the limit can be exceeded only by what the calls in flight
// cost beyond that mean — never by more than the calls in flight, at most one per worker. Before
// the first billed call the mean is unknown and only the limit itself stops a call.
//
// A nil *Budget or a limit <= 0 never runs out (it still counts, for its parents' sake).
type Budget struct {
	mu       sync.Mutex
	limit    float64
	spent    float64 // dollars, earlier runs included
	calls    int     // billed calls, earlier runs included
	inflight int     // admitted calls not yet ended
	earlier  float64 // the part of spent that earlier runs spent
	parents  []*Budget
}

// NewBudget returns a budget of limit dollars (<= 0: unlimited, only counting). Calls charged to
// it are also charged to, and admitted only by, every parent.
func NewBudget(limit float64, parents ...*Budget) *Budget {
	var ps []*Budget
	for _, p := range parents {
		if p != nil {
			ps = append(ps, p)
		}
	}
	return &Budget{limit: limit, parents: ps}
}

// Restore counts what earlier runs spent (from the output directory's ledger), so that a limit
// holds across resumes: a crash-and-resume loop does not spend it again.
func (b *Budget) Restore(spent float64, calls int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.spent += spent
	b.earlier += spent
	b.calls += calls
	b.mu.Unlock()
}

// Add records one billed call of the given cost.
func (b *Budget) Add(cost float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.spent += cost
	b.calls++
	b.mu.Unlock()
	for _, p := range b.parents {
		p.Add(cost)
	}
}

// Spent returns the dollars spent, earlier runs included.
func (b *Budget) Spent() float64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Earlier returns the dollars that earlier runs spent (see Restore).
func (b *Budget) Earlier() float64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.earlier
}

// Calls returns the number of billed calls, earlier runs included.
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

// Left returns the dollars left of the limit (0 when spent, and for an unlimited budget).
func (b *Budget) Left() float64 {
	if b == nil || b.limit <= 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(0, b.limit-b.spent)
}

// Exhausted reports whether no new call would be admitted now: the money left does not cover
// one more call at the mean cost per call, given the calls in flight. The runner starts no new
// instance then.
func (b *Budget) Exhausted() bool { return b.refusal() != nil }

// begin admits one model call, or returns a *BudgetError. The call must be ended with end, after
// its cost was added.
func (b *Budget) begin() (end func(), err error) {
	if b == nil {
		return func() {}, nil
	}
	// Admission and reservation happen under every budget's lock in turn; a refusal by a parent
	// undoes the reservations already taken.
	chain := append([]*Budget{b}, b.allParents()...)
	for i, x := range chain {
		if err := x.reserve(); err != nil {
			for _, y := range chain[:i] {
				y.release()
			}
			return nil, err
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, x := range chain {
				x.release()
			}
		})
	}, nil
}

// allParents lists the ancestors, each once.
func (b *Budget) allParents() []*Budget {
	var out []*Budget
	seen := map[*Budget]bool{b: true}
	var walk func(*Budget)
	walk = func(x *Budget) {
		for _, p := range x.parents {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
				walk(p)
			}
		}
	}
	walk(b)
	return out
}

func (b *Budget) reserve() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.refusalLocked(); err != nil {
		return err
	}
	b.inflight++
	return nil
}

func (b *Budget) release() {
	b.mu.Lock()
	b.inflight--
	b.mu.Unlock()
}

// refusal returns the *BudgetError of this budget or of a parent that would refuse a call now.
func (b *Budget) refusal() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	err := b.refusalLocked()
	b.mu.Unlock()
	if err != nil {
		return err
	}
	for _, p := range b.parents {
		if err := p.refusal(); err != nil {
			return err
		}
	}
	return nil
}

func (b *Budget) refusalLocked() error {
	if b.limit <= 0 {
		return nil
	}
	mean := 0.0
	if b.calls > 0 {
		mean = b.spent / float64(b.calls)
	}
	left := b.limit - b.spent
	if left <= 0 || left < float64(b.inflight+1)*mean {
		return &BudgetError{Spent: b.spent, Limit: b.limit, Expected: mean, InFlight: b.inflight}
	}
	return nil
}

// spentOut reports whether the limit itself is reached (no estimate): retries of a call that was
// admitted stop there.
func (b *Budget) spentOut() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	var err error
	if b.limit > 0 && b.spent >= b.limit {
		err = &BudgetError{Spent: b.spent, Limit: b.limit}
	}
	b.mu.Unlock()
	if err != nil {
		return err
	}
	for _, p := range b.parents {
		if err := p.spentOut(); err != nil {
			return err
		}
	}
	return nil
}
