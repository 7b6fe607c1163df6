package kubeenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"

	"github.com/swebench-run/swebench-run/sandbox"
)

const (
	killGrace      = 2 * time.Second  // TERM → KILL after a timeout
	closeGrace     = 2 * time.Second  // after the KILL, until the stream is closed by us
	killAckTimeout = 10 * time.Second // bounds a request to PID 1 and its acknowledgement

	ackPrefix   = "swebench-run: " // + "term TOKEN" or "killed TOKEN"; see mainProcess
	startMarker = '\x1e'           // printed by execWrapper when the command starts
)

// mainProcess is the pod's PID 1, a bash script that ends after lifetime. It reaps the orphans
// that killed commands leave behind (no zombies filling the pids limit), and it kills the
// processes of a command when asked, on its standard input (reached through the pods/attach
// subresource, which starts no process in the container), with shell builtins only, so that a
// kill works even when a fork bomb filled the pids limit and no exec can start:
//
//   - "T TOKEN": `kill -TERM -1`, TERM to every process of the container but PID 1 (kill(-1)
//     skips the caller, and PID 1 is exempt in its PID namespace), then "swebench-run: term
//     TOKEN" on stdout;
//   - "K TOKEN": `kill -KILL -1`; once the killed processes are reaped (the cgroup's
//     pids.current is back to 1, or 2 s passed), "swebench-run: killed TOKEN".
//
// A HUP only ends its wait, so that orphans are reaped at once (the launcher sends it once it
// killed a timed-out command's processes itself).
//
// PID 1 never forks while its stdin is open: a bash that cannot fork (pids limit full) exits,
// which would end the pod. It waits with `read -t 1` on stdin, in POSIX mode, where a trapped
// TERM ends the read at once; bash blocks SIGCHLD during `read -t`, so orphans are reaped
// between reads: every second, and while it waits for a kill to be over. Should stdin be closed
// (a container runtime that does not keep it open), it naps with `sleep 1 & wait` and kills are
// done by an exec instead (see Pod.killAll).
func mainProcess(lifetime time.Duration) string {
	return fmt.Sprintf(`trap 'exit 0' TERM
trap : HUP
pf=/sys/fs/cgroup/pids.current
[ -r $pf ] || pf=/sys/fs/cgroup/pids/pids.current
set -o posix
end=$((SECONDS+%d)) q= eof=
while [ $SECONDS -lt $end ]; do
	if [ -n "$q" ]; then
		c=$q q=
	elif [ -z "$eof" ]; then
		IFS= read -r -t 1 c
		r=$?
		if [ $r -ne 0 ]; then
			[ $r -gt 128 ] || eof=1
			continue
		fi
	else
		sleep 1 & wait $!
		continue
	fi
	case $c in
	T*)
		kill -TERM -1 2>/dev/null
		echo "%sterm ${c#T }"
		;;
	K*)
		kill -KILL -1 2>/dev/null
		i=0
		while [ $i -lt 200 ] && read p 2>/dev/null <"$pf" && [ "$p" -gt 1 ]; do
			if [ -z "$eof" ] && IFS= read -r -t 0.01 x; then q=$x; fi
			i=$((i+1))
		done
		echo "%skilled ${c#K }"
		;;
	esac
done`, int64(lifetime.Seconds()), ackPrefix, ackPrefix)
}

// execWrapper runs every command: it reads the working directory, the environment and the argv
// from stdin as NUL-terminated fields (cwd; the number of variables, the variables; the number
// of arguments, the arguments), so that neither reaches the exec URL, which API servers log;
// then it merges stderr into stdout, prints startMarker (the command starts: its timeout runs
// from here), and execs `env VARS... ARGV...` in cwd with stdin closed. The client keeps stdin
// open until the marker arrives: a stdin closed right after its data can lose the data on its
// way to the process.
const execWrapper = `exec 2>&1
IFS= read -r -d '' m && [ "$m" = swebench-run-exec-1 ] || exit 125
IFS= read -r -d '' d || exit 125
IFS= read -r -d '' n && [[ $n =~ ^[0-9]+$ ]] || exit 125
e=()
for ((i = 0; i < n; i++)); do IFS= read -r -d '' x || exit 125; e+=("$x"); done
IFS= read -r -d '' n && [[ $n =~ ^[0-9]+$ ]] || exit 125
a=()
for ((i = 0; i < n; i++)); do IFS= read -r -d '' x || exit 125; a+=("$x"); done
IFS= read -r -d '' m && [ "$m" = end ] || exit 125
printf '\036'
cd -- "$d" || exit 126
exec env "${e[@]}" "${a[@]}" </dev/null`

