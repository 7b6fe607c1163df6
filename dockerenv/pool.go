package dockerenv

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/swebench-run/swebench-run/sandbox"
)

// HostSpec is one --docker-host value: an engine address and how many instances it runs at once.
type HostSpec struct {
	URL     string // unix://, tcp://, ssh://user@host, or "" for DOCKER_HOST / the default socket
	Workers int    // capacity; 0 means the caller's default (e.g. --workers)
}

// ParseHostSpec parses "URL[,workers=N]", e.g. "ssh://ci@gpu-3,workers=16" or "default,workers=8"
// ("default" and "" stand for DOCKER_HOST or the default socket).
func ParseHostSpec(s string) (HostSpec, error) {
	fields := strings.Split(strings.TrimSpace(s), ",")
	var h HostSpec
	if fields[0] != "default" {
		h.URL = fields[0]
	}
	if h.URL != "" {
		u, err := url.Parse(h.URL)
		if err != nil {
			return h, fmt.Errorf("docker host %q: %w", s, err)
		}
		switch u.Scheme {
		case "unix", "tcp", "ssh", "npipe", "http", "https":
		default:
			return h, fmt.Errorf("docker host %q: want unix://PATH, tcp://HOST:PORT or ssh://[USER@]HOST", s)
		}
	}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok || k != "workers" {
			return h, fmt.Errorf("docker host %q: unknown option %q (want workers=N)", s, f)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return h, fmt.Errorf("docker host %q: workers=%q: want a positive number", s, v)
		}
		h.Workers = n
	}
	return h, nil
}

// EngineDownError reports an engine that stopped answering (daemon stopped or restarted,
// connection lost). The instance it served can be retried on another engine.
type EngineDownError struct {
	Host string
	Err  error
}

func (e *EngineDownError) Error() string {
	return fmt.Sprintf("docker engine %s does not answer: %v", e.Host, e.Err)
}

func (e *EngineDownError) Unwrap() error { return e.Err }

// Is makes an engine that stopped answering match sandbox.ErrBackendDown.
func (e *EngineDownError) Is(target error) bool { return target == sandbox.ErrBackendDown }

// isEngineDown reports whether err means that the engine is unreachable, rather than that one
// container or image failed.
func isEngineDown(err error) bool {
	var down *EngineDownError
	return errors.As(err, &down) || client.IsErrConnectionFailed(err)
}

// ErrNoEngine is the error of Pool.Acquire when every engine of the pool is down. It matches
// sandbox.ErrBackendDown.
var ErrNoEngine error = noEngineError{}

type noEngineError struct{}

func (noEngineError) Error() string        { return "no docker engine answers" }
func (noEngineError) Is(target error) bool { return target == sandbox.ErrBackendDown }

// Pool spreads instances over several engines, each with its own capacity, pull queue and image
// cache: it is the runner's sandbox.Backend on Docker. Acquire takes a slot on the engine with the
// most free slots; an engine that stops answering is taken out of rotation (a slot released with
// an engine-down cause) until Revive (or Probe, which the runner calls now and then) finds it
// answering again. Safe for concurrent use.
type Pool struct {
	mu      sync.Mutex
	hosts   []*poolHost
	changed chan struct{} // closed and replaced whenever a slot frees or a host changes state
}

type poolHost struct {
	spec    HostSpec
	engine  *Engine
	busy    int
	down    bool
	downErr error
}

// NewPool connects to every host (a host that does not answer is an error: check the
// --docker-host values). defaultWorkers is the capacity of hosts without workers=N.
func NewPool(ctx context.Context, specs []HostSpec, defaultWorkers int, opts Options) (*Pool, error) {
	if len(specs) == 0 {
		specs = []HostSpec{{}}
	}
	p := &Pool{changed: make(chan struct{})}
	for _, s := range specs {
		if s.Workers <= 0 {
			s.Workers = max(1, defaultWorkers)
		}
		e, err := ConnectWith(ctx, s.URL, opts)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.hosts = append(p.hosts, &poolHost{spec: s, engine: e})
	}
	return p, nil
}

