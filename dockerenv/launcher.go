package dockerenv

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/swebench-run/swebench-run/launcher"
	"github.com/swebench-run/swebench-run/launcher/wire"
	"github.com/swebench-run/swebench-run/sandbox"
)

// launcherDirs are the directories a container's launcher is copied into, in this order, until
// one works (a read-only or noexec one fails).
var launcherDirs = []string{"/tmp", "/var/tmp", "/dev/shm"}

// launcherState is a container's launcher: the session, and the goroutine that reads its
// stream.
type launcherState struct {
	s    *launcher.Session
	read chan struct{} // closed when the reading goroutine ended
}

// startLauncher starts the container's launcher (see package launcher): it copies the program
// for the image's architecture into a new directory under the first of launcherDirs that
// works, starts it as a long exec and waits for its hello. Without it (off, not built for the
// architecture, no writable and executable directory) the container's commands run with
// exec; that is logged.
func (c *Container) startLauncher(ctx context.Context) {
	o := c.engine.images.opts
	if o.Launcher == sandbox.LauncherOff || c.spec.Launcher == sandbox.LauncherOff {
		return
	}
	log := o.Logger.With("container", c.name)
	arch, err := c.engine.imageArch(ctx, c.spec.Image)
	if err != nil {
		log.Warn("no launcher: the image's architecture is unknown; commands run with exec", "err", err)
		return
	}
	prog, ok := o.LauncherBinaries(arch)
	if !ok {
		c.engine.noLauncherOnce(arch, func() {
			o.Logger.Warn("no launcher for linux/"+arch+" in this binary (make build builds it); commands of such containers run with exec", "host", c.engine.Host())
		})
		return
	}
	var errs []error
	for _, dir := range launcherDirs {
		ls, err := c.launch(ctx, dir, prog)
		if err == nil {
			c.ls.Store(ls)
			log.Info("launcher started", "dir", dir, "pid", ls.s.PID())
			return
		}
		errs = append(errs, fmt.Errorf("%s: %w", dir, err))
		if ctx.Err() != nil {
			return
		}
	}
	log.Warn("no launcher: it could not be copied or started; commands run with exec", "err", errors.Join(errs...))
}

// imageArch returns the architecture (GOARCH) of image.
func (e *Engine) imageArch(ctx context.Context, image string) (string, error) {
	if v, ok := e.arches.Load(image); ok {
		return v.(string), nil
	}
	ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := e.cli.ImageInspect(ictx, image)
	if err != nil {
		return "", err
	}
	arch := launcher.Arch(res.Architecture)
	if arch == "" {
		return "", fmt.Errorf("architecture %q", res.Architecture)
	}
	e.arches.Store(image, arch)
	return arch, nil
}

func (e *Engine) noLauncherOnce(arch string, f func()) {
	if _, logged := e.noLauncher.LoadOrStore(arch, true); !logged {
		f()
	}
}

// launch copies prog to DIR/.swebench-run-RANDOM/launcher and starts it.
func (c *Container) launch(ctx context.Context, dir string, prog []byte) (*launcherState, error) {
	name := launcher.Dir()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	now := time.Now()
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, ModTime: now}); err != nil {
		return nil, err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name + "/launcher", Mode: 0o755, Size: int64(len(prog)), ModTime: now}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(prog); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, engineCallTimeout)
	_, err := c.engine.cli.CopyToContainer(cctx, c.id, client.CopyToContainerOptions{DestinationPath: dir, Content: &buf})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("copy: %w", err)
	}
	exe := path.Join(dir, name, "launcher")
	cctx, cancel = context.WithTimeout(ctx, engineCallTimeout)
	created, err := c.engine.cli.ExecCreate(cctx, c.id, client.ExecCreateOptions{
		AttachStdin: true, AttachStdout: true, AttachStderr: true,
		WorkingDir: "/", Env: []string{launcher.EnvEnd}, Cmd: []string{exe},
	})
	cancel()
	if err != nil {
		c.removeLauncherFile(ctx, path.Join(dir, name))
		return nil, fmt.Errorf("exec create: %w", err)
	}
	// The stream lives as long as the container: it must not end with ctx.
	att, err := c.engine.cli.ExecAttach(context.WithoutCancel(ctx), created.ID, client.ExecAttachOptions{})
	if err != nil {
		c.removeLauncherFile(ctx, path.Join(dir, name))
		return nil, fmt.Errorf("exec attach: %w", err)
	}
	var closeOnce sync.Once
	closeStream := func() { closeOnce.Do(att.Close) }
	ls := &launcherState{read: make(chan struct{})}
	ls.s = launcher.New(launcher.Stream{Stdin: att.Conn, Close: closeStream, Kill: c.killPID}, func(why string) {
		c.engine.images.opts.Logger.Info("the launcher is gone; the container's commands run with exec from now on", "container", c.name, "why", why)
	})
	stderr := &launcher.Stderr{}
	go func() {
		defer close(ls.read)
		_, err := stdcopy.StdCopy(ls.s, stderr, att.Reader)
		closeStream()
		exited := c.execEnded(created.ID)
		if msg := stderr.String(); err == nil && msg != "" {
			err = errors.New("stderr: " + msg)
		}
		ls.s.End(err, exited)
	}()
	if err := ls.s.Handshake(ctx); err != nil {
		ls.s.Close()
		<-ls.read
		c.removeLauncherFile(ctx, path.Join(dir, name))
		if msg := stderr.String(); msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return nil, err
	}
	return ls, nil
}

