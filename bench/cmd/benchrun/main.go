// Command benchrun runs the benchmarks of bench and writes the results table (and how
// it was measured) as Markdown: `make bench` → scripts/bench/run.sh → this.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/bench"
)

func main() {
	var (
		out       = flag.String("o", "BENCHMARKS.md", "Markdown file to write (- for stdout only)")
		only      = flag.String("only", "roundtrip,cost,overhead,scale,capacity,flood,load,resume,export,guard,kube,proxy,mini", "measurements to run, comma-separated (guard: the demo's wall time with the history guard and without; guard-big: the guard on the 100,000-commit repository of scripts/bench/build-big-repo-image.sh, not run by default; kube: the Kubernetes backend on the cluster of $KUBECONFIG, default the test cluster of scripts/kube-up.sh; mini: the side-by-side with mini-swe-agent, which needs -mini)")
		costN     = flag.Int("cost", 200, "commands per method of the launcher's command cost")
		instN     = flag.Int("instance-cost", 10, "instances per side of the launcher's instance cost")
		capInst   = flag.Int("capacity-instances", 64, "instances of each run of the capacity comparison (launcher on and off)")
		capWork   = flag.Int("capacity-workers", 16, "workers of the capacity comparison")
		mini      = flag.String("mini", "", "a mini-swe-agent checkout for the side-by-side (scripts/bench/vs_mini.py); without it, mini is skipped")
		miniArgs  = flag.String("mini-args", "", "more arguments for scripts/bench/vs_mini.py, space-separated (e.g. --rounds 3)")
		kubeN     = flag.Int("kube-n", 100, "round trips per method of the Kubernetes comparison")
		kubeStart = flag.Int("kube-starts", 20, "pod and container starts of the Kubernetes comparison, and instances per side of its overhead comparison")
		keep      = flag.Bool("keep", false, "keep the rows of the existing report (-o) that this run does not measure (e.g. -only kube -keep adds the Kubernetes rows)")
		n         = flag.Int("n", 200, "round trips per method")
		overhead  = flag.Int("overhead", 20, "instances per side of the overhead comparison")
		instances = flag.Int("instances", 256, "instances of the scale test")
		workers   = flag.String("workers", "64,256", "worker counts of the scale test")
		delay     = flag.Duration("delay", 2*time.Second, "model time per step in the scale test")
		floor     = flag.Bool("floor", true, "also run the scale test's bare-Docker floor")
		finished  = flag.Int("resume", 20000, "finished instances of the resume test")
		flood     = flag.Int64("flood", bench.FloodBytes, "bytes printed by the flood command")
		loads     = flag.Int("loads", 20, "loads per dataset")
		proxyN    = flag.Int("proxy-n", 50, "calls per side and mode of the model proxy's comparison")
		proxyC    = flag.Int("proxy-streams", 64, "concurrent streams of the model proxy's loaded comparison")
		proxyD    = flag.Duration("proxy-delay", 100*time.Millisecond, "the local provider's time per call in the model proxy's comparison")
		proxyP    = flag.Duration("proxy-paced", 10*time.Second, "the local provider's time per call in the paced run of the model proxy's comparison (0: none)")
		guardN    = flag.Int("guard-rounds", 5, "runs of the demo per side of the history guard's comparison")
		guardD    = flag.Duration("guard-delay", time.Second, "the scripted model's time per call in the history guard's comparison (also measured without)")
		exportN   = flag.String("export", "2000,20000", "synthetic trajectories of the export measurement, comma-separated (the first is the memory reference)")
		bin       = flag.String("bin", "", "swebench-run binary (default: go build into the temp dir)")
		rowsOut   = flag.String("json", "", "also write the measured rows as JSON to this file")
		from      = flag.String("from", "", "comma-separated JSON row files of earlier partial runs: their rows come first (e.g. a scale test run separately)")
	)
	flag.Parse()
	for _, f := range strings.Split(*from, ",") {
		if f == "" {
			continue
		}
		data, err := os.ReadFile(f)
		if err == nil {
			var rs []bench.Row
			if err = json.Unmarshal(data, &rs); err == nil {
				prior = append(prior, rs...)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchrun: -from:", err)
			os.Exit(1)
		}
	}
	jsonOut = *rowsOut
	kubeRounds, kubeStarts = *kubeN, *kubeStart
	guardRounds, guardDelay = *guardN, *guardD
	proxySpec = bench.ProxySpec{Calls: *proxyN, Concurrency: *proxyC, Delay: *proxyD, Paced: *proxyP}
	costRounds, instanceCosts, capacityInstances, capacityWorkers, miniDir, miniExtra = *costN, *instN, *capInst, *capWork, *mini, *miniArgs
	if *keep && *out != "-" {
		prior = append(prior, existingRows(*out)...)
	}
	for _, s := range strings.Split(*exportN, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 {
			fmt.Fprintf(os.Stderr, "benchrun: -export %q: want sizes like 2000,20000\n", *exportN)
			os.Exit(2)
		}
		exportSizes = append(exportSizes, k)
	}
	if err := run(*out, *only, *n, *overhead, *instances, *workers, *delay, *floor, *finished, *flood, *loads, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

var (
	prior                                                         []bench.Row
	jsonOut                                                       string
	kubeRounds, kubeStarts                                        int
	costRounds, instanceCosts, capacityInstances, capacityWorkers int
	miniDir, miniExtra                                            string
	proxySpec                                                     bench.ProxySpec
	exportSizes                                                   []int
	guardRounds                                                   int
	guardDelay                                                    time.Duration
)

// existingRows reads the results table of the report at path (none when it cannot).
func existingRows(path string) []bench.Row {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var rows []bench.Row
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| what |") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 4 {
			continue
		}
		r := bench.Row{What: strings.TrimSpace(cells[0]), Measured: strings.TrimSpace(cells[1]), Goal: strings.TrimSpace(cells[2])}
		switch strings.TrimSpace(cells[3]) {
		case "pass":
			r.Pass = true
		case "–":
			r.NA = true
		}
		rows = append(rows, r)
	}
	return rows
}

func run(outPath, only string, n, overhead, instances int, workers string, delay time.Duration, floor bool, finished int, flood int64, loads int, bin string) error {
	ctx := context.Background()
	want := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		if s == "" {
			continue
		}
		want[strings.TrimSpace(s)] = true
	}
	tmp, err := os.MkdirTemp("", "swebench-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if want["mini"] && miniDir == "" {
		fmt.Fprintln(os.Stderr, "benchrun: no -mini checkout: the side-by-side with mini-swe-agent is skipped")
		delete(want, "mini")
	}
	if bin == "" && (want["scale"] || want["capacity"] || want["flood"] || want["resume"] || want["export"] || want["mini"] || want["guard"]) {
		if bin, err = bench.BuildBinary(ctx, tmp); err != nil {
			return err
		}
	}
	var d *bench.Docker
	if want["roundtrip"] || want["cost"] || want["overhead"] || (want["scale"] && floor) || want["kube"] || want["guard-big"] {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		d, err = bench.Connect(cctx)
		cancel()
		if err != nil {
			return err
		}
		defer d.Close()
	}
	started := time.Now()
	logf := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "[%s] "+format+"\n", append([]any{time.Since(started).Round(time.Second)}, a...)...)
	}
	var rows []bench.Row
	var notes []string
	add := func(rs []bench.Row) {
		for _, r := range rs {
			logf("%s: %s", r.What, r.Measured)
		}
		rows = append(rows, rs...)
	}

	if want["roundtrip"] {
		logf("round trip: %d commands per method", n)
		r, err := bench.MeasureRoundTrip(ctx, d, n, nil)
		if err != nil {
			return fmt.Errorf("round trip: %w", err)
		}
		add(r.Rows())
	}
	if want["cost"] {
		logf("command cost: %d commands per method", costRounds)
		c, err := bench.MeasureCommandCost(ctx, d, costRounds, nil)
		if err != nil {
			return fmt.Errorf("command cost: %w", err)
		}
		add(c.Rows())
		logf("instance cost: %d instances of %d commands per side", instanceCosts, bench.InstanceCommands)
		ic, err := bench.MeasureInstanceCost(ctx, d, instanceCosts, tmp, nil)
		if err != nil {
			return fmt.Errorf("instance cost: %w", err)
		}
		add(ic.Rows())
	}
	if want["overhead"] {
		logf("instance overhead: %d instances per side", overhead)
		o, err := bench.MeasureOverhead(ctx, d, overhead, tmp, nil)
		if err != nil {
			return fmt.Errorf("overhead: %w", err)
		}
		add(o.Rows())
	}
	if want["scale"] {
		for _, ws := range strings.Split(workers, ",") {
			w, err := strconv.Atoi(strings.TrimSpace(ws))
			if err != nil {
				return fmt.Errorf("-workers %q: %w", workers, err)
			}
			spec := bench.ScaleSpec{Instances: instances, Workers: w, Delay: delay}
			logf("scale: %d instances, %d workers (ideal %s)", instances, w, spec.Ideal())
			s, err := bench.MeasureScale(ctx, bin, tmp, spec)
			if err != nil {
				return fmt.Errorf("scale: %w", err)
			}
			if floor {
				logf("scale floor: bare Docker calls, %d workers", w)
				if s.Floor, err = bench.MeasureFloor(ctx, d, spec); err != nil {
					return fmt.Errorf("scale floor: %w", err)
				}
			}
			add(s.Rows())
		}
	}
	if want["capacity"] {
		var runs [2]bench.Scale
		for i, l := range []string{"auto", "off"} {
			spec := bench.ScaleSpec{Instances: capacityInstances, Workers: capacityWorkers, Delay: delay, Launcher: l}
			logf("capacity: %d instances, %d workers, launcher %s", spec.Instances, spec.Workers, l)
			s, err := bench.MeasureScale(ctx, bin, tmp, spec)
			if err != nil {
				return fmt.Errorf("capacity: %w", err)
			}
			if s.Statuses["Submitted"] != spec.Instances {
				return fmt.Errorf("capacity, launcher %s: statuses %v", l, s.Statuses)
			}
			runs[i] = s
		}
		add(bench.CapacityRows(runs[0], runs[1]))
	}
	if want["mini"] {
		logf("side by side with mini-swe-agent (%s)", miniDir)
		rs, err := bench.SideBySide(ctx, miniDir, bin, strings.Fields(miniExtra), os.Stderr)
		if err != nil {
			return fmt.Errorf("mini: %w", err)
		}
		add(rs)
	}
	if want["flood"] {
		logf("output flood: %d bytes", flood)
		f, err := bench.MeasureFlood(ctx, bin, tmp, flood)
		if err != nil {
			return fmt.Errorf("flood: %w", err)
		}
		add(f.Rows())
	}
	if want["load"] {
		logf("dataset load")
		l, err := bench.MeasureLoad(tmp, loads)
		if err != nil {
			return fmt.Errorf("load: %w", err)
		}
		add(l.Rows())
	}
	if want["resume"] {
		logf("resume over %d finished instances", finished)
		r, err := bench.MeasureResume(ctx, bin, tmp, finished)
		if err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		add(r.Rows())
	}
	if want["export"] {
		logf("export of %v synthetic trajectories", exportSizes)
		e, err := bench.MeasureExport(ctx, bin, tmp, exportSizes)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		add(e.Rows())
	}
	if want["guard"] {
		for _, dl := range []time.Duration{0, guardDelay} {
			logf("history guard: the demo with and without it, %d runs each, %s per model call", guardRounds, dl)
			g, err := bench.MeasureGuardDemo(ctx, bin, tmp, guardRounds, dl)
			if err != nil {
				return fmt.Errorf("guard: %w", err)
			}
			add(g.Rows())
		}
	}
	if want["guard-big"] {
		logf("history guard on %s", bench.BigRepoImage)
		g, err := bench.MeasureGuardRepo(ctx, d, bench.BigRepoImage, "")
		if err != nil {
			return fmt.Errorf("guard-big: %w (build the image with scripts/bench/build-big-repo-image.sh)", err)
		}
		add(g.Rows())
	}
	if want["kube"] {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		k, err := bench.ConnectKube(cctx, 1)
		cancel()
		if err != nil {
			return fmt.Errorf("kube: %w", err)
		}
		logf("kubernetes round trip: %d commands per method", kubeRounds)
		r, err := bench.MeasureKubeRoundTrip(ctx, d, k, kubeRounds, os.Stderr)
		if err != nil {
			return fmt.Errorf("kube round trip: %w", err)
		}
		add(r.Rows())
		logf("kubernetes start: %d pods and containers", kubeStarts)
		st, err := bench.MeasureKubeStart(ctx, d, k, kubeStarts, os.Stderr)
		if err != nil {
			return fmt.Errorf("kube start: %w", err)
		}
		add(st.Rows())
		logf("kubernetes instance overhead: %d instances per side", kubeStarts)
		o, err := bench.MeasureKubeOverhead(ctx, k, kubeStarts, tmp, os.Stderr)
		if err != nil {
			return fmt.Errorf("kube overhead: %w", err)
		}
		add(o.Rows())
	}
	if want["proxy"] {
		logf("model proxy: %d calls per side, %d concurrent streams, %s per call", proxySpec.Calls, proxySpec.Concurrency, proxySpec.Delay)
		p, err := bench.MeasureProxy(ctx, proxySpec, tmp)
		if err != nil {
			return fmt.Errorf("proxy: %w", err)
		}
		add(p.Rows())
	}
	_ = notes

	if jsonOut != "" {
		data, _ := json.MarshalIndent(rows, "", "  ")
		if err := os.WriteFile(jsonOut, data, 0o644); err != nil {
			return err
		}
	}
	measured := map[string]bool{}
	for _, r := range rows {
		measured[r.What] = true
	}
	var kept []bench.Row
	for _, r := range prior {
		if !measured[r.What] {
			kept = append(kept, r)
		}
	}
	table := bench.Table(append(kept, rows...))
	fmt.Print(table)
	if outPath == "-" {
		return nil
	}
	return os.WriteFile(outPath, []byte(report(outPath, table, time.Since(started))), 0o644)
}

