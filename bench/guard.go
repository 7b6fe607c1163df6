package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/runner/historyguard"
	"github.com/swebench-run/swebench-run/sandbox"
)

// BigRepoImage is the history guard's benchmark image (scripts/bench/build-big-repo-image.sh): a
// repository of 100,000 commits and about 1 GB of objects in /testbed, its last 1,000 commits a
// future named by a branch, tags and a remote-tracking ref.
const BigRepoImage = "swebench-run-bench/big-repo:1"

// GuardRepo is the guard's time on one repository, in a fresh container per mode.
type GuardRepo struct {
	Image                  string
	Commits, CommitsAfter  int    // HEAD's ancestry; every commit before (git rev-list --all)
	Size                   string // git count-objects -vH: size-pack before the guard
	SizeAfter              string // after past
	Past, None             time.Duration
	PastResult, NoneResult historyguard.Result
}

// MeasureGuardRepo runs the history guard with past and with none on the repository in /testbed
// of image, each in its own container, after setup (a shell command that makes the repository;
// "" when the image holds it).
func MeasureGuardRepo(ctx context.Context, d *Docker, image, setup string) (GuardRepo, error) {
	g := GuardRepo{Image: image}
	for _, mode := range []string{historyguard.Past, historyguard.None} {
		sb, err := d.Engine.Start(ctx, sandbox.Spec{Image: image, RunID: RunID, InstanceID: "bench__guard-" + mode, Role: "agent",
			Cwd: "/testbed", Limits: sandbox.Limits{NetworkMode: Network}})
		if err != nil {
			return g, err
		}
		sh := func(cmd string) (string, error) {
			res, err := sb.Exec(ctx, cmd, sandbox.ExecOptions{Timeout: time.Hour, Interpreter: []string{"bash", "-c"}})
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("%s: exit %d: %.2000s", cmd, res.ExitCode, res.Output)
			}
			return strings.TrimSpace(res.Output), err
		}
		err = func() error {
			if setup != "" {
				if _, err := sh(setup); err != nil {
					return err
				}
			}
			if mode == historyguard.Past {
				out, err := sh("git rev-list --count HEAD; git rev-list --count --all; git count-objects -vH | sed -n 's/^size-pack: //p'")
				if err != nil {
					return err
				}
				f := strings.Split(out, "\n")
				if len(f) != 3 {
					return fmt.Errorf("count: %q", out)
				}
				fmt.Sscan(f[0], &g.Commits)
				fmt.Sscan(f[1], &g.CommitsAfter)
				g.Size = f[2]
			}
			res, err := historyguard.Run(ctx, sb, mode, historyguard.Layout{Repo: "/testbed"})
			if err != nil {
				return err
			}
			if mode == historyguard.Past {
				g.Past, g.PastResult = time.Duration(res.Seconds*float64(time.Second)), res
				out, err := sh("git rev-list --count --all; git count-objects -vH | sed -n 's/^size-pack: //p'")
				if err != nil {
					return err
				}
				if f := strings.Split(out, "\n"); len(f) == 2 {
					var n int
					fmt.Sscan(f[0], &n)
					if n != g.Commits {
						return fmt.Errorf("after the guard git log --all has %d commits, HEAD had %d", n, g.Commits)
					}
					g.SizeAfter = f[1]
				}
			} else {
				g.None, g.NoneResult = time.Duration(res.Seconds*float64(time.Second)), res
			}
			return nil
		}()
		sb.Remove(context.WithoutCancel(ctx))
		if err != nil {
			return g, fmt.Errorf("guard %s: %w", mode, err)
		}
	}
	return g, nil
}

// Rows reports the guard's times.
func (g GuardRepo) Rows() []Row {
	return []Row{{
		What: fmt.Sprintf("history guard: a repository of %d commits (HEAD's ancestry; %d in all), %s of packs (`%s`)", g.Commits, g.CommitsAfter, g.Size, g.Image),
		Measured: fmt.Sprintf("past %.1f s (keeps %d commits, %s of packs after), none %.1f s (one commit); as status.jsonl's history_guard_seconds records it",
			g.Past.Seconds(), g.Commits, g.SizeAfter, g.None.Seconds()),
		NA: true,
	}}
}

