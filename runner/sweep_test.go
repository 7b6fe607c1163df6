package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
)

// fakeBackend is a sandbox backend whose sandboxes answer `echo X` with X and every other
// command with nothing. It counts the declared uses of every image (Expect, minus ReleaseImage)
// and the sandboxes started per image. It can stop answering (setDown): then Acquire, Probe,
// every command and every removal fail with an error matching sandbox.ErrBackendDown.
// die["RUN/INSTANCE"] sandboxes of that instance die at their first command (a
// *sandbox.DiedError); loseLauncher["RUN/INSTANCE"] sandboxes of that instance started with
// the launcher lose it at their first command (a *sandbox.LauncherLostError), unless their
// Spec turns it off. launchers records the Spec.Launcher of every start, per RUN/INSTANCE.
type fakeBackend struct {
	capacity int
	mu       sync.Mutex
	declared map[string]int // Expect(n) minus releases
	pulls    map[string]int // PrepareImage calls
	down     bool
	die      map[string]int
	live     map[string]int // sandboxes started and not removed, per instance

	loseLauncher map[string]int
	launchers    map[string][]sandbox.Launcher
	probes       int
}

func newFakeBackend(capacity int) *fakeBackend {
	return &fakeBackend{capacity: capacity, declared: map[string]int{}, pulls: map[string]int{}, die: map[string]int{}, live: map[string]int{},
		loseLauncher: map[string]int{}, launchers: map[string][]sandbox.Launcher{}}
}

// errFakeDown is what a fake backend that stopped answering says.
var errFakeDown = fmt.Errorf("fake engine: connection refused: %w", sandbox.ErrBackendDown)

func (b *fakeBackend) setDown(down bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.down = down
}

func (b *fakeBackend) isDown() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.down
}

func (b *fakeBackend) Capacity() int { return b.capacity }
func (b *fakeBackend) Acquire(ctx context.Context) (sandbox.Slot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if b.isDown() {
		return nil, errFakeDown
	}
	return &fakeSlot{b: b}, nil
}
func (b *fakeBackend) Probe(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probes++
	if b.down {
		return errFakeDown
	}
	return nil
}
func (b *fakeBackend) Expect(image string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.declared[image] += n
}
func (b *fakeBackend) Prefetch(string) {}

type fakeSlot struct{ b *fakeBackend }

func (s *fakeSlot) Host() string { return "fake" }
func (s *fakeSlot) PrepareImage(_ context.Context, image string) (string, error) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.pulls[image]++
	return "sha256:" + image, nil
}
func (s *fakeSlot) Start(_ context.Context, spec sandbox.Spec) (sandbox.Sandbox, error) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.b.down {
		return nil, errFakeDown
	}
	s.b.live[spec.InstanceID]++
	sb := &fakeSandbox{b: s.b, name: spec.RunID + "/" + spec.InstanceID, instance: spec.InstanceID}
	key := spec.RunID + "/" + spec.InstanceID
	if s.b.die[key] > 0 {
		s.b.die[key]--
		sb.dies = true
	}
	s.b.launchers[key] = append(s.b.launchers[key], spec.Launcher)
	if s.b.loseLauncher[key] > 0 && spec.Launcher != sandbox.LauncherOff {
		s.b.loseLauncher[key]--
		sb.losesLauncher = true
	}
	return sb, nil
}
func (s *fakeSlot) ReleaseImage(_ context.Context, image string) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.declared[image]--
}
func (s *fakeSlot) Release(error) {}

type fakeSandbox struct {
	b              *fakeBackend
	name, instance string
	dies           bool
	losesLauncher  bool
	removed        bool
}

func (s *fakeSandbox) ID() string   { return s.name }
func (s *fakeSandbox) Name() string { return s.name }
func (s *fakeSandbox) Exec(ctx context.Context, command string, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
	if err := ctx.Err(); err != nil {
		return sandbox.ExecResult{}, err
	}
	if s.b.isDown() {
		return sandbox.ExecResult{}, errFakeDown
	}
	if repo := opts.Env["GUARD_REPO"]; repo != "" { // the history guard: a sandbox without a repository
		return sandbox.ExecResult{Output: "guard: no-repository dir=" + repo + " reason=no-.git\n"}, nil
	}
	if s.dies {
		return sandbox.ExecResult{}, &sandbox.DiedError{Name: s.name, ExitCode: 137, Err: errors.New("killed")}
	}
	if s.losesLauncher {
		return sandbox.ExecResult{}, &sandbox.LauncherLostError{Name: s.name, Command: 1, Err: errors.New("killed")}
	}
	out, _ := strings.CutPrefix(command, "echo ")
	return sandbox.ExecResult{Output: out + "\n"}, nil
}
func (s *fakeSandbox) WriteFile(context.Context, string, []byte) error { return nil }
func (s *fakeSandbox) Remove(context.Context) error {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.b.down {
		return errFakeDown
	}
	if !s.removed {
		s.removed = true
		s.b.live[s.instance]--
	}
	return nil
}

