package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/runner"
	"github.com/swebench-run/swebench-run/sandbox"
)

// Steps is the number of model turns (and commands) of every benchmark instance; the last one
// submits.
const Steps = 5

// Turns returns the scripted turns of one benchmark instance: Steps-1 `true` commands, then a
// submission, each after delay.
func Turns(delay time.Duration) []model.ScriptedTurn {
	turns := make([]model.ScriptedTurn, Steps)
	for i := range turns {
		turns[i] = model.ScriptedTurn{Content: fmt.Sprintf("step %d", i+1), Commands: []string{"true"}, Delay: delay}
	}
	turns[Steps-1].Commands = []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}
	return turns
}

// RunnerInstance runs one instance through runner.Run in-process (scripted model without delay)
// into a fresh output directory under tmp and returns its wall time: image check, container
// create and start, the agent loop's Steps execs, trajectory, ledger and preds writes, removal.
func RunnerInstance(ctx context.Context, d *Docker, tmp string, i int) (time.Duration, error) {
	return runnerInstance(ctx, d.Pool, tmp, i, sandbox.Limits{NetworkMode: Network})
}

// runnerInstance is RunnerInstance on any backend.
func runnerInstance(ctx context.Context, backend sandbox.Backend, tmp string, i int, limits sandbox.Limits) (time.Duration, error) {
	cfg, err := configs.Load(nil, []string{"environment.cwd=/tmp"})
	if err != nil {
		return 0, err
	}
	out, err := results.Open(fmt.Sprintf("%s/overhead-%d", tmp, i))
	if err != nil {
		return 0, err
	}
	defer out.Close()
	id := fmt.Sprintf("bench__overhead-%d", i)
	inst := dataset.Instance{InstanceID: id, ProblemStatement: "Do nothing.", Image: BaseImage}
	opts := runner.Options{
		RunID: RunID, Version: "bench", Workers: 1, Config: cfg, ModelName: "scripted",
		Models:  model.NewScripted(map[string][]model.ScriptedTurn{id: Turns(0)}),
		Backend: backend, Out: out, Limits: limits,
	}
	start := time.Now()
	sum, err := runner.Run(ctx, []dataset.Instance{inst}, opts)
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	if sum.ByStatus["Submitted"] != 1 {
		return 0, fmt.Errorf("instance did not submit: %v", sum.ByStatus)
	}
	return took, nil
}

// SweepCells is the number of cells of the sweep variant of the instance overhead.
const SweepCells = 2

// SweepInstance runs one instance in each of SweepCells cells (each its own output directory
// under tmp, as the cells of a sweep) through runner.Sweep in-process, with one worker, and
// returns the wall time per instance: the same instance life as RunnerInstance, scheduled by the
// sweep (paired order over the cells, per-cell state, image demand across cells).
func SweepInstance(ctx context.Context, d *Docker, tmp string, i int) (time.Duration, error) {
	cfg, err := configs.Load(nil, []string{"environment.cwd=/tmp"})
	if err != nil {
		return 0, err
	}
	id := fmt.Sprintf("bench__sweep-%d", i)
	inst := dataset.Instance{InstanceID: id, ProblemStatement: "Do nothing.", Image: BaseImage}
	cells := make([]runner.Cell, SweepCells)
	for k := range cells {
		out, err := results.Open(fmt.Sprintf("%s/sweep-%d/cell-%d", tmp, i, k))
		if err != nil {
			return 0, err
		}
		defer out.Close()
		cells[k] = runner.Cell{
			Name: fmt.Sprintf("cell-%d", k), RunID: RunID, Config: cfg, ModelName: "scripted", Out: out,
			Models:    model.NewScripted(map[string][]model.ScriptedTurn{id: Turns(0)}),
			Instances: []dataset.Instance{inst},
		}
	}
	start := time.Now()
	sw, err := runner.Sweep(ctx, cells, runner.SweepOptions{Version: "bench", Workers: 1, Backend: d.Pool, Limits: sandbox.Limits{NetworkMode: Network}})
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	for _, c := range sw.Cells {
		if c.ByStatus["Submitted"] != 1 {
			return 0, fmt.Errorf("cell %s: instance did not submit: %v", c.Name, c.ByStatus)
		}
	}
	return took / SweepCells, nil
}

