package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
)

// syncBuffer is a strings.Builder safe for the renderers' concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}

func statuses(h []results.Record) string {
	var s []string
	for _, r := range h {
		s = append(s, r.ExitStatus)
	}
	return strings.Join(s, ",")
}

func checkReleased(t *testing.T, b *fakeBackend) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for img, n := range b.declared {
		if n != 0 {
			t.Errorf("image %s: %d declared uses left", img, n)
		}
	}
	for id, n := range b.live {
		if n != 0 {
			t.Errorf("instance %s: %d sandboxes left", id, n)
		}
	}
}

// An instance whose sandbox's launcher was lost while a command ran ends LauncherLost, an
// infrastructure failure, and its retry runs with the launcher off.
func TestRetryWithLauncherOff(t *testing.T) {
	insts := instances("ds", 2)
	a := testCell(t, "a", insts, &orderLog{})
	backend := newFakeBackend(2)
	backend.loseLauncher["run-a/ds__x-0"] = 1
	if _, err := Sweep(context.Background(), []Cell{a}, SweepOptions{Workers: 1, Backend: backend, RetryBackoff: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if got := statuses(a.Out.History()["ds__x-0"]); got != "LauncherLost,Submitted" {
		t.Errorf("ds__x-0: attempts %s, want LauncherLost,Submitted", got)
	}
	if got := Category(StatusLauncherLost); got != results.CategoryInfrastructure {
		t.Errorf("Category(LauncherLost) = %s, want %s", got, results.CategoryInfrastructure)
	}
	want := map[string][]sandbox.Launcher{
		"run-a/ds__x-0": {sandbox.LauncherAuto, sandbox.LauncherOff},
		"run-a/ds__x-1": {sandbox.LauncherAuto},
	}
	for key, w := range want {
		if got := backend.launchers[key]; !slices.Equal(got, w) {
			t.Errorf("%s: Spec.Launcher of the starts = %v, want %v", key, got, w)
		}
	}
}

// A sandbox that dies under an instance: the instance runs again in the same sweep, in a fresh
// sandbox, after the other instances of its position and before the next position; the ledger
// keeps both attempts.
func TestRetryWithinSweep(t *testing.T) {
	log := &orderLog{}
	insts := instances("ds", 3)
	a, b := testCell(t, "a", insts, log), testCell(t, "b", insts, log)
	backend := newFakeBackend(4)
	backend.die["run-a/ds__x-0"] = 1
	var out syncBuffer
	sw, err := Sweep(context.Background(), []Cell{a, b}, SweepOptions{Workers: 1, Backend: backend, RetryBackoff: time.Millisecond, Progress: &Lines{W: &out}})
	if err != nil {
		t.Fatal(err)
	}
	want := "a:ds__x-0 b:ds__x-0 a:ds__x-0 a:ds__x-1 b:ds__x-1 a:ds__x-2 b:ds__x-2"
	if got := log.String(); got != want {
		t.Errorf("order:\n got %s\nwant %s", got, want)
	}
	if got := statuses(a.Out.History()["ds__x-0"]); got != "ContainerDied,Submitted" {
		t.Errorf("cell a, ds__x-0: attempts %s, want ContainerDied,Submitted", got)
	}
	if h := a.Out.History()["ds__x-0"]; len(h) == 2 && (h[0].Attempt != 1 || h[1].Attempt != 2) {
		t.Errorf("attempt numbers %d, %d; want 1, 2", h[0].Attempt, h[1].Attempt)
	}
	if got := sw.Cells[0].Summary; got.Ran != 3 || got.Retried != 1 || got.Failed != 0 || got.ByStatus[agent.StatusSubmitted] != 3 {
		t.Errorf("cell a: %+v, want 3 ran, 3 Submitted, 1 retried, none failed", got)
	}
	for _, want := range []string{"a ds__x-0 ContainerDied after attempt 1 of 3", "retried in", "[", "a ds__x-0 Submitted (attempt 2)", "[6/6]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, out.String())
		}
	}
	checkReleased(t, backend)
}

// Attempts are counted over the output directory's runs, as a resume counts them: with one
// failure recorded earlier and --max-attempts 3, the sweep makes two more and then gives up
// (an infrastructure failure remains). Model outcomes are never retried.
func TestRetryUpToMaxAttempts(t *testing.T) {
	log := &orderLog{}
	insts := instances("ds", 2)
	c := testCell(t, "", insts, log)
	c.RunID = "run"
	if err := c.Out.Record(results.Record{InstanceID: "ds__x-0", Attempt: 1, ExitStatus: "ContainerDied", Category: results.CategoryInfrastructure}, nil); err != nil {
		t.Fatal(err)
	}
	backend := newFakeBackend(2)
	backend.die["run/ds__x-0"] = 10
	cfg, err := configs.Load(nil, []string{"environment.cwd=/tmp", "agent.step_limit=1"})
	if err != nil {
		t.Fatal(err)
	}
	c.Config = cfg // ds__x-1 hits its step limit: a model outcome
	var out syncBuffer
	sw, err := Sweep(context.Background(), []Cell{c}, SweepOptions{Workers: 2, Backend: backend, RetryBackoff: time.Millisecond, Progress: &Lines{W: &out}})
	if err != nil {
		t.Fatal(err)
	}
	h := c.Out.History()
	if got := statuses(h["ds__x-0"]); got != "ContainerDied,ContainerDied,ContainerDied" {
		t.Errorf("ds__x-0: attempts %s, want three ContainerDied (one earlier, two now)", got)
	}
	if got := statuses(h["ds__x-1"]); got != "LimitsExceeded" {
		t.Errorf("ds__x-1: attempts %s, want one LimitsExceeded (model outcomes are not retried)", got)
	}
	if got := sw.Cells[0].Summary; got.Ran != 2 || got.Failed != 1 || got.Retried != 1 {
		t.Errorf("summary %+v, want 2 ran, 1 failed, 1 retried", got)
	}
	if !strings.Contains(out.String(), "ds__x-0 ContainerDied (attempt 3)") {
		t.Errorf("progress lacks the final attempt:\n%s", out.String())
	}
	checkReleased(t, backend)
}

// downDuring makes the backend stop answering when instance id makes its first model call
// (once), and answer again after away (never when away is 0).
func downDuring(backend *fakeBackend, id string, away time.Duration, inner Models) Models {
	var once sync.Once
	return hookedModels{inner: inner, hook: func(_ context.Context, got string) error {
		if got == id {
			once.Do(func() {
				backend.setDown(true)
				if away > 0 {
					time.AfterFunc(away, func() { backend.setDown(false) })
				}
			})
		}
		return nil
	}}
}

// The backend stops answering mid-run and comes back: the instance whose command broke ends
// EngineDown and runs again, nothing starts meanwhile, the display says what the run waits for
// and since when, the sandbox that could not be removed is removed once the backend answers, and
// the run ends with every instance finished.
func TestBackendAwayAndBack(t *testing.T) {
	log := &orderLog{}
	insts := instances("ds", 4)
	c := testCell(t, "", insts, log)
	backend := newFakeBackend(2)
	c.Models = downDuring(backend, "ds__x-1", time.Second, c.Models)
	var out syncBuffer
	sw, err := Sweep(context.Background(), []Cell{c}, SweepOptions{Workers: 2, Backend: backend, RetryBackoff: time.Millisecond,
		BackendWait: time.Minute, Progress: &Lines{W: &out}})
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, out.String())
	}
	h := c.Out.History()
	for _, inst := range insts {
		recs := h[inst.InstanceID]
		if len(recs) == 0 || recs[len(recs)-1].ExitStatus != agent.StatusSubmitted {
			t.Errorf("%s: attempts %s, want the last Submitted", inst.InstanceID, statuses(recs))
		}
	}
	if got := statuses(h["ds__x-1"]); got != "EngineDown,Submitted" {
		t.Errorf("ds__x-1: attempts %s, want EngineDown,Submitted", got)
	}
	if got := sw.Cells[0].Summary; got.Failed != 0 || got.Ran != 4 {
		t.Errorf("summary %+v, want 4 ran, none failed", got)
	}
	for _, want := range []string{"waiting for the sandbox backend since", "--backend-wait): fake engine: connection refused", "the sandbox backend answers again after"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, out.String())
		}
	}
	checkReleased(t, backend)
}

