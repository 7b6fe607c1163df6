package main

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/swebench-run/swebench-run/launcher/wire"
)

// run runs the command of a KindRun frame and reports it; over says that the launcher must end
// (its input ended or failed the checks, or the client is gone), with code.
func (s *server) run(f wire.Frame) (code int, over bool) {
	id := f.ID
	req, err := wire.DecodeRequest(f.Payload)
	if err != nil {
		s.fatal(err.Error())
		return 5, true
	}
	// Accepted goes out before anything of the request runs: a client that never sees it
	// knows, once the stream ended, that nothing ran.
	if s.send(wire.Frame{Kind: wire.KindAccepted, ID: id}) != nil {
		return 4, true
	}
	notStarted := func(why string) (int, bool) {
		if s.send(wire.Frame{Kind: wire.KindNotStarted, ID: id, Payload: []byte(why)}) != nil {
			return 4, true
		}
		return 0, false
	}
	env := s.commandEnv(req.Env)
	path, ok := lookPath(req.Argv[0], env)
	if !ok {
		return notStarted("cannot resolve " + strconv.Quote(req.Argv[0]))
	}
	if !filepath.IsAbs(req.Cwd) {
		return notStarted("working directory " + strconv.Quote(req.Cwd) + " is not absolute")
	}
	p, err := start(path, req, env)
	if err != nil {
		return notStarted(err.Error())
	}
	if s.send(wire.Frame{Kind: wire.KindStarted, ID: id}) != nil {
		return 4, true
	}
	res, over := s.supervise(id, p, req)
	if over {
		return 4, true
	}
	if s.send(wire.Frame{Kind: wire.KindResult, ID: id, Payload: wire.EncodeResult(res)}) != nil {
		return 4, true
	}
	return 0, false
}

// proc is a started command.
type proc struct {
	pid    int
	pipe   *os.File // the read end of the command's output
	exited chan syscall.WaitStatus
	eof    chan struct{}
	out    *output
}

