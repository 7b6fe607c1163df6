package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/sandbox"
)

// What the scheduler does when instances fail for infrastructure reasons, and when the backend
// stops answering.
const (
	// DefaultBackendWait is how long a run waits for a backend that stopped answering (the
	// Docker engine, the Kubernetes API server) before it stops: a restart or a control-plane
	// upgrade takes a minute or two.
	DefaultBackendWait = 5 * time.Minute
	// DefaultRetryBackoff is the wait before the first retry, within the run, of an instance
	// that failed for infrastructure reasons; it doubles with every further attempt, up to
	// maxRetryBackoff.
	DefaultRetryBackoff = 5 * time.Second
	maxRetryBackoff     = 5 * time.Minute
	// probeEvery is how often the backend is probed while it answers, so that a part of it
	// that was away (a Docker engine) rejoins; probeDownEvery while it does not answer.
	probeEvery     = 30 * time.Second
	probeDownEvery = 2 * time.Second
)

// retryBackoff is the wait before the retry of an instance whose n-th attempt in a row (since
// its last model outcome) failed for infrastructure reasons.
func retryBackoff(base time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < maxRetryBackoff; i++ {
		d *= 2
	}
	return min(d, maxRetryBackoff)
}

// job is one attempt to come of one instance of one cell.
type job struct {
	cell  int
	pos   int // the instance's position in the cell's instances
	inst  dataset.Instance
	image string // "" when the image template fails (the instance reports it)
	// retry: the instance's last attempt in this run failed for infrastructure reasons. A retry
	// waits until notBefore (its backoff) and then runs after the other jobs of its position,
	// before those of the next positions.
	retry     bool
	notBefore time.Time
	seq       int // order among retries
}

// before orders jobs: by position; at one position the first attempts in cell order, then the
// retries in the order they failed.
func (j job) before(k job) bool {
	switch {
	case j.pos != k.pos:
		return j.pos < k.pos
	case j.retry != k.retry:
		return !j.retry
	case j.retry:
		return j.seq < k.seq
	}
	return j.cell < k.cell
}

// queue holds the jobs not yet started, in order, and counts those running: the sweep is over
// when both are none. Safe for concurrent use.
type queue struct {
	mu      sync.Mutex
	jobs    []job
	running int
	seq     int
	changed chan struct{} // closed and replaced when a job is added or a running one ends
}

func newQueue(jobs []job) *queue {
	return &queue{jobs: jobs, changed: make(chan struct{})}
}

func (q *queue) notify() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// push adds j at its place in the order.
func (q *queue) push(j job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if j.retry {
		q.seq++
		j.seq = q.seq
	}
	i := sort.Search(len(q.jobs), func(i int) bool { return j.before(q.jobs[i]) })
	q.jobs = append(q.jobs, job{})
	copy(q.jobs[i+1:], q.jobs[i:])
	q.jobs[i] = j
	q.notify()
}

// take removes the first job that may start now and counts it as running. Otherwise it says
// whether the queue is done (no job queued, none running), or when the first waiting retry
// may start (zero when none waits), and returns a channel closed at the next change.
func (q *queue) take(now time.Time) (j job, ok, done bool, ready time.Time, changed <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, c := range q.jobs {
		if !c.notBefore.After(now) {
			q.jobs = append(q.jobs[:i], q.jobs[i+1:]...)
			q.running++
			return c, true, false, time.Time{}, nil
		}
		if ready.IsZero() || c.notBefore.Before(ready) {
			ready = c.notBefore
		}
	}
	return job{}, false, len(q.jobs) == 0 && q.running == 0, ready, q.changed
}

// idle reports whether no job is queued or running.
func (q *queue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.jobs) == 0 && q.running == 0
}

// finish ends a job that take returned.
func (q *queue) finish() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.running--
	q.notify()
}

// ahead returns the next n jobs in order, for the image look-ahead.
func (q *queue) ahead(n int) []job {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]job(nil), q.jobs[:min(n, len(q.jobs))]...)
}

// drain removes and returns every queued job.
func (q *queue) drain() []job {
	q.mu.Lock()
	defer q.mu.Unlock()
	jobs := q.jobs
	q.jobs = nil
	q.notify()
	return jobs
}

// gate is the backend's availability as the scheduler sees it. When an instance cannot get a
// slot because no part of the backend answers, the gate closes: no instance starts, the
// instances already running go on (those whose commands break end EngineDown and are retried),
// and the backend is probed every probeDownEvery. It opens again when a probe succeeds, or
// fails for good once the backend stayed away longer than wait: the sweep then stops. While
// the backend answers it is probed every probeEvery, so that a part that was away (one Docker
// engine of several) rejoins. Sandboxes whose removal failed are removed again after every
// successful probe. Safe for concurrent use.
type gate struct {
	backend  sandbox.Backend
	wait     time.Duration
	progress Progress
	log      *slog.Logger

	mu        sync.Mutex
	down      bool
	since     time.Time
	why       error         // the last error that said the backend does not answer
	failed    error         // the backend stayed away too long: the sweep stops
	changed   chan struct{} // closed and replaced when the gate opens, closes or fails
	kick      chan struct{} // wakes the prober at once (buffered, 1)
	leftovers []sandbox.Sandbox
}

