// Package launcher is the client of the launcher: a small static program of ours (the command
// in launcher/cmd/launcher, embedded by `make build`) that a backend copies into a sandbox
// through its own file API when the sandbox starts, and starts once as a long exec whose
// attached streams carry framed requests and replies (package launcher/wire). Each command
// is then a fork of the launcher instead of an exec through the container runtime: a few
// milliseconds of the machine's CPU instead of some 70.
//
// Each command is a fresh process with the semantics of the backend's own exec, exactly: the
// same argv (the backend builds it as for its exec), the environment the runtime gives an exec
// (the launcher's own, which is that, with the exec's variables replaced or added as Docker
// does and the runtime's additions after them), the same working directory, stdin /dev/null
// (or the data the backend's exec would have on stdin), its own session, stderr joined to
// stdout, the output cap (head and tail, kept by the launcher, which sends only what is kept),
// the timeout killing every process of the sandbox but PID 1 (and the launcher), and the end of
// the output as the backend's runtime ends it (Docker: at the latest 2 s after the exit;
// Kubernetes: when every holder of the pipe closed it). What the launcher cannot reproduce —
// a working directory that does not exist, an argv[0] it cannot resolve as the runtime would,
// a fork that fails — it does not start: the backend runs that command with its exec.
//
// The sandbox is hostile ground: the agent runs as root next to the launcher and may kill,
// stop or replace it, or write into its descriptors. Every frame is authenticated with a key
// the client makes per session (sent as the stream's first bytes, never in argv, environment
// or a file), numbered, and bounded; anything else ends the session. A session that ended
// between commands leaves the sandbox on the backend's exec for good (Session.Run returns
// ErrGone, and nothing ran); one that ended while a command ran loses that command's result
// (*LostError): it is never run again and never invented. The launcher is started once and
// never again: its file is removed as it starts.
package launcher

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swebench-run/swebench-run/launcher/wire"
)

// EnvEnd is the variable a backend puts in the environment of the launcher's own exec (where
// an exec's variables can be given, as Docker's): the launcher tells the runtime's environment
// before it from the runtime's additions after it (runc appends HOME when an exec does not set
// it). The launcher never passes it on.
const EnvEnd = "SWEBENCH_RUN_LAUNCHER_ENV_END=1"

// Dir names the directory a backend copies the launcher into, under a writable directory of
// the sandbox (e.g. /tmp): .swebench-run-RANDOM/launcher. The launcher removes both as it
// starts.
func Dir() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf(".swebench-run-%x", b)
}

// Times a session keeps to.
var (
	// HelloTimeout bounds the start of a launcher.
	HelloTimeout = 30 * time.Second
	// StartTimeout bounds the time from a request to its acceptance: a launcher that does not
	// take it (stopped, hung) is killed.
	StartTimeout = 30 * time.Second
	// ResultSlack is how much longer than a command's timeout the client waits for its result
	// (the launcher's kill takes up to about 6 s).
	ResultSlack = time.Minute
	// CancelTimeout bounds the wait for the result of a cancelled command.
	CancelTimeout = 15 * time.Second
)

// ErrNotStarted is matched by the errors of Run for a command the launcher did not start
// (nothing of it ran): the backend runs it with its exec; the session goes on.
var ErrNotStarted = errors.New("the launcher did not start the command")

// ErrGone is matched by the errors of Run when the session ended before the command reached
// the launcher (nothing of it ran): the backend runs it, and every later command, with its exec.
var ErrGone = errors.New("the launcher session is over")

// LostError is the error of Run when the session ended while the command was the launcher's:
// whether and how it ran is unknown.
type LostError struct {
	Reason string
}

func (e *LostError) Error() string { return "the launcher's result was lost: " + e.Reason }

// Output receives a command's output: sandbox.OutputBuffer.
type Output interface {
	io.Writer
	// Skip counts n bytes written and dropped in the middle (the launcher keeps the tail).
	Skip(n int64)
}

// Stream is a started launcher's exec, as a backend gives it to New.
type Stream struct {
	// Stdin is the launcher's standard input.
	Stdin io.Writer
	// Close ends the stream; the backend's reading goroutine then calls End.
	Close func()
	// Kill kills the launcher's process (pid, as the sandbox sees it), e.g. with an exec of
	// kill -9: for a launcher that does not answer.
	Kill func(ctx context.Context, pid int) error
}

