package model

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
)

// Provider is the per-run model client, shared by all workers (safe for concurrent use).
// ForInstance returns the agent.Model of one instance.
type Provider interface {
	ForInstance(instanceID string) (agent.Model, error)
}

// wire is one provider API: how to build a request from the agent's messages and read a reply.
type wire interface {
	request(msgs []agent.Message) ([]byte, error)
	// validate rejects a 2xx response without the fields reply needs (retried as transient).
	validate(resp map[string]any) *APIError
	usage(resp map[string]any) (u agent.Usage, reported float64, hasReported bool)
	// reply extracts the assistant message (a copy, in the provider's native shape), its
	// actions, or a format error.
	reply(resp map[string]any) (agent.Message, []agent.Action, *agent.FormatError, error)
}

// apiProvider calls a real provider over HTTP.
type apiProvider struct {
	cfg          Config
	ep           endpoint
	wire         wire
	client       *client
	price        Price
	havePrice    bool
	ignoreErrors bool
	budget       *Budget
	logger       *slog.Logger
	images       *problemImages // nil: the task goes as text only
	// cred and kw are kept for the proxy's forwarding (forward.go), which makes its own calls.
	cred credentials
	kw   modelKwargs
}

// New returns the run's Provider for cfg.
//
// The provider is chosen by cfg.ModelClass ("litellm", "litellm_response", "openai",
// "openrouter", "anthropic", each optionally with "_textbased"; "replay") or else by the
// litellm prefix of the model name (see providerTable and docs/models.md): "replay:DIR" replays
// trajectories; "anthropic/…" and "claude-…" use the Anthropic Messages API; "gemini/…" the
// Gemini API; "bedrock/…", "vertex_ai/…" and "azure/…" the clouds with their own credentials;
// the other prefixes their OpenAI-compatible chat completions; any other name goes to
// $OPENAI_BASE_URL (default OpenAI). The model_class "openai" sends the name verbatim to an
// OpenAI-compatible server (LiteLLM proxy, vLLM, SGLang).
//
// Problems that would make every call fail (no API key or credentials, no known price, a bad
// regex, a model_kwargs key the API does not take) are reported here, before any call is paid for.
func New(cfg Config, opts Options) (Provider, error) {
	opts.defaults()
	ep, err := resolve(cfg, opts.Env)
	if err != nil {
		return nil, err
	}
	if ep.kind == kindReplay {
		return newReplay(cfg, ep.replayDir, opts)
	}
	return newAPIProvider(cfg, ep, opts)
}

// newAPIProvider is New for a model called over HTTP; opts has its defaults.
func newAPIProvider(cfg Config, ep endpoint, opts Options) (*apiProvider, error) {
	kw, err := splitKwargs(cfg.ModelKwargs)
	if err != nil {
		return nil, err
	}
	if kw.baseURL != "" && cfg.BaseURL == "" {
		cfg.BaseURL = kw.baseURL
	}
	if cfg.BaseURL != "" {
		ep.baseURL, ep.baseFrom = cfg.BaseURL, "model.base_url"
	}
	if ep.baseURL == "" {
		return nil, fmt.Errorf("model %q: no endpoint: %s", cfg.ModelName, baseHint(ep))
	}
	u, err := url.Parse(ep.baseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("model.base_url %q is not an http(s) URL", ep.baseURL)
	}
	cred, err := newCredentials(cfg, ep, opts, u)
	if err != nil {
		return nil, err
	}

	p := &apiProvider{cfg: cfg, ep: ep, budget: opts.Budget, logger: opts.Logger, cred: cred, kw: kw}
	tracking := firstNonEmpty(cfg.CostTracking, opts.Env("MSWEA_COST_TRACKING"), "default")
	switch tracking {
	case "default":
	case "ignore_errors":
		p.ignoreErrors = true
	default:
		return nil, fmt.Errorf("model.cost_tracking %q: use default or ignore_errors", tracking)
	}
	priced, havePrice, err := LookupPrice(cfg, cfg.ModelName, ep.apiModel)
	if err != nil {
		return nil, err
	}
	p.price, p.havePrice = priced.Price, havePrice
	if !p.havePrice && !p.ignoreErrors && !ep.openRouter {
		return nil, fmt.Errorf("model %q: %w: add it under model.prices (input, output, cache_read, cache_write in USD per million tokens), give a litellm price table with model.prices_file, bill it as a priced model with model.price_as, or set model.cost_tracking: ignore_errors to run with cost 0 (swebench-run models lists the priced names)", cfg.ModelName, ErrUnknownPrice)
	}

	if p.images, err = newProblemImages(cfg, ep.apiModel, opts); err != nil {
		return nil, err
	}
	cache, err := cacheControl(cfg)
	if err != nil {
		return nil, err
	}
	var re *pyre.Regexp
	if ep.textMode && !cfg.Mini1 {
		if re, err = compileActionRegex(cfg.ActionRegex); err != nil {
			return nil, err
		}
	}
	if cred.project != "" && ep.project == "" {
		ep.project = cred.project
		p.ep = ep
	}
	call, err := newWire(ep, kw, wireOptions{cache: cache, textRe: re, mini1: cfg.Mini1})
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", cfg.ModelName, err)
	}
	p.wire = call.wire

	c := &client{
		provider: ep.provider, url: call.url, http: opts.HTTPClient, keyEnv: cred.source, credHint: cred.hint,
		redact: newRedactor(cred.secrets...), budget: opts.Budget, logger: opts.Logger, clock: opts.Clock,
		stream: call.stream, newAssembler: call.assembler,
		requestTimeout: seconds(cfg.RequestTimeout, defaultRequestTimeout(kw.stream)), stallTimeout: seconds(cfg.StallTimeout, 300),
		maxRetries: 10, backoffBase: opts.BackoffBase, backoffMax: opts.BackoffMax, maxRetryAfter: opts.MaxRetryAfter,
	}
	c.streamIdleTimeout = seconds(cfg.StreamIdleTimeout, c.stallTimeout.Seconds())
	if cfg.MaxRetries != nil {
		c.maxRetries = max(0, *cfg.MaxRetries)
	}
	headers, skip := call.headers, call.skipHeaders
	c.auth = func(ctx context.Context, req *http.Request, body []byte) error {
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		for k, v := range kw.headers {
			if !skip[http.CanonicalHeaderKey(k)] {
				req.Header.Set(k, v)
			}
		}
		return cred.apply(ctx, req, body)
	}
	// One limiter per endpoint, API model and credentials across the providers of a registry.
	c.lim = opts.Limiters.get(limiterKey(c.url, ep.apiModel, cred.identity), opts.Clock, cfg.RequestsPerMinute, cfg.TokensPerMinute, cfg.MaxConcurrency)
	p.client = c
	return p, nil
}

