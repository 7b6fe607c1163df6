package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"

	"github.com/swebench-run/swebench-run/sandbox"
)

// Phases of an instance, in order.
const (
	PhaseQueued   = "queued"
	PhasePulling  = "pulling"
	PhaseStarting = "starting"
	PhaseStep     = "step"
	PhaseDone     = "done"
	// PhaseSkipped: a queued instance that did not start after all (its sweep cell stopped, or
	// its budget ran out while it waited for a worker).
	PhaseSkipped = "skipped"
	// PhaseRetry: an attempt failed for infrastructure reasons (Event.ExitStatus) and the
	// instance runs again in this run, in a fresh sandbox, after Event.RetryIn; it is not done.
	PhaseRetry = "retry"
	// With evaluation (`--eval`): the prediction is being graded, then it was (Event.Resolved).
	// The runner does not send these; the evaluation hook does, before PhaseDone.
	PhaseEvaluating = "evaluating"
	PhaseEvaluated  = "evaluated"
)

// Event is one change in the run's picture.
type Event struct {
	Cell       string  `json:"cell,omitempty"` // the sweep cell; "" in a plain run
	Instance   string  `json:"instance"`
	Phase      string  `json:"phase"`
	Step       int     `json:"step,omitempty"`
	Cost       float64 `json:"cost,omitempty"`
	ExitStatus string  `json:"exit_status,omitempty"`
	Resolved   bool    `json:"resolved,omitempty"` // with PhaseEvaluated
	// Attempt is the attempt that ended (PhaseDone, PhaseRetry), counted over the output
	// directory's runs; MaxAttempts bounds the attempts of infrastructure failures.
	Attempt     int `json:"attempt,omitempty"`
	MaxAttempts int `json:"max_attempts,omitempty"`
	// RetryIn is the wait before the retry (PhaseRetry).
	RetryIn time.Duration `json:"-"`
}

// BackendEvent says that the sandbox backend stopped answering (Down) or answers again.
type BackendEvent struct {
	Down bool
	// Since is when it stopped answering; Until, while it is down, when the run gives up
	// waiting (--backend-wait); Back, once it answers again, when it did.
	Since, Until, Back time.Time
	Err                string // what does not answer, and why (while down)
}

// BackendProgress is implemented by the renderers that show the backend's availability: a run
// waits while its backend does not answer.
type BackendProgress interface {
	Backend(BackendEvent)
}

// CellTotal is what one cell of a sweep has to do.
type CellTotal struct {
	Name    string `json:"name"`
	Total   int    `json:"total"`   // instances to run
	Skipped int    `json:"skipped"` // finished earlier
}

// CellProgress is implemented by the renderers that show a sweep cell by cell. The runner calls
// StartCells before Start when it runs named cells.
type CellProgress interface {
	StartCells([]CellTotal)
}

// Progress shows the run to a human or a machine. Implementations are safe for concurrent use.
type Progress interface {
	Start(total, skipped int)
	Event(Event)
	// Pull reports the progress of an image pull (called often, from the pulling goroutine).
	Pull(sandbox.PullProgress)
	Finish()
}

// Quiet shows nothing.
type Quiet struct{}

func (Quiet) Start(int, int)            {}
func (Quiet) Event(Event)               {}
func (Quiet) Pull(sandbox.PullProgress) {}
func (Quiet) Finish()                   {}

func pullLine(p sandbox.PullProgress) string {
	switch {
	case p.Done && p.Err != nil:
		return fmt.Sprintf("pull %s failed: %v", p.Image, p.Err)
	case p.Done:
		return fmt.Sprintf("pulled %s (%d layers, %.0f MB)", p.Image, p.Layers, float64(p.Total)/1e6)
	default:
		return fmt.Sprintf("pulling %s: %d/%d layers, %.0f/%.0f MB (attempt %d)", p.Image, p.LayersDone, p.Layers, float64(p.Current)/1e6, float64(p.Total)/1e6, p.Attempt)
	}
}

