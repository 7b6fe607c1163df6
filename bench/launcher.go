package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/client"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/launcher"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/runner"
	"github.com/swebench-run/swebench-run/sandbox"
)

// LauncherBinaries are the launcher programs of the benchmarks' launcher engine (default: those
// embedded by make build; the tests build them from source).
var LauncherBinaries launcher.Binaries = launcher.Embedded

// EngineCPU is the CPU time the Docker engine's processes have spent: dockerd, containerd and
// the containerd shims, with the children they reaped (runc, fuse-overlayfs).
func EngineCPU() time.Duration {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var ticks int64
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil {
			continue
		}
		c := strings.TrimSpace(string(comm))
		if c != "dockerd" && c != "containerd" && !strings.HasPrefix(c, "containerd-shim") {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat)[i+1:])
		for _, k := range []int{11, 12, 13, 14} { // utime stime cutime cstime
			n, _ := strconv.ParseInt(f[k], 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ is 100 on Linux
}

// ContainersCPU is the CPU time of every Docker container's processes so far (the parent
// cgroup of the containers, which keeps the time of those removed), 0 where it cannot be read.
func ContainersCPU() time.Duration {
	if data, err := os.ReadFile("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage"); err == nil { // v1: ns
		n, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		return time.Duration(n)
	}
	for _, dir := range []string{"/sys/fs/cgroup/docker", "/sys/fs/cgroup/system.slice"} { // v2
		if data, err := os.ReadFile(filepath.Join(dir, "cpu.stat")); err == nil {
			if v, ok := strings.CutPrefix(string(data), "usage_usec "); ok {
				n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
				return time.Duration(n) * time.Microsecond
			}
		}
	}
	return 0
}

// selfCPU is this process's user and system time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// containerCPU returns a function reading the CPU time of the container's cgroup (its processes
// and everything exec'd or forked in it), 0 where it cannot be read.
func containerCPU(ctx context.Context, cli *client.Client, id string) func() time.Duration {
	ins, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil || ins.Container.State == nil || ins.Container.State.Pid == 0 {
		return func() time.Duration { return 0 }
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", ins.Container.State.Pid))
	if err != nil {
		return func() time.Duration { return 0 }
	}
	// cgroup v1 (cpuacct, nanoseconds) where it is mounted, else v2 (cpu.stat, microseconds).
	var file string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var candidate string
		switch {
		case strings.Contains(parts[1], "cpuacct"):
			candidate = filepath.Join("/sys/fs/cgroup/cpuacct", parts[2], "cpuacct.usage")
		case parts[0] == "0" && parts[1] == "":
			candidate = filepath.Join("/sys/fs/cgroup", parts[2], "cpu.stat")
		}
		if _, err := os.Stat(candidate); candidate != "" && err == nil && (file == "" || strings.HasSuffix(candidate, "cpuacct.usage")) {
			file = candidate
		}
	}
	return func() time.Duration {
		data, err := os.ReadFile(file)
		if err != nil {
			return 0
		}
		s := string(data)
		if v, ok := strings.CutPrefix(s, "usage_usec "); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return time.Duration(n) * time.Microsecond
		}
		n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64) // cgroup v1: nanoseconds
		return time.Duration(n)
	}
}

// cost is the wall and CPU time of a batch of commands.
type cost struct {
	wall, cpu time.Duration
	n         int
}

func (c cost) perWall() time.Duration { return c.wall / time.Duration(max(1, c.n)) }
func (c cost) perCPU() time.Duration  { return c.cpu / time.Duration(max(1, c.n)) }

// CommandCost is the per-command cost of `true` through the launcher, through exec, and forked
// by a shell inside the container (the floor), medians over rounds.
type CommandCost struct {
	Launcher, Exec, Floor, FloorArgv struct{ Wall, CPU time.Duration }
	N, Rounds                        int
	LauncherStart                    time.Duration // median of the launcher's start (copy, exec, hello), from the container starts
}