// BareInstance does the bare Docker calls of the same container life with the raw client:
// create (same config), start, Steps execs, forced removal.
func BareInstance(ctx context.Context, d *Docker, i int) (time.Duration, error) {
	pids := int64(4096)
	start := time.Now()
	res, err := d.Cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name: fmt.Sprintf("swebench-run-bench-bare-%d-%d", os.Getpid(), i),
		Config: &container.Config{
			Image: BaseImage, Entrypoint: []string{}, WorkingDir: "/tmp",
			Cmd:    []string{"bash", "-c", `trap "exit 0" TERM; end=$((SECONDS+14400)); while [ $SECONDS -lt $end ]; do sleep 10 & wait $!; done`},
			Labels: dockerenv.WithTestSession(map[string]string{dockerenv.LabelTool: "1", dockerenv.LabelRun: RunID, dockerenv.LabelOwner: dockerenv.Owner()}),
		},
		HostConfig: &container.HostConfig{NetworkMode: container.NetworkMode(Network), Resources: container.Resources{PidsLimit: &pids}},
	})
	if err != nil {
		return 0, err
	}
	defer d.Cli.ContainerRemove(context.WithoutCancel(ctx), res.ID, client.ContainerRemoveOptions{Force: true})
	if _, err := d.Cli.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
		return 0, err
	}
	for s := range Steps {
		argv := PlainArgv
		if s == Steps-1 {
			argv = []string{"bash", "-c", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}
		}
		if _, err := RawExec(ctx, d.Cli, res.ID, "/tmp", argv); err != nil {
			return 0, err
		}
	}
	if _, err := d.Cli.ContainerRemove(ctx, res.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// Overhead is the result of the instance-overhead comparison.
type Overhead struct {
	Runner, Sweep, Bare Sample
	Ratios              []float64 // runner ÷ bare of each interleaved triple
	SweepRatios         []float64 // sweep (per instance) ÷ bare
	SweepVsRun          []float64 // sweep (per instance) ÷ runner
}

// MeasureOverhead alternates n bare container lives, n runner instances and n sweeps of
// SweepCells cells of one instance each.
func MeasureOverhead(ctx context.Context, d *Docker, n int, tmp string, log io.Writer) (Overhead, error) {
	var r, sw, b []time.Duration
	var o Overhead
	for i := range n {
		tb, err := BareInstance(ctx, d, i)
		if err != nil {
			return Overhead{}, fmt.Errorf("bare instance: %w", err)
		}
		tr, err := RunnerInstance(ctx, d, tmp, i)
		if err != nil {
			return Overhead{}, fmt.Errorf("runner instance: %w", err)
		}
		ts, err := SweepInstance(ctx, d, tmp, i)
		if err != nil {
			return Overhead{}, fmt.Errorf("sweep instance: %w", err)
		}
		r, sw, b = append(r, tr), append(sw, ts), append(b, tb)
		o.Ratios = append(o.Ratios, float64(tr)/float64(tb))
		o.SweepRatios = append(o.SweepRatios, float64(ts)/float64(tb))
		o.SweepVsRun = append(o.SweepVsRun, float64(ts)/float64(tr))
		if log != nil {
			fmt.Fprintf(log, "instance overhead %d/%d: runner %s, sweep %s per instance, bare %s\n", i+1, n, tr.Round(time.Millisecond), ts.Round(time.Millisecond), tb.Round(time.Millisecond))
		}
	}
	o.Runner, o.Sweep, o.Bare = Summarize(r), Summarize(sw), Summarize(b)
	return o, nil
}

func (o Overhead) Rows() []Row {
	ratio := float64(o.Runner.Median) / float64(o.Bare.Median)
	sweep := float64(o.Sweep.Median) / float64(o.Bare.Median)
	return []Row{
		{What: fmt.Sprintf("instance: runner, %d steps, no model time", Steps), Measured: fmt.Sprintf("median %s, p90 %s (n=%d)", ms(o.Runner.Median), ms(o.Runner.P90), o.Runner.N), NA: true},
		{What: fmt.Sprintf("instance: sweep of %d cells, per instance", SweepCells), Measured: fmt.Sprintf("median %s, p90 %s (n=%d)", ms(o.Sweep.Median), ms(o.Sweep.P90), o.Sweep.N), NA: true},
		{What: "instance: bare Docker calls (create, start, execs, remove)", Measured: fmt.Sprintf("median %s, p90 %s (n=%d)", ms(o.Bare.Median), ms(o.Bare.P90), o.Bare.N), NA: true},
		{What: "instance overhead: runner ÷ bare", Measured: fmt.Sprintf("%.3f× (ratio of medians; median of paired ratios %.3f×)", ratio, MedianFloat(o.Ratios)),
			Goal: "≤ 1.15×", Pass: ratio <= 1.15},
		{What: "instance overhead in a sweep: sweep ÷ bare", Measured: fmt.Sprintf("%.3f× (ratio of medians; median of paired ratios %.3f×); sweep ÷ run %.3f× (median of paired ratios)", sweep, MedianFloat(o.SweepRatios), MedianFloat(o.SweepVsRun)),
			Goal: "≤ 1.15×, and ≤ 1.05× the run's", Pass: sweep <= 1.15 && MedianFloat(o.SweepVsRun) <= 1.05},
	}
}