// GuardDemo is the demo's wall time with the guard (past) and without it (as-is), runs of the
// binary taking turns.
type GuardDemo struct {
	Rounds     int
	Delay      time.Duration // the scripted model's time per call
	Past, AsIs []time.Duration
	// GuardSeconds are status.jsonl's history_guard_seconds of the past runs.
	GuardSeconds []float64
}

// MeasureGuardDemo runs the offline demo (demo/dataset.jsonl, the scripted model, 4 workers)
// with environment.history past and as-is, rounds times each, alternating; each model call of
// the demo's script takes delay (0: none, as the demo ships).
func MeasureGuardDemo(ctx context.Context, bin, tmp string, rounds int, delay time.Duration) (GuardDemo, error) {
	g := GuardDemo{Rounds: rounds, Delay: delay}
	split := filepath.Join(RepoRoot(), "demo", "dataset.jsonl")
	script := filepath.Join(RepoRoot(), "demo", "scripted.yaml")
	if delay > 0 {
		data, err := os.ReadFile(script)
		if err != nil {
			return g, err
		}
		var turns map[string][]model.ScriptedTurn
		if err := yaml.Unmarshal(data, &turns); err != nil {
			return g, err
		}
		for id := range turns {
			for i := range turns[id] {
				turns[id][i].Delay = delay
			}
		}
		out, _ := yaml.Marshal(turns)
		script = filepath.Join(tmp, "guard-demo-scripted.yaml")
		if err := os.WriteFile(script, out, 0o644); err != nil {
			return g, err
		}
	}
	for r := 0; r < rounds; r++ {
		for _, mode := range []string{"past", "as-is"} {
			out := filepath.Join(tmp, fmt.Sprintf("guard-demo-%s-%d", mode, r))
			cmd := exec.CommandContext(ctx, bin, "run", "--split", split, "--model", "scripted:"+script, "--workers", "4", "-o", out,
				"--progress", "none", "--network", Network, "-c", "environment.history="+mode)
			start := time.Now()
			if b, err := cmd.CombinedOutput(); err != nil {
				return g, fmt.Errorf("demo with history %s: %w: %.2000s", mode, err, b)
			}
			took := time.Since(start)
			if mode == "past" {
				g.Past = append(g.Past, took)
				data, err := os.ReadFile(filepath.Join(out, "status.jsonl"))
				if err != nil {
					return g, err
				}
				for _, line := range strings.Split(string(data), "\n") {
					if i := strings.Index(line, `"history_guard_seconds":`); i >= 0 {
						var s float64
						fmt.Sscan(strings.TrimRight(line[i+len(`"history_guard_seconds":`):], ",}"), &s)
						g.GuardSeconds = append(g.GuardSeconds, s)
					}
				}
			} else {
				g.AsIs = append(g.AsIs, took)
			}
			os.RemoveAll(out)
		}
	}
	return g, nil
}

// Rows reports the demo's wall time with the guard and without it.
func (g GuardDemo) Rows() []Row {
	p, a := Summarize(g.Past), Summarize(g.AsIs)
	ratio := float64(p.Median) / float64(a.Median)
	row := Row{
		What: fmt.Sprintf("history guard: the demo's wall time (6 instances, 4 workers, scripted model, %s per call), past ÷ as-is, %d runs each, taking turns", g.Delay, g.Rounds),
		Measured: fmt.Sprintf("%.3f× (median %s with the guard, %s without); the guard took median %.2f s per instance",
			ratio, p.Median.Round(time.Millisecond), a.Median.Round(time.Millisecond), MedianFloat(g.GuardSeconds)),
		Goal: "≤ 1.02×",
		Pass: ratio <= 1.02,
	}
	if g.Delay == 0 {
		// No model time: nothing hides the guard; the worst case, without a goal.
		row.What = fmt.Sprintf("history guard: the demo's wall time as shipped (6 instances, 4 workers, scripted model without model time: nothing overlaps the guard), past ÷ as-is, %d runs each, taking turns", g.Rounds)
		row.Goal, row.NA = "", true
	}
	return []Row{row}
}