// MeasureCommandCost runs n commands of `true` per method, in rounds of 50 that take turns: our
// Exec with the launcher, our Exec with exec (both with the runner's options), and the floor, a
// loop of `bash -c true` in one exec (and the same loop with our argv, sh joining stderr and
// exec'ing bash). Each round's CPU is that of the engine's processes, of the container's
// cgroup (the commands themselves and the launcher) and of this process (the client), over
// the commands of the round.
func MeasureCommandCost(ctx context.Context, d *Docker, n int, log io.Writer) (CommandCost, error) {
	withL, err := d.StartLaunched(ctx, "cost-launcher")
	if err != nil {
		return CommandCost{}, err
	}
	defer withL.Remove(ctx)
	if withL.LauncherPID() == 0 {
		return CommandCost{}, fmt.Errorf("the launcher did not start (is it built? make launcher)")
	}
	withE, err := d.StartBase(ctx, "cost-exec")
	if err != nil {
		return CommandCost{}, err
	}
	defer withE.Remove(ctx)
	cgL, cgE := containerCPU(ctx, d.Cli, withL.ID()), containerCPU(ctx, d.Cli, withE.ID())
	opts := RunnerExecOptions()
	measure := func(cg func() time.Duration, k int, f func() error) (cost, error) {
		e0, c0, s0, t0 := EngineCPU(), cg(), selfCPU(), time.Now()
		if err := f(); err != nil {
			return cost{}, err
		}
		return cost{wall: time.Since(t0), cpu: EngineCPU() - e0 + cg() - c0 + selfCPU() - s0, n: k}, nil
	}
	loop := func(c *dockerenv.Container, k int, cmd string) func() error {
		return func() error {
			res, err := c.Exec(ctx, cmd, sandbox.ExecOptions{Timeout: 10 * time.Minute, Cwd: "/tmp"})
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("floor loop exited %d: %s", res.ExitCode, res.Output)
			}
			return err
		}
	}
	each := func(c *dockerenv.Container, k int) func() error {
		return func() error {
			for range k {
				if _, err := OurExec(ctx, c, opts); err != nil {
					return err
				}
			}
			return nil
		}
	}
	var rl, re, rf, ra, rz []cost
	for range 3 { // warm up
		if _, err := OurExec(ctx, withL, opts); err != nil {
			return CommandCost{}, err
		}
		if _, err := OurExec(ctx, withE, opts); err != nil {
			return CommandCost{}, err
		}
	}
	rounds := 0
	for done := 0; done < n; rounds++ {
		k := min(50, n-done)
		for _, m := range []struct {
			dst *[]cost
			cg  func() time.Duration
			f   func() error
		}{
			{&rl, cgL, each(withL, k)},
			{&re, cgE, each(withE, k)},
			{&rf, cgE, loop(withE, k, fmt.Sprintf(`for i in $(seq %d); do bash -c true; done`, k))},
			{&ra, cgE, loop(withE, k, fmt.Sprintf(`for i in $(seq %d); do sh -c 'exec "$@" 2>&1' sh bash -c true; done`, k))},
			{&rz, cgE, loop(withE, 0, `for i in $(seq 0); do bash -c true; done`)},
		} {
			c, err := measure(m.cg, k, m.f)
			if err != nil {
				return CommandCost{}, err
			}
			*m.dst = append(*m.dst, c)
		}
		// The floor's loops ran in one exec each: the exec of the empty loop is taken off.
		z := rz[len(rz)-1]
		for _, f := range []*[]cost{&rf, &ra} {
			c := &(*f)[len(*f)-1]
			c.wall, c.cpu = max(0, c.wall-z.wall), max(0, c.cpu-z.cpu)
		}
		done += k
		if log != nil {
			fmt.Fprintf(log, "command cost: %d/%d\n", done, n)
		}
	}
	med := func(cs []cost) struct{ Wall, CPU time.Duration } {
		var w, c []time.Duration
		for _, x := range cs {
			w, c = append(w, x.perWall()), append(c, x.perCPU())
		}
		return struct{ Wall, CPU time.Duration }{Summarize(w).Median, Summarize(c).Median}
	}
	return CommandCost{Launcher: med(rl), Exec: med(re), Floor: med(rf), FloorArgv: med(ra), N: n, Rounds: rounds}, nil
}