// Engines returns the pool's engines, in the order given.
func (p *Pool) Engines() []*Engine {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*Engine, len(p.hosts))
	for i, h := range p.hosts {
		out[i] = h.engine
	}
	return out
}

// Capacity is the number of slots on the engines that are up.
func (p *Pool) Capacity() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, h := range p.hosts {
		if !h.down {
			n += h.spec.Workers
		}
	}
	return n
}

// HostState is the state of one engine of the pool.
type HostState struct {
	Host    string
	Workers int
	Busy    int
	Down    bool
	DownErr error
}

// State returns the state of every engine, in the order given.
func (p *Pool) State() []HostState {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]HostState, len(p.hosts))
	for i, h := range p.hosts {
		out[i] = HostState{Host: h.engine.Host(), Workers: h.spec.Workers, Busy: h.busy, Down: h.down, DownErr: h.downErr}
	}
	return out
}

// reviveEvery is how often a waiting Acquire probes the engines that are down.
const reviveEvery = 30 * time.Second

// Acquire takes a slot on the engine that is up and has the most free slots (ties: the
// least loaded in proportion, then the first given), waiting while every engine is full. It
// fails with ErrNoEngine when every engine is down (after probing them once), or with ctx's error.
func (p *Pool) Acquire(ctx context.Context) (sandbox.Slot, error) {
	e, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &Slot{pool: p, engine: e}, nil
}

func (p *Pool) acquire(ctx context.Context) (*Engine, error) {
	probed := false
	for {
		p.mu.Lock()
		var best *poolHost
		anyUp := false
		for _, h := range p.hosts {
			if h.down {
				continue
			}
			anyUp = true
			free := h.spec.Workers - h.busy
			if free <= 0 {
				continue
			}
			if best == nil || free > best.spec.Workers-best.busy ||
				(free == best.spec.Workers-best.busy && h.busy*best.spec.Workers < best.busy*h.spec.Workers) {
				best = h
			}
		}
		if best != nil {
			best.busy++
			p.mu.Unlock()
			return best.engine, nil
		}
		wait := p.changed
		p.mu.Unlock()

		if !anyUp {
			if probed {
				return nil, p.noEngine()
			}
			probed = true
			if p.Revive(ctx) == 0 {
				return nil, p.noEngine()
			}
			continue
		}
		t := time.NewTimer(reviveEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-wait:
			t.Stop()
		case <-t.C:
			p.Revive(ctx)
		}
	}
}

func (p *Pool) noEngine() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, h := range p.hosts {
		errs = append(errs, fmt.Errorf("%s: %w", h.engine.Host(), h.downErr))
	}
	return fmt.Errorf("%w: %w", ErrNoEngine, errors.Join(errs...))
}

// release gives back a slot taken on e.
func (p *Pool) release(e *Engine) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.hosts {
		if h.engine == e && h.busy > 0 {
			h.busy--
			p.notify()
			return
		}
	}
}

// markDown takes e out of rotation because of err: Acquire no longer chooses it until Revive
// finds it answering. Slots taken on it stay taken until released.
func (p *Pool) markDown(e *Engine, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.hosts {
		if h.engine == e && !h.down {
			h.down, h.downErr = true, err
			p.notify()
		}
	}
}

