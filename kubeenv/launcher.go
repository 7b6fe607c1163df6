package kubeenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"

	"github.com/swebench-run/swebench-run/launcher"
	"github.com/swebench-run/swebench-run/launcher/wire"
	"github.com/swebench-run/swebench-run/sandbox"
)

// launcherDirs are the directories a pod's launcher is copied into, in this order, until one
// works (a read-only or noexec one fails).
var launcherDirs = []string{"/tmp", "/var/tmp", "/dev/shm"}

// execWrapperLaunched is execWrapper as the launcher runs it: the start marker, which tells the
// client over pods/exec that the command starts, is a no-op (the launcher says so itself), on
// the same line, so that the wrapper's own messages name the same lines.
var execWrapperLaunched = strings.Replace(execWrapper, `printf '\036'`, ":", 1)

// launcherState is a pod's launcher: the session, and the goroutine of its stream.
type launcherState struct {
	s    *launcher.Session
	read chan struct{} // closed when the stream's goroutine ended
}

// startLauncher starts the pod's launcher (see package launcher): the program for the node's
// architecture is written with an exec (WriteFile's way) into a new directory under the
// first of launcherDirs that works, started as a long pods/exec stream, and its hello awaited.
// Without it (off, not built for the architecture, no writable and executable directory) the
// pod's commands run with pods/exec; that is logged.
func (p *Pod) startLauncher(ctx context.Context) {
	o := p.c.opts
	if o.Launcher == sandbox.LauncherOff || p.spec.Launcher == sandbox.LauncherOff {
		return
	}
	log := p.c.log.With("pod", p.name)
	arch, err := p.arch(ctx)
	if err != nil {
		log.Warn("no launcher: the node's architecture is unknown; commands run with pods/exec", "err", err)
		return
	}
	prog, ok := o.LauncherBinaries(arch)
	if !ok {
		if _, logged := p.c.noLauncher.LoadOrStore(arch, true); !logged {
			p.c.log.Warn("no launcher for linux/" + arch + " in this binary (make build builds it); commands of such pods run with pods/exec")
		}
		return
	}
	var errs []error
	for _, dir := range launcherDirs {
		ls, err := p.launch(ctx, dir, prog)
		if err == nil {
			p.ls.Store(ls)
			log.Info("launcher started", "dir", dir, "pid", ls.s.PID())
			return
		}
		errs = append(errs, fmt.Errorf("%s: %w", dir, err))
		if ctx.Err() != nil {
			return
		}
	}
	log.Warn("no launcher: it could not be copied or started; commands run with pods/exec", "err", errors.Join(errs...))
}

// arch returns the architecture (GOARCH) of the pod's node, from the node's status, or from
// `uname -m` in the pod when the node cannot be read.
func (p *Pod) arch(ctx context.Context) (string, error) {
	if p.node != "" {
		if v, ok := p.c.arches.Load(p.node); ok {
			return v.(string), nil
		}
		gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		node, err := p.c.cs.CoreV1().Nodes().Get(gctx, p.node, metav1.GetOptions{})
		cancel()
		if err == nil {
			if a := launcher.Arch(node.Status.NodeInfo.Architecture); a != "" {
				p.c.arches.Store(p.node, a)
				return a, nil
			}
		}
	}
	out, code, err := p.run(ctx, []string{"uname", "-m"}, nil)
	if err != nil {
		return "", err
	}
	if a := launcher.Arch(strings.TrimSpace(out)); a != "" && code == 0 {
		return a, nil
	}
	return "", fmt.Errorf("uname -m: exit %d: %q", code, strings.TrimSpace(out))
}

// launch writes prog to DIR/.swebench-run-RANDOM/launcher and starts it.
func (p *Pod) launch(ctx context.Context, dir string, prog []byte) (*launcherState, error) {
	var exe string
	for attempt := 1; ; attempt++ {
		d := path.Join(dir, launcher.Dir())
		exe = path.Join(d, "launcher")
		script := `umask 022 && mkdir "$1" && head -c "$3" >"$2" && chmod 0755 "$2" || exit 1
[ "$(wc -c <"$2")" -eq "$3" ] || { rm -rf "$1"; exit 125; }`
		out, code, err := p.run(ctx, []string{"sh", "-c", script, "sh", d, exe, strconv.Itoa(len(prog))}, prog)
		switch {
		case err != nil:
			return nil, fmt.Errorf("copy: %w", err)
		case code == codeNoInput && attempt < inputAttempts:
			continue
		case code != 0:
			return nil, fmt.Errorf("copy: exit code %d: %s", code, strings.TrimSpace(out))
		}
		break
	}
	exec, err := execExecutor(p, p.execOptions([]string{exe}, true))
	if err != nil {
		return nil, err
	}
	sctx, closeStream := context.WithCancel(context.WithoutCancel(ctx))
	stdin, feed := io.Pipe()
	var closeOnce sync.Once
	end := func() {
		closeOnce.Do(func() {
			feed.Close()
			closeStream()
		})
	}
	ls := &launcherState{read: make(chan struct{})}
	ls.s = launcher.New(launcher.Stream{Stdin: feed, Close: end, Kill: p.killPID}, func(why string) {
		p.c.log.Info("the launcher is gone; the pod's commands run with pods/exec from now on", "pod", p.name, "why", why)
	})
	stderr := &launcher.Stderr{}
	go func() {
		defer close(ls.read)
		out := writerFunc(func(b []byte) (int, error) {
			n, err := ls.s.Write(b)
			if err != nil {
				end() // the stream failed the checks: end it
			}
			return n, err
		})
		err := exec.StreamWithContext(sctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: out, Stderr: stderr})
		end()
		// An exit status means that the launcher ended and its output was delivered.
		var exitErr utilexec.ExitError
		exited := err == nil || errors.As(err, &exitErr)
		if msg := stderr.String(); err == nil && msg != "" {
			err = errors.New("stderr: " + msg)
		}
		ls.s.End(err, exited)
	}()
	if err := ls.s.Handshake(ctx); err != nil {
		ls.s.Close()
		<-ls.read
		_, _, _ = p.run(context.WithoutCancel(ctx), []string{"rm", "-rf", path.Dir(exe)}, nil)
		if msg := stderr.String(); msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return nil, err
	}
	return ls, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// killPID kills the process pid of the pod's container with an exec of kill -9.