// execMagic starts execWrapper's input (the wrapper spells it out too).
const execMagic = "swebench-run-exec-1"

// execInput is the stdin execWrapper reads.
func execInput(cwd string, env []string, argv []string) []byte {
	var b bytes.Buffer
	field := func(s string) { b.WriteString(s); b.WriteByte(0) }
	field(execMagic)
	field(cwd)
	field(strconv.Itoa(len(env)))
	for _, kv := range env {
		field(kv)
	}
	field(strconv.Itoa(len(argv)))
	for _, a := range argv {
		field(a)
	}
	field("end")
	return b.Bytes()
}

// holdReader reads data, then blocks until hold is closed, then ends (EOF).
type holdReader struct {
	data []byte
	hold <-chan struct{}
}

func (r *holdReader) Read(b []byte) (int, error) {
	if len(r.data) > 0 {
		n := copy(b, r.data)
		r.data = r.data[n:]
		return n, nil
	}
	<-r.hold
	return 0, io.EOF
}

var forceSPDY = false

// executor returns a WebSocket executor of the pod's subresource (exec or attach) with opts,
// falling back to SPDY when the API server (or a proxy on the way) refuses the WebSocket
// upgrade.
func (p *Pod) executor(subresource string, opts any) (remotecommand.Executor, error) {
	req := p.c.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(p.c.ns).Name(p.name).SubResource(subresource)
	switch o := opts.(type) {
	case *corev1.PodExecOptions:
		req = req.VersionedParams(o, scheme.ParameterCodec)
	case *corev1.PodAttachOptions:
		req = req.VersionedParams(o, scheme.ParameterCodec)
	}
	u := req.URL()
	if forceSPDY {
		return remotecommand.NewSPDYExecutor(p.c.config, "POST", u)
	}
	ws, err := remotecommand.NewWebSocketExecutor(p.c.config, "GET", u.String())
	if err != nil {
		return nil, err
	}
	spdy, err := remotecommand.NewSPDYExecutor(p.c.config, "POST", u)
	if err != nil {
		return nil, err
	}
	return remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
}

func (p *Pod) execOptions(command []string, stdin bool) *corev1.PodExecOptions {
	return &corev1.PodExecOptions{Container: containerName, Command: command, Stdin: stdin, Stdout: true, Stderr: true}
}

// Exec runs command in the pod (see sandbox.Sandbox.Exec and sandbox.ExecOptions): one exec
// stream of execWrapper, its output kept in a sandbox.OutputBuffer while it streams. A timeout
// or a cancellation is enforced by PID 1 (see mainProcess): TERM to every other process, KILL
// 2 s later, acknowledged before Exec returns.
//
// Now and then the container runtime delivers an exec's stdin closed and empty (containerd 1.6
// here, over WebSocket and SPDY alike); the wrapper then exits with codeNoInput before the
// command starts, and the exec is run again: nothing of the command ran.
func (p *Pod) Exec(ctx context.Context, command string, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
	if p.removed.Load() {
		return sandbox.ExecResult{}, p.classify(ctx, errRemoved)
	}
	n := p.commands.Add(1)
	cwd := opts.Cwd
	if cwd == "" {
		cwd = p.spec.Cwd
	}
	interp := opts.Interpreter
	if len(interp) == 0 {
		interp = []string{"bash", "-c"}
	}
	argv := append(append([]string(nil), interp...), command)
	input := execInput(cwd, sandbox.EnvList(p.spec.Env, opts.Env), argv)
	if s := p.session(); s != nil {
		res, err := p.execLaunched(ctx, s, n, input, opts)
		if !errors.Is(err, errUseExec) {
			return res, err
		}
	}
	start := time.Now()
	for attempt := 1; ; attempt++ {
		res, err := p.execOnce(ctx, input, opts)
		if (errors.Is(err, errNoInput) || errors.Is(err, errNoStart)) && attempt < inputAttempts && ctx.Err() == nil {
			continue
		}
		res.Duration = time.Since(start)
		return res, err
	}
}

// inputAttempts bounds the runs of an exec whose stdin the runtime lost.
const inputAttempts = 5

// codeNoInput is execWrapper's exit code when its stdin did not hold a whole header.
const codeNoInput = 125