// A backend away longer than BackendWait stops the run with its error; a rerun once it is back
// finishes the instances.
func TestBackendAwayTooLong(t *testing.T) {
	log := &orderLog{}
	insts := instances("ds", 3)
	c := testCell(t, "", insts, log)
	backend := newFakeBackend(1)
	inner := c.Models
	c.Models = downDuring(backend, "ds__x-1", 0, inner)
	sw, err := Sweep(context.Background(), []Cell{c}, SweepOptions{Workers: 1, Backend: backend, RetryBackoff: time.Millisecond, BackendWait: 100 * time.Millisecond})
	if !errors.Is(err, sandbox.ErrBackendDown) || !strings.Contains(err.Error(), "--backend-wait") {
		t.Fatalf("sweep: %v, want the backend's error after --backend-wait", err)
	}
	if got := statuses(c.Out.History()["ds__x-1"]); got != "EngineDown" {
		t.Errorf("ds__x-1: attempts %s, want EngineDown", got)
	}
	if got := sw.Cells[0].Summary; got.Retried != 0 || got.Failed != 1 || got.ByStatus[StatusEngineDown] != 1 {
		t.Errorf("summary %+v, want ds__x-1 counted as failed (EngineDown), nothing retried", got)
	}
	if _, ok := c.Out.History()["ds__x-2"]; ok {
		t.Errorf("ds__x-2 started while the backend was away")
	}

	backend.setDown(false)
	c.Models = inner
	sw, err = Sweep(context.Background(), []Cell{c}, SweepOptions{Workers: 1, Backend: backend, BackendWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got := sw.Cells[0].Summary; got.Ran != 2 || got.Skipped != 1 || got.ByStatus[agent.StatusSubmitted] != 2 {
		t.Errorf("rerun: %+v, want ds__x-1 and ds__x-2 Submitted, ds__x-0 skipped", got)
	}
}

// While the backend does not answer, the live display says what it waits for, since when and
// until when; then it drops the line.
func TestBarShowsBackendWait(t *testing.T) {
	var buf syncBuffer
	var width atomic.Int64 // 0: unknown
	b := &Bar{W: &buf, Width: func() int { return int(width.Load()) }}
	b.Start(2, 0)
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	b.Backend(BackendEvent{Down: true, Since: since, Until: since.Add(5 * time.Minute), Err: "no docker engine answers: unix:///var/run/docker.sock: connection refused\nmore"})
	b.Event(Event{Instance: "x__y-1", Phase: PhaseRetry, ExitStatus: StatusEngineDown, Attempt: 1, MaxAttempts: 3, RetryIn: 5 * time.Second})
	b.draw()
	got := buf.String()
	for _, want := range []string{"waiting since 03:04:05 (", "stops at 03:09:05, --backend-wait): no docker engine answers: unix:///var/run/docker.sock: connection refused\n", "retry 2/3 (EngineDown)"} {
		if !strings.Contains(got, want) {
			t.Errorf("display lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "more") {
		t.Errorf("display shows more than the error's first line:\n%s", got)
	}
	// On a narrow terminal every line is cut to its width: a wrapped line would break the
	// redraw in place.
	width.Store(60)
	n0 := len(buf.String())
	b.draw()
	for _, l := range strings.Split(buf.String()[n0:], "\n") {
		if i := strings.LastIndex(l, "\x1b[2K"); i >= 0 {
			l = l[i+len("\x1b[2K"):]
		}
		if utf8.RuneCountInString(l) > 59 {
			t.Errorf("line of %d characters on a terminal of 60: %q", utf8.RuneCountInString(l), l)
		}
	}
	width.Store(0)
	b.Backend(BackendEvent{Since: since, Back: since.Add(time.Minute)})
	n := len(buf.String())
	b.draw()
	if strings.Contains(buf.String()[n:], "waiting for") {
		t.Errorf("the waiting line stays after the backend is back:\n%s", buf.String()[n:])
	}
	b.Finish()
}

// The queue: paired order, retries after the first attempts of their position and only once
// their backoff is over.
func TestQueueOrder(t *testing.T) {
	now := time.Now()
	q := newQueue([]job{{cell: 0, pos: 0}, {cell: 1, pos: 0}, {cell: 0, pos: 1}, {cell: 1, pos: 1}})
	take := func() string {
		j, ok, _, _, _ := q.take(now)
		if !ok {
			return "none"
		}
		s := string(rune('a'+j.cell)) + string(rune('0'+j.pos))
		if j.retry {
			s += "r"
		}
		return s
	}
	var got []string
	got = append(got, take())                                                // a0
	q.push(job{cell: 0, pos: 0, retry: true})                                // a0 failed: ready now
	q.push(job{cell: 1, pos: 1, retry: true, notBefore: now.Add(time.Hour)}) // waits
	for range 5 {
		got = append(got, take())
	}
	if want := "a0 b0 a0r a1 b1 none"; strings.Join(got, " ") != want {
		t.Errorf("order %s, want %s", strings.Join(got, " "), want)
	}
	_, ok, done, ready, _ := q.take(now)
	if ok || done || !ready.Equal(now.Add(time.Hour)) {
		t.Errorf("take with only a waiting retry: ok %v done %v ready %v; want its ready time", ok, done, ready)
	}
}
