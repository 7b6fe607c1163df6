package dockerenv

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"golang.org/x/sync/errgroup"

	"github.com/swebench-run/swebench-run/sandbox"
)

// Container is a running container of this tool.
type Container struct {
	engine *Engine
	id     string
	name   string
	spec   sandbox.Spec
	// oomKills is the container's cgroup OOM-kill count last seen (see Exec).
	oomKills atomic.Int64
	// killMu orders the kills of the container's processes (see killAll). kills is the count of
	// hard kills its main process acknowledged, or is about to; killsLost says that a kill went
	// unacknowledged, so the count must be read again from the log.
	killMu    sync.Mutex
	kills     int
	killsLost bool
	// ls is the container's launcher (nil: commands run with exec); commands counts the
	// container's commands.
	ls       atomic.Pointer[launcherState]
	commands atomic.Int64
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// ID is the container's id.
func (c *Container) ID() string { return c.id }

// Name is the container's name: swebench-run-INSTANCE-RANDOM.
func (c *Container) Name() string { return c.name }

// StartContainer creates and starts the container of spec. The image must be present (see
// EnsureImage). On error nothing is left behind.
//
// spec.Limits become the container's HostConfig. Memory: when a command allocates beyond the
// limit, the kernel kills the largest process of the container (the command, not the container's
// main process, which stays tiny), so the container keeps running and Exec returns exit code 137
// with OOMKilled set and a note appended to the output. Docker's State.OOMKilled is only set when
// the container itself ends, so Exec reads the kill count of the container's memory cgroup
// instead (cgroup v1 memory.oom_control, v2 memory.events). Should the main process be killed,
// the container dies and operations fail with a *sandbox.DiedError whose ExitStatus is
// "OOMKilled". Containers keep Docker's default capabilities and seccomp profile.
func (e *Engine) StartContainer(ctx context.Context, spec sandbox.Spec) (*Container, error) {
	spec = spec.WithDefaults()
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	name := "swebench-run-" + unsafeName.ReplaceAllString(spec.InstanceID, "-") + "-" + hex.EncodeToString(suffix)

	pids := spec.Limits.PidsLimit
	if pids == 0 {
		pids = sandbox.DefaultPidsLimit
	}
	hc := &container.HostConfig{
		NetworkMode: container.NetworkMode(spec.Limits.NetworkMode),
		Resources: container.Resources{
			Memory:   spec.Limits.MemoryBytes,
			NanoCPUs: int64(spec.Limits.CPUs * 1e9),
		},
	}
	if pids > 0 {
		hc.Resources.PidsLimit = &pids
	}
	cfg := &container.Config{
		Image:      spec.Image,
		Entrypoint: []string{}, // reset any image entrypoint: the main process must be ours
		Cmd:        []string{"bash", "-c", mainProcess(spec.Lifetime)},
		WorkingDir: spec.Cwd,
		Labels: WithTestSession(map[string]string{
			LabelTool:     "1",
			LabelRun:      spec.RunID,
			LabelInstance: spec.InstanceID,
			LabelRole:     spec.Role,
			LabelStarted:  time.Now().UTC().Format(time.RFC3339),
			LabelOwner:    Owner(),
		}),
	}
	select {
	case e.starts <- struct{}{}:
		defer func() { <-e.starts }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// Create and start run to completion even when ctx is cancelled meanwhile: a create the
	// client abandons may still complete in the daemon, leaving a container nobody knows the id
	// of. Cancellation is checked right after, and the container removed.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), engineCallTimeout)
	res, err := e.cli.ContainerCreate(cctx, client.ContainerCreateOptions{Config: cfg, HostConfig: hc, Name: name, Platform: e.plat})
	cancel()
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return nil, fmt.Errorf("create container for %s: %w: %s", spec.InstanceID, sandbox.ErrImageUnavailable, spec.Image)
		}
		return nil, e.down(e.hung(ctx, fmt.Errorf("create container for %s: %w", spec.InstanceID, err)))
	}
	c := &Container{engine: e, id: res.ID, name: name, spec: spec}
	c.oomKills.Store(-1) // unknown until the first check
	if err := ctx.Err(); err != nil {
		_ = c.Remove(ctx)
		return nil, err
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), engineCallTimeout)
	_, err = e.cli.ContainerStart(sctx, res.ID, client.ContainerStartOptions{})
	cancel()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		_ = c.Remove(ctx)
		return nil, e.down(e.hung(ctx, fmt.Errorf("start container for %s: %w", spec.InstanceID, err)))
	}
	c.startLauncher(ctx)
	if err := ctx.Err(); err != nil {
		_ = c.Remove(ctx)
		return nil, err
	}
	return c, nil
}

