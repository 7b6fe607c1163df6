package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"golang.org/x/sync/errgroup"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
)

// ScaleSpec is one scale test: Instances instances of Steps turns, each turn's model call
// sleeping Delay, on Workers workers.
type ScaleSpec struct {
	Instances, Workers int
	Delay              time.Duration
	// Launcher is the run's environment.launcher ("" leaves the config's default, auto).
	Launcher string
}

// Ideal is the time of a perfect pool with free containers: ceil(Instances/Workers) waves of
// Steps × Delay.
func (s ScaleSpec) Ideal() time.Duration {
	waves := math.Ceil(float64(s.Instances) / float64(s.Workers))
	return time.Duration(waves) * Steps * s.Delay
}

// Scale is the outcome of a scale test of the binary and of the bare-Docker floor.
type Scale struct {
	Spec      ScaleSpec
	Usage     Usage // the binary's process
	Statuses  map[string]int
	Breakdown Breakdown
	// Busy is the CPU time the whole machine spent (all processes, /proc/stat) during the run;
	// Engine that of the Docker engine's processes (EngineCPU), Containers that of the
	// containers' processes (ContainersCPU: the commands, the launchers, PID 1).
	Busy, Engine, Containers time.Duration
	Floor                    Floor // the same work done with bare Docker calls in-process (zero: not measured)
	// Errors holds the first error message recorded for each exit status other than Submitted.
	Errors map[string]string
}

func (s Scale) Efficiency() float64 { return float64(s.Spec.Ideal()) / float64(s.Usage.Wall) }

// Breakdown summarizes the ledger timings of a run, per instance.
type Breakdown struct {
	WaitImage  Sample // queued_at → image_ready_at (includes waiting for a free worker)
	ToFirst    Sample // image_ready_at → first_step_at: container create+start, first model call and exec
	FirstToEnd Sample // first_step_at → ended_at: the other Steps-1 model calls and execs
	Overhead   Sample // image_ready_at → ended_at minus Steps × Delay: what is not model time
}

// ScaleIDs names the instances of a scale test.
func ScaleIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("bench__scale-%05d", i)
	}
	return ids
}

// MeasureScale runs the binary over a synthetic dataset with the scripted model.
func MeasureScale(ctx context.Context, bin, tmp string, s ScaleSpec) (Scale, error) {
	dir := filepath.Join(tmp, fmt.Sprintf("scale-%d-%d", s.Instances, s.Workers))
	ids := ScaleIDs(s.Instances)
	scripts := map[string][]model.ScriptedTurn{}
	for _, id := range ids {
		scripts[id] = Turns(s.Delay)
	}
	ds, script, err := WriteDataset(dir, ids, scripts)
	if err != nil {
		return Scale{}, err
	}
	out := filepath.Join(dir, "out")
	os.RemoveAll(out)
	args := append([]string{"run", "--split", ds, "--model", "scripted:" + script, "-o", out, "--progress", "none"}, RunArgs(s.Workers)...)
	if s.Launcher != "" {
		args = append(args, "-c", "environment.launcher="+s.Launcher)
	}
	busy0, meter, cont0 := MachineBusy(), StartEngineMeter(), ContainersCPU()
	u, err := TimeBinary(ctx, bin, args, nil)
	engine := meter.Stop()
	if err != nil {
		return Scale{}, err
	}
	busy, cont := MachineBusy()-busy0, ContainersCPU()-cont0
	h, _, err := results.ReadLedger(out)
	if err != nil {
		return Scale{}, err
	}
	res := Scale{Spec: s, Usage: u, Busy: busy, Engine: engine, Containers: cont, Statuses: map[string]int{}, Errors: map[string]string{}}
	var wait, first, rest, over []time.Duration
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	for _, recs := range h {
		r := recs[len(recs)-1]
		res.Statuses[r.ExitStatus]++
		if _, ok := res.Errors[r.ExitStatus]; !ok && r.ExitStatus != "Submitted" {
			res.Errors[r.ExitStatus] = r.Error
		}
		wait = append(wait, sec(r.ImageReady-r.Queued))
		first = append(first, sec(r.FirstStep-r.ImageReady))
		rest = append(rest, sec(r.End-r.FirstStep))
		over = append(over, sec(r.End-r.ImageReady)-Steps*s.Delay)
	}
	res.Breakdown = Breakdown{WaitImage: Summarize(wait), ToFirst: Summarize(first), FirstToEnd: Summarize(rest), Overhead: Summarize(over)}
	return res, nil
}

// Floor is the outcome of the bare-Docker floor of a scale test.
type Floor struct {
	Wall time.Duration
	Busy time.Duration // CPU time of the whole machine during it
	// Failed counts the container lives that failed (an overloaded engine refuses some), and
	// FirstError is the first such error.
	Failed     int
	FirstError string
}