// removeLauncherFile removes the directory of a launcher that did not start (a started one
// removes its own).
func (c *Container) removeLauncherFile(ctx context.Context, dir string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = c.runAsRoot(rctx, []string{"rm", "-rf", dir})
}

// execEnded reports whether the engine reports the exec ended (it may take a moment after its
// stream ended).
func (c *Container) execEnded(execID string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		ins, err := c.engine.cli.ExecInspect(ctx, execID, client.ExecInspectOptions{})
		if err != nil {
			return false
		}
		if !ins.Running {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
	}
}

// killPID kills the process pid of the container with an exec of kill -9.
func (c *Container) killPID(ctx context.Context, pid int) error {
	return c.runAsRoot(ctx, []string{"kill", "-9", strconv.Itoa(pid)})
}

// runAsRoot runs argv in the container as root, detached, and waits for it to end.
func (c *Container) runAsRoot(ctx context.Context, argv []string) error {
	created, err := c.engine.cli.ExecCreate(ctx, c.id, client.ExecCreateOptions{User: "0", Cmd: argv})
	if err != nil {
		return err
	}
	if _, err := c.engine.cli.ExecStart(ctx, created.ID, client.ExecStartOptions{Detach: true}); err != nil {
		return err
	}
	for {
		ins, err := c.engine.cli.ExecInspect(ctx, created.ID, client.ExecInspectOptions{})
		if err != nil || !ins.Running {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// session returns the container's launcher session, nil when its commands run with exec.
func (c *Container) session() *launcher.Session {
	ls := c.ls.Load()
	if ls == nil || ls.s.Gone() != "" {
		return nil
	}
	return ls.s
}

// closeLauncher ends the container's launcher session and waits for its reading goroutine.
func (c *Container) closeLauncher() {
	ls := c.ls.Load()
	if ls == nil {
		return
	}
	ls.s.Close()
	select {
	case <-ls.read:
	case <-time.After(15 * time.Second):
	}
}

// LauncherPID returns the process id of the container's launcher in the container, 0 when its
// commands run with exec (none was started, or it is gone).
func (c *Container) LauncherPID() int {
	if s := c.session(); s != nil {
		return s.PID()
	}
	return 0
}

// errUseExec says that a command must run with exec.
var errUseExec = errors.New("run with exec")

// execLaunched runs command through the container's launcher (see Exec); errUseExec when the
// launcher did not start it (nothing of it ran).
func (c *Container) execLaunched(ctx context.Context, s *launcher.Session, n int64, command string, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
	cwd := opts.Cwd
	if cwd == "" {
		cwd = c.spec.Cwd
	}
	max := opts.MaxOutput
	if max <= 0 {
		max = sandbox.DefaultMaxOutput
	}
	req := wire.Request{
		Argv: sandbox.CommandArgv(opts.Interpreter, command), Env: sandbox.EnvList(c.spec.Env, opts.Env),
		Cwd: cwd, TimeoutMS: launcher.TimeoutMS(opts.Timeout), MaxOutput: uint32(min(max, 1<<31-1)), Drain: wire.DrainDocker,
	}
	out := sandbox.NewOutputBuffer(max)
	start := time.Now()
	res, err := s.Run(ctx, req, out)
	var lost *launcher.LostError
	switch {
	case errors.Is(err, launcher.ErrNotStarted) || errors.Is(err, launcher.ErrGone):
		if ctx.Err() != nil {
			return sandbox.ExecResult{}, ctx.Err()
		}
		return sandbox.ExecResult{}, errUseExec
	case errors.As(err, &lost):
		// The container's end takes the launcher with it: that is the container's failure.
		if died := c.stopped(ctx, err); died != nil {
			return sandbox.ExecResult{}, died
		}
		c.killAll(ctx) // nothing of the lost command may run on into the next one
		if ctx.Err() != nil {
			return sandbox.ExecResult{}, ctx.Err()
		}
		return sandbox.ExecResult{}, &sandbox.LauncherLostError{Name: c.name, Command: n, Err: err}
	case err != nil:
		return sandbox.ExecResult{}, err
	}
	if ctx.Err() != nil {
		return sandbox.ExecResult{}, ctx.Err() // cancelled: the launcher killed the command
	}
	code := int(res.ExitCode)
	if !res.TimedOut {
		if err := c.diedUnder(ctx, code); err != nil {
			return sandbox.ExecResult{}, err
		}
	}
	result := sandbox.ExecResult{
		Output: out.String(), ExitCode: code, TimedOut: res.TimedOut, TruncatedBytes: out.Dropped(),
		Duration: time.Since(start),
	}
	if !res.TimedOut && code == 137 && c.spec.Limits.MemoryBytes > 0 && c.oomKilledSince(ctx) {
		result.OOMKilled = true
		result.Output += sandbox.OOMNote(c.spec.Limits.MemoryBytes)
	}
	return result, nil
}

// stopped returns a *sandbox.DiedError when the container stopped or is gone (waiting up to
// diedUnderWait for the engine to report it), nil while it runs.
func (c *Container) stopped(ctx context.Context, cause error) error {
	deadline := time.Now().Add(2 * diedUnderWait)
	for {
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err := c.classify(ictx, cause)
		cancel()
		var died *sandbox.DiedError
		if errors.As(err, &died) || errors.Is(err, sandbox.ErrBackendDown) {
			return err
		}
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}