// engineCallTimeout bounds an engine call that normally takes seconds (container create and
// start): a daemon that stopped answering must not hold an instance, or the run, forever. A
// container created after the client gave up carries the run's labels and is swept at the end
// of the run.
const engineCallTimeout = 3 * time.Minute

// hung turns a failed call whose engine then does not answer a ping (connection cut mid-call,
// daemon stopped or hung) into an *EngineDownError, so the runner takes the engine out of
// rotation and retries elsewhere. A call that ran out of engineCallTimeout on an engine that
// still answers is an overload: an error of its own instance, not the engine's.
func (e *Engine) hung(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || isEngineDown(err) {
		return err
	}
	var died *sandbox.DiedError
	if errors.As(err, &died) {
		return err
	}
	slow := errors.Is(err, context.DeadlineExceeded)
	if slow {
		err = fmt.Errorf("no answer within %s: %w", engineCallTimeout, err)
	}
	// An overloaded engine answers a ping, late: that is not a dead one.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pingTimeout)
	defer cancel()
	if _, perr := e.cli.Ping(pctx, client.PingOptions{}); perr != nil {
		return &EngineDownError{Host: e.Host(), Err: err}
	}
	if slow {
		return fmt.Errorf("docker engine %s is overloaded: %w", e.Host(), err)
	}
	return err
}

// pingTimeout bounds the ping that tells a hung engine from a slow one.
const pingTimeout = 30 * time.Second

// mainProcess is the container's PID 1, a bash script that ends after lifetime. It reaps the
// orphans that killed commands leave behind (no zombies filling the pids limit), and it is how
// Exec kills the processes of a command (see ExecOptions.Timeout and killAll), with traps that
// use shell builtins only, so that they work even when a fork bomb filled the pids limit:
//
//   - USR1: `kill -TERM -1`, TERM to every process of the container but PID 1 (kill(-1) skips
//     the caller, and PID 1 is exempt in its PID namespace);
//   - USR2: `kill -KILL -1`; then, once the killed processes are reaped (the cgroup's
//     pids.current is back to 1, or 2 s passed), the line killAckPrefix+N on PID 1's stdout,
//     the container's log, N counting the USR2s handled;
//   - HUP: nothing but the end of the wait, so that orphans are reaped at once (the launcher
//     sends it once it killed a timed-out command's processes itself).
//
// PID 1 never forks after its start: a bash that cannot fork (pids limit full) exits, which would
// end the container. It waits with `read -t 1` on a FIFO that only it holds open (created at the
// start in /dev/shm or /tmp, then unlinked), in POSIX mode, where a trapped signal ends the read
// at once (otherwise bash 5.2 runs the trap only when the read times out). bash blocks SIGCHLD
// during `read -t`, so orphans are reaped between reads: every second, and right after a kill.
// Without a writable FIFO it falls back to `sleep & wait`.
func mainProcess(lifetime time.Duration) string {
	return fmt.Sprintf(`n=0 a=0 pf=
trap 'kill -TERM -1 2>/dev/null' USR1
trap 'kill -KILL -1 2>/dev/null; n=$((n+1))' USR2
trap 'exit 0' TERM
trap : HUP
nap() { sleep "$1" & wait $!; }
for d in /dev/shm /tmp; do
	if mkfifo -m 600 "$d/.swebench-run-pid1" 2>/dev/null && exec 3<>"$d/.swebench-run-pid1"; then
		rm -f "$d/.swebench-run-pid1"
		nap() { read -t "$1" -u 3 _; }
		pf=/sys/fs/cgroup/pids.current
		[ -r $pf ] || pf=/sys/fs/cgroup/pids/pids.current
		break
	fi
done
set -o posix
end=$((SECONDS+%d))
while [ $SECONDS -lt $end ]; do
	nap 1
	if [ $a != $n ]; then
		i=0
		while [ $i -lt 200 ] && read p 2>/dev/null <"$pf" && [ "$p" -gt 1 ]; do nap 0.01; i=$((i+1)); done
		a=$n
		echo "%s$n"
	fi
done`, int(lifetime.Seconds()), killAckPrefix)
}

// removeTimeout bounds container removal, which runs even after the run was cancelled.
const removeTimeout = 30 * time.Second

// Remove kills and removes the container. It runs on a context detached from ctx's cancellation
// so that teardown happens even after Ctrl-C. Removing a container that is already gone is not an
// error.
func (c *Container) Remove(ctx context.Context) error {
	c.closeLauncher()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	_, err := c.engine.cli.ContainerRemove(rctx, c.id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove container %s: %w", c.name, err)
	}
	return nil
}