// startTimeout bounds the time from the exec's request to the command's start (its marker): an
// exec whose stream the runtime never connects (a containerd fault seen on the test cluster:
// stdin neither delivered nor closed) would otherwise wait for ever, since the command's own
// timeout starts with the command. Nothing ran yet, so the exec is retried. A variable for tests.
var startTimeout = 30 * time.Second

var (
	errNoInput = errors.New("the exec's stdin arrived empty or cut")
	errNoStart = errors.New("the exec's command did not start in time")
)

// execExecutor makes the executor of an exec (a variable: tests put a stuck stream in).
var execExecutor = func(p *Pod, opts *corev1.PodExecOptions) (remotecommand.Executor, error) {
	return p.executor("exec", opts)
}

func (p *Pod) execOnce(ctx context.Context, input []byte, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
	exec, err := execExecutor(p, p.execOptions([]string{"bash", "-c", execWrapper}, true))
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", p.name, err)
	}
	out := sandbox.NewOutputBuffer(opts.MaxOutput)
	w := &markedWriter{out: out, started: make(chan struct{})}
	// The stream has its own context: on a timeout or a cancellation it must stay open until
	// PID 1 killed the command, so that the output printed until then is kept.
	sctx, closeStream := context.WithCancel(context.WithoutCancel(ctx))
	defer closeStream()
	done := make(chan error, 1)
	// stdin stays open until the stream ends: closing it while the command runs can cost the
	// output's end (the command's own stdin is /dev/null).
	go func() {
		done <- exec.StreamWithContext(sctx, remotecommand.StreamOptions{Stdin: &holdReader{data: input, hold: sctx.Done()}, Stdout: w, Stderr: w})
	}()
	cancelled := func() (sandbox.ExecResult, error) {
		p.killAll(ctx)
		_ = waitOrClose(done, closeStream, closeGrace)
		return sandbox.ExecResult{}, ctx.Err()
	}

	var (
		streamErr error
		timedOut  bool
		expired   <-chan time.Time
		started   = w.started
	)
	startDeadline := time.NewTimer(startTimeout)
	defer startDeadline.Stop()
	notStarted := startDeadline.C
wait:
	for {
		select {
		case streamErr = <-done:
			break wait
		case <-ctx.Done():
			return cancelled()
		case <-notStarted:
			// Nothing ran: end the stream (the wrapper's stdin closes, it exits) and let Exec
			// try again. A stream that does not even end is left to its goroutine.
			closeStream()
			select {
			case <-done:
			case <-time.After(closeGrace):
			}
			return sandbox.ExecResult{}, errNoStart
		case <-started:
			// The command starts now: the time the API server and the kubelet took to get
			// here is not its own.
			started, notStarted = nil, nil
			if opts.Timeout > 0 {
				t := time.NewTimer(opts.Timeout)
				defer t.Stop()
				expired = t.C
			}
		case <-expired:
			select {
			case streamErr = <-done: // the output ended as the timer fired: no timeout
			default:
				timedOut = true
			}
			break wait
		}
	}
	killedByUs := false
	if timedOut {
		p.term(ctx)
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
		p.killAll(ctx)
		if !ended {
			// Everything but PID 1 is dead, which closes every pipe and ends the stream; should
			// something still hold it, give up on the rest of the output.
			streamErr = waitOrClose(done, closeStream, closeGrace)
			killedByUs = errors.Is(streamErr, context.Canceled)
		}
	}

	code := 0
	var exitErr utilexec.ExitError
	switch {
	case streamErr == nil:
	case errors.As(streamErr, &exitErr):
		code = exitErr.ExitStatus()
	case killedByUs:
		code = 137
	default:
		return sandbox.ExecResult{}, p.classify(ctx, fmt.Errorf("exec in %s: %w", p.name, streamErr))
	}
	if !w.seen && !timedOut {
		if code == codeNoInput && out.String() == "" {
			return sandbox.ExecResult{}, errNoInput
		}
		// The wrapper never got to start the command (no bash in the image, the runtime
		// refused the exec): that is the sandbox's failure, not the command's.
		return sandbox.ExecResult{}, p.classify(ctx, fmt.Errorf("exec in %s: exit code %d before the command started: %s", p.name, code, strings.TrimSpace(out.String())))
	}
	if code >= 128 && !timedOut {
		// Killed by a signal: by the command itself, the kernel (OOM), or the end of the pod
		// (deleted, evicted, its lifetime over), whose container's processes all die.
		opErr := fmt.Errorf("exec in %s: the command was killed (exit code %d)", p.name, code)
		if died := p.ended(ctx, opErr); died != nil {
			return sandbox.ExecResult{}, died
		}
		// The kubelet reports a container's end a moment after it happened: a KILL (the
		// signal every process of a container gets when its main process ends) is checked
		// with an exec of `true` as well, which the runtime refuses once the container stopped.
		if code == 137 && !p.answers(ctx) {
			return sandbox.ExecResult{}, p.classify(ctx, opErr)
		}
	}
	res := sandbox.ExecResult{
		Output:         out.String(),
		ExitCode:       code,
		TimedOut:       timedOut,
		TruncatedBytes: out.Dropped(),
	}
	// A timeout's KILL is a 137 too; the cgroup's counter tells an OOM kill apart.
	if !timedOut && code == 137 && p.spec.Limits.MemoryBytes > 0 && p.oomKilledSince(ctx) {
		res.OOMKilled = true
		res.Output += sandbox.OOMNote(p.spec.Limits.MemoryBytes)
	}
	return res, nil
}

