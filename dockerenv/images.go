package dockerenv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/go-units"
	"github.com/moby/moby/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/swebench-run/swebench-run/launcher"
	"github.com/swebench-run/swebench-run/sandbox"
)

// Options configure an engine: its pull queue and image cache. Zero values mean the documented
// defaults.
type Options struct {
	// PullWorkers bounds concurrent pulls on this engine (default 4).
	PullWorkers int
	// StallTimeout fails a pull attempt that made no progress (no message from the engine, no
	// byte downloaded or extracted) for this long; a slow pull that moves goes on. Default 2 min.
	StallTimeout time.Duration
	// PullRetries is how often a pull that failed for a transient reason (registry unreachable,
	// stall, 429 Too Many Requests, broken stream) is retried (default 4; -1 = never).
	PullRetries int
	// RetryBackoff is the delay before the first retry, doubled at each retry up to 1 min
	// (default 2 s; a 429 from the registry waits at least 30 s).
	RetryBackoff time.Duration
	// Platform ("os/arch[/variant]", e.g. "linux/amd64") is pulled and run; "" = the engine's
	// own. SWE-bench images exist for linux/amd64 only: on an arm64 host they run under
	// emulation (slow; needs binfmt/qemu), and a warning is logged.
	Platform string
	// Pull is the policy of Acquire and Prefetch (default missing).
	Pull PullPolicy
	// Cache says what happens to the images this run pulled (default keep).
	Cache CachePolicy
	// OnPull receives the progress of every pull (layers, bytes), from the pulling goroutine:
	// it must be fast and safe for concurrent use.
	OnPull func(sandbox.PullProgress)
	// Auth returns the registry credentials for an image (the base64url JSON of the
	// X-Registry-Auth header, "" for none). Default: DockerConfigAuth, i.e. ~/.docker/config.json
	// and its credential helpers.
	Auth func(ctx context.Context, image string) (string, error)
	// Logger receives warnings and pull/removal events (default: discard).
	Logger *slog.Logger
	// Launcher says how containers run their commands: through the launcher (see package
	// launcher), sandbox.LauncherAuto, the default, or with the engine's exec,
	// sandbox.LauncherOff; a Spec's Launcher off wins.
	Launcher sandbox.Launcher
	// LauncherBinaries gives the launcher programs (default launcher.Embedded).
	LauncherBinaries launcher.Binaries
}

func (o Options) withDefaults() Options {
	if o.PullWorkers <= 0 {
		o.PullWorkers = 4
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = 2 * time.Minute
	}
	if o.PullRetries == 0 {
		o.PullRetries = 4
	} else if o.PullRetries < 0 {
		o.PullRetries = 0
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = 2 * time.Second
	}
	if o.Pull == "" {
		o.Pull = PullMissing
	}
	if o.Auth == nil {
		o.Auth = DockerConfigAuth
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Launcher == "" {
		o.Launcher = sandbox.LauncherAuto
	}
	if o.LauncherBinaries == nil {
		o.LauncherBinaries = launcher.Embedded
	}
	return o
}

// ParsePlatform parses "os/arch[/variant]".
func ParsePlatform(s string) (*ocispec.Platform, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("platform %q: want os/arch[/variant], e.g. linux/amd64", s)
	}
	p := &ocispec.Platform{OS: parts[0], Architecture: parts[1]}
	if len(parts) == 3 {
		p.Variant = parts[2]
	}
	return p, nil
}

// CacheMode is what happens to the images a run pulled.
type CacheMode string

const (
	CacheKeep   CacheMode = "keep"   // keep every image
	CacheRemove CacheMode = "remove" // remove an image once no declared use remains
	CacheBudget CacheMode = "budget" // remove least-recently-used images to stay under Budget
)

// CachePolicy is the --image-cache setting. Only images this run pulled are ever removed: an
// image that was present before the run is the user's.
type CachePolicy struct {
	Mode   CacheMode
	Budget int64 // bytes; with CacheBudget
}

