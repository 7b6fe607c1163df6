package dockerenv_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// However many workers want an image at once, it is pulled once: the registry serves one
// manifest GET. Progress reaches the callback, and the pull ends with every layer done.
func TestPullDedupe(t *testing.T) {
	reg := startRegistry(t)
	repo := uniqueRepo(t, "dedupe")
	ref := reg.pushImage(t, repo, 3<<20)
	before := reg.manifestGets(t, repo) // docker push reads no manifest, but be exact

	var mu sync.Mutex
	var last sandbox.PullProgress
	e := connect(t, dockerenv.Options{PullWorkers: 2, OnPull: func(p sandbox.PullProgress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Image == ref {
			last = p
		}
	}})
	q := e.Images()
	const workers = 8
	q.Expect(ref, workers)
	ids := make([]string, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = q.Acquire(context.Background(), ref)
		}()
	}
	wg.Wait()
	for i := range workers {
		if errs[i] != nil {
			t.Fatalf("worker %d: %v", i, errs[i])
		}
		if ids[i] == "" || ids[i] != ids[0] {
			t.Errorf("worker %d got image id %q, want %q", i, ids[i], ids[0])
		}
	}
	if got, want := reg.manifestGets(t, repo)-before, 1; got != want {
		t.Errorf("registry served %d manifest GETs, want %d (one pull)", got, want)
	}
	mu.Lock()
	if !last.Done || last.Err != nil || last.Layers == 0 || last.LayersDone != last.Layers || last.Total < 3<<20 || last.Current != last.Total {
		t.Errorf("last progress = %+v, want done with every layer and ≥3 MiB", last)
	}
	mu.Unlock()
	for range workers {
		q.Release(context.Background(), ref)
	}
	if !imagePresent(ref) {
		t.Errorf("%s was removed with the cache policy keep", ref)
	}
}

func TestPullErrors(t *testing.T) {
	reg := startRegistry(t)
	down := startRegistry(t)
	down.stop(t)
	tests := []struct {
		name        string
		ref         string
		policy      dockerenv.PullPolicy
		wantNF      bool // errors.Is sandbox.ErrImageUnavailable
		wantRetries int
	}{
		{"missing in the registry", reg.Addr + "/swebench-run-test/does-not-exist:latest", dockerenv.PullMissing, true, 0},
		{"missing locally, policy never", reg.Addr + "/swebench-run-test/does-not-exist:latest", dockerenv.PullNever, true, 0},
		{"registry down", down.Addr + "/swebench-run-test/x:latest", dockerenv.PullMissing, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger, retries := countingLogger("pull failed; retrying", nil)
			e := connect(t, dockerenv.Options{PullRetries: 2, RetryBackoff: 10 * time.Millisecond, Logger: logger})
			_, err := e.EnsureImage(context.Background(), tt.ref, tt.policy)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, sandbox.ErrImageUnavailable); got != tt.wantNF {
				t.Errorf("errors.Is(%v, ErrImageUnavailable) = %v, want %v", err, got, tt.wantNF)
			}
			if got := int(retries.Load()); got != tt.wantRetries {
				t.Errorf("retried %d times, want %d", got, tt.wantRetries)
			}
			if !strings.Contains(err.Error(), tt.ref) {
				t.Errorf("error %q does not name the image", err)
			}
		})
	}
}

// A registry that is down at the first attempt and back at the retry: the pull succeeds.
func TestPullRetrySucceedsWhenRegistryReturns(t *testing.T) {
	reg := startRegistry(t)
	repo := uniqueRepo(t, "retry")
	ref := reg.pushImage(t, repo, 1<<20)
	reg.stop(t)
	logger, retries := countingLogger("pull failed; retrying", func(n int) {
		if n == 1 {
			reg.start(t) // during the backoff
		}
	})
	e := connect(t, dockerenv.Options{PullRetries: 3, RetryBackoff: 100 * time.Millisecond, Logger: logger})
	if _, err := e.EnsureImage(context.Background(), ref, dockerenv.PullMissing); err != nil {
		t.Fatal(err)
	}
	if got := retries.Load(); got != 1 {
		t.Errorf("retried %d times, want 1", got)
	}
	if !imagePresent(ref) {
		t.Errorf("%s is not present after the pull", ref)
	}
}