// defaultRequestTimeout bounds one call, in seconds: 10 minutes, or an hour for a stream (a
// long generation that keeps sending is healthy; stream_idle_timeout catches a dead one).
func defaultRequestTimeout(stream bool) float64 {
	if stream {
		return 3600
	}
	return 600
}

// baseHint says how to give an endpoint to a provider that has no default one.
func baseHint(ep endpoint) string {
	if spec, ok := providerTable[ep.provider]; ok && len(spec.baseEnvs) > 0 {
		return "set model.base_url or $" + spec.baseEnvs[0]
	}
	return "set model.base_url (e.g. http://localhost:8000/v1)"
}

// limiterKey identifies the rate limits a provider is under: the endpoint, the API model and
// the API key (by a hash: the key itself is not kept in the registry).
func limiterKey(url, apiModel, key string) string {
	sum := sha256.Sum256([]byte(key))
	return url + "\x00" + apiModel + "\x00" + hex.EncodeToString(sum[:8])
}

func seconds(s, def float64) time.Duration {
	if s <= 0 {
		s = def
	}
	return time.Duration(s * float64(time.Second))
}

// cacheControl resolves set_cache_control: on by default for Anthropic/Claude models, as in
// mini-swe-agent.
func cacheControl(cfg Config) (bool, error) {
	switch cfg.SetCacheControl {
	case "default_end":
		return true, nil
	case "none":
		return false, nil
	case "":
		n := strings.ToLower(cfg.ModelName)
		for _, s := range []string{"anthropic", "sonnet", "opus", "claude"} {
			if strings.Contains(n, s) {
				return true, nil
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("model.set_cache_control %q: use default_end or none", cfg.SetCacheControl)
}

// ForInstance implements Provider.
func (p *apiProvider) ForInstance(instanceID string) (agent.Model, error) {
	return &apiModel{p: p, logger: p.logger.With("instance", instanceID)}, nil
}

type apiModel struct {
	p      *apiProvider
	logger *slog.Logger
	task   preparedTask // the task message with its images, built once
}

// ShapeMessage implements agent.MessageShaper: the wire's shape, when it has one.
func (m *apiModel) ShapeMessage(msg agent.Message) agent.Message {
	if s, ok := m.p.wire.(messageShaper); ok {
		return s.shape(msg)
	}
	return msg
}

// messageShaper is a wire whose API keeps the agent's messages in its own item shape.
type messageShaper interface {
	shape(agent.Message) agent.Message
}

// Query implements agent.Model.
func (m *apiModel) Query(ctx context.Context, messages []agent.Message) (agent.Reply, error) {
	p := m.p
	if p.images != nil {
		messages = p.images.prepare(ctx, messages, &m.task)
	}
	body, err := p.wire.request(messages)
	if err != nil {
		return agent.Reply{}, err
	}
	// The call holds its place in the budget until its cost is added (or it failed unbilled).
	end, err := p.budget.begin()
	if err != nil {
		return agent.Reply{}, err
	}
	defer end()
	resp, err := p.client.post(ctx, body, func(r map[string]any) (int, *APIError) {
		if e := p.wire.validate(r); e != nil {
			e.Provider = p.ep.provider
			return 0, e
		}
		u, _, _ := p.wire.usage(r)
		return u.InputTokens + u.OutputTokens, nil
	})
	if err != nil {
		return agent.Reply{}, err
	}
	usage, reported, has := p.wire.usage(resp)
	var cost float64
	switch {
	case has:
		cost = reported
	case p.havePrice:
		cost = p.price.Cost(usage)
	case !p.ignoreErrors:
		// Only reachable for OpenRouter replies without usage.cost and no price in the table.
		return agent.Reply{}, &statusError{status: StatusCostTracking, wraps: []error{ErrFatal},
			msg: fmt.Sprintf("model %q: the provider reported no cost and no price is known: add it under model.prices or model.prices_file, or set model.cost_tracking: ignore_errors", p.cfg.ModelName)}
	}
	p.budget.Add(cost)
	msg, actions, ferr, err := p.wire.reply(resp)
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.Provider == "" {
			ae.Provider = p.ep.provider
		}
		return agent.Reply{}, err
	}
	if ferr != nil {
		ferr.Cost, ferr.Usage = cost, usage
		ferr.Extra["response"] = resp
		m.logger.Debug("model reply has no valid action", "reason", ferr.Reason)
		return agent.Reply{}, ferr
	}
	msg["extra"] = map[string]any{"response": resp}
	return agent.Reply{Message: msg, Actions: actions, Cost: cost, Usage: usage}, nil
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case agent.Message:
		return deepCopy(map[string]any(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