// Session is one started launcher. The backend writes what the launcher prints into it
// (Write, from the goroutine that reads the exec's output) and calls End when that stream is
// over. Run is for one command at a time. Safe for concurrent use.
type Session struct {
	st     Stream
	key    []byte
	wmu    sync.Mutex
	fw     *wire.Writer
	dec    *wire.Decoder
	frames chan wire.Frame
	hello  chan struct{}
	pid    atomic.Int64

	ended     chan struct{}
	endOnce   sync.Once
	endErr    error
	exited    bool // with ended: the launcher's process ended and all it wrote arrived
	done      chan struct{}
	closeOnce sync.Once

	busy   sync.Mutex
	nextID uint64
	gone   atomic.Pointer[string] // why the session is over
	onGone func(reason string)
}

// New returns the session of a started launcher's stream. onGone (may be nil) is called once,
// when the session ends for a reason other than Close.
func New(st Stream, onGone func(reason string)) *Session {
	key := make([]byte, wire.KeyLen)
	_, _ = rand.Read(key)
	s := &Session{st: st, key: key, frames: make(chan wire.Frame, 64), hello: make(chan struct{}),
		ended: make(chan struct{}), done: make(chan struct{}), onGone: onGone}
	s.fw = wire.NewWriter(st.Stdin, key, wire.ToLauncher)
	s.dec = wire.NewDecoder(key, wire.ToClient, wire.MaxToClient, s.emit)
	return s
}

// Write takes the bytes the launcher printed on its stdout; an error means that the stream
// failed the checks (the backend then ends the stream).
func (s *Session) Write(p []byte) (int, error) { return s.dec.Write(p) }

// End says that the launcher's stream is over: err is the stream's error (nil at its end),
// exited that the launcher's process is known to have ended and everything it wrote arrived
// (the backend's exec reports its exit). Only the first call counts.
func (s *Session) End(err error, exited bool) {
	s.endOnce.Do(func() {
		s.endErr, s.exited = err, exited
		close(s.ended)
	})
	why := "its stream ended"
	if err != nil {
		why = "its stream failed: " + err.Error()
	}
	if exited {
		why = "the launcher ended"
	}
	s.over(why)
}

func (s *Session) emit(f wire.Frame) error {
	switch f.Kind {
	case wire.KindHello:
		v, pid, err := wire.DecodeHello(f.Payload)
		if err != nil {
			return err
		}
		if v != wire.Version {
			return fmt.Errorf("launcher speaks version %d, want %d", v, wire.Version)
		}
		if s.pid.Load() != 0 {
			return errors.New("a second hello")
		}
		s.pid.Store(int64(pid))
		close(s.hello)
		return nil
	case wire.KindHeartbeat:
		return nil
	}
	if s.pid.Load() == 0 {
		return errors.New("a frame before the hello")
	}
	f.Payload = append([]byte(nil), f.Payload...)
	select {
	case s.frames <- f:
		return nil
	case <-s.done:
		return errors.New("session closed")
	}
}

// Handshake opens the session (the greeting with the session's key) and waits for the
// launcher's hello.
func (s *Session) Handshake(ctx context.Context) error {
	s.wmu.Lock()
	_, err := s.st.Stdin.Write(wire.Greeting(s.key))
	s.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("launcher: write greeting: %w", err)
	}
	t := time.NewTimer(HelloTimeout)
	defer t.Stop()
	select {
	case <-s.hello:
		return nil
	case <-s.ended:
		if s.endErr != nil {
			return fmt.Errorf("launcher: ended before its hello: %w", s.endErr)
		}
		return errors.New("launcher: ended before its hello")
	case <-t.C:
		return fmt.Errorf("launcher: no hello within %s", HelloTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// PID is the launcher's process id in the sandbox (0 before its hello).
func (s *Session) PID() int { return int(s.pid.Load()) }

// Gone returns why the session is over ("" while it is not).
func (s *Session) Gone() string {
	if p := s.gone.Load(); p != nil {
		return *p
	}
	return ""
}

// over marks the session over for why; the first reason is kept and reported.
func (s *Session) over(why string) {
	if s.gone.CompareAndSwap(nil, &why) && s.onGone != nil {
		select {
		case <-s.done: // closed by us: nothing to report
		default:
			s.onGone(why)
		}
	}
}

// Close ends the session: the launcher's input closes (it exits), and Close waits a little for
// the backend's reading goroutine to call End.
func (s *Session) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.over("closed")
		s.st.Close()
		select {
		case <-s.ended:
		case <-time.After(10 * time.Second):
		}
	})
}