// Revive pings the engines that are down and puts those that answer back in rotation. It
// returns how many engines are up afterwards.
func (p *Pool) Revive(ctx context.Context) int {
	p.mu.Lock()
	var downs []*poolHost
	for _, h := range p.hosts {
		if h.down {
			downs = append(downs, h)
		}
	}
	p.mu.Unlock()
	for _, h := range downs {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := h.engine.cli.Ping(pctx, client.PingOptions{})
		cancel()
		p.mu.Lock()
		if err == nil {
			h.down, h.downErr = false, nil
			p.notify()
		} else {
			h.downErr = err
		}
		p.mu.Unlock()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, h := range p.hosts {
		if !h.down {
			n++
		}
	}
	return n
}

// Probe pings the engines that are down and puts those that answer back in rotation (see
// sandbox.Backend). It fails with ErrNoEngine, naming every engine and why, when none answers.
func (p *Pool) Probe(ctx context.Context) error {
	if p.Revive(ctx) > 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return p.noEngine()
}

// notify wakes the waiting Acquires; called with p.mu held.
func (p *Pool) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Expect declares n more uses of image (see sandbox.Backend). With one engine, they are declared
// on it at once, so that `--image-cache remove` removes an image after its last instance; with
// several, a use is declared on the engine an instance lands on, by Slot.PrepareImage.
func (p *Pool) Expect(image string, n int) {
	if len(p.hosts) == 1 {
		p.hosts[0].engine.Images().Expect(image, n)
	}
}

// Prefetch starts pulling image in the background (see ImageQueue.Prefetch) when the pool has
// one engine; with several, where the image will be needed is not known yet.
func (p *Pool) Prefetch(image string) {
	if len(p.hosts) == 1 {
		p.hosts[0].engine.Images().Prefetch(image)
	}
}

// Start starts a container of spec, outside the pool's slots, on the first engine that is up
// (see Engine.Start): the fresh container of an evaluation.
func (p *Pool) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Sandbox, error) {
	for _, s := range p.State() {
		if !s.Down {
			return p.engineOf(s.Host).Start(ctx, spec)
		}
	}
	return nil, p.noEngine()
}

// Sweep runs Engine.Sweep on every engine that is up and returns the total removed.
func (p *Pool) Sweep(ctx context.Context, sel sandbox.Selector) (int, error) {
	total := 0
	var errs []error
	for _, s := range p.State() {
		if s.Down {
			continue
		}
		e := p.engineOf(s.Host)
		n, err := e.Sweep(ctx, sel)
		total += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return total, errors.Join(errs...)
}

func (p *Pool) engineOf(host string) *Engine {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.hosts {
		if h.engine.Host() == host {
			return h.engine
		}
	}
	return nil
}

// Close closes every engine.
func (p *Pool) Close() error {
	var errs []error
	for _, e := range p.Engines() {
		if err := e.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Slot is a slot of the pool on one engine (see sandbox.Slot).
type Slot struct {
	pool   *Pool
	engine *Engine
}

// Host is the address of the slot's engine.
func (s *Slot) Host() string { return s.engine.Host() }

// PrepareImage makes image present on the slot's engine through its pull queue and marks it in
// use until ReleaseImage (see ImageQueue.Acquire). With several engines in the pool it first
// declares the use on this engine (see Pool.Expect). It returns the image id.
func (s *Slot) PrepareImage(ctx context.Context, image string) (string, error) {
	if len(s.pool.hosts) > 1 {
		s.engine.Images().Expect(image, 1)
	}
	id, err := s.engine.Images().Acquire(ctx, image)
	return id, s.engine.down(err)
}

// Start starts the container of spec on the slot's engine (see Engine.StartContainer).
func (s *Slot) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Sandbox, error) {
	c, err := s.engine.StartContainer(ctx, spec)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ReleaseImage ends the use of image begun by PrepareImage (see ImageQueue.Release).
func (s *Slot) ReleaseImage(ctx context.Context, image string) {
	s.engine.Images().Release(ctx, image)
}

// Release gives the slot back; a cause that matches sandbox.ErrBackendDown takes its engine out
// of rotation first.
func (s *Slot) Release(cause error) {
	if errors.Is(cause, sandbox.ErrBackendDown) {
		s.pool.markDown(s.engine, cause)
	}
	s.pool.release(s.engine)
}
