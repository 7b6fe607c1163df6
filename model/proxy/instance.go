package proxy

import (
	"context"
	"errors"
	"sort"
	"sync"

	"github.com/swebench-run/swebench-run/model"
)

// Instance is one instance's access to the proxy: its token, limits, totals and record.
type Instance struct {
	p       *Proxy
	id      string
	tokenID string
	secret  []byte
	token   string
	limits  Limits
	rec     *recorder
	ctx     context.Context // cancelled by End: cuts the calls in flight
	cancel  context.CancelFunc

	mu       sync.Mutex
	inflight sync.WaitGroup
	ended    bool
	seq      int
	calls    int // admitted model calls
	cost     float64
	done     chan struct{}
	err      error

	endOnce sync.Once
	summary Summary
	endErr  error
}

// ID is the instance id.
func (in *Instance) ID() string { return in.id }

// Token is the instance's own key: give it to the agent as its API key. It works until End.
func (in *Instance) Token() string { return in.token }

// Endpoints are the base URLs of the wires, as the agent's clients take them.
type Endpoints struct {
	Anthropic string // ANTHROPIC_BASE_URL: http://host:port (the client adds /v1/messages)
	OpenAI    string // OPENAI_BASE_URL: http://host:port/v1 (the client adds /chat/completions, /responses)
	Gemini    string // GOOGLE_GEMINI_BASE_URL: http://host:port (the client adds /v1beta/models/…)
}

// Endpoints returns the base URL of each wire as the sandbox reaches it.
func (in *Instance) Endpoints() Endpoints {
	return Endpoints{Anthropic: in.p.base, OpenAI: in.p.base + "/v1", Gemini: in.p.base}
}

// Env is the environment that points each wire's conventional variables at the proxy, with
// the instance's token as the key: everything an agent needs, and nothing of the provider's
// credentials. Sorted, as KEY=VALUE.
func (in *Instance) Env() []string {
	e := in.Endpoints()
	vars := map[string]string{
		"ANTHROPIC_BASE_URL": e.Anthropic, "ANTHROPIC_API_KEY": in.token,
		"OPENAI_BASE_URL": e.OpenAI, "OPENAI_API_KEY": in.token,
		"GOOGLE_GEMINI_BASE_URL": e.Gemini, "GEMINI_API_KEY": in.token,
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Done is closed when the proxy stopped serving the instance's model calls on its own: a
// limit reached (Err is a *LimitError, exit status LimitsExceeded), the run's budget spent
// (*model.BudgetError, RunBudgetExhausted), or a provider failure after which no call can
// succeed (an *model.APIError wrapping model.ErrFatal). The runner ends the agent then.
func (in *Instance) Done() <-chan struct{} { return in.done }

// Err says why Done was closed (nil while it is open).
func (in *Instance) Err() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.err
}

// Summary is an instance's totals.
type Summary struct {
	Calls int     // model calls admitted (token counts excluded)
	Cost  float64 // dollars billed
	// Records is the number of lines written to the record (every request, refused ones too).
	Records int
}

// Summary returns the totals so far.
func (in *Instance) Summary() Summary {
	in.mu.Lock()
	defer in.mu.Unlock()
	return Summary{Calls: in.calls, Cost: in.cost, Records: in.seq}
}

// End stops the instance: its token stops working at once, the calls in flight are cut, and
// the record is closed once they are written. It returns the totals and the record's first
// write error. Ending twice returns the same.
func (in *Instance) End() (Summary, error) {
	in.endOnce.Do(func() {
		in.mu.Lock()
		in.ended = true
		in.mu.Unlock()
		in.p.forget(in)
		in.cancel()
		in.inflight.Wait()
		in.endErr = in.rec.close()
		in.summary = in.Summary()
	})
	return in.summary, in.endErr
}

// enter counts a request in flight, unless the instance was ended.
func (in *Instance) enter() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ended {
		return false
	}
	in.inflight.Add(1)
	return true
}

func (in *Instance) leave() { in.inflight.Done() }

// admit lets a model call start, or refuses it past a limit (checked before each call, as the
// loop checks its step and cost limits). Calls in flight count against the call limit; the
// cost limit sees the cost of the calls that ended, so calls in flight together may pass it
// by what they cost.
func (in *Instance) admit(count bool) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return in.err
	}
	if count {
		return nil
	}
	switch l := in.limits; {
	case l.Calls > 0 && in.calls >= l.Calls:
		return &LimitError{Limit: "calls", Calls: in.calls, Cost: in.cost, Max: float64(l.Calls)}
	case l.Cost > 0 && in.cost >= l.Cost:
		return &LimitError{Limit: "cost", Calls: in.calls, Cost: in.cost, Max: l.Cost}
	}
	in.calls++
	return nil
}

func (in *Instance) spent(cost float64) {
	in.mu.Lock()
	in.cost += cost
	in.mu.Unlock()
}

// failed ends the instance's calls after a failure no later call can get past.
func (in *Instance) failed(err error) {
	var be *model.BudgetError
	if errors.As(err, &be) || errors.Is(err, model.ErrFatal) {
		in.stopWith(err)
	}
}

// stopWith closes Done with err, once.
func (in *Instance) stopWith(err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return
	}
	in.err = err
	close(in.done)
}

// nextSeq numbers a request as it arrives.
func (in *Instance) nextSeq() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.seq++
	return in.seq
}

// record appends a call to the record once it ended (calls in flight together are written in
// the order they end; Seq keeps the order they came in).
func (in *Instance) record(c *Call) {
	in.mu.Lock()
	c.InstanceCalls, c.InstanceCost = in.calls, in.cost
	in.mu.Unlock()
	in.rec.write(c)
}
