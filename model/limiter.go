package model

import (
	"context"
	"sync"
	"time"
)

// Clock is the time source of retries and the rate limiter; tests replace it.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, for wake to be closed (when not nil) or for ctx to end, whichever
	// comes first. A negative d waits for wake or ctx only.
	Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timeout:
	case <-wake:
	}
	return nil
}

// limiter is shared by every worker of a run that talks to one provider and model. It spaces
// requests to stay under requests/min, keeps a token bucket for tokens/min, and runs an
// adaptive concurrency window: a 429 halves the number of calls allowed in flight (once per
// generation of calls) and pauses everyone for the Retry-After delay; each success while the
// window is full widens it by one.
type limiter struct {
	clock Clock

	mu          sync.Mutex
	interval    time.Duration // between two requests; 0: no request rate limit
	next        time.Time
	tpm         float64 // tokens per minute; 0: no token limit
	tokens      float64
	refilled    time.Time
	max         int // configured concurrency cap; 0: none
	window      int // current concurrency window; 0: open
	inflight    int
	epoch       int
	pausedUntil time.Time
	changed     chan struct{}
}

func newLimiter(clock Clock, rpm, tpm float64, maxConcurrency int) *limiter {
	l := &limiter{clock: clock, tpm: tpm, tokens: tpm, refilled: clock.Now(), max: maxConcurrency,
		window: maxConcurrency, changed: make(chan struct{})}
	if rpm > 0 {
		l.interval = time.Duration(float64(time.Minute) / rpm)
	}
	return l
}

type ticket struct {
	epoch int
	est   int
}

// acquire blocks until a call of about est tokens may start.
func (l *limiter) acquire(ctx context.Context, est int) (ticket, error) {
	for {
		l.mu.Lock()
		now := l.clock.Now()
		l.refill(now)
		wait := time.Duration(0)
		if d := l.pausedUntil.Sub(now); d > wait {
			wait = d
		}
		if l.interval > 0 {
			if d := l.next.Sub(now); d > wait {
				wait = d
			}
		}
		if l.tpm > 0 {
			need := min(float64(est), l.tpm)
			if l.tokens < need {
				if d := time.Duration((need - l.tokens) / l.tpm * float64(time.Minute)); d > wait {
					wait = max(d, time.Millisecond)
				}
			}
		}
		full := l.window > 0 && l.inflight >= l.window
		if wait == 0 && !full {
			l.inflight++
			if l.interval > 0 {
				l.next = now.Add(l.interval)
			}
			l.tokens -= float64(est)
			t := ticket{epoch: l.epoch, est: est}
			l.mu.Unlock()
			return t, nil
		}
		if full && wait == 0 {
			wait = -1
		}
		wake := l.changed
		l.mu.Unlock()
		if err := l.clock.Sleep(ctx, wait, wake); err != nil {
			return ticket{}, err
		}
	}
}

func (l *limiter) refill(now time.Time) {
	if l.tpm <= 0 {
		return
	}
	if el := now.Sub(l.refilled); el > 0 {
		l.tokens = min(l.tpm, l.tokens+el.Minutes()*l.tpm)
	}
	l.refilled = now
}

// release ends a call. used is the number of tokens the call really consumed (0 if unknown).
func (l *limiter) release(t ticket, ok, rateLimited bool, used int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight--
	if used > 0 {
		l.tokens -= float64(used - t.est)
	}
	switch {
	case rateLimited:
		if t.epoch == l.epoch {
			cur := l.inflight + 1
			if l.window == 0 || l.window > cur {
				l.window = cur
			}
			l.window = max(1, l.window/2)
			l.epoch++
		}
	case ok && l.window > 0 && l.inflight+1 >= l.window && (l.max == 0 || l.window < l.max):
		l.window++
	}
	l.broadcast()
}

// pause holds every new call until d from now.
func (l *limiter) pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := l.clock.Now().Add(d); until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
	l.broadcast()
}

func (l *limiter) broadcast() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// concurrencyWindow returns the current window (0: open), for tests and logs.
func (l *limiter) concurrencyWindow() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.window
}

// Limiters shares rate limiters between providers: every provider made by New with the same
// Limiters, endpoint, API model and API key uses one limiter, so that the cells of a sweep that
// call one provider's model stay together under its rate limits (requests and tokens per
// minute, concurrency, and the pause after a 429). The zero value is ready to use; a nil
// *Limiters gives every provider its own limiter. Safe for concurrent use.
type Limiters struct {
	mu sync.Mutex
	m  map[string]*limiter
}

// NewLimiters returns an empty registry.
func NewLimiters() *Limiters { return &Limiters{} }

// get returns the limiter of key, made with the given limits on first use. A later user with
// other limits tightens the shared one: the lower request and token rates and concurrency cap
// win (0 is no limit), so that no cell exceeds the limits it was configured with.
func (r *Limiters) get(key string, clock Clock, rpm, tpm float64, maxConcurrency int) *limiter {
	if r == nil {
		return newLimiter(clock, rpm, tpm, maxConcurrency)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if l, ok := r.m[key]; ok {
		l.tighten(rpm, tpm, maxConcurrency)
		return l
	}
	if r.m == nil {
		r.m = map[string]*limiter{}
	}
	l := newLimiter(clock, rpm, tpm, maxConcurrency)
	r.m[key] = l
	return l
}

// Len returns the number of distinct limiters, for logs and tests.
func (r *Limiters) Len() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// tighten lowers the limiter's limits to the given ones where they are stricter.
func (l *limiter) tighten(rpm, tpm float64, maxConcurrency int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rpm > 0 {
		if d := time.Duration(float64(time.Minute) / rpm); d > l.interval {
			l.interval = d
		}
	}
	if tpm > 0 && (l.tpm == 0 || tpm < l.tpm) {
		l.tpm = tpm
		l.tokens = min(l.tokens, tpm)
		if l.refilled.IsZero() {
			l.refilled = l.clock.Now()
		}
	}
	if maxConcurrency > 0 && (l.max == 0 || maxConcurrency < l.max) {
		l.max = maxConcurrency
		if l.window == 0 || l.window > maxConcurrency {
			l.window = maxConcurrency
		}
	}
	l.broadcast()
}
