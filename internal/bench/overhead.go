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
	Runner, Bare Sample
	Ratios       []float64 // runner ÷ bare of each interleaved pair
}

// MeasureOverhead alternates n runner instances with n bare container lives.
func MeasureOverhead(ctx context.Context, d *Docker, n int, tmp string, log io.Writer) (Overhead, error) {
	var r, b []time.Duration
	var ratios []float64
	for i := range n {
		tb, err := BareInstance(ctx, d, i)
		if err != nil {
			return Overhead{}, fmt.Errorf("bare instance: %w", err)
		}
		tr, err := RunnerInstance(ctx, d, tmp, i)
		if err != nil {
			return Overhead{}, fmt.Errorf("runner instance: %w", err)
		}
		r, b = append(r, tr), append(b, tb)
		ratios = append(ratios, float64(tr)/float64(tb))
		if log != nil {
			fmt.Fprintf(log, "instance overhead %d/%d: runner %s, bare %s\n", i+1, n, tr.Round(time.Millisecond), tb.Round(time.Millisecond))
		}
	}
	return Overhead{Runner: Summarize(r), Bare: Summarize(b), Ratios: ratios}, nil
}

func (o Overhead) Rows() []Row {
	ratio := float64(o.Runner.Median) / float64(o.Bare.Median)
	return []Row{
		{What: fmt.Sprintf("instance: runner, %d steps, no model time", Steps), Measured: fmt.Sprintf("median %s, p90 %s (n=%d)", ms(o.Runner.Median), ms(o.Runner.P90), o.Runner.N), NA: true},
		{What: "instance: bare Docker calls (create, start, execs, remove)", Measured: fmt.Sprintf("median %s, p90 %s (n=%d)", ms(o.Bare.Median), ms(o.Bare.P90), o.Bare.N), NA: true},
		{What: "instance overhead: runner ÷ bare", Measured: fmt.Sprintf("%.3f× (ratio of medians; median of paired ratios %.3f×)", ratio, MedianFloat(o.Ratios)),
			Goal: "≤ 1.15×", Pass: ratio <= 1.15},
	}
}