// orderLog records the order in which instances take their model (with one worker, the order
// in which they run).
type orderLog struct {
	mu  sync.Mutex
	got []string
}

func (l *orderLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, s)
}

func (l *orderLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.got, " ")
}

// cellModels gives every instance a two-turn script (a look, then a submission), records the
// order, and fails with err (when set) instead of the first model call.
type cellModels struct {
	name string
	log  *orderLog
	err  error
}

func (m cellModels) ForInstance(id string) (agent.Model, error) {
	m.log.add(m.name + ":" + id)
	if m.err != nil {
		return failingModel{m.err}, nil
	}
	s := model.NewScripted(map[string][]model.ScriptedTurn{id: {
		{Content: "look", Commands: []string{"ls"}, Cost: 0.5},
		{Content: "submit", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}, Cost: 0.5},
	}})
	return s.ForInstance(id)
}

type failingModel struct{ err error }

func (f failingModel) Query(context.Context, []agent.Message) (agent.Reply, error) {
	return agent.Reply{}, f.err
}

// authError is a fatal model error, as a provider's 401 is.
type authError struct{}

func (authError) Error() string {
	return "openai: HTTP 401 invalid_api_key: Incorrect API key provided"
}
func (authError) Is(target error) bool { return target == model.ErrFatal }
func (authError) ExitStatus() string   { return model.StatusAuthentication }

func instances(prefix string, n int) []dataset.Instance {
	var out []dataset.Instance
	for i := range n {
		id := fmt.Sprintf("%s__x-%d", prefix, i)
		out = append(out, dataset.Instance{InstanceID: id, ProblemStatement: "Do nothing.", Image: "img/" + id})
	}
	return out
}

func testCell(t *testing.T, name string, insts []dataset.Instance, log *orderLog) Cell {
	t.Helper()
	cfg, err := configs.Load(nil, []string{"environment.cwd=/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := results.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	return Cell{Name: name, RunID: "run-" + name, Config: cfg, ModelName: "scripted", Out: out, Instances: insts,
		Models: cellModels{name: name, log: log}}
}

func finished(t *testing.T, c Cell, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := c.Out.Record(results.Record{InstanceID: id, Attempt: 1, ExitStatus: agent.StatusSubmitted, Category: results.CategoryModel},
			&results.Prediction{InstanceID: id, ModelNameOrPath: "scripted"}); err != nil {
			t.Fatal(err)
		}
	}
}