// MachineBusy is the CPU time the machine has spent busy since boot, all cores together
// (/proc/stat: user, nice, system, irq, softirq, steal), or 0 where /proc/stat is missing.
func MachineBusy() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ is 100 on Linux
}

// MeasureFloor does the work of a scale test with bare Docker calls in-process, the floor any
// runner on this engine faces: Workers goroutines, each instance a raw create, start, Steps ×
// (sleep Delay, exec), forced removal.
func MeasureFloor(ctx context.Context, d *Docker, s ScaleSpec) (Floor, error) {
	g, gctx := errgroup.WithContext(ctx)
	var f Floor
	g.SetLimit(s.Workers)
	var mu sync.Mutex
	var ids []string
	defer func() {
		for _, id := range ids {
			d.Cli.ContainerRemove(context.WithoutCancel(ctx), id, client.ContainerRemoveOptions{Force: true})
		}
	}()
	start, busy0 := time.Now(), MachineBusy()
	for i := range s.Instances {
		g.Go(func() error {
			if err := floorLife(gctx, d, s, i, &mu, &ids); err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				mu.Lock()
				if f.Failed++; f.FirstError == "" {
					f.FirstError = err.Error()
				}
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Floor{}, err
	}
	f.Wall, f.Busy = time.Since(start), MachineBusy()-busy0
	return f, nil
}

// floorLife is one container life of the floor: raw create, start, Steps × (sleep, exec), removal.
func floorLife(ctx context.Context, d *Docker, s ScaleSpec, i int, mu *sync.Mutex, ids *[]string) error {
	pids := int64(4096)
	res, err := d.Cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name: fmt.Sprintf("swebench-run-bench-floor-%d-%d", os.Getpid(), i),
		Config: &container.Config{Image: BaseImage, Entrypoint: []string{}, WorkingDir: "/tmp",
			Cmd:    []string{"bash", "-c", `trap "exit 0" TERM; end=$((SECONDS+14400)); while [ $SECONDS -lt $end ]; do sleep 10 & wait $!; done`},
			Labels: dockerenv.WithTestSession(map[string]string{dockerenv.LabelTool: "1", dockerenv.LabelRun: RunID, dockerenv.LabelOwner: dockerenv.Owner()})},
		HostConfig: &container.HostConfig{NetworkMode: container.NetworkMode(Network), Resources: container.Resources{PidsLimit: &pids}},
	})
	if err != nil {
		return err
	}
	mu.Lock()
	*ids = append(*ids, res.ID)
	mu.Unlock()
	if _, err := d.Cli.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
		return err
	}
	for range Steps {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(s.Delay):
		}
		if _, err := RawExec(ctx, d.Cli, res.ID, "/tmp", PlainArgv); err != nil {
			return err
		}
	}
	_, err = d.Cli.ContainerRemove(ctx, res.ID, client.ContainerRemoveOptions{Force: true})
	return err
}

// label names the launcher setting of a scale run in its rows ("" for the default).
func (s ScaleSpec) label() string {
	if s.Launcher == "" {
		return ""
	}
	return ", launcher " + s.Launcher
}

// CapacityRows compares the machine capacity of scale runs of the same size with the launcher
// and without: container lives per CPU second of the engine's processes and the runner's (and
// with the CPU of the engine's containers, and of the whole machine, both of which other work
// on a shared machine inflates).
func CapacityRows(on, off Scale) []Row {
	per := func(s Scale, d time.Duration) float64 { return float64(s.Spec.Instances) / d.Seconds() }
	runner := func(s Scale) time.Duration { return time.Duration(s.Usage.CPUSec() * float64(time.Second)) }
	cost := func(s Scale) time.Duration { return s.Engine + runner(s) }
	life := func(s Scale, d time.Duration) float64 { return d.Seconds() / float64(s.Spec.Instances) }
	return []Row{{
		What: fmt.Sprintf("machine capacity with the launcher and without (%d instances × %d commands, %d workers)", on.Spec.Instances, Steps, on.Spec.Workers),
		Measured: fmt.Sprintf("container lives per CPU second of the engine and the runner: launcher %.2f, exec %.2f (%.2f×; %.2f vs %.2f CPU s per life); with the containers' CPU %.2f vs %.2f (%.2f×); per CPU second of the whole machine %.3f vs %.3f; wall %s vs %s",
			per(on, cost(on)), per(off, cost(off)), per(on, cost(on))/per(off, cost(off)), life(on, cost(on)), life(off, cost(off)),
			per(on, cost(on)+on.Containers), per(off, cost(off)+off.Containers), per(on, cost(on)+on.Containers)/per(off, cost(off)+off.Containers),
			per(on, on.Busy), per(off, off.Busy),
			on.Usage.Wall.Round(10*time.Millisecond), off.Usage.Wall.Round(10*time.Millisecond)),
		NA: true,
	}}
}

