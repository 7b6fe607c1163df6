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
	Resume        Resume
	// Budget is the cell's cost limit (in a sweep chained to its model's and the sweep's): no
	// instance of the cell starts once it admits no further model call.
	Budget interface{ Exhausted() bool }
	Logger *slog.Logger
	// AfterInstance, when set, runs in the worker after an instance is recorded (its
	// container's removal may still be under way), with its prediction (nil after an
	// infrastructure failure); `--eval` evaluates there, as soon as the prediction exists.
	AfterInstance func(ctx context.Context, inst dataset.Instance, pred *results.Prediction)
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

// job is one pending instance of one cell.
type job struct {
	cell  int
	inst  dataset.Instance
	image string // "" when the image template fails (the instance reports it)
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
				jobs = append(jobs, job{cell: k, inst: inst, image: img})
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
// starts no further instance. The error is for failures of the sweep itself (an output
// directory not writable, no backend answering) or ErrInterrupted; the summary holds every
// cell either way.
func Sweep(ctx context.Context, cells []Cell, opts SweepOptions) (SweepSummary, error) {
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.Progress == nil {
		opts.Progress = Quiet{}
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
	// remove`). Uses that will not run (a cell stopped, the sweep ended early) are withdrawn.
	for _, j := range jobs {
		if j.image != "" {
			opts.Backend.Expect(j.image, 1)
		}
	}
	withdraw := func(j job) {
		if j.image != "" {
			opts.Backend.Expect(j.image, -1)
		}
	}

	renderer := agent.NewRenderer()
	var teardowns sync.WaitGroup // container removals, which outlive their workers
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(min(opts.Workers, opts.Backend.Capacity()))
	for _, cr := range runs {
		cr.ctx, cr.cancel = context.WithCancel(gctx)
	}
	defer func() {
		for _, cr := range runs {
			cr.cancel()
		}
	}()
	interrupted := false
	next := len(jobs) // the first job not dispatched
loop:
	for i, j := range jobs {
		select {
		case <-opts.Stop:
			interrupted, next = true, i
			break loop
		case <-gctx.Done():
			interrupted, next = ctx.Err() != nil, i
			break loop
		default:
		}
		cr := runs[j.cell]
		if cr.stoppedErr() != nil {
			withdraw(j)
			continue
		}
		if b := cr.cell.Budget; b != nil && b.Exhausted() {
			cr.mu.Lock()
			cr.sum.BudgetExhausted = true
			cr.mu.Unlock()
			withdraw(j)
			continue
		}
		queued := time.Now()
		opts.Progress.Event(Event{Cell: cr.cell.Name, Instance: j.inst.InstanceID, Phase: PhaseQueued})
		// Look-ahead: fetch the images of the next instances while workers are busy.
		for _, n := range jobs[i+1 : min(len(jobs), i+1+opts.Workers)] {
			if n.image != "" {
				opts.Backend.Prefetch(n.image)
			}
		}
		if !tryGo(g, gctx, opts.Stop, func() error { return runJob(cr, &opts, j, queued, renderer, &teardowns, withdraw) }) {
			interrupted, next = true, i
			break
		}
	}
	for _, j := range jobs[next:] {
		withdraw(j)
	}
	err := g.Wait()
	teardowns.Wait()
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

// runJob runs one instance of a cell on a worker, with retries on another engine when one
// stopped answering, and counts it. A fatal model error stops the cell (its running instances
// are cancelled) and is not an error of the sweep.
func runJob(cr *cellRun, o *SweepOptions, j job, queued time.Time, renderer *agent.Renderer, teardowns *sync.WaitGroup, withdraw func(job)) error {
	c := cr.cell
	// Checked again now that a worker is free: the cell may have stopped, or its budget run
	// out, while this job waited.
	skip := cr.stoppedErr() != nil
	if b := c.Budget; !skip && b != nil && b.Exhausted() {
		cr.mu.Lock()
		cr.sum.BudgetExhausted = true
		cr.mu.Unlock()
		skip = true
	}
	if skip {
		withdraw(j)
		o.Progress.Event(Event{Cell: c.Name, Instance: j.inst.InstanceID, Phase: PhaseSkipped})
		return nil
	}
	maxAttempts := c.Resume.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = 3
	}
	ctx := cr.ctx
	attempt := len(cr.history[j.inst.InstanceID]) + 1
	rec, pred, err := runInstance(ctx, c, o, j.inst, attempt, queued, renderer, teardowns)
	// A backend (an engine) that stopped answering was taken out of rotation: retry the
	// instance elsewhere right away, within its attempts.
	for err == nil && rec.ExitStatus == StatusEngineDown && attempt < maxAttempts && ctx.Err() == nil {
		attempt++
		rec, pred, err = runInstance(ctx, c, o, j.inst, attempt, time.Now(), renderer, teardowns)
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
	}
	if err != nil {
		return err
	}
	if c.AfterInstance != nil && ctx.Err() == nil {
		c.AfterInstance(ctx, j.inst, pred)
	}
	cr.mu.Lock()
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
	o.Progress.Event(Event{Cell: c.Name, Instance: j.inst.InstanceID, Phase: PhaseDone, ExitStatus: rec.ExitStatus, Cost: rec.Cost})
	return nil
}