// Paired order: position i of every cell before position i+1 of any, over cells of different
// datasets and lengths; a resumed cell that is behind fills its gaps in that order.
func TestSweepPairedOrder(t *testing.T) {
	log := &orderLog{}
	shared, other := instances("ds", 4), instances("other", 3)
	a, b, c := testCell(t, "a", shared, log), testCell(t, "b", shared, log), testCell(t, "c", other, log)
	finished(t, b, shared[0].InstanceID, shared[2].InstanceID) // an earlier, cut sweep
	backend := newFakeBackend(8)
	sw, err := Sweep(context.Background(), []Cell{a, b, c}, SweepOptions{Workers: 1, Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	want := "a:ds__x-0 c:other__x-0 " +
		"a:ds__x-1 b:ds__x-1 c:other__x-1 " +
		"a:ds__x-2 c:other__x-2 " +
		"a:ds__x-3 b:ds__x-3"
	if got := log.String(); got != want {
		t.Errorf("order:\n got %s\nwant %s", got, want)
	}
	for k, wantRan := range []int{4, 2, 3} {
		cs := sw.Cells[k]
		if cs.Ran != wantRan || cs.ByStatus[agent.StatusSubmitted] != wantRan || cs.Stopped != nil {
			t.Errorf("cell %s: %+v, want %d ran and Submitted", cs.Name, cs.Summary, wantRan)
		}
	}
	if sw.Cells[1].Skipped != 2 || sw.Cells[1].Selected != 4 {
		t.Errorf("cell b: selected %d skipped %d, want 4 and 2", sw.Cells[1].Selected, sw.Cells[1].Skipped)
	}
	// Every declared use of an image was released, and an image two cells need was declared
	// twice: a caching backend keeps it until its last cell is done.
	for img, n := range backend.declared {
		if n != 0 {
			t.Errorf("image %s: %d declared uses left", img, n)
		}
	}
	if got := backend.pulls["img/ds__x-1"]; got != 2 {
		t.Errorf("image of ds__x-1 prepared %d times, want 2 (cells a and b)", got)
	}
}

// The demand of an image is declared over all cells before the first instance starts.
func TestSweepDeclaresImagesAcrossCells(t *testing.T) {
	log := &orderLog{}
	shared := instances("ds", 2)
	a, b := testCell(t, "a", shared, log), testCell(t, "b", shared, log)
	backend := newFakeBackend(4)
	var seen atomic.Int64
	a.Models = hookedModels{inner: a.Models, hook: func(context.Context, string) error {
		backend.mu.Lock()
		defer backend.mu.Unlock()
		if seen.Add(1) == 1 { // the first instance of the sweep, before any release
			if got := backend.declared["img/ds__x-1"]; got != 2 {
				t.Errorf("at the first instance, image of ds__x-1 has %d declared uses, want 2", got)
			}
		}
		return nil
	}}
	if _, err := Sweep(context.Background(), []Cell{a, b}, SweepOptions{Workers: 1, Backend: backend}); err != nil {
		t.Fatal(err)
	}
}

// A cell whose model fails fatally stops alone, with the reason; the others finish. Its
// instances not started run on a later resume.
func TestSweepFatalCellStopsAlone(t *testing.T) {
	log := &orderLog{}
	insts := instances("ds", 5)
	good, bad := testCell(t, "good", insts, log), testCell(t, "bad", insts, log)
	bad.Models = cellModels{name: "bad", log: log, err: authError{}}
	backend := newFakeBackend(8)
	sw, err := Sweep(context.Background(), []Cell{good, bad}, SweepOptions{Workers: 2, Backend: backend})
	if err != nil {
		t.Fatalf("sweep: %v (a cell's fatal model error is not the sweep's)", err)
	}
	g, b := sw.Cells[0], sw.Cells[1]
	if g.Stopped != nil || g.ByStatus[agent.StatusSubmitted] != 5 {
		t.Errorf("good cell: %+v (stopped %v), want 5 Submitted", g.Summary, g.Stopped)
	}
	if !errors.Is(b.Stopped, model.ErrFatal) || !strings.Contains(b.Stopped.Error(), "401") {
		t.Errorf("bad cell stopped with %v, want the 401", b.Stopped)
	}
	if b.Ran == 0 || b.Ran > 2 {
		t.Errorf("bad cell ran %d instances, want 1 or 2 (the ones already started)", b.Ran)
	}
	for id, recs := range bad.Out.History() {
		if last := recs[len(recs)-1]; last.Category != results.CategoryInfrastructure {
			t.Errorf("bad cell, %s: %s/%s, want an infrastructure failure (retried on resume)", id, last.ExitStatus, last.Category)
		}
	}
	for img, n := range backend.declared {
		if n != 0 {
			t.Errorf("image %s: %d declared uses left after the bad cell stopped", img, n)
		}
	}

	// A plain run is a sweep of one cell: the fatal error stops it.
	runLog := &orderLog{}
	c := testCell(t, "", insts, runLog)
	_, err = Run(context.Background(), insts, Options{Workers: 1, Backend: newFakeBackend(1), Config: c.Config, Out: c.Out,
		ModelName: "scripted", RunID: "run", Models: cellModels{log: runLog, err: authError{}}})
	if err == nil || !strings.Contains(err.Error(), "stopping the run") || !errors.Is(err, model.ErrFatal) {
		t.Errorf("run: %v, want it stopped by the fatal error", err)
	}
	if n := len(runLog.got); n != 1 {
		t.Errorf("run started %d instances after the fatal error, want 1", n)
	}
}

// exhaustAfter is a budget that runs out once n instances of its cells have taken their model.
type exhaustAfter struct {
	n   int64
	log *orderLog
}

func (e exhaustAfter) Exhausted() bool {
	e.log.mu.Lock()
	defer e.log.mu.Unlock()
	return int64(len(e.log.got)) >= e.n
}

// A cell whose budget (its own, or its model's) is exhausted starts no further instance; the
// others go on. A sweep-wide budget stops every cell at the same position.
func TestSweepBudgets(t *testing.T) {
	t.Run("per cell", func(t *testing.T) {
		log, other := &orderLog{}, &orderLog{}
		insts := instances("ds", 4)
		a, b := testCell(t, "a", insts, log), testCell(t, "b", insts, other)
		a.Budget = exhaustAfter{n: 2, log: log}
		sw, err := Sweep(context.Background(), []Cell{a, b}, SweepOptions{Workers: 1, Backend: newFakeBackend(1)})
		if err != nil {
			t.Fatal(err)
		}
		if got := sw.Cells[0]; got.Ran != 2 || !got.BudgetExhausted {
			t.Errorf("cell a: ran %d, budget exhausted %v; want 2 and true", got.Ran, got.BudgetExhausted)
		}
		if got := sw.Cells[1]; got.Ran != 4 || got.BudgetExhausted {
			t.Errorf("cell b: ran %d, budget exhausted %v; want 4 and false", got.Ran, got.BudgetExhausted)
		}
	})
	t.Run("sweep-wide", func(t *testing.T) {
		log := &orderLog{}
		insts := instances("ds", 4)
		cells := []Cell{testCell(t, "a", insts, log), testCell(t, "b", insts, log), testCell(t, "c", insts, log)}
		for k := range cells {
			cells[k].Budget = exhaustAfter{n: 6, log: log} // every cell chains to the sweep's
		}
		sw, err := Sweep(context.Background(), cells, SweepOptions{Workers: 1, Backend: newFakeBackend(1)})
		if err != nil {
			t.Fatal(err)
		}
		for _, cs := range sw.Cells {
			if cs.Ran != 2 || !cs.BudgetExhausted {
				t.Errorf("cell %s: ran %d, budget exhausted %v; want 2 (the same instances as the others) and true", cs.Name, cs.Ran, cs.BudgetExhausted)
			}
		}
		if got, want := log.String(), "a:ds__x-0 b:ds__x-0 c:ds__x-0 a:ds__x-1 b:ds__x-1 c:ds__x-1"; got != want {
			t.Errorf("order %s, want %s", got, want)
		}
	})
}

// Progress events carry the cell; the renderers count per cell.
func TestSweepProgressCarriesCell(t *testing.T) {
	log := &orderLog{}
	insts := instances("ds", 2)
	a, b := testCell(t, "a", insts, log), testCell(t, "b", insts, log)
	var lines strings.Builder
	p := &Lines{W: &lines}
	if _, err := Sweep(context.Background(), []Cell{a, b}, SweepOptions{Workers: 1, Backend: newFakeBackend(1), Progress: p}); err != nil {
		t.Fatal(err)
	}
	out := lines.String()
	for _, want := range []string{"sweep of 2 cells:", "[1/4] a ds__x-0 Submitted", "[4/4] b ds__x-1 Submitted"} {
		if !strings.Contains(out, want) {
			t.Errorf("lines output lacks %q:\n%s", want, out)
		}
	}
	if got := p.t.byCell["b"].done; got != 2 {
		t.Errorf("cell b counted %d done, want 2", got)
	}
}

// The live display shows one line per cell: done/total, resolved so far, cost.
func TestBarShowsCells(t *testing.T) {
	var buf strings.Builder
	b := &Bar{W: &buf}
	b.StartCells([]CellTotal{{Name: "sonnet-r1", Total: 2}, {Name: "gpt5-r1", Total: 2, Skipped: 1}})
	b.Start(4, 1)
	b.Event(Event{Cell: "sonnet-r1", Instance: "x__y-1", Phase: PhaseStep, Step: 3, Cost: 0.25})
	b.Event(Event{Cell: "sonnet-r1", Instance: "x__y-1", Phase: PhaseEvaluated, Resolved: true})
	b.Event(Event{Cell: "sonnet-r1", Instance: "x__y-1", Phase: PhaseDone, ExitStatus: "Submitted", Cost: 0.5})
	b.Event(Event{Cell: "gpt5-r1", Instance: "x__y-1", Phase: PhaseStep, Step: 2, Cost: 0.125})
	b.Finish()
	out := buf.String()
	for _, want := range []string{"sonnet-r1 1/2  resolved 1/1  $0.5000", "gpt5-r1   0/2 (+1 earlier)  $0.0000", "gpt5-r1 x__y-1", "step 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("display lacks %q:\n%s", want, out)
		}
	}
}