func msf(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

// Rows renders the command cost with its goal.
func (c CommandCost) Rows() []Row {
	line := func(x struct{ Wall, CPU time.Duration }) string {
		return fmt.Sprintf("%s wall, %s CPU per command", msf(x.Wall), msf(x.CPU))
	}
	ratio := float64(c.Launcher.CPU) / float64(c.Floor.CPU)
	return []Row{
		{What: "command cost: `true` through the launcher (our `Exec`, runner options)", Measured: line(c.Launcher) + fmt.Sprintf(" (median of %d rounds, %d commands)", c.Rounds, c.N), NA: true},
		{What: "command cost: `true` through exec (our `Exec`, launcher off)", Measured: line(c.Exec), NA: true},
		{What: "command cost: the fork floor, `bash -c true` forked by a shell in the container", Measured: line(c.Floor) + "; with our argv (`sh -c 'exec \"$@\" 2>&1' sh bash -c true`): " + line(c.FloorArgv), NA: true},
		{What: "command cost: launcher ÷ fork floor (CPU)", Measured: fmt.Sprintf("%.2f× (exec ÷ launcher: %.1f× the CPU, %.1f× the wall time)", ratio,
			float64(c.Exec.CPU)/float64(c.Launcher.CPU), float64(c.Exec.Wall)/float64(c.Launcher.Wall)), Goal: "≤ 2×", Pass: ratio <= 2},
	}
}

// StartLaunched starts a container of the base image on the launcher engine.
func (d *Docker) StartLaunched(ctx context.Context, name string) (*dockerenv.Container, error) {
	return d.Launched.StartContainer(ctx, sandbox.Spec{Image: BaseImage, RunID: RunID, InstanceID: name, Cwd: "/tmp",
		Limits: sandbox.Limits{NetworkMode: Network}})
}

// InstanceCommands is the number of commands of the instance-cost comparison.
const InstanceCommands = 40

// InstanceCost compares one instance of InstanceCommands commands with the launcher and without.
type InstanceCost struct {
	Launcher, Exec       Sample
	LauncherCPU, ExecCPU time.Duration // medians of the engine's and the runner's CPU per instance
	// LauncherContainers, ExecContainers: medians of the CPU of every container of the engine
	// (shared with other work on the machine) per instance.
	LauncherContainers, ExecContainers time.Duration
	Ratios                             []float64 // exec ÷ launcher, paired
}

// MeasureInstanceCost alternates n runner instances (runner.Run in-process, the scripted model
// without delay, InstanceCommands-1 `true` then the submission) with the launcher and with exec.
func MeasureInstanceCost(ctx context.Context, d *Docker, n int, tmp string, log io.Writer) (InstanceCost, error) {
	var wl, we, cl, ce, kl, ke []time.Duration
	var o InstanceCost
	for i := range n {
		for _, m := range []struct {
			backend *dockerenv.Pool
			walls   *[]time.Duration
			cpus    *[]time.Duration
			conts   *[]time.Duration
			name    string
		}{{d.LaunchedPool, &wl, &cl, &kl, "launcher"}, {d.Pool, &we, &ce, &ke, "exec"}} {
			em, c0, s0 := StartEngineMeter(), ContainersCPU(), selfCPU()
			took, err := longInstance(ctx, m.backend, tmp, fmt.Sprintf("%s-%d", m.name, i))
			engine := em.Stop()
			if err != nil {
				return InstanceCost{}, fmt.Errorf("%s instance: %w", m.name, err)
			}
			*m.walls = append(*m.walls, took)
			*m.cpus = append(*m.cpus, engine+selfCPU()-s0)
			*m.conts = append(*m.conts, ContainersCPU()-c0)
		}
		o.Ratios = append(o.Ratios, float64(we[i])/float64(wl[i]))
		if log != nil {
			fmt.Fprintf(log, "instance cost %d/%d: launcher %s, exec %s\n", i+1, n, wl[i].Round(time.Millisecond), we[i].Round(time.Millisecond))
		}
	}
	o.Launcher, o.Exec = Summarize(wl), Summarize(we)
	o.LauncherCPU, o.ExecCPU = Summarize(cl).Median, Summarize(ce).Median
	o.LauncherContainers, o.ExecContainers = Summarize(kl).Median, Summarize(ke).Median
	return o, nil
}

func longInstance(ctx context.Context, backend sandbox.Backend, tmp, name string) (time.Duration, error) {
	cfg, err := configs.Load(nil, []string{"environment.cwd=/tmp"})
	if err != nil {
		return 0, err
	}
	out, err := results.Open(filepath.Join(tmp, "instance-"+name))
	if err != nil {
		return 0, err
	}
	defer out.Close()
	id := "bench__instance-" + name
	turns := make([]model.ScriptedTurn, InstanceCommands)
	for i := range turns {
		// Each command its own (true ignores its arguments): the config stops an agent that
		// repeats one action too often.
		turns[i] = model.ScriptedTurn{Content: fmt.Sprintf("step %d", i+1), Commands: []string{fmt.Sprintf("true %d", i+1)}}
	}
	turns[len(turns)-1].Commands = []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}
	inst := dataset.Instance{InstanceID: id, ProblemStatement: "Do nothing.", Image: BaseImage}
	start := time.Now()
	sum, err := runner.Run(ctx, []dataset.Instance{inst}, runner.Options{
		RunID: RunID, Version: "bench", Workers: 1, Config: cfg, ModelName: "scripted",
		Models: model.NewScripted(map[string][]model.ScriptedTurn{id: turns}), Backend: backend, Out: out,
		Limits: sandbox.Limits{NetworkMode: Network},
	})
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	if sum.ByStatus["Submitted"] != 1 {
		return 0, fmt.Errorf("instance did not submit: %v", sum.ByStatus)
	}
	return took, nil
}

