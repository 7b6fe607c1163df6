package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Phases of an instance, in order.
const (
	PhaseQueued   = "queued"
	PhasePulling  = "pulling"
	PhaseStarting = "starting"
	PhaseStep     = "step"
	PhaseDone     = "done"
)

// Event is one change in the run's picture.
type Event struct {
	Instance   string  `json:"instance"`
	Phase      string  `json:"phase"`
	Step       int     `json:"step,omitempty"`
	Cost       float64 `json:"cost,omitempty"`
	ExitStatus string  `json:"exit_status,omitempty"`
}

// Progress shows the run to a human or a machine. Implementations are safe for concurrent use.
type Progress interface {
	Start(total, skipped int)
	Event(Event)
	Finish()
}

// Quiet shows nothing.
type Quiet struct{}

func (Quiet) Start(int, int) {}
func (Quiet) Event(Event)    {}
func (Quiet) Finish()        {}

// tally keeps the counts every renderer shows.
type tally struct {
	mu       sync.Mutex
	total    int
	done     int
	cost     float64
	byStatus map[string]int
	start    time.Time
}

func (t *tally) begin(total int) {
	t.total, t.byStatus, t.start = total, map[string]int{}, time.Now()
}

func (t *tally) finish(e Event) {
	t.done++
	t.cost += e.Cost
	t.byStatus[e.ExitStatus]++
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

func (l *Lines) Event(e Event) {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	if e.Phase != PhaseDone {
		if l.Verbose {
			fmt.Fprintf(l.W, "%s %s %d\n", e.Instance, e.Phase, e.Step)
		}
		return
	}
	l.t.finish(e)
	fmt.Fprintf(l.W, "[%d/%d] %s %s $%.4f (total $%.4f, %s)\n", l.t.done, l.t.total, e.Instance, e.ExitStatus, e.Cost, l.t.cost, time.Since(l.t.start).Round(time.Second))
}

func (l *Lines) Finish() {}

// JSONEvents writes every event as one JSON object per line, for dashboards.
type JSONEvents struct {
	W  io.Writer
	mu sync.Mutex
}

func (j *JSONEvents) Start(total, skipped int) {
	j.write(map[string]any{"event": "start", "total": total, "skipped": skipped, "time": time.Now().UTC()})
}
func (j *JSONEvents) Event(e Event) {
	j.write(map[string]any{"event": "instance", "instance": e.Instance, "phase": e.Phase, "step": e.Step, "cost": e.Cost, "exit_status": e.ExitStatus, "time": time.Now().UTC()})
}
func (j *JSONEvents) Finish() { j.write(map[string]any{"event": "finish", "time": time.Now().UTC()}) }

func (j *JSONEvents) write(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, _ := json.Marshal(v)
	j.W.Write(append(b, '\n'))
}

// Bar is the live display on a terminal: done/total, ETA, running cost and counts by status.
type Bar struct {
	W   io.Writer
	t   tally
	bar *progressbar.ProgressBar
}

func (b *Bar) Start(total, skipped int) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	b.t.begin(total)
	b.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(b.W),
		progressbar.OptionSetDescription(fmt.Sprintf("running (%d skipped)", skipped)),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

func (b *Bar) Event(e Event) {
	if e.Phase != PhaseDone {
		return
	}
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	b.t.finish(e)
	b.bar.Describe(fmt.Sprintf("$%.2f %s", b.t.cost, b.t.statuses()))
	_ = b.bar.Add(1)
}

func (b *Bar) Finish() {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	if b.bar != nil {
		_ = b.bar.Finish()
	}
}