// A pull that stops moving fails with ErrPullStalled; one that crawls but moves succeeds with
// the same stall timeout.
func TestPullStallTimeout(t *testing.T) {
	reg := startRegistry(t)
	tests := []struct {
		name       string
		rate       int   // bytes/s from the registry
		stallAfter int64 // bytes, then nothing
		wantStall  bool
	}{
		{"stalled", 0, 1 << 20, true},
		{"slow but moving", 2 << 20, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := uniqueRepo(t, "stall")
			ref := reg.pushImage(t, repo, 6<<20)
			proxy := startProxy(t, reg.Addr, tt.rate, tt.stallAfter)
			viaProxy := strings.Replace(ref, reg.Addr, proxy.Addr, 1)
			t.Cleanup(func() { removeImage(viaProxy) })
			e := connect(t, dockerenv.Options{StallTimeout: 2 * time.Second, PullRetries: -1})
			_, err := e.EnsureImage(context.Background(), viaProxy, dockerenv.PullMissing)
			if got := errors.Is(err, dockerenv.ErrPullStalled); got != tt.wantStall {
				t.Errorf("err = %v; stalled = %v, want %v", err, got, tt.wantStall)
			}
			if !tt.wantStall && err != nil {
				t.Errorf("slow pull failed: %v", err)
			}
			if tt.rate > 0 && proxy.sent.Load() < 6<<20 {
				t.Errorf("the proxy forwarded %d bytes, less than the layer: the pull did not go through it", proxy.sent.Load())
			}
		})
	}
}

// Prefetch pulls in the background; an Acquire meanwhile waits for that pull instead of
// starting another; no more than PullWorkers pulls run at once.
func TestPrefetchAndBound(t *testing.T) {
	reg := startRegistry(t)
	var refs []string
	for range 3 {
		refs = append(refs, reg.pushImage(t, uniqueRepo(t, "prefetch"), 1<<20))
	}
	var mu sync.Mutex
	active := map[string]bool{}
	maxActive := 0
	e := connect(t, dockerenv.Options{PullWorkers: 1, OnPull: func(p sandbox.PullProgress) {
		mu.Lock()
		defer mu.Unlock()
		active[p.Image] = !p.Done
		n := 0
		for _, a := range active {
			if a {
				n++
			}
		}
		maxActive = max(maxActive, n)
	}})
	q := e.Images()
	for _, r := range refs {
		q.Prefetch(r)
	}
	for _, r := range refs {
		if _, err := q.Acquire(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		q.Release(context.Background(), r)
	}
	for _, r := range refs {
		repo := strings.TrimSuffix(strings.TrimPrefix(r, reg.Addr+"/"), ":latest")
		if got := reg.manifestGets(t, repo); got != 1 {
			t.Errorf("%s: %d manifest GETs, want 1", r, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(active) != len(refs) {
		t.Errorf("progress seen for %d images, want %d", len(active), len(refs))
	}
	if maxActive != 1 {
		t.Errorf("%d pulls ran at once, want 1 (PullWorkers)", maxActive)
	}
}

// With --image-cache remove, an image this run pulled goes after its last declared use; an
// image the user had before the run stays.
func TestCacheRemove(t *testing.T) {
	reg := startRegistry(t)
	ref := reg.pushImage(t, uniqueRepo(t, "remove"), 1<<20)
	e := connect(t, dockerenv.Options{Cache: dockerenv.CachePolicy{Mode: dockerenv.CacheRemove}})
	testenv.RequireImage(t, e, testenv.BaseImage)
	q := e.Images()
	ctx := context.Background()
	q.Expect(ref, 2)
	q.Expect(testenv.BaseImage, 1)
	for _, r := range []string{ref, ref, testenv.BaseImage} {
		if _, err := q.Acquire(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	q.Release(ctx, ref)
	if !imagePresent(ref) {
		t.Fatalf("%s removed while one declared use remains", ref)
	}
	q.Release(ctx, ref)
	if imagePresent(ref) {
		t.Errorf("%s still present after its last use", ref)
	}
	q.Release(ctx, testenv.BaseImage)
	if !imagePresent(testenv.BaseImage) {
		t.Fatalf("the user's image %s was removed", testenv.BaseImage)
	}
}

// With a budget, the least recently used images this run pulled are evicted to stay under it.
func TestCacheBudget(t *testing.T) {
	reg := startRegistry(t)
	const size = 3 << 20
	var refs []string
	for range 3 {
		refs = append(refs, reg.pushImage(t, uniqueRepo(t, "budget"), size))
	}
	// Room for two images, not three.
	e := connect(t, dockerenv.Options{Cache: dockerenv.CachePolicy{Mode: dockerenv.CacheBudget, Budget: 2*size + size/2}, Logger: slog.Default()})
	testenv.RequireImage(t, e, testenv.BaseImage)
	q := e.Images()
	ctx := context.Background()
	for _, r := range append([]string{testenv.BaseImage}, refs...) {
		q.Expect(r, 1)
		if _, err := q.Acquire(ctx, r); err != nil {
			t.Fatal(err)
		}
		q.Release(ctx, r)
	}
	// The eviction that the last pull makes room with runs after that pull's waiters were
	// released: wait for it.
	for deadline := time.Now().Add(30 * time.Second); imagePresent(refs[0]) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	var got []bool
	for _, r := range refs {
		got = append(got, imagePresent(r))
	}
	if want := []bool{false, true, true}; !equalBools(got, want) {
		t.Errorf("present = %v, want %v (the least recently used evicted)", got, want)
	}
	if !imagePresent(testenv.BaseImage) {
		t.Errorf("the user's image %s was evicted", testenv.BaseImage)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