func (s Scale) Rows() []Row {
	sp := s.Spec
	eff := s.Efficiency()
	rows := []Row{{
		What:     fmt.Sprintf("scale: %d instances, %d workers, %d steps × %s model time%s", sp.Instances, sp.Workers, Steps, sp.Delay, sp.label()),
		Measured: fmt.Sprintf("ideal %s ÷ actual %s = %.3f (statuses %v)", sp.Ideal(), s.Usage.Wall.Round(10*time.Millisecond), eff, s.Statuses),
		Goal:     "≥ 0.95", Pass: eff >= 0.95,
	}}
	if s.Floor.Wall > 0 {
		rows = append(rows, Row{What: fmt.Sprintf("scale floor: same work with bare Docker calls, %d workers", sp.Workers),
			Measured: fmt.Sprintf("ideal %s ÷ actual %s = %.3f; runner ÷ floor wall time %.3f×", sp.Ideal(), s.Floor.Wall.Round(10*time.Millisecond),
				float64(sp.Ideal())/float64(s.Floor.Wall), float64(s.Usage.Wall)/float64(s.Floor.Wall)), NA: true})
		if s.Floor.Failed > 0 {
			rows[len(rows)-1].Measured += fmt.Sprintf("; %d of %d container lives failed, the first: %s", s.Floor.Failed, sp.Instances, s.Floor.FirstError)
		}
	}
	if s.Busy > 0 {
		rows = append(rows, s.capacityRow())
	}
	for st, e := range s.Errors {
		if len(e) > 300 {
			e = e[:300] + "…"
		}
		rows[0].Measured += fmt.Sprintf("; first %s: %s", st, e)
	}
	b := s.Breakdown
	rows = append(rows, Row{What: fmt.Sprintf("scale breakdown, %d workers (median / p90 per instance)", sp.Workers),
		Measured: fmt.Sprintf("queued→image ready %s / %s; image ready→first step (container start + 1 step) %s / %s; first step→end %s / %s; not model time %s / %s",
			b.WaitImage.Median.Round(time.Millisecond), b.WaitImage.P90.Round(time.Millisecond),
			b.ToFirst.Median.Round(time.Millisecond), b.ToFirst.P90.Round(time.Millisecond),
			b.FirstToEnd.Median.Round(time.Millisecond), b.FirstToEnd.P90.Round(time.Millisecond),
			b.Overhead.Median.Round(time.Millisecond), b.Overhead.P90.Round(time.Millisecond)), NA: true})
	rss := float64(s.Usage.MaxRSSKiB) / 1024
	fp := Row{What: fmt.Sprintf("footprint at %d workers", sp.Workers),
		Measured: fmt.Sprintf("peak RSS %.1f MB, CPU %.2f s (user %.2f, sys %.2f)", rss, s.Usage.CPUSec(), s.Usage.UserSec, s.Usage.SysSec)}
	if sp.Workers >= 256 {
		fp.Goal, fp.Pass = "RSS ≤ 150 MB", rss <= 150
	} else {
		fp.NA = true
	}
	return append(rows, fp)
}

// capacityRow relates the run to the machine's capacity: the CPU time that one container life
// costs the machine bounds how fast any runner can go. That cost is the smaller of the floor's
// (bare Docker calls, the benchmark process's own CPU included; the floor starts all its
// containers at once, which costs the engine more) and that of the runner's run minus the
// runner process's CPU.
func (s Scale) capacityRow() Row {
	sp := s.Spec
	cores := runtime.NumCPU()
	runEngine := (s.Busy - time.Duration(s.Usage.CPUSec()*float64(time.Second))) / time.Duration(sp.Instances)
	perInst, from := runEngine, "the runner's run"
	if f := s.Floor.Busy / time.Duration(sp.Instances); f > 0 && f < perInst {
		perInst, from = f, "the floor"
	}
	minWall := time.Duration(sp.Instances) * perInst / time.Duration(cores)
	best := min(1, float64(sp.Ideal())/float64(minWall))
	return Row{What: fmt.Sprintf("scale: machine capacity, %d workers", sp.Workers),
		Measured: fmt.Sprintf("one container life costs the machine %.2f CPU s in the runner's run (besides the runner's own %.1f s) and %.2f s in the floor's; at the cheaper (%s), %d of them need ≥ %s of %d cores → best possible efficiency on this machine %.3f; the runner reached %.0f%% of it (machine busy %.0f%% during the run)",
			runEngine.Seconds(), s.Usage.CPUSec(), (s.Floor.Busy / time.Duration(sp.Instances)).Seconds(), from,
			sp.Instances, minWall.Round(time.Second), cores, best, 100*s.Efficiency()/best,
			100*s.Busy.Seconds()/(float64(cores)*s.Usage.Wall.Seconds())),
		NA: true}
}