// ParseCachePolicy parses "keep", "remove" or "budget=SIZE" (SIZE like 200GB, 50GiB, 1.5TB).
func ParseCachePolicy(s string) (CachePolicy, error) {
	switch {
	case s == "" || s == string(CacheKeep):
		return CachePolicy{Mode: CacheKeep}, nil
	case s == string(CacheRemove):
		return CachePolicy{Mode: CacheRemove}, nil
	case strings.HasPrefix(s, "budget="):
		n, err := units.FromHumanSize(strings.TrimPrefix(s, "budget="))
		if err != nil || n <= 0 {
			return CachePolicy{}, fmt.Errorf("image cache %q: want budget=SIZE with a positive size such as 200GB", s)
		}
		return CachePolicy{Mode: CacheBudget, Budget: n}, nil
	}
	return CachePolicy{}, fmt.Errorf("image cache %q: want keep, remove or budget=SIZE", s)
}

// ErrPullStalled is the cause of a pull attempt that made no progress for StallTimeout.
var ErrPullStalled = errors.New("pull stalled")

// ImageQueue is the pull queue and image cache of one engine: every image is pulled at most
// once at a time however many workers ask for it, at most PullWorkers pulls run at once
// (callers that wait go before prefetches), failed pulls are retried, and the cache policy
// removes the images this run pulled once they are no longer needed. Safe for concurrent use.
type ImageQueue struct {
	e    *Engine
	opts Options
	plat *ocispec.Platform

	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	images  map[string]*imageState
	pending []*flight
	running int
	clock   uint64 // LRU order
	closed  bool
}

type imageState struct {
	name        string
	id          string
	size        int64
	present     bool // present locally, as far as this queue knows
	preexisting bool // present before this run pulled it: never removed
	pulled      bool // pulled by this run (at least once)
	demand      int  // declared uses not yet released (Expect)
	inUse       int  // Acquired, not yet Released
	lastUsed    uint64
	flight      *flight
}

type flight struct {
	policy   PullPolicy
	prefetch bool // started by Prefetch: not cancelled when its waiters leave
	urgent   bool // a caller waits for it
	waiters  int
	started  bool
	start    chan struct{}
	done     chan struct{}
	ctx      context.Context
	cancel   context.CancelFunc
	id       string
	err      error
}