// abandon ends a session that is in an unknown state: the launcher is killed (so that it runs
// nothing more) and the stream closed.
func (s *Session) abandon(why string) {
	s.over(why)
	if pid := s.PID(); pid > 0 && s.st.Kill != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = s.st.Kill(ctx, pid)
		cancel()
	}
	s.st.Close()
}

// write writes f; a write that does not complete within StartTimeout (a stream that takes no
// more input) kills the launcher and ends the stream, which ends the write.
func (s *Session) write(f wire.Frame) error {
	done := make(chan error, 1)
	go func() {
		s.wmu.Lock()
		defer s.wmu.Unlock()
		done <- s.fw.Write(f)
	}()
	t := time.NewTimer(StartTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	}
	s.abandon(fmt.Sprintf("writing to the launcher took more than %s", StartTimeout))
	return <-done
}

// ErrBusy is matched by the error of Run while another command runs: the backend runs it with
// its exec.
var ErrBusy = fmt.Errorf("%w: another command runs", ErrNotStarted)

// Run runs req and writes its output to out. Its errors: ErrNotStarted (nothing ran: run it
// with exec), ErrGone (nothing ran, and the session is over), *LostError (the session ended
// while the command was the launcher's: its result is unknown, and the session is over), or,
// when ctx ends, ctx's error once the launcher killed the command (a *LostError when it did not
// answer the cancel).
func (s *Session) Run(ctx context.Context, req wire.Request, out Output) (wire.Result, error) {
	if !s.busy.TryLock() {
		return wire.Result{}, ErrBusy
	}
	defer s.busy.Unlock()
	if why := s.Gone(); why != "" {
		return wire.Result{}, fmt.Errorf("%w: %s", ErrGone, why)
	}
	payload := wire.EncodeRequest(req)
	if len(payload) > wire.MaxToLauncher {
		return wire.Result{}, fmt.Errorf("%w: a request of %d bytes", ErrNotStarted, len(payload))
	}
	s.nextID++
	r := &run{s: s, id: s.nextID, out: out}
	if err := s.write(wire.Frame{Kind: wire.KindRun, ID: r.id, Payload: payload}); err != nil {
		// Whether the launcher read any of it shows when the stream ends.
		return r.afterEnd("writing the request failed: " + err.Error())
	}
	return r.wait(ctx, req)
}

// run is the client's view of one request.
type run struct {
	s        *Session
	id       uint64
	out      Output
	accepted bool
	started  bool
	result   *wire.Result
}

func (r *run) lost(why string) (wire.Result, error) {
	r.s.abandon("the result of a command was lost: " + why)
	return wire.Result{}, &LostError{Reason: why}
}

func (r *run) wait(ctx context.Context, req wire.Request) (wire.Result, error) {
	s := r.s
	startT := time.NewTimer(StartTimeout)
	defer startT.Stop()
	var (
		backstop   <-chan time.Time
		cancelled  <-chan time.Time
		ctxDone    = ctx.Done()
		cancelSent bool
	)
	for {
		select {
		case f := <-s.frames:
			if err := r.handle(f); err != nil {
				if errors.Is(err, ErrNotStarted) {
					return wire.Result{}, err
				}
				if errors.Is(err, ErrGone) {
					s.abandon(err.Error())
					return wire.Result{}, err
				}
				return r.lost(err.Error())
			}
			if r.result != nil {
				return *r.result, nil
			}
			if r.started && backstop == nil && req.TimeoutMS > 0 {
				t := time.NewTimer(time.Duration(req.TimeoutMS)*time.Millisecond + ResultSlack)
				defer t.Stop()
				backstop = t.C
			}
			if r.accepted {
				startT.Stop()
			}
		case <-s.ended:
			return r.afterEnd("its stream ended")
		case <-ctxDone:
			ctxDone = nil
			cancelSent = s.write(wire.Frame{Kind: wire.KindCancel, ID: r.id}) == nil
			if !cancelSent {
				return r.afterEnd("the cancel could not be sent")
			}
			t := time.NewTimer(CancelTimeout)
			defer t.Stop()
			cancelled = t.C
		case <-cancelled:
			return r.lost(fmt.Sprintf("no answer to the cancel within %s", CancelTimeout))
		case <-startT.C:
			if r.accepted {
				continue
			}
			// The launcher does not take the request (stopped, hung): kill it, then see
			// whether it had accepted the request before it died.
			if pid := s.PID(); pid > 0 && s.st.Kill != nil {
				kctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_ = s.st.Kill(kctx, pid)
				cancel()
			}
			return r.afterEnd(fmt.Sprintf("the launcher did not take the command within %s", StartTimeout))
		case <-backstop:
			return r.lost(fmt.Sprintf("no result within the command's timeout and %s", ResultSlack))
		}
	}
}