func (p *Pod) killPID(ctx context.Context, pid int) error {
	_, _, err := p.run(ctx, []string{"kill", "-9", strconv.Itoa(pid)}, nil)
	return err
}

// session returns the pod's launcher session, nil when its commands run with pods/exec.
func (p *Pod) session() *launcher.Session {
	ls := p.ls.Load()
	if ls == nil || ls.s.Gone() != "" {
		return nil
	}
	return ls.s
}

// closeLauncher ends the pod's launcher session and waits for its stream's goroutine.
func (p *Pod) closeLauncher() {
	ls := p.ls.Load()
	if ls == nil {
		return
	}
	ls.s.Close()
	select {
	case <-ls.read:
	case <-time.After(15 * time.Second):
	}
}

// LauncherPID returns the process id of the pod's launcher in its container, 0 when its
// commands run with pods/exec (none was started, or it is gone).
func (p *Pod) LauncherPID() int {
	if s := p.session(); s != nil {
		return s.PID()
	}
	return 0
}

// errUseExec says that a command must run with pods/exec.
var errUseExec = errors.New("run with pods/exec")

// execLaunched runs a command through the pod's launcher: execWrapper (without its start
// marker) with input on its stdin, in the container's working directory, with the exec's
// environment, as pods/exec runs it; errUseExec when the launcher did not start it (nothing
// of it ran).
func (p *Pod) execLaunched(ctx context.Context, s *launcher.Session, n int64, input []byte, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
	max := opts.MaxOutput
	if max <= 0 {
		max = sandbox.DefaultMaxOutput
	}
	req := wire.Request{
		Argv: []string{"bash", "-c", execWrapperLaunched}, Cwd: p.spec.Cwd, Stdin: input,
		TimeoutMS: launcher.TimeoutMS(opts.Timeout), MaxOutput: uint32(min(max, 1<<31-1)), Drain: wire.DrainEOF,
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
		// The pod's end takes the launcher with it: that is the pod's failure.
		if died := p.classify(ctx, err); isDied(died) {
			return sandbox.ExecResult{}, died
		}
		p.killAll(ctx) // nothing of the lost command may run on into the next one
		if ctx.Err() != nil {
			return sandbox.ExecResult{}, ctx.Err()
		}
		return sandbox.ExecResult{}, &sandbox.LauncherLostError{Name: p.name, Command: n, Err: err}
	case err != nil:
		return sandbox.ExecResult{}, err
	}
	if ctx.Err() != nil {
		return sandbox.ExecResult{}, ctx.Err() // cancelled: the launcher killed the command
	}
	code := int(res.ExitCode)
	if code >= 128 && !res.TimedOut {
		opErr := fmt.Errorf("exec in %s: the command was killed (exit code %d)", p.name, code)
		if died := p.ended(ctx, opErr); died != nil {
			return sandbox.ExecResult{}, died
		}
		if code == 137 && !p.answers(ctx) {
			return sandbox.ExecResult{}, p.classify(ctx, opErr)
		}
	}
	result := sandbox.ExecResult{
		Output: out.String(), ExitCode: code, TimedOut: res.TimedOut, TruncatedBytes: out.Dropped(),
		Duration: time.Since(start),
	}
	if !res.TimedOut && code == 137 && p.spec.Limits.MemoryBytes > 0 && p.oomKilledSince(ctx) {
		result.OOMKilled = true
		result.Output += sandbox.OOMNote(p.spec.Limits.MemoryBytes)
	}
	return result, nil
}

func isDied(err error) bool {
	var died *sandbox.DiedError
	return errors.As(err, &died) || errors.Is(err, sandbox.ErrBackendDown)
}
