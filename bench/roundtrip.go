package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/sandbox"
)

// BaseImage is the project's local test image (scripts/build-base-image.sh).
const BaseImage = "swebench-run/base:bookworm"

// RunID labels every container the benchmarks start (`swebench-run cleanup --run-id bench`).
const RunID = "bench"

// Docker is one engine, reached through dockerenv (with the launcher off, and with it) and
// through a raw moby client.
type Docker struct {
	Pool   *dockerenv.Pool // one engine, as the runner gets it (pull policy never), launcher off
	Engine *dockerenv.Engine
	// LaunchedPool and Launched are the same engine with the launcher (LauncherBinaries).
	LaunchedPool *dockerenv.Pool
	Launched     *dockerenv.Engine
	Cli          *client.Client
}

// Connect opens the clients on the default engine.
func Connect(ctx context.Context) (*Docker, error) {
	p, err := dockerenv.NewPool(ctx, nil, 1, dockerenv.Options{Pull: dockerenv.PullNever, Launcher: sandbox.LauncherOff})
	if err != nil {
		return nil, err
	}
	lp, err := dockerenv.NewPool(ctx, nil, 1, dockerenv.Options{Pull: dockerenv.PullNever, LauncherBinaries: LauncherBinaries})
	if err != nil {
		p.Close()
		return nil, err
	}
	cli, err := client.New(client.FromEnv)
	if err != nil {
		p.Close()
		lp.Close()
		return nil, err
	}
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		p.Close()
		lp.Close()
		cli.Close()
		return nil, err
	}
	return &Docker{Pool: p, Engine: p.Engines()[0], LaunchedPool: lp, Launched: lp.Engines()[0], Cli: cli}, nil
}

// Close closes the clients.
func (d *Docker) Close() {
	d.Pool.Close()
	d.LaunchedPool.Close()
	d.Cli.Close()
}

// Network is the network mode of every benchmark container: BENCH_NETWORK, default "none"
// (the engine's default bridge was not usable on the machine these benchmarks were written on,
// and the network plays no part in what is measured, except container start).
var Network = envOr("BENCH_NETWORK", "none")

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// StartBase starts a container of the base image through dockerenv, as the runner does.
func (d *Docker) StartBase(ctx context.Context, name string) (*dockerenv.Container, error) {
	return d.Engine.StartContainer(ctx, sandbox.Spec{Image: BaseImage, RunID: RunID, InstanceID: name, Cwd: "/tmp",
		Limits: sandbox.Limits{NetworkMode: Network}})
}

// RunnerExecOptions are the options the runner passes for every command with the default config
// (environment.timeout 60 s, its env block, cwd /tmp as in these benchmarks).
func RunnerExecOptions() sandbox.ExecOptions {
	return sandbox.ExecOptions{
		Timeout: 60 * time.Second,
		Cwd:     "/tmp",
		Env: map[string]string{"PAGER": "cat", "MANPAGER": "cat", "LESS": "-R", "PIP_PROGRESS_BAR": "off",
			"TQDM_DISABLE": "1", "BASH_ENV": "/root/.bashrc"},
	}
}

// OurExec times one Container.Exec of `true`.
func OurExec(ctx context.Context, c *dockerenv.Container, opts sandbox.ExecOptions) (time.Duration, error) {
	start := time.Now()
	res, err := c.Exec(ctx, "true", opts)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if res.ExitCode != 0 {
		return 0, fmt.Errorf("true exited with %d: %s", res.ExitCode, res.Output)
	}
	return d, nil
}

// PlainArgv is what the peers run for `true`: `bash -c true` (mini-swe-agent uses `bash -lc`;
// the login shell is left out everywhere so that only the mechanism differs).
var PlainArgv = []string{"bash", "-c", "true"}

// WrappedArgv is the command line our Exec builds for `true` (with a timeout or without: the
// client enforces timeouts through the container's main process): the raw client running it
// isolates the client's own cost from that of the extra process (sh, which execs bash).
var WrappedArgv = []string{"sh", "-c", `exec "$@" 2>&1`, "sh", "bash", "-c", "true"}

// RawStillRunning counts the raw execs whose first inspect, right after the output ended,
// still reported the process as running (our Exec then sleeps 20 ms before asking again).
var RawStillRunning atomic.Int64

// RawExec times the minimal moby-client exec of argv: create, attach, read to EOF, inspect
// (repeated without delay until the engine reports the exit).
func RawExec(ctx context.Context, cli *client.Client, containerID, cwd string, argv []string) (time.Duration, error) {
	start := time.Now()
	cr, err := cli.ExecCreate(ctx, containerID, client.ExecCreateOptions{
		AttachStdout: true, AttachStderr: true, WorkingDir: cwd, Cmd: argv,
	})
	if err != nil {
		return 0, err
	}
	att, err := cli.ExecAttach(ctx, cr.ID, client.ExecAttachOptions{})
	if err != nil {
		return 0, err
	}
	var out bytes.Buffer
	_, err = stdcopy.StdCopy(&out, &out, att.Reader)
	att.Close()
	if err != nil {
		return 0, err
	}
	for i := 0; ; i++ {
		ins, err := cli.ExecInspect(ctx, cr.ID, client.ExecInspectOptions{})
		if err != nil {
			return 0, err
		}
		if i == 1 {
			RawStillRunning.Add(1)
		}
		if !ins.Running {
			if ins.ExitCode != 0 {
				return 0, fmt.Errorf("%v exited with %d: %s", argv, ins.ExitCode, out.String())
			}
			return time.Since(start), nil
		}
	}
}