func newImageQueue(e *Engine, opts Options) (*ImageQueue, error) {
	opts = opts.withDefaults()
	plat, err := ParsePlatform(opts.Platform)
	if err != nil {
		return nil, err
	}
	if plat != nil && plat.Architecture != runtime.GOARCH {
		opts.Logger.Warn("images of another architecture run under emulation, which is slow and needs binfmt/qemu on the host",
			"platform", opts.Platform, "host_arch", runtime.GOARCH)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &ImageQueue{e: e, opts: opts, plat: plat, ctx: ctx, cancel: cancel, images: map[string]*imageState{}}, nil
}

// Images returns the engine's pull queue and image cache.
func (e *Engine) Images() *ImageQueue { return e.images }

func (q *ImageQueue) state(image string) *imageState {
	st := q.images[image]
	if st == nil {
		st = &imageState{name: image}
		q.images[image] = st
	}
	return st
}

// Expect declares n more future uses of image by this run (n may be negative to withdraw
// uses, e.g. for instances that will not run after all). With CacheRemove, an image is removed
// when its last declared use is released; with CacheBudget, images without declared uses are
// evicted first.
func (q *ImageQueue) Expect(image string, n int) {
	q.mu.Lock()
	st := q.state(image)
	st.demand = max(0, st.demand+n)
	q.mu.Unlock()
}

// Prefetch starts pulling image in the background under the queue's policy, if it is not
// present, so that a worker that needs it later does not wait. It never blocks; failures are
// logged and reported through OnPull, and the next Acquire tries again.
func (q *ImageQueue) Prefetch(image string) {
	if q.opts.Pull == PullNever {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	st := q.state(image)
	if st.flight != nil || (st.present && (q.opts.Pull != PullAlways || st.pulled)) {
		return
	}
	q.startFlight(st, q.opts.Pull, true)
}

// Acquire makes image available under the queue's policy (waiting for a pull in flight rather
// than starting another) and marks it in use until Release: an image in use is never removed.
// It returns the image id.
func (q *ImageQueue) Acquire(ctx context.Context, image string) (string, error) {
	id, err := q.ensure(ctx, image, q.opts.Pull, true)
	return id, err
}

// Release ends one use of image begun by Acquire, and one declared use (Expect). Then the
// cache policy applies: with CacheRemove, an image this run pulled that has no use left is
// removed; with CacheBudget, least-recently-used images are removed until the images this run
// pulled fit the budget. Removal runs on a context that survives cancellation; its failures are
// logged, not returned.
func (q *ImageQueue) Release(ctx context.Context, image string) {
	q.mu.Lock()
	st := q.state(image)
	if st.inUse > 0 {
		st.inUse--
	}
	if st.demand > 0 {
		st.demand--
	}
	q.clock++
	st.lastUsed = q.clock
	var victims []*imageState
	switch q.opts.Cache.Mode {
	case CacheRemove:
		if q.removable(st) && st.demand == 0 {
			victims = append(victims, st)
			st.present = false
		}
	case CacheBudget:
		victims = q.overBudget()
	}
	q.mu.Unlock()
	q.remove(ctx, victims)
}

// EnsureImage makes image available locally according to policy and returns its id. Pulls go
// through the engine's queue (deduplicated, bounded, retried); the image is not marked in use
// (see ImageQueue.Acquire for that).
func (e *Engine) EnsureImage(ctx context.Context, image string, policy PullPolicy) (string, error) {
	return e.images.ensure(ctx, image, policy, false)
}

func (q *ImageQueue) ensure(ctx context.Context, image string, policy PullPolicy, use bool) (string, error) {
	if policy == "" {
		policy = PullMissing
	}
	// Fast path: a present image needs no slot of the queue.
	q.mu.Lock()
	st := q.state(image)
	alwaysDone := policy != PullAlways || st.pulled
	q.mu.Unlock()
	if alwaysDone {
		res, err := q.e.cli.ImageInspect(ctx, image)
		switch {
		case err == nil:
			q.mu.Lock()
			q.markPresent(st, res.ID, res.Size)
			if use {
				st.inUse++
			}
			q.mu.Unlock()
			return res.ID, nil
		case !cerrdefs.IsNotFound(err):
			return "", fmt.Errorf("inspect image %s on %s: %w", image, q.e.Host(), err)
		case policy == PullNever:
			return "", fmt.Errorf("%w: %s is not present on %s and the pull policy is never", sandbox.ErrImageUnavailable, image, q.e.Host())
		}
	}

	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return "", fmt.Errorf("pull %s: engine %s is closed", image, q.e.Host())
	}
	f := st.flight
	if f == nil {
		f = q.startFlight(st, policy, false)
	}
	f.waiters++
	if !f.urgent {
		f.urgent = true
		q.dispatch()
	}
	q.mu.Unlock()

	select {
	case <-f.done:
		if f.err != nil {
			return "", f.err
		}
		if use {
			q.mu.Lock()
			st.inUse++
			q.mu.Unlock()
		}
		return f.id, nil
	case <-ctx.Done():
		q.mu.Lock()
		f.waiters--
		if f.waiters == 0 && !f.prefetch {
			f.cancel()
		}
		q.mu.Unlock()
		return "", ctx.Err()
	}
}

// markPresent records image as present; called with q.mu held.
func (q *ImageQueue) markPresent(st *imageState, id string, size int64) {
	if !st.present && !st.pulled {
		// Present before this run pulled it: the user's image.
		st.preexisting = true
	}
	st.present, st.id, st.size = true, id, size
	q.clock++
	st.lastUsed = q.clock
}

// startFlight queues a pull of st; called with q.mu held.
func (q *ImageQueue) startFlight(st *imageState, policy PullPolicy, prefetch bool) *flight {
	ctx, cancel := context.WithCancel(q.ctx)
	f := &flight{policy: policy, prefetch: prefetch, start: make(chan struct{}), done: make(chan struct{}), ctx: ctx, cancel: cancel}
	st.flight = f
	q.pending = append(q.pending, f)
	q.wg.Add(1)
	go q.run(st, f)
	q.dispatch()
	return f
}

// dispatch starts pending flights while slots are free, urgent ones first; called with q.mu held.
func (q *ImageQueue) dispatch() {
	for q.running < q.opts.PullWorkers && len(q.pending) > 0 {
		i := slices.IndexFunc(q.pending, func(f *flight) bool { return f.urgent })
		if i < 0 {
			i = 0
		}
		f := q.pending[i]
		q.pending = slices.Delete(q.pending, i, i+1)
		f.started = true
		q.running++
		close(f.start)
	}
}

func (q *ImageQueue) run(st *imageState, f *flight) {
	defer q.wg.Done()
	defer f.cancel()
	select {
	case <-f.start:
	case <-f.ctx.Done():
		q.mu.Lock()
		if !f.started {
			q.pending = slices.DeleteFunc(q.pending, func(p *flight) bool { return p == f })
			st.flight = nil
			q.mu.Unlock()
			f.err = fmt.Errorf("pull %s: %w", st.name, f.ctx.Err())
			close(f.done)
			return
		}
		q.mu.Unlock() // started at the same moment: go on, the pull fails at once
	}

	id, size, pulled, err := q.fetch(f.ctx, st, f.policy)

	q.mu.Lock()
	q.running--
	st.flight = nil
	var victims []*imageState
	if err == nil {
		if pulled {
			st.pulled = true
		}
		q.markPresent(st, id, size)
		if q.opts.Cache.Mode == CacheBudget {
			victims = q.overBudget()
		}
	}
	q.dispatch()
	q.mu.Unlock()
	f.id, f.err = id, err
	close(f.done)
	if err != nil && f.prefetch && f.waiters == 0 {
		q.opts.Logger.Warn("prefetch failed; the instance that needs the image will try again", "image", st.name, "err", err)
	}
	q.remove(context.Background(), victims)
}

// fetch makes the image present: inspect, pull with retries, inspect. pulled reports whether
// it pulled (rather than finding the image present).
func (q *ImageQueue) fetch(ctx context.Context, st *imageState, policy PullPolicy) (id string, size int64, pulled bool, err error) {
	res, err := q.e.cli.ImageInspect(ctx, st.name)
	if err != nil && !cerrdefs.IsNotFound(err) {
		return "", 0, false, fmt.Errorf("inspect image %s on %s: %w", st.name, q.e.Host(), err)
	}
	if err == nil {
		q.mu.Lock()
		already := st.pulled
		if !already {
			q.markPresent(st, res.ID, res.Size) // the user's image, even if we pull it again
		}
		q.mu.Unlock()
		if policy != PullAlways || already {
			return res.ID, res.Size, false, nil
		}
	} else if policy == PullNever {
		return "", 0, false, fmt.Errorf("%w: %s is not present on %s and the pull policy is never", sandbox.ErrImageUnavailable, st.name, q.e.Host())
	}

	if err := q.pullWithRetries(ctx, st.name); err != nil {
		if q.opts.OnPull != nil {
			q.opts.OnPull(sandbox.PullProgress{Host: q.e.Host(), Image: st.name, Done: true, Err: err})
		}
		return "", 0, false, err
	}
	res, err = q.e.cli.ImageInspect(ctx, st.name)
	if err != nil {
		return "", 0, false, fmt.Errorf("inspect image %s after pull: %w", st.name, err)
	}
	q.opts.Logger.Info("pulled image", "host", q.e.Host(), "image", st.name, "size", res.Size)
	return res.ID, res.Size, true, nil
}

func (q *ImageQueue) pullWithRetries(ctx context.Context, image string) error {
	delay := q.opts.RetryBackoff
	for attempt := 1; ; attempt++ {
		err := q.pullOnce(ctx, image, attempt)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("pull %s: %w", image, ctx.Err())
		}
		if !transientPullError(err) {
			return err
		}
		if attempt > q.opts.PullRetries {
			return fmt.Errorf("pull %s on %s: gave up after %d attempts (is the registry reachable? `docker pull %s` shows the engine's view); last error: %w",
				image, q.e.Host(), attempt, image, err)
		}
		wait := delay
		if tooManyRequests(err) {
			wait = max(wait, 30*time.Second)
		}
		q.opts.Logger.Warn("pull failed; retrying", "host", q.e.Host(), "image", image, "attempt", attempt, "retry_in", wait.String(), "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("pull %s: %w", image, ctx.Err())
		case <-t.C:
		}
		delay = min(2*delay, time.Minute)
	}
}