// tally keeps the counts every renderer shows, overall and per sweep cell.
type tally struct {
	mu        sync.Mutex
	total     int
	done      int
	cost      float64
	evaluated int
	resolved  int
	byStatus  map[string]int
	start     time.Time
	cells     []*cellTally // in sweep order; none in a plain run
	byCell    map[string]*cellTally
}

// cellTally is one cell's part of the tally.
type cellTally struct {
	CellTotal
	done, evaluated, resolved int
	cost                      float64
}

func (t *tally) begin(total int) {
	t.total, t.byStatus, t.start = total, map[string]int{}, time.Now()
}

func (t *tally) beginCells(cells []CellTotal) {
	t.cells, t.byCell = nil, map[string]*cellTally{}
	for _, c := range cells {
		ct := &cellTally{CellTotal: c}
		t.cells = append(t.cells, ct)
		t.byCell[c.Name] = ct
	}
}

func (t *tally) finish(e Event) {
	t.done++
	t.cost += e.Cost
	t.byStatus[e.ExitStatus]++
	if c := t.byCell[e.Cell]; c != nil {
		c.done++
		c.cost += e.Cost
	}
}

// retried counts the cost of an attempt that failed and runs again; the instance is not done.
func (t *tally) retried(e Event) {
	t.cost += e.Cost
	if c := t.byCell[e.Cell]; c != nil {
		c.cost += e.Cost
	}
}

func (t *tally) graded(e Event) {
	t.evaluated++
	c := t.byCell[e.Cell]
	if c != nil {
		c.evaluated++
	}
	if e.Resolved {
		t.resolved++
		if c != nil {
			c.resolved++
		}
	}
}

// cellLine is one cell's line: done/total, resolved so far when evaluating, cost.
func (c *cellTally) line(width int) string {
	s := fmt.Sprintf("%-*s %d/%d", width, c.Name, c.done, c.Total)
	if c.Skipped > 0 {
		s += fmt.Sprintf(" (+%d earlier)", c.Skipped)
	}
	if c.evaluated > 0 {
		s += fmt.Sprintf("  resolved %d/%d", c.resolved, c.evaluated)
	}
	return s + fmt.Sprintf("  $%.4f", c.cost)
}

func (t *tally) nameWidth() int {
	w := 0
	for _, c := range t.cells {
		w = max(w, len(c.Name))
	}
	return w
}

// who names an instance in a line: "cell instance" in a sweep.
func who(e Event) string {
	if e.Cell == "" {
		return e.Instance
	}
	return e.Cell + " " + e.Instance
}

func (t *tally) statuses() string {
	keys := make([]string, 0, len(t.byStatus))
	for k := range t.byStatus {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", k, t.byStatus[k])
	}
	return strings.Join(parts, " ")
}

// Lines prints one line per finished instance (for logs and pipes) and, verbosely, every event.
type Lines struct {
	W       io.Writer
	Verbose bool
	t       tally
}

func (l *Lines) Start(total, skipped int) {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	l.t.begin(total)
	fmt.Fprintf(l.W, "running %d instances (%d already finished, skipped)\n", total, skipped)
}

// StartCells prints the cells of a sweep with what each has to do.
func (l *Lines) StartCells(cells []CellTotal) {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	l.t.beginCells(cells)
	fmt.Fprintf(l.W, "sweep of %d cells:\n", len(cells))
	for _, c := range l.t.cells {
		fmt.Fprintf(l.W, "  %-*s %d to run, %d already finished\n", l.t.nameWidth(), c.Name, c.Total, c.Skipped)
	}
}

