package dockerenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/swebench-run/swebench-run/sandbox"
)

const (
	killGrace      = 2 * time.Second         // TERM → KILL after a timeout
	closeGrace     = 2 * time.Second         // after the KILL, until the client closes the output itself
	killAckTimeout = 10 * time.Second        // bounds the wait for the main process's kill acknowledgement
	killAckPoll    = 15 * time.Millisecond   // how often the log is read for it
	killAckPrefix  = "swebench-run: killed " // + the count of kills; see mainProcess
)

// Exec runs command in the container (see sandbox.Sandbox.Exec and sandbox.ExecOptions): create
// (no TTY), attach, drain with stdcopy, inspect for the exit code. A command that fails or times
// out is a result, not an error; the error is for a broken container or engine (a
// *sandbox.DiedError when the container is gone, an *EngineDownError when the engine stopped
// answering).
//
// The exec's argv is sandbox.CommandArgv: `sh -c 'exec "$@" 2>&1' sh INTERPRETER... COMMAND`.
// A timeout is enforced through signals to the container's main process (see mainProcess):
// USR1 for TERM to every other process, then USR2 for KILL, acknowledged in the container's log.
func (c *Container) Exec(ctx context.Context, command string, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
	res, err := c.exec(ctx, command, opts)
	return res, c.engine.down(err)
}

func (c *Container) exec(ctx context.Context, command string, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
	n := c.commands.Add(1)
	if s := c.session(); s != nil {
		res, err := c.execLaunched(ctx, s, n, command, opts)
		if !errors.Is(err, errUseExec) {
			return res, err
		}
	}
	cwd := opts.Cwd
	if cwd == "" {
		cwd = c.spec.Cwd
	}
	argv := sandbox.CommandArgv(opts.Interpreter, command)

	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, engineCallTimeout)
	created, err := c.engine.cli.ExecCreate(cctx, c.id, client.ExecCreateOptions{
		AttachStdout: true,
		AttachStderr: true,
		WorkingDir:   cwd,
		Env:          sandbox.EnvList(c.spec.Env, opts.Env),
		Cmd:          argv,
	})
	cancel()
	if err != nil {
		return sandbox.ExecResult{}, c.engine.hung(ctx, c.classify(ctx, fmt.Errorf("exec in %s: %w", c.name, err)))
	}
	att, err := c.engine.cli.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return sandbox.ExecResult{}, c.classify(ctx, fmt.Errorf("attach to exec in %s: %w", c.name, err))
	}
	// The command starts with the attach: the time the engine took to get there is not its own.
	var expired <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		expired = t.C
	}
	out := sandbox.NewOutputBuffer(opts.MaxOutput)
	done := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(out, out, att.Reader)
		done <- err
	}()
	cancelled := func() (sandbox.ExecResult, error) {
		c.killAll(ctx)
		att.Close()
		<-done
		return sandbox.ExecResult{}, ctx.Err()
	}

	var streamErr error
	timedOut := false
	select {
	case streamErr = <-done:
	case <-ctx.Done():
		return cancelled()
	case <-expired:
		select {
		case streamErr = <-done: // the output ended as the timer fired: no timeout
		default:
			timedOut = true
		}
	}
	if timedOut {
		c.signal(ctx, "USR1") // TERM to all but PID 1
		ended := false
		grace := time.NewTimer(killGrace)
		select {
		case streamErr = <-done:
			ended = true
		case <-grace.C:
		case <-ctx.Done():
			grace.Stop()
			return cancelled()
		}
		grace.Stop()
		// KILL even when the output ended: processes that closed it, or ignore TERM, live on.
		c.killAll(ctx)
		if !ended {
			// Everything but PID 1 is dead, which closes every pipe and ends the stream; should
			// something still hold it, give up on the rest of the output.
			streamErr = waitOrClose(done, att.Close, closeGrace)
		}
	}
	att.Close()
	if streamErr != nil {
		return sandbox.ExecResult{}, c.classify(ctx, fmt.Errorf("read exec output in %s: %w", c.name, streamErr))
	}

	code, err := c.exitCode(ctx, created.ID)
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	if !timedOut {
		if err := c.diedUnder(ctx, code); err != nil {
			return sandbox.ExecResult{}, err
		}
	}
	res := sandbox.ExecResult{
		Output:         out.String(),
		ExitCode:       code,
		TimedOut:       timedOut,
		TruncatedBytes: out.Dropped(),
		Duration:       time.Since(start),
	}
	// A timeout's KILL is a 137 too; the cgroup's counter tells an OOM kill apart.
	if !timedOut && code == 137 && c.spec.Limits.MemoryBytes > 0 && c.oomKilledSince(ctx) {
		res.OOMKilled = true
		res.Output += sandbox.OOMNote(c.spec.Limits.MemoryBytes)
	}
	return res, nil
}

