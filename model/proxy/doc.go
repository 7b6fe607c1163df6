// Package proxy is a run's model proxy for installed agents (docs/proxy.md): an HTTP server
// that speaks the APIs CLI agents call — Anthropic Messages (POST /v1/messages and
// /v1/messages/count_tokens), OpenAI chat completions (POST /v1/chat/completions), OpenAI
// Responses (POST /v1/responses) and Gemini (POST /v1beta/models/M:generateContent,
// :streamGenerateContent?alt=sse, :countTokens), streamed and not — and sends every call on
// through model.Upstream to the run's configured model: the loop's client, credentials,
// retries, limiter, prices and budget. The agent's sandbox gets the proxy's address and its
// instance's token, never a provider credential.
//
// One Proxy per run, shared by its instances:
//
//	up, err := model.NewUpstream(cfg, model.Options{Budget: runBudget, Limiters: limiters})
//	p, err := proxy.Start(proxy.Config{Upstream: up, Listen: "172.17.0.1:0"}) // Docker's bridge gateway
//	defer p.Close(teardownCtx) // graceful: calls in flight finish, then every instance ends
//
// An instance registers, runs its agent with Env (or Endpoints and Token), and ends:
//
//	in, err := p.Register("django__django-11099", proxy.InstanceOptions{
//		Limits:     proxy.Limits{Calls: 250, Cost: 3},
//		RecordPath: filepath.Join(out, id, "agent", "proxy.jsonl"),
//	})
//	env := in.Env() // ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, OPENAI_BASE_URL, OPENAI_API_KEY, GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY
//	select {
//	case <-agentExited:
//	case <-in.Done(): // a limit (LimitError: LimitsExceeded), the run's budget, a fatal provider error
//		killAgent(in.Err())
//	}
//	summary, err := in.End() // its token stops working; calls in flight are cut; the record is closed
//	calls, torn, err := proxy.ReadRecord(path)
//
// The configured model replaces the one the agent asks for. A call in a wire the configured
// model does not take is answered 400 in that wire's error shape, naming the mismatch: nothing is
// translated between APIs. Errors, limits and the run's budget are answered as each API says a
// request failed or a quota is spent (Anthropic's billing_error, OpenAI's insufficient_quota,
// Google's RESOURCE_EXHAUSTED). The record is one JSON line per call (Call), appended as each
// call ends.
package proxy