func (l *Lines) Event(e Event) {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	switch e.Phase {
	case PhaseDone:
	case PhaseRetry:
		l.t.retried(e)
		fmt.Fprintf(l.W, "%s %s after attempt %d of %d ($%.4f); retried in %s in a fresh sandbox\n", who(e), e.ExitStatus, e.Attempt, e.MaxAttempts, e.Cost, e.RetryIn.Round(time.Second))
		return
	case PhaseEvaluated:
		l.t.graded(e)
		verdict := "unresolved"
		if e.Resolved {
			verdict = "resolved"
		}
		if c := l.t.byCell[e.Cell]; c != nil {
			fmt.Fprintf(l.W, "%s %s (%s: %d of %d evaluated resolved)\n", who(e), verdict, c.Name, c.resolved, c.evaluated)
		} else {
			fmt.Fprintf(l.W, "%s %s (%d of %d evaluated resolved)\n", who(e), verdict, l.t.resolved, l.t.evaluated)
		}
		return
	default:
		if l.Verbose {
			fmt.Fprintf(l.W, "%s %s %d\n", who(e), e.Phase, e.Step)
		}
		return
	}
	l.t.finish(e)
	attempt := ""
	if e.Attempt > 1 {
		attempt = fmt.Sprintf(" (attempt %d)", e.Attempt)
	}
	fmt.Fprintf(l.W, "[%d/%d] %s %s%s $%.4f (total $%.4f, %s)\n", l.t.done, l.t.total, who(e), e.ExitStatus, attempt, e.Cost, l.t.cost, time.Since(l.t.start).Round(time.Second))
}

// Backend prints when the backend stops answering, what it waits for and until when, and when
// it answers again.
func (l *Lines) Backend(e BackendEvent) {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	fmt.Fprintln(l.W, backendLine(e, time.Now()))
}

// backendLine says what the run waits for and since when, or that the wait is over.
func backendLine(e BackendEvent, now time.Time) string {
	if !e.Down {
		return fmt.Sprintf("the sandbox backend answers again after %s (away since %s); going on", e.Back.Sub(e.Since).Round(time.Second), e.Since.Format("15:04:05"))
	}
	return fmt.Sprintf("waiting for the sandbox backend since %s (%s; the run stops at %s, --backend-wait): %s; no instance starts meanwhile, running ones go on",
		e.Since.Format("15:04:05"), now.Sub(e.Since).Round(time.Second), e.Until.Format("15:04:05"), e.Err)
}

// Pull prints finished and failed pulls.
func (l *Lines) Pull(p sandbox.PullProgress) {
	if !p.Done {
		return
	}
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	fmt.Fprintln(l.W, pullLine(p))
}

func (l *Lines) Finish() {}

// JSONEvents writes every event as one JSON object per line, for dashboards.
type JSONEvents struct {
	W        io.Writer
	mu       sync.Mutex
	lastPull map[string]bool
}

func (j *JSONEvents) Start(total, skipped int) {
	j.write(map[string]any{"event": "start", "total": total, "skipped": skipped, "time": time.Now().UTC()})
}

// StartCells emits the cells of a sweep: {"event": "cells", "cells": [{name, total, skipped}]}.
func (j *JSONEvents) StartCells(cells []CellTotal) {
	j.write(map[string]any{"event": "cells", "cells": cells, "time": time.Now().UTC()})
}

// Event emits one instance event; in a sweep it carries "cell", after an evaluation "resolved".
func (j *JSONEvents) Event(e Event) {
	ev := map[string]any{"event": "instance", "instance": e.Instance, "phase": e.Phase, "step": e.Step, "cost": e.Cost, "exit_status": e.ExitStatus, "time": time.Now().UTC()}
	if e.Cell != "" {
		ev["cell"] = e.Cell
	}
	if e.Phase == PhaseEvaluated {
		ev["resolved"] = e.Resolved
	}
	if e.Attempt > 0 {
		ev["attempt"], ev["max_attempts"] = e.Attempt, e.MaxAttempts
	}
	if e.Phase == PhaseRetry {
		ev["retry_in_seconds"] = e.RetryIn.Seconds()
	}
	j.write(ev)
}