// markedWriter passes the command's output to out, without the start marker that comes first,
// and closes started at the first byte written; seen says whether that byte was the marker
// (else it was not our wrapper speaking, but the runtime: it is kept). Safe for concurrent use
// (the executor writes stdout and stderr from two goroutines).
type markedWriter struct {
	mu      sync.Mutex
	out     io.Writer
	first   bool
	seen    bool
	started chan struct{}
}

func (w *markedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(b)
	if !w.first && len(b) > 0 {
		w.first = true
		close(w.started)
		if b[0] == startMarker {
			w.seen = true
			b = b[1:]
		}
	}
	if _, err := w.out.Write(b); err != nil {
		return 0, err
	}
	return n, nil
}

func waitOrClose(done <-chan error, closeFn func(), grace time.Duration) error {
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
		closeFn()
		return <-done
	}
}

// term asks PID 1 to send TERM to every other process of the container.
func (p *Pod) term(ctx context.Context) {
	p.killMu.Lock()
	defer p.killMu.Unlock()
	_ = p.askPID1(ctx, "T", "term")
}

// killAll kills every process in the pod's container except PID 1 and returns once they are
// dead, so that a kill cannot hit the next command. It asks PID 1 through the attach
// subresource (which works when the pids limit is full and no exec can start) and waits for its
// acknowledgement; without one it runs `kill -9 -1` in the container as well. It uses a context
// that survives cancellation.
func (p *Pod) killAll(ctx context.Context) {
	p.killMu.Lock()
	defer p.killMu.Unlock()
	if err := p.askPID1(ctx, "K", "killed"); err != nil {
		p.c.log.Warn("PID 1 did not acknowledge a kill; killing with an exec", "pod", p.name, "err", err)
		p.execKill(ctx)
	}
}

// askPID1 writes "CMD TOKEN" to PID 1's stdin through an attach stream and waits until PID 1
// prints "swebench-run: ACK TOKEN". A request the runtime lost (see Exec) is sent again, with
// another token, after ackAttempt; PID 1 doing it twice is harmless. The caller holds killMu.
func (p *Pod) askPID1(ctx context.Context, cmd, ack string) error {
	deadline := time.Now().Add(killAckTimeout)
	var err error
	for time.Now().Before(deadline) {
		end := time.Now().Add(ackAttempt)
		if end.After(deadline) {
			end = deadline
		}
		actx, cancel := context.WithDeadline(context.WithoutCancel(ctx), end)
		err = p.askPID1Once(actx, cmd, ack)
		cancel()
		if err == nil {
			return nil
		}
	}
	return err
}

// ackAttempt bounds one request to PID 1: a kill's reaping takes up to 2 s.
const ackAttempt = 3 * time.Second

func (p *Pod) askPID1Once(actx context.Context, cmd, ack string) error {
	tok := make([]byte, 6)
	_, _ = rand.Read(tok)
	token := hex.EncodeToString(tok)
	attach, err := p.executor("attach", &corev1.PodAttachOptions{Container: containerName, Stdin: true, Stdout: true})
	if err != nil {
		return err
	}
	sctx, cancel := context.WithCancel(actx)
	lw := &lineWatcher{want: ackPrefix + ack + " " + token, found: make(chan struct{})}
	stdin, feed := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- attach.StreamWithContext(sctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: lw})
	}()
	go func() {
		// Ends when the stream takes the line, or when the stream ends (stdin closed below).
		_, _ = feed.Write([]byte(cmd + " " + token + "\n"))
	}()
	var res error
	select {
	case <-lw.found:
	case err := <-done:
		done <- err // for the receive below
		if err == nil {
			err = errors.New("the attach stream ended")
		}
		res = fmt.Errorf("attach to %s: %w", p.name, err)
	case <-actx.Done():
		res = fmt.Errorf("no acknowledgement from PID 1 of %s", p.name)
	}
	cancel()
	feed.Close()
	<-done
	return res
}