// afterEnd decides once the stream ended (or must end): the frames that arrived are taken
// first. A request the launcher never accepted, from a launcher known to have ended with all
// its output delivered, never ran (ErrGone); anything else is lost.
func (r *run) afterEnd(why string) (wire.Result, error) {
	s := r.s
	wait := time.NewTimer(10 * time.Second)
	defer wait.Stop()
	ended := false
	for !ended {
		select {
		case f := <-s.frames:
			if err := r.handle(f); err != nil {
				if errors.Is(err, ErrNotStarted) || errors.Is(err, ErrGone) {
					s.abandon(err.Error())
					return wire.Result{}, fmt.Errorf("%w: %s", ErrGone, err.Error())
				}
				return r.lost(err.Error())
			}
			if r.result != nil {
				s.abandon(why)
				return *r.result, nil
			}
		case <-s.ended:
			ended = true
		case <-wait.C:
			return r.lost(why + ", and the stream did not end")
		}
	}
	for {
		select {
		case f := <-s.frames:
			if err := r.handle(f); err != nil {
				if errors.Is(err, ErrNotStarted) || errors.Is(err, ErrGone) {
					return wire.Result{}, fmt.Errorf("%w: %s", ErrGone, err.Error())
				}
				return r.lost(err.Error())
			}
			if r.result != nil {
				return *r.result, nil
			}
			continue
		default:
		}
		break
	}
	if !r.accepted && s.exited {
		s.over(why)
		return wire.Result{}, fmt.Errorf("%w: %s before it took the command", ErrGone, why)
	}
	if s.endErr != nil {
		why += ": " + s.endErr.Error()
	}
	return r.lost(why)
}

// handle takes one frame of the request; its errors: ErrNotStarted (the launcher did not start
// it), ErrGone (the launcher ended before it took the request), or a protocol violation.
func (r *run) handle(f wire.Frame) error {
	if f.Kind == wire.KindFatal {
		why := "the launcher ended: " + strings.ToValidUTF8(string(f.Payload), "?")
		if !r.accepted {
			return fmt.Errorf("%w: %s", ErrGone, why)
		}
		return errors.New(why)
	}
	if f.ID != r.id {
		return fmt.Errorf("a frame of request %d during request %d", f.ID, r.id)
	}
	switch f.Kind {
	case wire.KindAccepted:
		if r.accepted {
			return errors.New("accepted twice")
		}
		r.accepted = true
	case wire.KindNotStarted:
		if !r.accepted || r.started {
			return errors.New("not-started out of order")
		}
		return fmt.Errorf("%w: %s", ErrNotStarted, strings.ToValidUTF8(string(f.Payload), "?"))
	case wire.KindStarted:
		if !r.accepted || r.started {
			return errors.New("started out of order")
		}
		r.started = true
	case wire.KindOutput:
		if !r.started {
			return errors.New("output before the start")
		}
		_, _ = r.out.Write(f.Payload)
	case wire.KindElided:
		if !r.started || len(f.Payload) != 8 {
			return errors.New("malformed elision")
		}
		n := binary.BigEndian.Uint64(f.Payload)
		if n > 1<<62 {
			return errors.New("implausible elision")
		}
		r.out.Skip(int64(n))
	case wire.KindResult:
		if !r.started {
			return errors.New("result before the start")
		}
		res, err := wire.DecodeResult(f.Payload)
		if err != nil {
			return err
		}
		if res.ExitCode < 0 || res.ExitCode > 255 {
			return fmt.Errorf("implausible exit code %d", res.ExitCode)
		}
		r.result = &res
	default:
		return fmt.Errorf("unexpected frame kind %d", f.Kind)
	}
	return nil
}

// TimeoutMS is a command's timeout as a Request carries it (0: none).
func TimeoutMS(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	return uint64(max(1, d.Milliseconds()))
}

// Stderr keeps the first 4 KiB the launcher writes on its stderr (nothing, unless its runtime
// fails), for the error that ends a session. Safe for concurrent use.
type Stderr struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *Stderr) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := 4<<10 - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// String returns what was kept, trimmed.
func (w *Stderr) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(w.b.String())
}