// Backend emits {"event": "backend", "state": "down", "since", "until", "error"} when the backend
// stops answering and {"event": "backend", "state": "up", "since", "back"} when it answers again.
func (j *JSONEvents) Backend(e BackendEvent) {
	ev := map[string]any{"event": "backend", "state": "up", "since": e.Since.UTC(), "time": time.Now().UTC()}
	if e.Down {
		ev["state"], ev["until"], ev["error"] = "down", e.Until.UTC(), e.Err
	} else {
		ev["back"] = e.Back.UTC()
	}
	j.write(ev)
}

// Pull emits finished pulls, and progress at most once per layer completed.
func (j *JSONEvents) Pull(p sandbox.PullProgress) {
	ev := map[string]any{"event": "pull", "host": p.Host, "image": p.Image, "attempt": p.Attempt, "layers": p.Layers,
		"layers_done": p.LayersDone, "bytes": p.Current, "total_bytes": p.Total, "done": p.Done, "time": time.Now().UTC()}
	if p.Err != nil {
		ev["error"] = p.Err.Error()
	}
	j.mu.Lock()
	key := p.Image + "\x00" + fmt.Sprint(p.LayersDone, p.Done)
	if j.lastPull == nil {
		j.lastPull = map[string]bool{}
	}
	seen := j.lastPull[key]
	j.lastPull[key] = true
	j.mu.Unlock()
	if !seen {
		j.write(ev)
	}
}

func (j *JSONEvents) Finish() { j.write(map[string]any{"event": "finish", "time": time.Now().UTC()}) }

func (j *JSONEvents) write(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, _ := json.Marshal(v)
	j.W.Write(append(b, '\n'))
}

// Bar is the live display on a terminal, redrawn in place: an overall bar (done/total, elapsed,
// ETA from progressbar), cost so far and projected, counts by exit status, in a sweep one line
// per cell (done/total, resolved so far when evaluating, cost), and one line per running
// instance with its cell, phase, step and cost.
type Bar struct {
	W io.Writer
	// MaxLines bounds the running-instance lines shown (default 16; the rest are counted).
	MaxLines int
	// Width, when set, gives the terminal's width at each redraw: longer lines are cut to it,
	// since a line the terminal wraps would break the redraw in place.
	Width func() int

	t       tally
	bar     *progressbar.ProgressBar
	running map[string]Event
	pulls   map[string]sandbox.PullProgress
	backend *BackendEvent // while the backend does not answer
	drawn   int
	stop    chan struct{}
	done    chan struct{}
}

func (b *Bar) Start(total, skipped int) {
	b.t.mu.Lock()
	b.t.begin(total)
	b.running = map[string]Event{}
	b.pulls = map[string]sandbox.PullProgress{}
	if b.MaxLines == 0 {
		b.MaxLines = 16
	}
	b.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(io.Discard), // we draw its String() ourselves, with more lines
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetDescription(fmt.Sprintf("(%d already done)", skipped)),
	)
	b.stop, b.done = make(chan struct{}), make(chan struct{})
	b.t.mu.Unlock()
	go b.loop()
}

// StartCells shows one line per cell from now on.
func (b *Bar) StartCells(cells []CellTotal) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	b.t.beginCells(cells)
}

func (b *Bar) loop() {
	defer close(b.done)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-b.stop:
			b.draw()
			return
		case <-tick.C:
			b.draw()
		}
	}
}

func (b *Bar) Event(e Event) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	key := e.Cell + "\x00" + e.Instance
	switch e.Phase {
	case PhaseDone:
		delete(b.running, key)
		b.t.finish(e)
		_ = b.bar.Add(1)
	case PhaseEvaluated:
		b.t.graded(e)
	case PhaseSkipped:
		delete(b.running, key)
	case PhaseRetry:
		b.t.retried(e)
		b.running[key] = e
	default:
		if prev, ok := b.running[key]; ok && e.Phase == PhaseEvaluating {
			e.Cost = prev.Cost
		}
		b.running[key] = e
	}
}

