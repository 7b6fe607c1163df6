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

// IsEngineDown reports whether err means that the engine is unreachable, rather than that one
// container or image failed.
func IsEngineDown(err error) bool {
	var down *EngineDownError
	return errors.As(err, &down) || client.IsErrConnectionFailed(err)
}

// ErrNoEngine is returned by Pool.Acquire when every engine of the pool is down.
var ErrNoEngine = errors.New("no docker engine answers")

// Pool spreads instances over several engines, each with its own capacity, pull queue and image
// cache. Acquire takes a slot on the engine with the most free slots; an engine that stops
// answering is taken out of rotation (MarkDown) until Revive finds it answering again. Safe for
// concurrent use.
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
func (p *Pool) Acquire(ctx context.Context) (*Engine, error) {
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

// Release gives back a slot taken by Acquire on e.
func (p *Pool) Release(e *Engine) {
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

// MarkDown takes e out of rotation because of err (see IsEngineDown): Acquire no longer
// chooses it until Revive finds it answering. Slots taken on it stay taken until Released.
func (p *Pool) MarkDown(e *Engine, err error) {
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

// notify wakes the waiting Acquires; called with p.mu held.
func (p *Pool) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Sweep runs Engine.Sweep on every engine that is up and returns the total removed.
func (p *Pool) Sweep(ctx context.Context, match func(labels map[string]string) bool) (int, error) {
	total := 0
	var errs []error
	for _, s := range p.State() {
		if s.Down {
			continue
		}
		e := p.engineOf(s.Host)
		n, err := e.Sweep(ctx, match)
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
