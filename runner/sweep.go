package runner

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
)

// Cell is one run of a sweep: an ordinary output directory with its own instances, config,
// model, budget and resume rules. A plain run (Run) is a sweep of one cell.
type Cell struct {
	// Name identifies the cell in progress events; "" for a plain run.
	Name      string
	RunID     string
	Config    *configs.Config
	Models    Models
	ModelName string
	Out       *results.Dir
	// Instances is the cell's selection, in order. Cells of one dataset share it, so that
	// position i is the same instance in each.
	Instances     []dataset.Instance
	ImageTemplate string
	// History gives an instance's family's layout for the history guard (family/all's
	// Registry.History); nil: the repository is the instance's working directory, its past kept.
	History func(dataset.Instance) family.History
	Resume  Resume
	// Budget is the cell's cost limit (in a sweep chained to its model's and the sweep's): no
	// instance of the cell starts once it admits no further model call.
	Budget interface{ Exhausted() bool }
	Logger *slog.Logger
	// AfterInstance, when set, runs in the worker after an instance is recorded (its
	// container's removal may still be under way), with its prediction (nil after an
	// infrastructure failure); `--eval` evaluates there, as soon as the prediction exists.
	AfterInstance func(ctx context.Context, inst dataset.Instance, pred *results.Prediction)
	// Installed, when set, runs the cell's instances with an installed agent (agent.kind:
	// installed) behind the run's model proxy instead of the loop; Models is then unused.
	Installed *InstalledAgent
}

// SweepOptions are what the cells of a sweep share: one worker pool on one backend.
type SweepOptions struct {
	Version string
	// Workers bounds the instances run at once over all cells (and the backend's capacity).
	Workers int
	// Backend runs the sandboxes of every cell. Images are declared with their demand over all
	// cells, so that an image several cells need is fetched once and kept until its last use.
	Backend  sandbox.Backend
	Limits   sandbox.Limits
	Progress Progress
	// Stop, when closed, stops scheduling; running instances end at their next step
	// (graceful shutdown). Cancelling ctx stops them at once.
	Stop <-chan struct{}
	// BackendWait bounds the wait for a backend that stopped answering (see Sweep); 0 stops the
	// sweep at once. cmd uses DefaultBackendWait unless told otherwise.
	BackendWait time.Duration
	// RetryBackoff is the wait before the first retry of an instance that failed for
	// infrastructure reasons (doubled for every further attempt); default DefaultRetryBackoff.
	RetryBackoff time.Duration
	// Logger is the sweep's own log (the backend's state); default: none.
	Logger *slog.Logger
}

// CellSummary is the outcome of one cell of a sweep.
type CellSummary struct {
	Name string `json:"name"`
	Summary
	// Stopped is the fatal model error (a refused API key, an unknown model) that stopped the
	// cell: its instances not yet started did not run, and its running ones were cancelled.
	// The other cells went on.
	Stopped error `json:"-"`
}

// SweepSummary is the outcome of a sweep, cell by cell (in the order of the cells given).
type SweepSummary struct {
	Cells       []CellSummary `json:"cells"`
	Interrupted bool          `json:"interrupted"`
}

// fatalModelError is a model error that every further instance of a cell would repeat.
type fatalModelError struct{ err error }

func (e *fatalModelError) Error() string { return e.err.Error() }
func (e *fatalModelError) Unwrap() error { return e.err }

// cellRun is the state of one cell during a sweep.
type cellRun struct {
	cell    *Cell
	history map[string][]results.Record
	pending []bool // by position in cell.Instances
	ctx     context.Context
	cancel  context.CancelFunc

	mu      sync.Mutex
	sum     Summary
	stopped error
}

func (cr *cellRun) stoppedErr() error {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return cr.stopped
}

// pairedOrder lists the pending instances of the cells in paired order: position i of every
// cell (in cell order) before position i+1 of any. A sweep stopped early by its deadline or
// budget has so started every cell on the same instances; a resumed sweep first fills the gaps
// of the cells that are behind.
func pairedOrder(cells []*cellRun) []job {
	longest := 0
	for _, cr := range cells {
		longest = max(longest, len(cr.cell.Instances))
	}
	var jobs []job
	for pos := 0; pos < longest; pos++ {
		for k, cr := range cells {
			if pos < len(cr.pending) && cr.pending[pos] {
				inst := cr.cell.Instances[pos]
				img, _ := inst.ImageName(cr.cell.ImageTemplate)
				jobs = append(jobs, job{cell: k, pos: pos, inst: inst, image: img})
			}
		}
	}
	return jobs
}

