package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/model/proxy"
	"github.com/swebench-run/swebench-run/testutil/providertest"
)

// ProxySpec shapes the model proxy's measurement.
type ProxySpec struct {
	Calls       int           // calls per side (direct, through the proxy) and per mode
	Concurrency int           // concurrent streams of the loaded run
	Delay       time.Duration // the provider's time per call (first event at half of it)
	// Paced is the time per call of the paced loaded run: the same reply at a model's pace
	// (0: no paced run).
	Paced time.Duration
}

// ProxyResult holds the proxy's added latency against direct calls to the same provider.
type ProxyResult struct {
	Spec ProxySpec
	// Unstreamed and streamed calls one at a time: the whole call, and the first byte.
	Direct, Proxied             Sample
	DirectStream, ProxiedStream Sample
	DirectTTFB, ProxiedTTFB     Sample
	// The same streams, Concurrency at a time.
	LoadDirect, LoadProxied         Sample
	LoadDirectTTFB, LoadProxiedTTFB Sample
	// The paced run: Concurrency streams at a time, each of Paced.
	PacedDirect, PacedProxied Sample
	// AllocPerCall is the memory the process allocates per proxied streamed call (the proxy's
	// share: the same call made directly is subtracted); PeakHeap the heap in use at the peak
	// of the loaded run over the idle heap.
	AllocPerCall, DirectAllocPerCall float64
	// CPUPerCall is the process's CPU time (user + system) per proxied streamed call less that of
	// a direct one: the proxy's own work; DirectCPUPerCall the direct call's (client and provider).
	CPUPerCall, DirectCPUPerCall time.Duration
	PeakHeap                     uint64
	RequestBytes, StreamBytes    int
}

// benchReply is a typical agent turn: about 2,000 characters of text and one tool call
// writing a 1,500-character file, as the model stream benchmarks use.
func benchReply() map[string]any {
	text := strings.Repeat("The parser drops empty sections because it skips blank headers. ", 31)
	file := strings.Repeat("def parse(s):\n    return [l for l in s.splitlines()]\n", 29)
	reply := providertest.Reply(providertest.Anthropic, providertest.Turn{Content: text, Commands: []string{"cat > parser.py <<'EOF'\n" + file + "EOF"}}, 0, "bench")
	return reply
}

// benchRequest is an agent's request of about 24 kB: a conversation some turns in; user is
// its metadata.user_id.
func benchRequest(stream bool, user string) []byte {
	msgs := []any{map[string]any{"role": "user", "content": "Fix the parser (task bench). " + strings.Repeat("Context line of the issue. ", 100)}}
	for i := range 8 {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i), "name": "bash", "input": map[string]any{"command": "cat file.py"}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", i), "content": strings.Repeat("line of output\n", 150)}}})
	}
	b, _ := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 8192, "stream": stream, "messages": msgs,
		"metadata": map[string]any{"user_id": user},
		"tools":    []any{map[string]any{"name": "bash", "input_schema": map[string]any{"type": "object"}}}})
	return b
}

// benchProvider answers the Messages API after the spec's delay: unstreamed, the reply at
// Delay; streamed, its first event at Delay/2 and the rest in ten bursts over the other half,
// texts in 4-byte deltas as providers stream them. A request whose metadata.user_id is
// "paced" takes paced instead of delay.
func benchProvider(delay, paced time.Duration) *httptest.Server {
	reply := benchReply()
	body, _ := json.Marshal(reply)
	events := providertest.SSE(providertest.SSEEventsSized(providertest.Anthropic, reply, 4))
	first := bytes.Index(events, []byte("\n\n")) + 2
	// the events after the first, in ten bursts of whole events
	evs := bytes.SplitAfter(events[first:], []byte("\n\n"))
	var bursts [][]byte
	for i := range 10 {
		bursts = append(bursts, bytes.Join(evs[len(evs)*i/10:len(evs)*(i+1)/10], nil))
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream   bool `json:"stream"`
			Metadata struct {
				UserID string `json:"user_id"`
			} `json:"metadata"`
		}
		data, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(data, &req)
		delay := delay
		if req.Metadata.UserID == "paced" {
			delay = paced
		}
		if !req.Stream {
			time.Sleep(delay)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		time.Sleep(delay / 2)
		_, _ = w.Write(events[:first])
		w.(http.Flusher).Flush()
		for _, burst := range bursts {
			time.Sleep(delay / 20)
			_, _ = w.Write(burst)
			w.(http.Flusher).Flush()
		}
	}))
}