// exitCode waits for the exec process to be reported as finished and returns its exit code.
// The stream can end a while before the engine records the exit: milliseconds on an idle
// engine, seconds on an overloaded one.
func (c *Container) exitCode(ctx context.Context, execID string) (int, error) {
	deadline := time.Now().Add(engineCallTimeout)
	wait := 10 * time.Millisecond
	for {
		ictx, cancel := context.WithTimeout(ctx, engineCallTimeout)
		ins, err := c.engine.cli.ExecInspect(ictx, execID, client.ExecInspectOptions{})
		cancel()
		if err != nil {
			return 0, c.engine.hung(ctx, c.classify(ctx, fmt.Errorf("inspect exec in %s: %w", c.name, err)))
		}
		if !ins.Running {
			return ins.ExitCode, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("exec in %s: output ended but the engine still reports the process running after %s", c.name, engineCallTimeout)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// diedUnder returns a *sandbox.DiedError when a command's end was its container's: a command
// killed with the container (137: when the container's main process ends, the kernel KILLs every
// other process of its PID namespace; docker kill, docker stop, a daemon shutting down), or one
// that the runtime refused because the container is stopping (126, "cannot exec in a stopped
// container", which the engine reports as the command's output). Such an end is not the
// command's result, and the agent must not see it as one. For a 137 the container's state is
// read for up to diedUnderWait, while the engine catches up with the container's end; nil when
// the container runs on (a command killed by someone else, an OOM kill of the command).
func (c *Container) diedUnder(ctx context.Context, code int) error {
	if code != 126 && code != 137 {
		return nil
	}
	deadline := time.Now().Add(diedUnderWait)
	for {
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		res, err := c.engine.cli.ContainerInspect(ictx, c.id, client.ContainerInspectOptions{})
		cancel()
		cause := fmt.Errorf("the command in %s ended with exit code %d as the container stopped", c.name, code)
		switch {
		case cerrdefs.IsNotFound(err):
			return &sandbox.DiedError{Name: c.name, ExitCode: -1, Err: cause}
		case client.IsErrConnectionFailed(err):
			return &EngineDownError{Host: c.engine.Host(), Err: cause}
		case err != nil:
			return nil // the command's result stands
		}
		if st := res.Container.State; st != nil && !st.Running {
			return &sandbox.DiedError{Name: c.name, OOMKilled: st.OOMKilled, ExitCode: st.ExitCode, Err: cause}
		}
		if code != 137 || time.Now().After(deadline) || ctx.Err() != nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// diedUnderWait bounds how long diedUnder waits for the engine to report a container's end.
const diedUnderWait = time.Second

// oomKilledSince reports whether the container's memory cgroup counted an OOM kill since the
// last check (or since the start, at the first check).
func (c *Container) oomKilledSince(ctx context.Context) bool {
	n, ok := c.readOOMKills(ctx)
	if !ok {
		return false
	}
	prev := c.oomKills.Swap(n)
	if prev < 0 {
		prev = 0
	}
	return n > prev
}

// readOOMKills reads the OOM-kill counter of the container's memory cgroup, as seen from inside
// the container (cgroup v2: memory.events; v1: memory/memory.oom_control).
func (c *Container) readOOMKills(ctx context.Context) (int64, bool) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	created, err := c.engine.cli.ExecCreate(rctx, c.id, client.ExecCreateOptions{
		User: "0", AttachStdout: true, AttachStderr: true,
		Cmd: sandbox.OOMKillsCommand,
	})
	if err != nil {
		return 0, false
	}
	att, err := c.engine.cli.ExecAttach(rctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return 0, false
	}
	defer att.Close()
	var out strings.Builder
	_, _ = stdcopy.StdCopy(&out, io.Discard, att.Reader)
	return sandbox.ParseOOMKills(out.String())
}

// signal sends sig to the container's main process (see mainProcess), on a context that
// survives cancellation. An error is left to the operations that follow: a container that is
// gone fails them.
func (c *Container) signal(ctx context.Context, sig string) {
	c.killMu.Lock()
	defer c.killMu.Unlock()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, _ = c.engine.cli.ContainerKill(sctx, c.id, client.ContainerKillOptions{Signal: sig})
}

// killAll kills every process in the container except its main process and returns once they
// are dead, so that a kill cannot hit the next command. It asks the main process (USR2, which
// works when the pids limit is full and no exec can start) and waits for its acknowledgement in
// the log; without one (a log driver that cannot be read, no answer within killAckTimeout) it
// runs `kill -9 -1` in the container as well. It uses a context that survives cancellation.
func (c *Container) killAll(ctx context.Context) {
	c.killMu.Lock()
	defer c.killMu.Unlock()
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killAckTimeout)
	acked := c.killAcked(kctx)
	cancel()
	if !acked {
		c.killsLost = true
		c.execKill(ctx)
	}
}

// killAcked sends USR2 to the main process and waits for the acknowledgement of that kill. The
// caller holds killMu.
func (c *Container) killAcked(ctx context.Context) bool {
	if c.killsLost {
		// An earlier kill went unacknowledged: its USR2 may have been handled since, or merged
		// with this one.
		if n, err := c.killAcks(ctx); err == nil {
			c.kills, c.killsLost = n, false
		}
	}
	c.kills++
	want := c.kills
	if _, err := c.engine.cli.ContainerKill(ctx, c.id, client.ContainerKillOptions{Signal: "USR2"}); err != nil {
		return false
	}
	for {
		n, err := c.killAcks(ctx)
		if err != nil {
			return false
		}
		if n >= want {
			c.kills = n
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(killAckPoll):
		}
	}
}

// killAcks returns the highest kill count the main process acknowledged in the container's log
// (0 before the first kill).
func (c *Container) killAcks(ctx context.Context) (int, error) {
	rc, err := c.engine.cli.ContainerLogs(ctx, c.id, client.ContainerLogsOptions{ShowStdout: true, Tail: "5"})
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	var log strings.Builder
	if _, err := stdcopy.StdCopy(&log, io.Discard, rc); err != nil {
		return 0, err
	}
	return parseKillAcks(log.String()), nil
}

// parseKillAcks returns the highest count of the kill acknowledgements in a log.
func parseKillAcks(log string) int {
	top := 0
	for _, line := range strings.Split(log, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), killAckPrefix)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(v); err == nil && n > top {
			top = n
		}
	}
	return top
}

// execKill runs `kill -9 -1` in the container (PID 1 is exempt from kill -1 in its PID
// namespace) and waits for it to finish, on a context that survives cancellation.
func (c *Container) execKill(ctx context.Context) {
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	created, err := c.engine.cli.ExecCreate(kctx, c.id, client.ExecCreateOptions{
		User: "0", Cmd: []string{"kill", "-9", "-1"},
	})
	if err != nil {
		return
	}
	if _, err := c.engine.cli.ExecStart(kctx, created.ID, client.ExecStartOptions{Detach: true}); err != nil {
		return
	}
	// Wait for the kill to be over (a detached start returns once the process runs): a
	// `kill -9 -1` still running when the next command starts would kill that command's
	// runtime process too.
	for {
		ins, err := c.engine.cli.ExecInspect(kctx, created.ID, client.ExecInspectOptions{})
		if err != nil || !ins.Running {
			return
		}
		select {
		case <-kctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func waitOrClose(done <-chan error, closeFn func(), grace time.Duration) error {
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
		closeFn()
		<-done
		return nil
	}
}