// pullError is an error the engine reported for a pull.
type pullError struct {
	image     string
	err       error
	transient bool
}

func (e *pullError) Error() string { return fmt.Sprintf("pull %s: %v", e.image, e.err) }
func (e *pullError) Unwrap() error { return e.err }

func transientPullError(err error) bool {
	var pe *pullError
	return errors.As(err, &pe) && pe.transient
}

// tooManyRequests recognises a registry's rate limit. The engine passes the registry's error on
// as text only; TOOMANYREQUESTS is the error code of the distribution protocol, not prose.
func tooManyRequests(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "toomanyrequests") || strings.Contains(s, "429 too many requests")
}

// pullOnce runs one attempt, reading the engine's progress stream to its end. The attempt is
// cancelled when no progress arrives for StallTimeout.
func (q *ImageQueue) pullOnce(ctx context.Context, image string, attempt int) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(q.opts.StallTimeout, func() {
		cancel(fmt.Errorf("%w: no progress for %s", ErrPullStalled, q.opts.StallTimeout))
	})
	defer stall.Stop()

	auth, err := q.opts.Auth(ctx, image)
	if err != nil {
		return fmt.Errorf("credentials for %s: %w", image, err)
	}
	opts := client.ImagePullOptions{RegistryAuth: auth}
	if q.plat != nil {
		opts.Platforms = []ocispec.Platform{*q.plat}
	}
	resp, err := q.e.cli.ImagePull(ctx, image, opts)
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrPullStalled) {
			return &pullError{image: image, err: cause, transient: true}
		}
		switch {
		case cerrdefs.IsNotFound(err):
			return fmt.Errorf("%w: pull %s on %s: %v", sandbox.ErrImageUnavailable, image, q.e.Host(), err)
		case cerrdefs.IsUnauthorized(err), cerrdefs.IsPermissionDenied(err):
			return fmt.Errorf("%w: pull %s on %s: access denied (run `docker login` for its registry): %v", sandbox.ErrImageUnavailable, image, q.e.Host(), err)
		case cerrdefs.IsInvalidArgument(err):
			return fmt.Errorf("pull %s: %w", image, err)
		case client.IsErrConnectionFailed(err):
			return &EngineDownError{Host: q.e.Host(), Err: err}
		}
		// Registry unreachable, 5xx, 429 …: the engine answers 500.
		return &pullError{image: image, err: err, transient: true}
	}
	defer resp.Close()

	tr := newPullTracker(q.e.Host(), image, attempt)
	lastReport := time.Time{}
	for msg, err := range resp.JSONMessages(ctx) {
		if err != nil {
			if cause := context.Cause(ctx); errors.Is(cause, ErrPullStalled) {
				err = cause
			} else if ctx.Err() != nil {
				return ctx.Err()
			}
			return &pullError{image: image, err: err, transient: true}
		}
		if msg.Error != nil {
			return &pullError{image: image, err: errors.New(msg.Error.Message), transient: true}
		}
		var cur, total int64
		if msg.Progress != nil {
			cur, total = msg.Progress.Current, msg.Progress.Total
		}
		if tr.update(msg.ID, msg.Status, cur, total) {
			stall.Reset(q.opts.StallTimeout)
		}
		if q.opts.OnPull != nil && (tr.layerChanged || time.Since(lastReport) > 200*time.Millisecond) {
			lastReport = time.Now()
			q.opts.OnPull(tr.progress())
		}
	}
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, ErrPullStalled) {
			return &pullError{image: image, err: cause, transient: true}
		}
		return cause
	}
	if q.opts.OnPull != nil {
		p := tr.progress()
		p.Done = true
		q.opts.OnPull(p)
	}
	return nil
}

