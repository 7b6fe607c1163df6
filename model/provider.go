package model

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/agent"
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
}

// New returns the run's Provider for cfg.
//
// The provider is chosen by cfg.ModelClass ("litellm", "openai", "openrouter", "anthropic",
// each optionally with "_textbased"; "replay") or else by the model name: "replay:DIR" replays
// trajectories; "anthropic/…" and "claude-…" use the Anthropic Messages API; "openrouter/…",
// "deepseek/…", "together_ai/…", "hosted_vllm/…" and "openai/…" use those providers'
// OpenAI-compatible chat completions; any other name goes to $OPENAI_BASE_URL (default OpenAI).
// The model_class "openai" sends the name verbatim to an OpenAI-compatible server (LiteLLM
// proxy, vLLM, SGLang).
//
// Problems that would make every call fail (no API key, no known price, a bad regex) are
// reported here, before any call is paid for.
func New(cfg Config, opts Options) (Provider, error) {
	opts.defaults()
	ep, err := resolve(cfg, opts.Env)
	if err != nil {
		return nil, err
	}
	if ep.kind == kindReplay {
		return newReplay(cfg, ep.replayDir, opts)
	}
	kwargs := map[string]any{}
	for k, v := range cfg.ModelKwargs {
		switch k {
		case "drop_params", "num_retries": // litellm client options, not API fields
		case "api_base", "base_url":
			if s, ok := v.(string); ok && cfg.BaseURL == "" {
				cfg.BaseURL = s
			}
		case "stream":
			if v == true {
				return nil, fmt.Errorf("model.model_kwargs.stream: streaming is not supported; remove it")
			}
		default:
			kwargs[k] = v
		}
	}
	if cfg.BaseURL != "" {
		ep.baseURL = cfg.BaseURL
	}
	if ep.baseURL == "" {
		return nil, fmt.Errorf("model %q: no endpoint: set model.base_url (e.g. http://localhost:8000/v1)", cfg.ModelName)
	}
	u, err := url.Parse(ep.baseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("model.base_url %q is not an http(s) URL", ep.baseURL)
	}
	key, keyEnv := cfg.APIKey, ""
	envs := ep.keyEnvs
	if cfg.APIKeyEnv != "" {
		envs = []string{cfg.APIKeyEnv}
	}
	for _, e := range envs {
		if key != "" {
			break
		}
		key, keyEnv = opts.Env(e), e
	}
	if len(envs) > 0 && keyEnv == "" {
		keyEnv = envs[0]
	}
	if key == "" && publicHost(u.Host) {
		return nil, &APIError{Provider: ep.provider, Status: StatusAuthentication, fatal: true,
			Message: "no API key", Hint: "set " + strings.Join(envs, " or ")}
	}

	p := &apiProvider{cfg: cfg, ep: ep, budget: opts.Budget, logger: opts.Logger}
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
	var re *regexp.Regexp
	if ep.textMode && !cfg.Mini1 {
		if re, err = compileActionRegex(cfg.ActionRegex); err != nil {
			return nil, err
		}
	}
	switch ep.kind {
	case kindAnthropic:
		p.wire = &anthropicWire{model: ep.apiModel, kwargs: kwargs, cache: cache, textRe: re, mini1: cfg.Mini1}
	default:
		p.wire = &openAIWire{model: ep.apiModel, kwargs: kwargs, cache: cache, textRe: re, openRouter: ep.openRouter, mini1: cfg.Mini1}
	}

	c := &client{
		provider: ep.provider, http: opts.HTTPClient, keyEnv: keyEnv, redact: newRedactor(key),
		budget: opts.Budget, logger: opts.Logger, clock: opts.Clock,
		requestTimeout: seconds(cfg.RequestTimeout, 600), stallTimeout: seconds(cfg.StallTimeout, 300),
		maxRetries: 10, backoffBase: opts.BackoffBase, backoffMax: opts.BackoffMax, maxRetryAfter: opts.MaxRetryAfter,
	}
	if cfg.MaxRetries != nil {
		c.maxRetries = max(0, *cfg.MaxRetries)
	}
	base := strings.TrimSuffix(ep.baseURL, "/")
	switch ep.kind {
	case kindAnthropic:
		c.url = base + "/v1/messages"
		c.setAuth = func(h http.Header) {
			if key != "" {
				h.Set("X-Api-Key", key)
			}
			h.Set("Anthropic-Version", "2023-06-01")
		}
	default:
		c.url = base + "/chat/completions"
		c.setAuth = func(h http.Header) {
			if key != "" {
				h.Set("Authorization", "Bearer "+key)
			}
		}
	}
	// One limiter per endpoint, API model and key across the providers of a registry.
	c.lim = opts.Limiters.get(limiterKey(c.url, ep.apiModel, key), opts.Clock, cfg.RequestsPerMinute, cfg.TokensPerMinute, cfg.MaxConcurrency)
	p.client = c
	return p, nil
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

func publicHost(host string) bool {
	for _, h := range []string{"api.openai.com", "api.anthropic.com", "openrouter.ai", "api.deepseek.com", "api.together.xyz"} {
		if host == h {
			return true
		}
	}
	return false
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