// pendingPositions marks the positions of insts that Pending keeps to run (todo is a
// subsequence of insts).
func pendingPositions(insts, todo []dataset.Instance) []bool {
	out := make([]bool, len(insts))
	k := 0
	for pos := range insts {
		if k < len(todo) && todo[k].InstanceID == insts[pos].InstanceID {
			out[pos] = true
			k++
		}
	}
	return out
}

// Sweep runs the pending instances of every cell with one worker pool on one backend, in paired
// order (see pairedOrder). Each instance is recorded in its cell's output directory exactly as
// Run records it. A cell whose model fails fatally (ErrFatal: a refused API key, an unknown
// model) stops alone, with the reason in its CellSummary; a cell whose budget is exhausted
// starts no further instance.
//
// An attempt that fails for infrastructure reasons (a sandbox that died or could not start, an
// image that could not be had, a backend that stopped answering, API errors after retries) is
// retried within the sweep, in a fresh sandbox, while the instance has attempts left
// (Resume.MaxAttempts over the output directory's runs, as Pending counts them): after a
// backoff (RetryBackoff, doubled per attempt), and after the other pending instances of its
// position, so that one bad instance holds up nothing. Model outcomes are never retried so.
//
// When no part of the backend answers, the sweep waits instead of ending: no instance starts,
// running ones go on (a command that broke ends its instance EngineDown, retried once the
// backend is back; a half-run command is never run again in the same agent loop), the progress
// display says what it waits for and since when, and sandboxes whose removal failed are removed
// once it answers. Past BackendWait the sweep stops with the backend's error.
//
// The error is for failures of the sweep itself (an output directory not writable, a backend
// that stayed away) or ErrInterrupted; the summary holds every cell either way.
func Sweep(ctx context.Context, cells []Cell, opts SweepOptions) (SweepSummary, error) {
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.Progress == nil {
		opts.Progress = Quiet{}
	}
	if opts.RetryBackoff <= 0 {
		opts.RetryBackoff = DefaultRetryBackoff
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	runs := make([]*cellRun, len(cells))
	var total, skipped int
	var totals []CellTotal
	for k := range cells {
		c := &cells[k]
		if c.Logger == nil {
			c.Logger = slog.New(slog.DiscardHandler)
		}
		history := c.Out.History()
		todo, sk := Pending(c.Instances, history, c.Resume)
		runs[k] = &cellRun{cell: c, history: history, pending: pendingPositions(c.Instances, todo),
			sum: Summary{Selected: len(c.Instances), Skipped: sk, ByStatus: map[string]int{}}}
		total += len(todo)
		skipped += sk
		totals = append(totals, CellTotal{Name: c.Name, Total: len(todo), Skipped: sk})
	}
	if cp, ok := opts.Progress.(CellProgress); ok && (len(cells) > 1 || len(cells) == 1 && cells[0].Name != "") {
		cp.StartCells(totals)
	}
	opts.Progress.Start(total, skipped)
	defer opts.Progress.Finish()

	jobs := pairedOrder(runs)
	// Declare every image's demand up front, over all cells, so that a backend that caches
	// images fetches one once and can remove it after its last instance (`--image-cache
	// remove`). Uses that will not run (a cell stopped, the sweep ended early) are withdrawn;
	// a retry declares one more.
	for _, j := range jobs {
		if j.image != "" {
			opts.Backend.Expect(j.image, 1)
		}
	}
	s := &scheduler{opts: &opts, runs: runs, queue: newQueue(jobs), renderer: agent.NewRenderer(),
		gate: newGate(opts.Backend, opts.BackendWait, opts.Progress, opts.Logger)}

	// The sweep's context ends when the backend stayed away too long: running instances are
	// cancelled, as when an instance's failure ends the group.
	sctx, stopSweep := context.WithCancel(ctx)
	defer stopSweep()
	g, gctx := errgroup.WithContext(sctx)
	for _, cr := range runs {
		cr.ctx, cr.cancel = context.WithCancel(gctx)
	}
	defer func() {
		for _, cr := range runs {
			cr.cancel()
		}
	}()
	probing := make(chan struct{})
	var prober sync.WaitGroup
	prober.Add(1)
	go func() {
		defer prober.Done()
		s.gate.probe(gctx, probing)
	}()

	interrupted, gateErr := s.dispatch(gctx, g, min(opts.Workers, opts.Backend.Capacity()))
	if gateErr != nil {
		stopSweep()
	}
	err := g.Wait()
	for _, j := range s.queue.drain() {
		s.withdraw(j)
		if j.retry { // its last attempt is its outcome
			s.count(s.runs[j.cell], j, nil)
		}
	}
	s.teardowns.Wait()
	close(probing)
	prober.Wait()
	// Sandboxes whose removal failed while the backend was away: once more now, unless it is
	// still away (the caller's sweep by run id, and the next run's, are the last resort).
	if !s.gate.isDown() {
		if n := s.gate.removeLeftovers(context.WithoutCancel(ctx)); n > 0 {
			opts.Logger.Warn("sandboxes could not be removed; `swebench-run cleanup` removes them", "count", n)
		}
	}
	if err == nil {
		err = gateErr
	}
	if ctx.Err() != nil {
		interrupted = true
	}
	select {
	case <-opts.Stop:
		interrupted = true
	default:
	}
	sw := SweepSummary{Interrupted: interrupted}
	for _, cr := range runs {
		cr.sum.Interrupted = interrupted
		sw.Cells = append(sw.Cells, CellSummary{Name: cr.cell.Name, Summary: cr.sum, Stopped: cr.stopped})
	}
	if err != nil {
		return sw, err
	}
	if interrupted {
		return sw, ErrInterrupted
	}
	return sw, nil
}

// scheduler is the state of one Sweep's scheduling.
type scheduler struct {
	opts      *SweepOptions
	runs      []*cellRun
	queue     *queue
	gate      *gate
	renderer  *agent.Renderer
	teardowns sync.WaitGroup // sandbox removals, which outlive their workers
}

// withdraw withdraws the declared use of j's image: j will not run.
func (s *scheduler) withdraw(j job) {
	if j.image != "" {
		s.opts.Backend.Expect(j.image, -1)
	}
}

// dispatch starts the queued jobs on at most workers workers, in the queue's order, until the
// queue is done, the sweep is stopped or interrupted, or the backend stayed away too long
// (gateErr). A job starts once a worker is free, the backend answers, and its backoff is over.
func (s *scheduler) dispatch(ctx context.Context, g *errgroup.Group, workers int) (interrupted bool, gateErr error) {
	o := s.opts
	free := make(chan struct{}, max(1, workers))
	for {
		select {
		case free <- struct{}{}:
		case <-o.Stop:
			return true, nil
		case <-ctx.Done():
			return false, nil
		}
		if s.queue.idle() {
			return false, nil
		}
		if err := s.gate.pass(ctx, o.Stop); err != nil {
			return false, err
		}
		select {
		case <-o.Stop:
			return true, nil
		case <-ctx.Done():
			return false, nil
		default:
		}
		j, ok, done, ready, changed := s.queue.take(time.Now())
		if done {
			return false, nil
		}
		if !ok {
			<-free
			t := time.NewTimer(time.Hour)
			if !ready.IsZero() {
				t.Reset(time.Until(ready))
			}
			select {
			case <-changed:
			case <-t.C:
			case <-o.Stop:
				t.Stop()
				return true, nil
			case <-ctx.Done():
				t.Stop()
				return false, nil
			}
			t.Stop()
			continue
		}
		cr := s.runs[j.cell]
		if skip := s.skip(cr); skip {
			s.withdraw(j)
			s.queue.finish()
			<-free
			if j.retry {
				s.count(cr, j, nil) // its last attempt stays its outcome
			}
			continue
		}
		queued := time.Now()
		o.Progress.Event(Event{Cell: cr.cell.Name, Instance: j.inst.InstanceID, Phase: PhaseQueued})
		// Look-ahead: fetch the images of the next instances while workers are busy.
		for _, n := range s.queue.ahead(workers) {
			if n.image != "" {
				o.Backend.Prefetch(n.image)
			}
		}
		g.Go(func() error {
			defer func() { <-free }()
			defer s.queue.finish()
			return s.runJob(cr, j, queued)
		})
	}
}

// skip reports whether a job of cr must not start: the cell stopped, or its budget ran out.
func (s *scheduler) skip(cr *cellRun) bool {
	if cr.stoppedErr() != nil {
		return true
	}
	if b := cr.cell.Budget; b != nil && b.Exhausted() {
		cr.mu.Lock()
		cr.sum.BudgetExhausted = true
		cr.mu.Unlock()
		return true
	}
	return false
}

// runJob runs one attempt of an instance of a cell on a worker and counts it; an attempt that
// failed for infrastructure reasons goes back into the queue as a retry while the instance has
// attempts left. A fatal model error stops the cell (its running instances are cancelled) and
// is not an error of the sweep.
func (s *scheduler) runJob(cr *cellRun, j job, queued time.Time) error {
	c, o := cr.cell, s.opts
	// Checked again now that a worker is free: the cell may have stopped, or its budget run
	// out, while this job waited.
	if s.skip(cr) {
		s.withdraw(j)
		o.Progress.Event(Event{Cell: c.Name, Instance: j.inst.InstanceID, Phase: PhaseSkipped})
		if j.retry {
			s.count(cr, j, nil)
		}
		return nil
	}
	ctx := cr.ctx
	id := j.inst.InstanceID
	cr.mu.Lock()
	attempt := len(cr.history[id]) + 1
	h := cr.history[id]
	launcherOff := len(h) > 0 && h[len(h)-1].ExitStatus == StatusLauncherLost
	cr.mu.Unlock()
	rec, pred, err := runInstance(ctx, c, o, j.inst, attempt, launcherOff, queued, s.renderer, s.gate, &s.teardowns)
	if errors.Is(err, sandbox.ErrBackendDown) {
		// No slot: nothing answers. Nothing was recorded; the job waits for the backend.
		s.gate.markDown(err)
		j.notBefore = time.Time{}
		s.queue.push(j)
		o.Progress.Event(Event{Cell: c.Name, Instance: id, Phase: PhaseSkipped})
		return nil
	}
	var fatal *fatalModelError
	if errors.As(err, &fatal) {
		cr.mu.Lock()
		if cr.stopped == nil {
			cr.stopped = fatal.err
			c.Logger.Error("the cell's model failed fatally; its other instances are not run", "err", fatal.err)
		}
		cr.mu.Unlock()
		cr.cancel()
		err = nil
	} else if err == nil {
		cr.mu.Lock()
		cr.history[id] = append(cr.history[id], rec)
		tries := attemptsSinceFinal(cr.history[id])
		cr.mu.Unlock()
		if s.retryable(ctx, rec) && tries < maxAttempts(c.Resume) {
			delay := retryBackoff(o.RetryBackoff, tries)
			c.Logger.Info("retrying the instance in a fresh sandbox", "instance", id, "attempt", attempt, "status", rec.ExitStatus, "in", delay.String())
			cr.mu.Lock()
			cr.sum.Retried++
			cr.sum.Cost += rec.Cost
			cr.mu.Unlock()
			o.Progress.Event(Event{Cell: c.Name, Instance: id, Phase: PhaseRetry, ExitStatus: rec.ExitStatus, Cost: rec.Cost,
				Attempt: attempt, MaxAttempts: maxAttempts(c.Resume), RetryIn: delay})
			if j.image != "" {
				o.Backend.Expect(j.image, 1)
			}
			j.retry, j.notBefore = true, time.Now().Add(delay)
			s.queue.push(j)
			return nil
		}
	}
	if err != nil {
		return err
	}
	if c.AfterInstance != nil && ctx.Err() == nil {
		c.AfterInstance(ctx, j.inst, pred)
	}
	s.count(cr, j, &rec)
	return nil
}

// retryable reports whether an attempt that ended as rec is retried within the sweep: an
// infrastructure failure, unless the sweep or the cell is stopping (an interruption).
func (s *scheduler) retryable(ctx context.Context, rec results.Record) bool {
	if rec.Category != results.CategoryInfrastructure || rec.ExitStatus == agent.StatusInterrupted || ctx.Err() != nil {
		return false
	}
	select {
	case <-s.opts.Stop:
		return false
	default:
		return true
	}
}

// count adds an instance's outcome to its cell's summary: rec, or (nil) the last attempt of an
// instance whose retry did not run (the sweep or its cell stopped first).
func (s *scheduler) count(cr *cellRun, j job, rec *results.Record) {
	id := j.inst.InstanceID
	cr.mu.Lock()
	if rec == nil {
		h := cr.history[id]
		if len(h) == 0 {
			cr.mu.Unlock()
			return
		}
		last := h[len(h)-1]
		rec = &last
		rec.Cost = 0     // counted when the attempt ended
		cr.sum.Retried-- // it was not retried after all
	}
	cr.sum.Ran++
	cr.sum.ByStatus[rec.ExitStatus]++
	cr.sum.Cost += rec.Cost
	switch rec.Category {
	case results.CategoryInfrastructure:
		cr.sum.Failed++
	case results.CategoryUnfinished:
		cr.sum.Unfinished++
		cr.sum.BudgetExhausted = true
	}
	cr.mu.Unlock()
	s.opts.Progress.Event(Event{Cell: cr.cell.Name, Instance: id, Phase: PhaseDone, ExitStatus: rec.ExitStatus, Cost: rec.Cost,
		Attempt: rec.Attempt, MaxAttempts: maxAttempts(cr.cell.Resume)})
}

// maxAttempts is r.MaxAttempts with its default.
func maxAttempts(r Resume) int {
	if r.MaxAttempts <= 0 {
		return 3
	}
	return r.MaxAttempts
}