// lineWatcher closes found when a line equal to want was written to it.
type lineWatcher struct {
	mu    sync.Mutex
	buf   []byte
	want  string
	found chan struct{}
	done  bool
}

func (l *lineWatcher) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return len(b), nil
	}
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(l.buf[:i]))
		l.buf = l.buf[i+1:]
		if line == l.want {
			l.done = true
			close(l.found)
			return len(b), nil
		}
	}
	if len(l.buf) > 4096 {
		l.buf = l.buf[len(l.buf)-4096:]
	}
	return len(b), nil
}

// execKill runs `kill -9 -1` in the container (PID 1 is exempt from kill -1 in its PID
// namespace) and waits for it to finish, on a context that survives cancellation.
func (p *Pod) execKill(ctx context.Context) {
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	exec, err := p.executor("exec", p.execOptions([]string{"kill", "-9", "-1"}, false))
	if err != nil {
		return
	}
	_ = exec.StreamWithContext(kctx, remotecommand.StreamOptions{Stdout: io.Discard, Stderr: io.Discard})
}

// answers reports whether the container still runs commands (an exec of `true` succeeds).
func (p *Pod) answers(ctx context.Context) bool {
	_, code, err := p.run(ctx, []string{"true"}, nil)
	return err == nil && code == 0
}

// run runs argv in the container (no wrapper) and returns its output and exit code; the error
// is for the stream. With stdin, the process reads stdin, which stays open until the process
// ended (a stdin closed right after its data can lose the data): argv must read no more than
// len(stdin) bytes.
func (p *Pod) run(ctx context.Context, argv []string, stdin []byte) (string, int, error) {
	exec, err := p.executor("exec", p.execOptions(argv, stdin != nil))
	if err != nil {
		return "", 0, err
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := remotecommand.StreamOptions{}
	if stdin != nil {
		opts.Stdin = &holdReader{data: stdin, hold: rctx.Done()}
	}
	var out bytes.Buffer
	w := &lockedWriter{w: &out}
	opts.Stdout, opts.Stderr = w, w
	err = exec.StreamWithContext(rctx, opts)
	var exitErr utilexec.ExitError
	if errors.As(err, &exitErr) {
		return out.String(), exitErr.ExitStatus(), nil
	}
	return out.String(), 0, err
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// WriteFile writes data to an absolute path in the pod (mode 0644), creating nothing else: the
// data is the stdin of `head -c SIZE > PATH`.
func (p *Pod) WriteFile(ctx context.Context, file string, data []byte) error {
	if p.removed.Load() {
		return p.classify(ctx, errRemoved)
	}
	if !strings.HasPrefix(file, "/") {
		return fmt.Errorf("write %s in %s: want an absolute path", file, p.name)
	}
	// head takes exactly the data's bytes; a file of another size is a stdin the runtime cut
	// (see Exec), and the write is done again.
	script := `head -c "$2" >"$1" || exit 1
chmod 0644 "$1" || exit 1
[ "$(wc -c <"$1")" -eq "$2" ] || exit 125`
	argv := []string{"sh", "-c", script, "sh", file, strconv.Itoa(len(data))}
	for attempt := 1; ; attempt++ {
		out, code, err := p.run(ctx, argv, data)
		switch {
		case err != nil:
			return p.classify(ctx, fmt.Errorf("write %s in %s: %w", file, p.name, err))
		case code == codeNoInput && attempt < inputAttempts:
			continue
		case code != 0:
			return fmt.Errorf("write %s in %s: exit code %d: %s", file, p.name, code, strings.TrimSpace(out))
		}
		return nil
	}
}

// oomKilledSince reports whether the container's memory cgroup counted an OOM kill since the
// last check (or since the start, at the first check).
func (p *Pod) oomKilledSince(ctx context.Context) bool {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	out, _, err := p.run(rctx, sandbox.OOMKillsCommand, nil)
	if err != nil {
		return false
	}
	n, ok := sandbox.ParseOOMKills(out)
	if !ok {
		return false
	}
	prev := p.oomKills.Swap(n)
	if prev < 0 {
		prev = 0
	}
	return n > prev
}