// Backend shows, while the backend does not answer, what the run waits for and since when.
func (b *Bar) Backend(e BackendEvent) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	if e.Down {
		b.backend = &e
	} else {
		b.backend = nil
	}
}

// Pull shows pulls in progress on their own lines.
func (b *Bar) Pull(p sandbox.PullProgress) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	if b.pulls == nil {
		return // before Start
	}
	if p.Done {
		delete(b.pulls, p.Image)
		return
	}
	b.pulls[p.Image] = p
}

func (b *Bar) Finish() {
	if b.stop == nil {
		return
	}
	close(b.stop)
	<-b.done
}

// draw redraws the block: cursor up over the previous block, clear and rewrite each line.
func (b *Bar) draw() {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	_ = b.bar.RenderBlank() // refresh elapsed time and ETA between finished instances
	lines := []string{b.bar.String()}
	projected := ""
	if b.t.done > 0 && b.t.total > 0 {
		projected = fmt.Sprintf(" (projected $%.2f)", b.t.cost/float64(b.t.done)*float64(b.t.total))
	}
	lines = append(lines, fmt.Sprintf("cost $%.4f%s  %s", b.t.cost, projected, b.t.statuses()))
	if b.backend != nil {
		e := *b.backend
		e.Err, _, _ = strings.Cut(e.Err, "\n")
		if len(e.Err) > 160 {
			e.Err = e.Err[:160] + "…"
		}
		// Short, what it waits for first: the line is cut to the terminal's width.
		lines = append(lines, fmt.Sprintf("waiting since %s (%s, stops at %s, --backend-wait): %s", e.Since.Format("15:04:05"),
			time.Since(e.Since).Round(time.Second), e.Until.Format("15:04:05"), e.Err))
	}
	for _, c := range b.t.cells {
		lines = append(lines, "  "+c.line(b.t.nameWidth()))
	}
	pulls := make([]string, 0, len(b.pulls))
	for img := range b.pulls {
		pulls = append(pulls, img)
	}
	sort.Strings(pulls)
	for _, img := range pulls {
		lines = append(lines, "  "+pullLine(b.pulls[img]))
	}
	ids := make([]string, 0, len(b.running))
	for id := range b.running {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for i, id := range ids {
		if i == b.MaxLines {
			lines = append(lines, fmt.Sprintf("  … and %d more running", len(ids)-i))
			break
		}
		e := b.running[id]
		phase := e.Phase
		switch e.Phase {
		case PhaseStep:
			phase = fmt.Sprintf("step %d", e.Step)
		case PhaseRetry:
			phase = fmt.Sprintf("retry %d/%d (%s)", e.Attempt+1, e.MaxAttempts, e.ExitStatus)
		}
		lines = append(lines, fmt.Sprintf("  %-50s %-10s $%.4f", who(e), phase, e.Cost))
	}
	if b.Width != nil {
		if w := b.Width(); w > 1 {
			for i, l := range lines {
				lines[i] = fitLine(l, w-1)
			}
		}
	}
	var sb strings.Builder
	if b.drawn > 0 {
		fmt.Fprintf(&sb, "\x1b[%dA", b.drawn)
	}
	for _, l := range lines {
		sb.WriteString("\r\x1b[2K")
		sb.WriteString(l)
		sb.WriteString("\n")
	}
	// Clear what is left of a longer previous block.
	for i := len(lines); i < b.drawn; i++ {
		sb.WriteString("\x1b[2K\n")
	}
	if extra := b.drawn - len(lines); extra > 0 {
		fmt.Fprintf(&sb, "\x1b[%dA", extra)
	}
	b.drawn = len(lines)
	io.WriteString(b.W, sb.String())
}

// fitLine cuts s to at most width characters, ending with "…" when cut.
func fitLine(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}
