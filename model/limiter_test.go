package model

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// runWorkers runs workers goroutines making perWorker queries each against p, and returns the
// errors.
func runWorkers(t *testing.T, p Provider, workers, perWorker int) []error {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, workers*perWorker)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := p.ForInstance("inst")
			if err != nil {
				errs[w*perWorker] = err
				return
			}
			for i := range perWorker {
				_, errs[w*perWorker+i] = m.Query(context.Background(), conversation())
			}
		}()
	}
	wg.Wait()
	return errs
}

func TestLimiterKeepsServerRateUnderLimit(t *testing.T) {
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		respond(200, openAIToolReply)(w, r)
	}))
	t.Cleanup(srv.Close)

	const rpm, workers, perWorker = 1200, 16, 3 // 20 requests per second at most
	p := testProvider(t, Config{ModelName: "gpt-4o", RequestsPerMinute: rpm}, srv.URL, Options{Clock: realClock{}})
	for _, err := range runWorkers(t, p, workers, perWorker) {
		if err != nil {
			t.Fatalf("Query: %v", err)
		}
	}
	if len(arrivals) != workers*perWorker {
		t.Fatalf("server saw %d requests, want %d", len(arrivals), workers*perWorker)
	}
	sort.Slice(arrivals, func(i, j int) bool { return arrivals[i].Before(arrivals[j]) })
	// The most requests the server saw within any one second.
	most := 0
	for i := range arrivals {
		n := sort.Search(len(arrivals), func(j int) bool { return !arrivals[j].Before(arrivals[i].Add(time.Second)) }) - i
		most = max(most, n)
	}
	if limit := rpm/60 + 1; most > limit {
		t.Errorf("server saw %d requests within one second, want at most %d", most, limit)
	}
}

func TestLimiterTokensPerMinute(t *testing.T) {
	clock := newFakeClock()
	start := clock.Now()
	l := newLimiter(clock, 0, 6000, 0)
	for range 10 {
		tk, err := l.acquire(context.Background(), 1000)
		if err != nil {
			t.Fatal(err)
		}
		l.release(tk, true, false, 1000)
	}
	// 10,000 tokens with a full bucket of 6,000 and a refill of 6,000/min: 40s at least.
	if got, want := clock.Now().Sub(start), 40*time.Second; got < want-time.Second {
		t.Errorf("10×1000 tokens took %v of virtual time, want at least %v", got, want)
	}
}

func TestRateLimitStormDoesNotMultiplyRequests(t *testing.T) {
	const workers = 32
	const storm = 300 * time.Millisecond
	var start atomic.Pointer[time.Time]
	var requests, limited atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		now := time.Now()
		start.CompareAndSwap(nil, &now)
		if time.Since(*start.Load()) < storm {
			limited.Add(1)
			respond(429, openAIRateLimitBody, "Retry-After-Ms", "50")(w, r)
			return
		}
		respond(200, openAIToolReply)(w, r)
	}))
	t.Cleanup(srv.Close)

	retries := 30
	p := testProvider(t, Config{ModelName: "gpt-4o", MaxRetries: &retries}, srv.URL,
		Options{Clock: realClock{}, BackoffBase: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond})
	for _, err := range runWorkers(t, p, workers, 1) {
		if err != nil {
			t.Fatalf("Query: %v", err)
		}
	}
	// Each worker retrying on its own every 50ms would send about workers × storm/50ms = 192
	// requests into the storm. Shared, the first wave is answered 429, then the window halves
	// at each pause: 32+16+8+4+2+1 and a probe per pause.
	if got, most := limited.Load(), int64(2*workers+int(storm/(50*time.Millisecond))+4); got > most {
		t.Errorf("server answered %d requests with 429, want at most %d", got, most)
	}
	t.Logf("429s: %d", limited.Load())
	if got := requests.Load() - limited.Load(); got != workers {
		t.Errorf("successful requests = %d, want %d", got, workers)
	}
	if w := p.(*apiProvider).client.lim.concurrencyWindow(); w == 0 || w >= workers {
		t.Errorf("concurrency window = %d, want it narrowed below %d", w, workers)
	}
}

// Providers made with one Limiters share a limiter per endpoint, API model and key: two cells
// of a sweep calling one model stay under its max_concurrency together, and the stricter of
// their limits wins. Another model, endpoint or key gets its own limiter.
func TestLimitersShareOneLimiterPerEndpointAndModel(t *testing.T) {
	var inflight, most atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		respond(200, openAIToolReply)(w, r)
	}))
	t.Cleanup(srv.Close)

	reg := NewLimiters()
	opts := Options{Clock: realClock{}, Limiters: reg}
	// Two cells of one model: one without a cap, one with max_concurrency 2 (the stricter wins).
	a := testProvider(t, Config{ModelName: "gpt-4o"}, srv.URL, opts)
	b := testProvider(t, Config{ModelName: "gpt-4o", MaxConcurrency: 2, ModelKwargs: map[string]any{"temperature": 0.7}}, srv.URL, opts)
	if reg.Len() != 1 || a.(*apiProvider).client.lim != b.(*apiProvider).client.lim {
		t.Fatalf("cells of one model got %d limiters, want one shared", reg.Len())
	}
	var wg sync.WaitGroup
	for _, p := range []Provider{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, err := range runWorkers(t, p, 4, 2) {
				if err != nil {
					t.Errorf("Query: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if got := most.Load(); got > 2 {
		t.Errorf("the server saw %d calls at once from the two cells, want at most 2 (their shared cap)", got)
	}

	other := testProvider(t, Config{ModelName: "gpt-4o-mini"}, srv.URL, opts)
	otherKey := testProvider(t, Config{ModelName: "gpt-4o"}, srv.URL, Options{Clock: realClock{}, Limiters: reg,
		Env: func(k string) string {
			if k == "OPENAI_API_KEY" {
				return "sk-another-key"
			}
			return ""
		}})
	otherURL := testProvider(t, Config{ModelName: "gpt-4o"}, srv.URL+"/other", opts)
	if reg.Len() != 4 {
		t.Errorf("registry has %d limiters, want 4 (one model, another model, another key, another endpoint)", reg.Len())
	}
	for name, p := range map[string]Provider{"model": other, "key": otherKey, "endpoint": otherURL} {
		if p.(*apiProvider).client.lim == a.(*apiProvider).client.lim {
			t.Errorf("another %s shares the limiter", name)
		}
	}
	// Without a registry every provider has its own.
	c := testProvider(t, Config{ModelName: "gpt-4o"}, srv.URL, Options{Clock: realClock{}})
	if c.(*apiProvider).client.lim == a.(*apiProvider).client.lim {
		t.Error("a provider without a registry shares a limiter")
	}
}