func (o InstanceCost) Rows() []Row {
	return []Row{
		{What: fmt.Sprintf("instance of %d commands with the launcher (runner, no model time)", InstanceCommands),
			Measured: fmt.Sprintf("median %s, p90 %s (n=%d); CPU of the engine and the runner %s per instance, of the engine's containers %s", ms(o.Launcher.Median), ms(o.Launcher.P90), o.Launcher.N, msf(o.LauncherCPU), msf(o.LauncherContainers)), NA: true},
		{What: fmt.Sprintf("instance of %d commands with exec", InstanceCommands),
			Measured: fmt.Sprintf("median %s, p90 %s (n=%d); CPU of the engine and the runner %s per instance, of the engine's containers %s", ms(o.Exec.Median), ms(o.Exec.P90), o.Exec.N, msf(o.ExecCPU), msf(o.ExecContainers)), NA: true},
		{What: fmt.Sprintf("instance of %d commands: exec ÷ launcher", InstanceCommands),
			Measured: fmt.Sprintf("%.2f× the wall time (median of paired ratios %.2f×), %.2f× the engine's and the runner's CPU", float64(o.Exec.Median)/float64(o.Launcher.Median), MedianFloat(o.Ratios), float64(o.ExecCPU)/float64(o.LauncherCPU)), NA: true},
	}
}

// buildLauncher builds the launcher for this machine's architecture into launcher/bin, where
// a go build of cmd/swebench-run embeds it.
func buildLauncher(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join("launcher", "bin", "launcher-linux-"+runtime.GOARCH), "./launcher/cmd/launcher")
	cmd.Dir = RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build the launcher: %w: %s", err, out)
	}
	return nil
}

// SideBySide runs scripts/bench/vs_mini.py (mini-swe-agent's own batch runner against bin, with
// the launcher and without) over the mini-swe-agent checkout mini and returns its rows.
func SideBySide(ctx context.Context, mini, bin string, extra []string, log io.Writer) ([]Row, error) {
	f, err := os.CreateTemp("", "bench-vsmini-*.json")
	if err != nil {
		return nil, err
	}
	f.Close()
	defer os.Remove(f.Name())
	args := append([]string{filepath.Join(RepoRoot(), "scripts", "bench", "vs_mini.py"), mini, "--bin", bin, "--json", f.Name()}, extra...)
	cmd := exec.CommandContext(ctx, "python3", args...)
	cmd.Stdout, cmd.Stderr = io.Discard, log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("vs_mini.py: %w", err)
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return nil, err
	}
	var rows []Row
	return rows, json.Unmarshal(data, &rows)
}

// EngineMeter follows the CPU time of the Docker engine's processes (see EngineCPU) while
// containers come and go: each container's shim ends with it, taking its time out of a plain
// sum, so the meter samples the processes every 50 ms and adds up what each spent while seen.
type EngineMeter struct {
	stop chan struct{}
	done chan time.Duration
}

// StartEngineMeter starts a meter; Stop returns the engine's CPU time since the start.
func StartEngineMeter() *EngineMeter {
	m := &EngineMeter{stop: make(chan struct{}), done: make(chan time.Duration, 1)}
	go func() {
		engine := map[int]bool{} // pid → whether it is one of the engine's processes
		base, last := map[int]int64{}, map[int]int64{}
		sample := func(first bool) {
			entries, _ := os.ReadDir("/proc")
			for _, e := range entries {
				pid, err := strconv.Atoi(e.Name())
				if err != nil {
					continue
				}
				is, known := engine[pid]
				if !known {
					comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
					c := strings.TrimSpace(string(comm))
					is = c == "dockerd" || c == "containerd" || strings.HasPrefix(c, "containerd-shim")
					engine[pid] = is
				}
				if !is {
					continue
				}
				t, ok := procTicks(pid)
				if !ok {
					continue
				}
				if _, seen := base[pid]; !seen {
					if first {
						base[pid] = t
					} else {
						base[pid] = 0 // started during the measurement: all its time counts
					}
				}
				last[pid] = t
			}
		}
		sample(true)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-m.stop:
				sample(false)
				var ticks int64
				for pid, t := range last {
					ticks += t - base[pid]
				}
				m.done <- time.Duration(ticks) * time.Second / 100
				return
			case <-tick.C:
				sample(false)
			}
		}
	}()
	return m
}

// Stop ends the meter and returns the CPU time it measured.
func (m *EngineMeter) Stop() time.Duration {
	close(m.stop)
	return <-m.done
}

// procTicks is utime+stime+cutime+cstime of pid, in clock ticks.
func procTicks(pid int) (int64, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat)[i+1:])
	if len(f) < 15 {
		return 0, false
	}
	var ticks int64
	for _, k := range []int{11, 12, 13, 14} {
		n, _ := strconv.ParseInt(f[k], 10, 64)
		ticks += n
	}
	return ticks, true
}