func report(outPath, table string, took time.Duration) string {
	host, _ := os.Hostname()
	dv, _ := exec.Command("docker", "version", "--format", "{{.Server.Version}}").Output()
	drv, _ := exec.Command("docker", "info", "--format", "{{.Driver}}").Output()
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\nMeasured with `make bench` (scripts/bench/run.sh) on %s, %s: %s/%s, %d CPUs, Docker %s (%s), %s; ",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		strings.TrimSpace(string(dv)), strings.TrimSpace(string(drv)), runtime.Version())
	if len(prior) > 0 {
		b.WriteString("assembled from separate runs (benchrun -from or -keep; edit this line to say which rows come from when). ")
	} else {
		fmt.Fprintf(&b, "the run took %s. ", took.Round(time.Second))
	}
	b.WriteString("Every comparison is measured in the same run, interleaved where it can be, and reported as a ratio: the machine is shared and absolute times drift.\n\n")
	b.WriteString(table)
	b.WriteString(methods)
	b.WriteString(findings(outPath))
	return b.String()
}

// findings returns the "## Findings" section of the report at path, written by hand after the
// measurements, so that a new run keeps it (and its author can update it to the new figures).
func findings(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if i := strings.Index(string(data), "\n## Findings"); i >= 0 {
		return string(data[i:])
	}
	return ""
}

