package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/swebench-run/swebench-run/launcher/wire"
)

const (
	// envEnd is the variable the client puts in the launcher's own exec environment: what
	// precedes it is the runtime's environment before an exec's variables, what follows it the
	// runtime's additions after them (runc appends HOME when it is not set).
	envEnd = "SWEBENCH_RUN_LAUNCHER_ENV_END=1"

	killGrace    = 2 * time.Second // TERM → KILL after a timeout
	reapWait     = 2 * time.Second // bounds the wait for the killed processes to be gone
	closeGrace   = 2 * time.Second // after the KILL, until the output is given up
	dockerDrain  = 2 * time.Second // Docker's wait for an exec's streams after its exit
	heartbeat    = 20 * time.Second
	spareThreads = 6
)

type server struct {
	out      *wire.Writer
	outMu    sync.Mutex
	base     []string // the runtime's environment (before envEnd)
	extra    []string // the runtime's additions (after envEnd)
	pid      int
	frames   chan wire.Frame
	inputErr chan error
}

func run() int {
	// One P and a few idle threads made now: the Go runtime must never need a new thread
	// while a fork bomb holds the pids limit full (it cannot make one then, and dies).
	runtime.GOMAXPROCS(1)
	prewarm(spareThreads)

	key, err := wire.ReadGreeting(os.Stdin)
	if err != nil {
		return 3
	}
	removeSelf()
	s := &server{pid: os.Getpid(), frames: make(chan wire.Frame, 16), inputErr: make(chan error, 1)}
	s.base, s.extra = splitEnv(os.Environ())
	stdin, stdout := pollable(0, "stdin"), pollable(1, "stdout")
	s.out = wire.NewWriter(stdout, key, wire.ToClient)
	dec := wire.NewDecoder(key, wire.ToLauncher, wire.MaxToLauncher, func(f wire.Frame) error {
		f.Payload = append([]byte(nil), f.Payload...)
		s.frames <- f
		return nil
	})
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := stdin.Read(buf)
			if n > 0 {
				if _, derr := dec.Write(buf[:n]); derr != nil {
					s.inputErr <- derr
					return
				}
			}
			if err != nil {
				s.inputErr <- err
				return
			}
		}
	}()
	if s.send(wire.Frame{Kind: wire.KindHello, Payload: wire.EncodeHello(s.pid)}) != nil {
		return 4
	}
	go func() {
		for range time.Tick(heartbeat) {
			if s.send(wire.Frame{Kind: wire.KindHeartbeat}) != nil {
				os.Exit(4)
			}
		}
	}()
	for {
		select {
		case err := <-s.inputErr:
			return s.inputEnded(err)
		case f := <-s.frames:
			switch f.Kind {
			case wire.KindRun:
				if code, over := s.run(f); over {
					return code
				}
			case wire.KindCancel:
				// A cancel of a command that already ended: nothing to do.
			default:
				s.fatal("unexpected frame kind " + strconv.Itoa(int(f.Kind)))
				return 5
			}
		}
	}
}

// inputEnded ends the launcher once its input ended (the client closed it) or failed the
// checks (another process wrote into it).
func (s *server) inputEnded(err error) int {
	if errors.Is(err, wire.ErrCorrupt) {
		s.fatal(err.Error())
		return 5
	}
	return 0
}

func (s *server) fatal(why string) {
	_ = s.send(wire.Frame{Kind: wire.KindFatal, Payload: []byte(why)})
}

func (s *server) send(f wire.Frame) error {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	return s.out.Write(f)
}

// prewarm makes the runtime create n more threads, which then stay idle for later use.
func prewarm(n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts := syscall.Timespec{Nsec: 30e6}
			syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
		}()
	}
	wg.Wait()
}

// removeSelf removes the launcher's file and its directory: nothing of it stays visible in
// the sandbox's file system, and it is never started again from there.
func removeSelf() {
	exe := os.Args[0]
	if !filepath.IsAbs(exe) {
		return
	}
	dir := filepath.Dir(exe)
	if !strings.HasPrefix(filepath.Base(dir), ".swebench-run-") {
		return
	}
	_ = os.Remove(exe)
	_ = os.Remove(dir)
}

// pollable returns fd as a file of the runtime's poller (non-blocking), so that a read or a
// write that waits holds no thread.
func pollable(fd int, name string) *os.File {
	_ = syscall.SetNonblock(fd, true)
	return os.NewFile(uintptr(fd), name)
}

func splitEnv(env []string) (base, extra []string) {
	for i, kv := range env {
		if kv == envEnd {
			return env[:i:i], env[i+1:]
		}
	}
	return env, nil
}

// commandEnv is the environment of a command: the runtime's environment with the request's
// variables replacing or added (Docker's rule for an exec's variables), then the runtime's
// additions that the result does not set.
func (s *server) commandEnv(over []string) []string {
	env := append([]string(nil), s.base...)
	index := map[string]int{}
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, dup := index[k]; !dup {
			index[k] = i
		}
	}
	for _, kv := range over {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if i, found := index[k]; found {
			env[i] = kv
		} else {
			env = append(env, kv)
		}
	}
	set := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	for _, kv := range s.extra {
		k, _, _ := strings.Cut(kv, "=")
		if !set[k] {
			env = append(env, kv)
			set[k] = true
		}
	}
	return env
}

// lookPath finds argv0 as runc does (exec.LookPath with the command's PATH); ok false for
// anything it cannot resolve to an absolute executable path: the client then runs the command
// with an exec, which fails the way it always does.
func lookPath(argv0 string, env []string) (string, bool) {
	if strings.Contains(argv0, "/") {
		return argv0, filepath.IsAbs(argv0) && executable(argv0)
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			return "", false // "." would be searched: leave it to the runtime
		}
		p := filepath.Join(dir, argv0)
		if executable(p) {
			return p, true
		}
	}
	return "", false
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 && syscall.Access(p, 1) == nil
}