// start forks the command: argv under env in cwd, in a session of its own, stdin /dev/null (or
// a pipe of the request's data), stdout and stderr one pipe.
func start(path string, req wire.Request, env []string) (*proc, error) {
	var po [2]int
	if err := syscall.Pipe2(po[:], syscall.O_CLOEXEC); err != nil {
		return nil, err
	}
	in, inW := -1, -1
	if req.Stdin == nil {
		fd, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			syscall.Close(po[0])
			syscall.Close(po[1])
			return nil, err
		}
		in = fd
	} else {
		var pi [2]int
		if err := syscall.Pipe2(pi[:], syscall.O_CLOEXEC); err != nil {
			syscall.Close(po[0])
			syscall.Close(po[1])
			return nil, err
		}
		in, inW = pi[0], pi[1]
	}
	pid, err := syscall.ForkExec(path, req.Argv, &syscall.ProcAttr{
		Dir: req.Cwd, Env: env, Files: []uintptr{uintptr(in), uintptr(po[1]), uintptr(po[1])},
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	syscall.Close(in)
	syscall.Close(po[1])
	if err != nil {
		syscall.Close(po[0])
		if inW >= 0 {
			syscall.Close(inW)
		}
		return nil, err
	}
	if inW >= 0 {
		w := pollable(inW, "stdin")
		go func() {
			_, _ = w.Write(req.Stdin)
			w.Close()
		}()
	}
	p := &proc{pid: pid, pipe: pollable(po[0], "output"), exited: make(chan syscall.WaitStatus, 1), eof: make(chan struct{}, 1)}
	go func() {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		p.exited <- ws
	}()
	return p, nil
}

// supervise follows the command until its result: exit and end of output (Docker: the output
// is given up dockerDrain after the exit), or the kill of a timeout or a cancel. over: the
// launcher's input ended or failed meanwhile, or the client is gone.
func (s *server) supervise(id uint64, p *proc, req wire.Request) (wire.Result, bool) {
	max := int(req.MaxOutput)
	if max <= 0 {
		max = 1 << 20
	}
	p.out = newOutput(s, id, max)
	go p.out.read(p.pipe, p.eof)

	var (
		ws       syscall.WaitStatus
		exited   bool
		eof      bool
		timedOut bool
		drain    <-chan time.Time
		expired  <-chan time.Time
	)
	if req.TimeoutMS > 0 {
		t := time.NewTimer(time.Duration(req.TimeoutMS) * time.Millisecond)
		defer t.Stop()
		expired = t.C
	}
	kill := false
wait:
	for !(exited && eof) {
		select {
		case ws = <-p.exited:
			exited = true
			if !eof && req.Drain == wire.DrainDocker {
				drain = time.After(dockerDrain)
			}
		case <-p.eof:
			eof = true
		case <-drain:
			break wait
		case <-expired:
			timedOut, kill = true, true
			break wait
		case f := <-s.frames:
			switch {
			case f.Kind == wire.KindCancel && f.ID == id:
				timedOut, kill = true, true
				break wait
			case f.Kind == wire.KindRun:
				if s.send(wire.Frame{Kind: wire.KindNotStarted, ID: f.ID, Payload: []byte("busy")}) != nil {
					return wire.Result{}, true
				}
			case f.Kind == wire.KindCancel:
			default:
				s.fatal("unexpected frame kind " + strconv.Itoa(int(f.Kind)))
				return wire.Result{}, true
			}
		case err := <-s.inputErr:
			s.inputEnded(err)
			return wire.Result{}, true
		}
	}
	if kill {
		s.killAll(p, &ws, &exited, &eof)
	}
	code := int32(137) // a process the kill could not reap (uninterruptible): as KILLed
	if exited {
		code = exitCode(ws)
	}
	if err := p.out.finish(); err != nil {
		return wire.Result{}, true
	}
	return wire.Result{ExitCode: code, TimedOut: timedOut}, false
}

// killAll ends a command that timed out or was cancelled as the backends' main processes do:
// TERM to every process of the sandbox but PID 1 (and this one), KILL once the output ended or
// killGrace passed, until none is left (PID 1 reaps the orphans; SIGHUP makes it do so at
// once), then the command's exit and the end of its output.
func (s *server) killAll(p *proc, ws *syscall.WaitStatus, exited, eof *bool) {
	_ = syscall.Kill(-1, syscall.SIGTERM)
	grace := time.NewTimer(killGrace)
	for !*eof {
		select {
		case *ws = <-p.exited:
			*exited = true
			continue
		case <-p.eof:
			*eof = true
			continue
		case <-grace.C:
		}
		break
	}
	grace.Stop()
	deadline := time.Now().Add(reapWait)
	for {
		_ = syscall.Kill(-1, syscall.SIGKILL)
		_ = syscall.Kill(1, syscall.SIGHUP)
		if !others(s.pid) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	end := time.After(closeGrace)
	for !*exited || !*eof {
		select {
		case *ws = <-p.exited:
			*exited = true
		case <-p.eof:
			*eof = true
		case <-end:
			return
		}
	}
}

// others reports whether a process other than PID 1 and self is in the sandbox (zombies too).
func others(self int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err == nil && pid != 1 && pid != self {
			return true
		}
	}
	return false
}

func exitCode(ws syscall.WaitStatus) int32 {
	if ws.Signaled() {
		return 128 + int32(ws.Signal())
	}
	return int32(ws.ExitStatus())
}

// output is a command's output: the first max/2 bytes go to the client as they come, the
// last max-max/2 are kept in a ring and sent at the end, after the count of those dropped in
// between (what sandbox.OutputBuffer keeps, without sending the rest).
type output struct {
	s  *server
	id uint64

	mu       sync.Mutex
	headLeft int
	ring     []byte
	tailMax  int
	pos      int
	full     bool
	dropped  uint64
	done     bool // the result is being sent: later bytes close the pipe (see read)
	err      error
}

func newOutput(s *server, id uint64, max int) *output {
	return &output{s: s, id: id, headLeft: max / 2, tailMax: max - max/2}
}

// read reads the command's pipe until its end. Bytes that come after the command's result
// (Docker: a process that outlived the command and still writes) close the pipe: its next
// write fails, as it does when Docker closed the exec's streams.
func (o *output) read(pipe *os.File, eof chan<- struct{}) {
	buf := make([]byte, 32<<10)
	for {
		n, err := pipe.Read(buf)
		if n > 0 {
			o.mu.Lock()
			if o.done {
				o.mu.Unlock()
				pipe.Close()
				return
			}
			o.take(buf[:n])
			o.mu.Unlock()
		}
		if err != nil {
			pipe.Close()
			eof <- struct{}{}
			return
		}
	}
}

// take keeps p; called with o.mu held.
func (o *output) take(p []byte) {
	if o.headLeft > 0 {
		k := min(o.headLeft, len(p))
		o.chunks(p[:k])
		o.headLeft -= k
		p = p[k:]
	}
	for len(p) > 0 {
		if !o.full {
			k := min(o.tailMax-len(o.ring), len(p))
			o.ring = append(o.ring, p[:k]...)
			p = p[k:]
			o.full = len(o.ring) == o.tailMax
			continue
		}
		k := min(o.tailMax-o.pos, len(p))
		copy(o.ring[o.pos:], p[:k])
		o.dropped += uint64(k)
		o.pos = (o.pos + k) % o.tailMax
		p = p[k:]
	}
}

func (o *output) chunks(p []byte) {
	for len(p) > 0 && o.err == nil {
		k := min(wire.OutputChunk, len(p))
		o.err = o.s.send(wire.Frame{Kind: wire.KindOutput, ID: o.id, Payload: p[:k]})
		p = p[k:]
	}
}

// finish sends what the ring kept, after the count of the bytes dropped before it.
func (o *output) finish() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.done = true
	if o.dropped > 0 {
		var b [8]byte
		for i := range 8 {
			b[i] = byte(o.dropped >> (56 - 8*i))
		}
		if o.err == nil {
			o.err = o.s.send(wire.Frame{Kind: wire.KindElided, ID: o.id, Payload: b[:]})
		}
		o.chunks(o.ring[o.pos:])
		o.chunks(o.ring[:o.pos])
	} else {
		o.chunks(o.ring)
	}
	o.ring = nil
	return o.err
}