// MeasureProxy times calls to a local provider made directly and through the model proxy
// (one instance, the Anthropic wire), interleaved call by call.
func MeasureProxy(ctx context.Context, spec ProxySpec, dir string) (ProxyResult, error) {
	res := ProxyResult{Spec: spec}
	prov := benchProvider(spec.Delay, spec.Paced)
	defer prov.Close()
	name := "anthropic/claude-sonnet-4-5"
	up, err := model.NewUpstream(model.Config{ModelName: name, BaseURL: prov.URL, Prices: map[string]model.Price{name: {Input: 3, Output: 15}}},
		model.Options{Env: func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": "sk-bench"}[k] }})
	if err != nil {
		return res, err
	}
	p, err := proxy.Start(proxy.Config{Upstream: up})
	if err != nil {
		return res, err
	}
	defer p.Close(context.Background())
	// one instance per concurrent stream, as every agent has its own
	insts := make([]*proxy.Instance, max(1, spec.Concurrency))
	for i := range insts {
		id := fmt.Sprintf("bench-%d", i)
		if insts[i], err = p.Register(id, proxy.InstanceOptions{RecordPath: filepath.Join(dir, "bench", id, "agent", "proxy.jsonl")}); err != nil {
			return res, err
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2 * spec.Concurrency
	client := &http.Client{Transport: tr}
	unstreamed, streamed := benchRequest(false, "bench"), benchRequest(true, "bench")
	res.RequestBytes, res.StreamBytes = len(streamed), len(providertest.SSE(providertest.SSEEventsSized(providertest.Anthropic, benchReply(), 4)))

	call := func(viaProxy bool, body []byte, worker int) (total, ttfb time.Duration, err error) {
		url, key := prov.URL+"/v1/messages", "sk-bench"
		if viaProxy {
			in := insts[worker%len(insts)]
			url, key = in.Endpoints().Anthropic+"/v1/messages", in.Token()
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("Anthropic-Version", "2023-06-01")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0, err
		}
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		if _, err := br.ReadByte(); err != nil {
			return 0, 0, err
		}
		ttfb = time.Since(start)
		n, _ := io.Copy(io.Discard, br)
		total = time.Since(start)
		if resp.StatusCode != 200 || n == 0 {
			return 0, 0, fmt.Errorf("HTTP %d from %s", resp.StatusCode, url)
		}
		return total, ttfb, nil
	}
	// warm up both paths (connections, the price table)
	for _, via := range []bool{false, true} {
		if _, _, err := call(via, streamed, 0); err != nil {
			return res, err
		}
	}
	var d, pr, ds, ps, dt, pt []time.Duration
	for range spec.Calls {
		for _, via := range []bool{false, true} {
			tot, _, err := call(via, unstreamed, 0)
			if err != nil {
				return res, err
			}
			tots, ttfb, err := call(via, streamed, 0)
			if err != nil {
				return res, err
			}
			if via {
				pr, ps, pt = append(pr, tot), append(ps, tots), append(pt, ttfb)
			} else {
				d, ds, dt = append(d, tot), append(ds, tots), append(dt, ttfb)
			}
		}
	}
	res.Direct, res.Proxied = Summarize(d), Summarize(pr)
	res.DirectStream, res.ProxiedStream = Summarize(ds), Summarize(ps)
	res.DirectTTFB, res.ProxiedTTFB = Summarize(dt), Summarize(pt)

	// Allocation and CPU per streamed call, each side alone.
	cost := func(via bool, n int) (float64, time.Duration, error) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		cpu0 := processCPU()
		for range n {
			if _, _, err := call(via, streamed, 0); err != nil {
				return 0, 0, err
			}
		}
		cpu := processCPU() - cpu0
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / float64(n), cpu / time.Duration(n), nil
	}
	n := max(1, min(spec.Calls, 20))
	if res.DirectAllocPerCall, res.DirectCPUPerCall, err = cost(false, n); err != nil {
		return res, err
	}
	if res.AllocPerCall, res.CPUPerCall, err = cost(true, n); err != nil {
		return res, err
	}
	res.AllocPerCall -= res.DirectAllocPerCall
	res.CPUPerCall -= res.DirectCPUPerCall

	// load runs Concurrency workers, each making rounds × (one direct, one proxied) calls of
	// body, the order alternating between workers and rounds.
	load := func(rounds int, body []byte) (ld, lp, ldt, lpt []time.Duration, firstErr error) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := range spec.Concurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range rounds {
					for k := range 2 {
						via := (w+r+k)%2 == 1
						tot, ttfb, err := call(via, body, w)
						mu.Lock()
						switch {
						case err != nil && firstErr == nil:
							firstErr = err
						case err == nil && via:
							lp, lpt = append(lp, tot), append(lpt, ttfb)
						case err == nil:
							ld, ldt = append(ld, tot), append(ldt, ttfb)
						}
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		return ld, lp, ldt, lpt, firstErr
	}

	// Concurrency streams at a time, each worker alternating direct and proxied calls.
	runtime.GC()
	idle := heapInUse()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if h := heapInUse(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	}()
	ld, lp, ldt, lpt, err := load(max(1, spec.Calls/4), streamed)
	close(stop)
	sampler.Wait()
	if err != nil {
		return res, err
	}
	if p := peak.Load(); p > idle {
		res.PeakHeap = p - idle
	}
	res.LoadDirect, res.LoadProxied = Summarize(ld), Summarize(lp)
	res.LoadDirectTTFB, res.LoadProxiedTTFB = Summarize(ldt), Summarize(lpt)
	if spec.Paced > 0 {
		pd, pp, _, _, err := load(1, benchRequest(true, "paced"))
		if err != nil {
			return res, err
		}
		res.PacedDirect, res.PacedProxied = Summarize(pd), Summarize(pp)
	}
	for _, in := range insts {
		if _, err := in.End(); err != nil {
			return res, err
		}
	}
	return res, os.RemoveAll(filepath.Join(dir, "bench"))
}

// processCPU is the user + system time the process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapInUse() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func pacedRow(r ProxyResult) Row {
	if r.Spec.Paced <= 0 {
		return Row{What: "model proxy: paced concurrent streams", Measured: "not measured", NA: true}
	}
	rm, rp := ratio(r.PacedProxied.Median, r.PacedDirect.Median), ratio(r.PacedProxied.P90, r.PacedDirect.P90)
	return Row{What: fmt.Sprintf("model proxy: %d concurrent streams at a model's pace (the same reply over %s), whole call, proxy ÷ direct", r.Spec.Concurrency, r.Spec.Paced.Round(time.Millisecond)),
		Measured: fmt.Sprintf("median %.3f×, p90 %.3f×; direct median %s, proxied median %s (n=%d)", rm, rp, ms(r.PacedDirect.Median), ms(r.PacedProxied.Median), r.PacedProxied.N),
		Goal:     "≤ 1.05×", Pass: rm <= 1.05}
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Rows renders the result.
func (r ProxyResult) Rows() []Row {
	s := r.Spec
	sample := func(x Sample) string {
		return fmt.Sprintf("median %s, p90 %s (n=%d)", ms(x.Median), ms(x.P90), x.N)
	}
	goal := func(a, b Sample) (string, bool) {
		rm, rp := ratio(a.Median, b.Median), ratio(a.P90, b.P90)
		return fmt.Sprintf("median %.3f×, p90 %.3f×", rm, rp), rm <= 1.05
	}
	call, callOK := goal(r.Proxied, r.Direct)
	whole, wholeOK := goal(r.ProxiedStream, r.DirectStream)
	ttfb, ttfbOK := goal(r.ProxiedTTFB, r.DirectTTFB)
	load, loadOK := goal(r.LoadProxied, r.LoadDirect)
	loadT, loadTOK := goal(r.LoadProxiedTTFB, r.LoadDirectTTFB)
	d := s.Delay.Round(time.Millisecond)
	return []Row{
		{What: fmt.Sprintf("model proxy: unstreamed call of %s, direct", d), Measured: sample(r.Direct), NA: true},
		{What: fmt.Sprintf("model proxy: unstreamed call of %s, through the proxy", d), Measured: sample(r.Proxied), NA: true},
		{What: "model proxy: unstreamed call, proxy ÷ direct", Measured: call, Goal: "≤ 1.05×", Pass: callOK},
		{What: fmt.Sprintf("model proxy: first streamed byte (provider's first event at %s), direct / through the proxy", d/2),
			Measured: sample(r.DirectTTFB) + " / " + sample(r.ProxiedTTFB), NA: true},
		{What: "model proxy: first streamed byte, proxy ÷ direct", Measured: ttfb, Goal: "≤ 1.05×", Pass: ttfbOK},
		{What: fmt.Sprintf("model proxy: whole streamed call of %s (%d events), proxy ÷ direct", d, bytes.Count(providertest.SSE(providertest.SSEEventsSized(providertest.Anthropic, benchReply(), 4)), []byte("\n\n"))),
			Measured: whole + "; direct " + sample(r.DirectStream), Goal: "≤ 1.05×", Pass: wholeOK},
		{What: fmt.Sprintf("model proxy: %d concurrent streams, whole call, proxy ÷ direct", s.Concurrency),
			Measured: load + "; direct " + sample(r.LoadDirect) + ", proxied " + sample(r.LoadProxied), Goal: "≤ 1.05×", Pass: loadOK},
		{What: fmt.Sprintf("model proxy: %d concurrent streams, first byte, proxy ÷ direct", s.Concurrency),
			Measured: loadT + "; direct " + sample(r.LoadDirectTTFB) + ", proxied " + sample(r.LoadProxiedTTFB), Goal: "≤ 1.05×", Pass: loadTOK},
		pacedRow(r),
		{What: "model proxy: CPU per streamed call", Measured: fmt.Sprintf("%s besides the direct call's %s (client and provider, same process)", ms(r.CPUPerCall), ms(r.DirectCPUPerCall)), NA: true},
		{What: "model proxy: memory", Measured: fmt.Sprintf("%.0f KB allocated per streamed call (%d-byte request, %d-byte stream) besides the direct call's %.0f KB; heap in use at the peak of %d concurrent streams (both sides) +%.1f MB over idle",
			r.AllocPerCall/1e3, r.RequestBytes, r.StreamBytes, r.DirectAllocPerCall/1e3, s.Concurrency, float64(r.PeakHeap)/1e6), NA: true},
	}
}