func newGate(b sandbox.Backend, wait time.Duration, p Progress, log *slog.Logger) *gate {
	return &gate{backend: b, wait: wait, progress: p, log: log, changed: make(chan struct{}), kick: make(chan struct{}, 1)}
}

func (g *gate) notify() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// markDown closes the gate because of err (an error matching sandbox.ErrBackendDown).
func (g *gate) markDown(err error) {
	g.mu.Lock()
	if g.down || g.failed != nil {
		g.why = err
		g.mu.Unlock()
		return
	}
	g.down, g.since, g.why = true, time.Now(), err
	g.notify()
	ev := BackendEvent{Down: true, Since: g.since, Until: g.since.Add(g.wait), Err: err.Error()}
	g.mu.Unlock()
	g.log.Warn("the sandbox backend does not answer; no instance starts until it does", "err", err, "backend_wait", g.wait.String())
	if bp, ok := g.progress.(BackendProgress); ok {
		bp.Backend(ev)
	}
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// markUp opens the gate.
func (g *gate) markUp() {
	g.mu.Lock()
	if !g.down {
		g.mu.Unlock()
		return
	}
	g.down = false
	ev := BackendEvent{Since: g.since, Back: time.Now()}
	g.notify()
	g.mu.Unlock()
	g.log.Info("the sandbox backend answers again", "away", ev.Back.Sub(ev.Since).Round(time.Second).String())
	if bp, ok := g.progress.(BackendProgress); ok {
		bp.Backend(ev)
	}
}

// check fails the gate for good when the backend has been away longer than wait.
func (g *gate) check(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.down || g.failed != nil || now.Sub(g.since) < g.wait {
		return
	}
	g.failed = fmt.Errorf("the sandbox backend did not answer for %s (--backend-wait; since %s): %w",
		g.wait, g.since.Format("15:04:05"), g.why)
	g.log.Error("gave up waiting for the sandbox backend", "err", g.failed)
	g.notify()
}

// pass waits while the gate is closed. It returns nil when it is open (or ctx ended, or stop
// was closed: the caller checks those), and the gate's failure when the backend stayed away
// too long.
func (g *gate) pass(ctx context.Context, stop <-chan struct{}) error {
	for {
		g.mu.Lock()
		down, failed, changed := g.down, g.failed, g.changed
		g.mu.Unlock()
		switch {
		case failed != nil:
			return failed
		case !down:
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		case <-stop:
			return nil
		}
	}
}

// isDown reports whether the gate is closed.
func (g *gate) isDown() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.down
}

// leftover records a sandbox whose removal failed (its backend did not answer): it is removed
// once the backend answers again.
func (g *gate) leftover(sb sandbox.Sandbox) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.leftovers = append(g.leftovers, sb)
}

// removeLeftovers removes the sandboxes whose removal failed; those that still cannot be
// removed stay for the next try. It returns how many are left.
func (g *gate) removeLeftovers(ctx context.Context) int {
	g.mu.Lock()
	todo := g.leftovers
	g.leftovers = nil
	g.mu.Unlock()
	var left []sandbox.Sandbox
	for _, sb := range todo {
		if err := sb.Remove(ctx); err != nil {
			left = append(left, sb)
			continue
		}
		g.log.Info("removed a sandbox left while the backend did not answer", "sandbox", sb.Name())
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.leftovers = append(g.leftovers, left...)
	return len(g.leftovers)
}

// probe runs until done is closed: it probes the backend every probeEvery while it answers,
// every probeDownEvery while it does not (and at once when the gate closes), opens the gate
// when the backend answers again, fails it when it stayed away too long, and removes the
// leftovers after every successful probe.
func (g *gate) probe(ctx context.Context, done <-chan struct{}) {
	for {
		every := probeEvery
		if g.isDown() {
			every = probeDownEvery
		}
		t := time.NewTimer(every)
		select {
		case <-done:
			t.Stop()
			return
		case <-ctx.Done():
			t.Stop()
			return
		case <-g.kick:
			t.Stop()
		case <-t.C:
		}
		err := g.backend.Probe(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			g.markUp()
			g.mu.Lock()
			n := len(g.leftovers)
			g.mu.Unlock()
			if n > 0 {
				g.removeLeftovers(ctx)
			}
		case errors.Is(err, sandbox.ErrBackendDown):
			// Nothing answers: no instance can start (those running on a part that still
			// answers would have let the probe succeed).
			g.markDown(err)
			g.check(time.Now())
		default:
			g.log.Warn("probing the sandbox backend failed", "err", err)
		}
	}
}