// overBudget picks the images to remove so that the images this run pulled fit the budget:
// first those no declared use needs, then the least recently used. Called with q.mu held; the
// victims are marked absent.
func (q *ImageQueue) overBudget() []*imageState {
	var total int64
	var cands []*imageState
	for _, st := range q.images {
		if q.removable(st) {
			total += st.size
			if st.inUse == 0 && st.flight == nil {
				cands = append(cands, st)
			}
		}
	}
	if total <= q.opts.Cache.Budget {
		return nil
	}
	slices.SortFunc(cands, func(a, b *imageState) int {
		if (a.demand == 0) != (b.demand == 0) {
			if a.demand == 0 {
				return -1
			}
			return 1
		}
		return int(a.lastUsed) - int(b.lastUsed)
	})
	var victims []*imageState
	for _, st := range cands {
		if total <= q.opts.Cache.Budget {
			break
		}
		total -= st.size
		st.present = false
		victims = append(victims, st)
	}
	if total > q.opts.Cache.Budget {
		q.opts.Logger.Warn("image cache over budget: the images left are in use", "host", q.e.Host(),
			"size", units.BytesSize(float64(total)), "budget", units.BytesSize(float64(q.opts.Cache.Budget)))
	}
	return victims
}

// removable: pulled by this run, present, not the user's. Called with q.mu held.
func (q *ImageQueue) removable(st *imageState) bool {
	return st.pulled && !st.preexisting && st.present && st.inUse == 0 && st.flight == nil
}