// WriteFile writes data to an absolute path in the container (mode 0644), creating nothing else.
func (c *Container) WriteFile(ctx context.Context, file string, data []byte) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{Name: path.Base(file), Mode: 0o644, Size: int64(len(data)), ModTime: time.Now()}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if _, err := tw.Write(data); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	_, err := c.engine.cli.CopyToContainer(ctx, c.id, client.CopyToContainerOptions{DestinationPath: path.Dir(file), Content: &buf})
	if err != nil {
		return c.engine.down(c.classify(ctx, fmt.Errorf("write %s in container %s: %w", file, c.name, err)))
	}
	return nil
}

// classify turns an error of an operation on the container into a *sandbox.DiedError when the
// container is gone or stopped, so the instance ends with a distinct status.
func (c *Container) classify(ctx context.Context, opErr error) error {
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	res, err := c.engine.cli.ContainerInspect(ictx, c.id, client.ContainerInspectOptions{})
	if err != nil {
		switch {
		case cerrdefs.IsNotFound(err):
			return &sandbox.DiedError{Name: c.name, ExitCode: -1, Err: opErr}
		case client.IsErrConnectionFailed(err):
			// The daemon is gone (stopped, restarted, connection lost): the instance can be
			// retried on another engine.
			return &EngineDownError{Host: c.engine.Host(), Err: opErr}
		}
		return opErr
	}
	st := res.Container.State
	if st != nil && !st.Running {
		return &sandbox.DiedError{Name: c.name, OOMKilled: st.OOMKilled, ExitCode: st.ExitCode, Err: opErr}
	}
	return opErr
}

// Owner identifies this process on this machine; it labels every container we start.
func Owner() string {
	host, _ := os.Hostname()
	return host + ":" + strconv.Itoa(os.Getpid())
}

// orphaned reports whether a container with these labels was started by a process of this
// machine that no longer runs (crashed or killed): such containers are safe to remove while
// other runs of this tool go on.
func orphaned(labels map[string]string) bool {
	host, pidStr, ok := strings.Cut(labels[LabelOwner], ":")
	if !ok {
		return false
	}
	if me, _ := os.Hostname(); host != me {
		return false
	}
	pid, err := strconv.Atoi(pidStr)
	if err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return false
	}
	err = syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}

// matches reports whether sel matches a container with these labels (see sandbox.Selector;
// Orphaned: started by a process of this machine that no longer runs).
func matches(sel sandbox.Selector, labels map[string]string) bool {
	return sel.All || sel.RunID != "" && labels[LabelRun] == sel.RunID || sel.Orphaned && orphaned(labels)
}

// Sweep removes the containers of this tool that sel matches and returns how many it removed.
// It runs on a context that survives cancellation.
func (e *Engine) Sweep(ctx context.Context, sel sandbox.Selector) (int, error) {
	ctx = context.WithoutCancel(ctx)
	lctx, cancel := context.WithTimeout(ctx, removeTimeout)
	list, err := e.cli.ContainerList(lctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", LabelTool+"=1")})
	cancel()
	if err != nil {
		return 0, fmt.Errorf("list containers on %s: %w", e.Host(), err)
	}
	// Removals run a few at a time, each with its own timeout: dozens of leftovers after a
	// crash must neither hold the next run for minutes nor outlast one shared deadline.
	var (
		mu   sync.Mutex
		errs []error
		n    int
		g    errgroup.Group
	)
	g.SetLimit(sweepConcurrency)
	for _, s := range list.Items {
		if !matches(sel, s.Labels) {
			continue
		}
		g.Go(func() error {
			rctx, cancel := context.WithTimeout(ctx, removeTimeout)
			defer cancel()
			_, err := e.cli.ContainerRemove(rctx, s.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
			mu.Lock()
			defer mu.Unlock()
			if err != nil && !cerrdefs.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("remove %s: %w", s.ID[:12], err))
				return nil
			}
			n++
			return nil
		})
	}
	_ = g.Wait()
	return n, errors.Join(errs...)
}

// sweepConcurrency bounds the removals a sweep runs at once.
const sweepConcurrency = 8

// ListContainers returns the names of this tool's containers of runID ("" = any run), sorted.
func (e *Engine) ListContainers(ctx context.Context, runID string) ([]string, error) {
	f := client.Filters{}.Add("label", LabelTool+"=1")
	if runID != "" {
		f = f.Add("label", LabelRun+"="+runID)
	}
	list, err := e.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list containers on %s: %w", e.Host(), err)
	}
	var names []string
	for _, s := range list.Items {
		if len(s.Names) > 0 {
			names = append(names, s.Names[0])
		} else {
			names = append(names, s.ID)
		}
	}
	sort.Strings(names)
	return names, nil
}