const methods = `
## How each row is measured

Code: ` + "`bench`" + ` (measurements; its tests run each one once, as part of ` + "`make test`" + `),
` + "`bench/cmd/benchrun`" + ` (this table), ` + "`scripts/bench/`" + ` (the driver and the subprocess reference).
Benchmark containers run the local base image ` + "`swebench-run/base:bookworm`" + ` with cwd /tmp, network mode
` + "`$BENCH_NETWORK`" + ` (default ` + "`none`" + `) and, when started in-process, the label ` + "`swebench-run.run-id=bench`" + ` (runs of the binary label theirs with their own run id and remove them themselves).

- **Command round trip.** One container; the methods take turns command by command (the
  subprocess reference in batches of up to 50 per round, interleaved with the others). *Ours* is
  ` + "`dockerenv.Container.Exec`" + ` of ` + "`true`" + ` with the options the runner passes by default (60 s
  timeout, the config's env): its argv is ` + "`sh -c 'exec \"$@\" 2>&1' sh bash -c true`" + ` (sh joins stderr
  to stdout in order and replaces itself with bash; the timeout is a client timer that signals
  the container's PID 1). *Raw API* is the
  minimal moby-client exec (` + "`github.com/moby/moby/client`" + `, imported by benchmark code
  only): create, attach, stdcopy to EOF, inspect (re-inspected without delay until the exit is
  recorded) of ` + "`bash -c true`" + `; it is also run with our exact argv, which separates the client's
  cost from that of the extra ` + "`sh`" + `. *Subprocess* is ` + "`scripts/bench/peer_exec.py`" + `, a
  short script of our own that does what the Python peers (mini-swe-agent, SWE-agent's docker
  deployments) do: one ` + "`docker exec -w /tmp CONTAINER bash -c true`" + ` process per command with
  ` + "`subprocess.run`" + ` (stderr merged), threads for workers; it times each command itself, so the
  interpreter's start-up is not counted. (The peers run ` + "`bash -lc`" + `; every method here runs
  ` + "`bash -c`" + ` so that only the mechanism differs.) The goal ratio compares medians and p90s of ours
  with the raw API running ` + "`bash -c true`" + `.
- **Command cost, the launcher against exec and the fork floor** (rows *command cost*). Two
  containers of the base image; in rounds of 50 commands per method that take turns: our ` + "`Exec`" + `
  of ` + "`true`" + ` with the runner's options in a container with its launcher, the same in one with the
  launcher off (one Docker exec per command), and the floor: one exec running a shell loop of 50
  ` + "`bash -c true`" + ` (and the same loop with our argv, ` + "`sh -c 'exec \"$@\" 2>&1' sh bash -c true`" + `),
  minus an exec of the empty loop. Wall time per command, and CPU per command: that of the
  engine's processes (dockerd, containerd, the containerd shims, with the children they reaped:
  runc, fuse-overlayfs; /proc/PID/stat), of the container's cgroup (the commands, the launcher)
  and of the benchmark process (the client), over the round. Medians over the rounds; the goal
  compares the launcher's CPU with the floor's.
- **Instance cost, 40 commands** (rows *instance of 40 commands*). ` + "`runner.Run`" + ` in-process over one
  instance whose scripted model (no delay) runs ` + "`true 1`" + ` … ` + "`true 39`" + ` and the submission, with the
  launcher and with exec, alternating; wall time, and the engine's and the client's CPU, per
  instance (medians).
- **Machine capacity with the launcher and without** (row *machine capacity*). The scale test's
  binary run (below) at a size this machine carries, once with ` + "`-c environment.launcher=auto`" + ` and once
  with ` + "`off`" + `: container lives (5 commands each) per CPU second of the engine's processes, and per
  CPU second of the whole machine (/proc/stat, which other work on a shared machine inflates).
- **Against mini-swe-agent** (rows *vs mini-swe-agent*). ` + "`scripts/bench/vs_mini.py`" + ` with a
  mini-swe-agent checkout (` + "`MINI_SWE_AGENT=DIR scripts/bench/run.sh`" + `; nothing of it enters this
  repository): mini-swe-agent's own batch runner (` + "`minisweagent.run.benchmarks.swebench.main`" + `, its
  DockerEnvironment: ` + "`docker run`" + `, one ` + "`docker exec`" + ` per command) with its DeterministicModel, and
  swebench-run with exec and with the launcher, each over the same 24 instances on the demo images
  with 4 workers and the same scripted turns (` + "`true 1`" + ` …, then the submission; both sides ` + "`bash -c`" + `,
  mini-swe-agent's swebench.yaml settings, the default bridge network), taking turns; only the
  dataset loader of mini-swe-agent is replaced (a local JSON lines file instead of the hub).
  Wall time of each whole run, and the engine's CPU during it.
- **The history guard** (rows *history guard*). *The demo's wall time*: the binary runs the
  offline demo (` + "`demo/dataset.jsonl`" + `, 6 instances, 4 workers, the scripted model of
  ` + "`demo/scripted.yaml`" + `) with ` + "`-c environment.history=past`" + ` and with ` + "`as-is`" + `, taking
  turns, each side several times; the ratio of the median wall times. Once with the demo as it
  ships (no model time: the agent's first command waits for the container's start and the guard,
  with nothing to hide them) and once with the scripted model taking a fixed time per call (the
  guard then runs while the first call is in flight, as with a real model); the guard's own time is
  status.jsonl's ` + "`history_guard_seconds`" + `. *The big repository*: ` + "`scripts/bench/build-big-repo-image.sh`" + `
  builds ` + "`swebench-run-bench/big-repo:1`" + ` (100,000 commits by ` + "`git fast-import`" + `, each rewriting one of
  1,000 files with 20 kB of pseudo-random text; HEAD at commit 99,000, the last 1,000 a future named by a
  branch, 100 tags and a remote-tracking ref, plus a stash and a note); ` + "`benchrun -only guard-big`" + ` runs
  the guard with ` + "`past`" + ` and with ` + "`none`" + ` in a fresh container each (the time ` + "`historyguard.Run`" + `
  reports, as status.jsonl records it) and checks that ` + "`git log --all`" + ` is HEAD's ancestry after it.
  Not part of ` + "`make bench`" + `'s default set or of ` + "`make test`" + ` (the image takes minutes and 2 GB).
- **Instance overhead.** ` + "`runner.Run`" + ` in-process over one instance with the scripted model
  (no delay, 5 turns: four ` + "`true`" + `, then the submission), a fresh output directory each time:
  image check, container create and start, 5 execs, trajectory after every step, ledger, preds and
  exit-status files (each written atomically with fsync), removal. Against it, alternating, the
  bare raw-client calls of the same container life: create with the same config, start, the same
  5 commands, forced removal. Ratio of the medians. The sweep variant runs the same instance in
  each of 2 cells (two output directories) through ` + "`runner.Sweep`" + ` with one worker, and counts
  the wall time per instance: what the sweep's scheduling (paired order, per-cell state, image
  demand across cells) adds over ` + "`run`" + `; compared with the bare calls and with the runner.
- **Scale efficiency.** The real binary (` + "`go build ./cmd/swebench-run`" + `) as a subprocess under
  ` + "`/usr/bin/time -v`" + `, over a synthetic JSONL dataset of instances on the base image
  (` + "`-c environment.cwd=/tmp --pull never`" + `), the scripted model sleeping ` + "`delay`" + ` before each of
  5 turns (the last submits). **Ideal = ceil(instances ÷ workers) × 5 × delay**; efficiency =
  ideal ÷ wall time of the whole process (start-up, load, sweeps and removal included). The
  *floor* row does the same work with bare Docker calls in-process (a goroutine pool of the same
  size: raw create, start, 5 × (sleep delay, exec), remove, one after the other): what a naive
  runner gets from this engine. (The runner starts each container during the instance's first
  model call and removes it after the worker moved on, so it can beat the floor.) The *machine
  capacity* row divides the CPU time the whole machine spent during the floor (/proc/stat: every
  process, the engine's and the containers' included) by the instances: what one container life
  costs this machine. Instances × that ÷ cores is the least wall time any runner needs here, and
  ideal ÷ that the best efficiency this machine allows.
  The breakdown comes from ` + "`status.jsonl`" + ` (queued_at, image_ready_at, first_step_at, ended_at);
  queued_at is taken before the instance waits for a free worker.
- **Runner footprint.** Peak RSS (maximum resident set size) and user+system CPU seconds of the
  binary's process in the scale runs, from ` + "`/usr/bin/time -v`" + `.
- **Output flood.** The binary over one instance whose first command is
  ` + "`head -c 1073741824 /dev/zero | tr '\\0' x`" + ` (timeout raised to 900 s), against the same instance
  running ` + "`true`" + `: the difference of the peak RSS is the growth. The trajectory is checked:
  ` + "`raw_output`" + ` must be exactly the first 512 KiB, the elision note, the last 512 KiB;
  ` + "`output_bytes_elided`" + ` = 1 GiB − 1 MiB; the observation shown to the model uses the long-output
  template (10,000 characters).
- **Dataset load.** ` + "`dataset.Load`" + ` in-process with run and eval validation, after one warm-up
  load: the Verified test parquet (from the test corpus, ` + "`make testdata`" + `) and a synthetic SWE-bench-shaped parquet of
  20,000 rows (zstd) written by the benchmark. Median.
- **Export.** A synthetic output directory of ours per size (2,000 and 20,000 instances over 50
  repositories: run.json, the ledger, preds.json, eval/<id>/report.json with every third
  resolved, and <id>/<id>.traj.json in tool-calling layout with 8 replies and a 600-byte output
  per observation, written by ` + "`export/exporttest`" + `; the throughput row is of the larger), exported by the binary
  (` + "`swebench-run export RUN -o FILE --format parquet|openai --progress none`" + `, no filters) under
  ` + "`/usr/bin/time -v`" + `. Throughput = trajectories ÷ wall time of the whole process (every
  trajectory read, its flags scanned, converted, spooled and written; for Parquet also the
  verdicts, read through ` + "`compare`" + `, which reads the run's ledger, predictions and reports and
  scans its flags; the OpenAI export reads none, nothing uses them), and ÷ its CPU time; peak RSS
  from ` + "`time`" + `. The output is read back
  (parquet-go with the schema; the OpenAI checker) and must hold every trajectory. The memory row
  compares the two sizes: the peak live heap (the largest heap left after a garbage collection,
  from ` + "`GODEBUG=gctrace=1`" + `), which is what the process holds, and the peak RSS, which also
  counts what the Go runtime keeps after freeing it (more churn, more kept). The goal: what the
  live heap gains per trajectory is the few figures the selection keeps (instance, repository,
  verdict, steps, cost, where it waits in the spool), never the trajectory.
- **Kubernetes backend** (rows starting with *kubernetes*; the cluster of ` + "`$KUBECONFIG`" + `, by default
  the single-node test cluster of ` + "`scripts/kube-up.sh`" + ` on this same machine, so both backends share
  its 2 cores). *Round trip*: one pod and one Docker container of the base image; four methods
  take turns command by command: ` + "`kubeenv.Pod.Exec`" + ` of ` + "`true`" + ` with the runner's options (one pods/exec
  WebSocket stream through the API server and the kubelet; the command's cwd, env and argv on
  stdin), a raw client-go exec of ` + "`bash -c true`" + ` (one WebSocket stream, nothing else), ` + "`dockerenv`" + `'s Exec,
  and the raw moby-client exec; the goal compares ours on Kubernetes with the raw Docker API.
  *Start*: alternately a container (` + "`dockerenv`" + ` create + start, on the engine's default bridge
  network as a run's containers are, since a pod always gets a network) and a pod (` + "`kubeenv`" + `:
  create, watch until scheduled, then exec probes every 50 ms until the container answers), each
  timed from the start call to the end of a first ` + "`true`" + `; removal untimed. *Instance overhead*: ` + "`runner.Run`" + ` over one instance on the cluster (as the instance
  overhead row above, scripted, 5 turns), alternating with the same pod life done with
  ` + "`kubeenv`" + ` alone (start, the 5 commands, removal).
- **Resume.** An output directory with 20,000 finished ledger records and a preds.json of 20,000
  predictions (no trajectories), a dataset of 20,001 instances of which one is unfinished; the
  binary resumes it with ` + "`--progress json`" + `, and the time is from process start to the
  ` + "`starting`" + ` event of that instance on stderr (emitted right before its container is created).
- **Model proxy** (rows starting with *model proxy*; no Docker). A local provider speaking the
  Messages API answers after 100 ms: unstreamed, the reply at 100 ms; streamed, its first event
  at 50 ms and the other events in ten bursts over the next 50 ms. The reply is the typical
  agent turn of the streaming benchmark (about 2,000 characters of text and a tool call writing
  1,500 characters, texts in 4-byte deltas: 926 events, 116 kB); the request a 24 kB
  conversation. *Direct* is a plain ` + "`net/http`" + ` client posting to the provider; *through the proxy*
  the same client posting to ` + "`model/proxy`" + ` (one instance per worker, its token), which forwards through
  ` + "`model`" + ` (its client, limiter, price, record written after every call). Calls alternate
  direct and proxied, unstreamed and streamed, one at a time; then 64 workers each alternate
  streamed calls of both kinds. *First byte* is the time to the first byte of the response body;
  *whole call* to its last. The ratios compare medians and p90s of the same run. *Memory*: the
  bytes the process allocates per streamed call through the proxy less those of a direct call
  (Go's ` + "`TotalAlloc`" + `), and the peak heap in use during the 64-stream run (sampled every 5 ms)
  over the heap before it; *CPU*: the process's user + system time per streamed call through the
  proxy less that of a direct call (getrusage), measured like the allocations. The *paced* run
  makes one call of each kind per worker, 64 workers at once, with the same reply sent at a
  model's pace: its first event at 5 s and the rest in ten bursts over the next 5 s (about 185
  events a second, a fast model's rate).
`