const imageRemoveTimeout = time.Minute

func (q *ImageQueue) remove(ctx context.Context, victims []*imageState) {
	if len(victims) == 0 {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), imageRemoveTimeout)
	defer cancel()
	for _, st := range victims {
		// By name, not by id: if the image carries other tags too, only ours goes.
		_, err := q.e.cli.ImageRemove(rctx, st.name, client.ImageRemoveOptions{PruneChildren: true})
		if err != nil && !cerrdefs.IsNotFound(err) {
			// Still used by a container (e.g. one that escaped cleanup): it stays.
			q.mu.Lock()
			st.present = true
			q.mu.Unlock()
			q.opts.Logger.Warn("image removal failed; it stays", "host", q.e.Host(), "image", st.name, "err", err)
			continue
		}
		q.opts.Logger.Info("removed image", "host", q.e.Host(), "image", st.name, "size", st.size, "policy", string(q.opts.Cache.Mode))
	}
}

// CachedImage describes an image known to the queue.
type CachedImage struct {
	Image       string
	Present     bool
	Preexisting bool // the user's: never removed
	Pulled      bool // pulled by this run
	Size        int64
	InUse       int
	Demand      int
}

// Cached lists the images the queue knows, sorted by name.
func (q *ImageQueue) Cached() []CachedImage {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]CachedImage, 0, len(q.images))
	for _, st := range q.images {
		out = append(out, CachedImage{Image: st.name, Present: st.present, Preexisting: st.preexisting, Pulled: st.pulled,
			Size: st.size, InUse: st.inUse, Demand: st.demand})
	}
	slices.SortFunc(out, func(a, b CachedImage) int { return strings.Compare(a.Image, b.Image) })
	return out
}

// close cancels every pull and waits for them to end.
func (q *ImageQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cancel()
	q.wg.Wait()
}

// pullTracker turns the engine's progress messages into layer and byte counts.
type pullTracker struct {
	host, image  string
	attempt      int
	layers       map[string]*layerProgress
	order        []string
	layerChanged bool
}

type layerProgress struct {
	current, total int64
	done           bool
}

func newPullTracker(host, image string, attempt int) *pullTracker {
	return &pullTracker{host: host, image: image, attempt: attempt, layers: map[string]*layerProgress{}}
}

// update records one message and reports whether it shows progress.
func (t *pullTracker) update(id, status string, cur, total int64) bool {
	t.layerChanged = false
	// Messages about the image as a whole ("Pulling from …", "Digest: …") carry no layer.
	if id == "" || strings.HasPrefix(status, "Pulling from") {
		return true
	}
	l := t.layers[id]
	if l == nil {
		l = &layerProgress{}
		t.layers[id] = l
		t.order = append(t.order, id)
		t.layerChanged = true
	}
	switch status {
	case "Downloading":
		moved := cur != l.current || t.layerChanged
		l.current = cur
		if total > 0 {
			l.total = total
		}
		return moved
	case "Download complete", "Verifying Checksum":
		if l.total > 0 {
			l.current = l.total
		}
	case "Pull complete", "Already exists":
		if l.total > 0 {
			l.current = l.total
		}
		if !l.done {
			l.done = true
			t.layerChanged = true
		}
	}
	// Extracting and the other statuses: the engine works on the layer.
	return true
}

func (t *pullTracker) progress() sandbox.PullProgress {
	p := sandbox.PullProgress{Host: t.host, Image: t.image, Attempt: t.attempt, Layers: len(t.order)}
	for _, id := range t.order {
		l := t.layers[id]
		p.Current += l.current
		p.Total += l.total
		if l.done {
			p.LayersDone++
		}
	}
	return p
}