// RepoRoot is the repository's root directory (from this file's location).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..") // this file is bench/roundtrip.go
}

// PeerScript is the subprocess reference: one `docker exec` process per command, threads for
// workers, as the Python peers do.
func PeerScript() string { return filepath.Join(RepoRoot(), "scripts", "bench", "peer_exec.py") }

// SubprocessExecs runs n `docker exec -w cwd CONTAINER bash -c true` subprocesses through the
// peer script and returns the time of each, measured inside the script (interpreter start-up is
// not counted).
func SubprocessExecs(ctx context.Context, containerID, cwd string, n int) ([]time.Duration, error) {
	cmd := exec.CommandContext(ctx, "python3", PeerScript(), "--container", containerID, "--cwd", cwd, "-n", strconv.Itoa(n), "--", "true")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("peer script: %w: %s", err, stderr.String())
	}
	var res struct {
		Seconds []float64 `json:"seconds"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("peer script output: %w", err)
	}
	ds := make([]time.Duration, len(res.Seconds))
	for i, s := range res.Seconds {
		ds[i] = time.Duration(s * float64(time.Second))
	}
	return ds, nil
}

// RoundTrip is the result of the command round-trip comparison.
type RoundTrip struct {
	Ours, OursNoTimeout, Raw, RawWrapped, Subprocess Sample
	// StillRunning is how many of the raw execs needed a second inspect.
	StillRunning int64
}

// MeasureRoundTrip runs n commands per method in one container, interleaving the methods in
// rounds of at most 50 so that drift of the shared machine hits them alike.
func MeasureRoundTrip(ctx context.Context, d *Docker, n int, log io.Writer) (RoundTrip, error) {
	c, err := d.StartBase(ctx, "roundtrip")
	if err != nil {
		return RoundTrip{}, err
	}
	defer c.Remove(ctx)
	var ours, oursNT, raw, rawW, sub []time.Duration
	still0 := RawStillRunning.Load()
	opts := RunnerExecOptions()
	nt := opts
	nt.Timeout = 0
	// Warm up every path (connections, page cache of the binaries in the container).
	for range 3 {
		if _, err := OurExec(ctx, c, opts); err != nil {
			return RoundTrip{}, err
		}
		if _, err := RawExec(ctx, d.Cli, c.ID(), "/tmp", PlainArgv); err != nil {
			return RoundTrip{}, err
		}
	}
	for done := 0; done < n; {
		k := min(50, n-done)
		for range k {
			for _, m := range []struct {
				dst *[]time.Duration
				f   func() (time.Duration, error)
			}{
				{&ours, func() (time.Duration, error) { return OurExec(ctx, c, opts) }},
				{&raw, func() (time.Duration, error) { return RawExec(ctx, d.Cli, c.ID(), "/tmp", PlainArgv) }},
				{&oursNT, func() (time.Duration, error) { return OurExec(ctx, c, nt) }},
				{&rawW, func() (time.Duration, error) { return RawExec(ctx, d.Cli, c.ID(), "/tmp", WrappedArgv) }},
			} {
				t, err := m.f()
				if err != nil {
					return RoundTrip{}, err
				}
				*m.dst = append(*m.dst, t)
			}
		}
		s, err := SubprocessExecs(ctx, c.ID(), "/tmp", k)
		if err != nil {
			return RoundTrip{}, err
		}
		sub = append(sub, s...)
		done += k
		if log != nil {
			fmt.Fprintf(log, "round trip: %d/%d\n", done, n)
		}
	}
	return RoundTrip{Ours: Summarize(ours), OursNoTimeout: Summarize(oursNT), Raw: Summarize(raw), RawWrapped: Summarize(rawW), Subprocess: Summarize(sub),
		StillRunning: RawStillRunning.Load() - still0}, nil
}

// Rows renders the round trip as table rows with its goals.
func (r RoundTrip) Rows() []Row {
	vsRaw := float64(r.Ours.Median) / float64(r.Raw.Median)
	vsRawP90 := float64(r.Ours.P90) / float64(r.Raw.P90)
	vsSub := float64(r.Subprocess.Median) / float64(r.Ours.Median)
	line := func(s Sample) string { return fmt.Sprintf("median %s, p90 %s (n=%d)", ms(s.Median), ms(s.P90), s.N) }
	return []Row{
		{What: "round trip: our `Exec` of `true` (runner options: 60 s timeout, env)", Measured: line(r.Ours), NA: true},
		{What: "round trip: our `Exec`, no timeout", Measured: line(r.OursNoTimeout), NA: true},
		{What: "round trip: raw moby client, `bash -c true`", Measured: line(r.Raw) + fmt.Sprintf("; %d of %d raw execs (both argvs) were still running at the first inspect", r.StillRunning, r.Raw.N+r.RawWrapped.N), NA: true},
		{What: "round trip: raw moby client, our exact argv", Measured: line(r.RawWrapped), NA: true},
		{What: "round trip: `docker exec` subprocess (peer script)", Measured: line(r.Subprocess), NA: true},
		{What: "round trip: ours ÷ raw API", Measured: fmt.Sprintf("median %.3f×, p90 %.3f×", vsRaw, vsRawP90),
			Goal: "≤ 1.10×", Pass: vsRaw <= 1.10 && vsRawP90 <= 1.10},
		{What: "round trip: subprocess ÷ ours", Measured: fmt.Sprintf("median %.2f× faster", vsSub),
			Goal: "≥ 1.25× faster", Pass: vsSub >= 1.25},
	}
}
