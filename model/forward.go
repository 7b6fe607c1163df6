package model

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/swebench-run/swebench-run/agent"
)

// Forwarding is the other direction of the wires, for the model proxy (package model/proxy):
// an installed agent sends a request in its own wire, and the request goes on, with the
// configured model's name, to the configured model's endpoint in the same wire — Anthropic
// Messages to Anthropic, Bedrock InvokeModel or Vertex rawPredict; chat completions and
// Responses to OpenAI, Azure or another OpenAI-compatible server; Gemini generateContent to AI
// Studio or Vertex — through the same client as the loop's calls: credentials and signing,
// retries, timeouts, the shared rate limiter, prices, cost and the run-wide budget. A streamed
// reply is passed on event by event as it arrives (Bedrock's event-stream frames become the
// Anthropic server-sent events they carry) and assembled on the side, as the loop's streams are,
// for the usage and the cost. Nothing is translated between unrelated wires.

// Wire is an API shape an agent speaks to the proxy.
type Wire string

// The wires the proxy serves.
const (
	WireAnthropic Wire = "anthropic" // Anthropic Messages: POST /v1/messages (and /v1/messages/count_tokens)
	WireChat      Wire = "chat"      // OpenAI chat completions: POST /v1/chat/completions
	WireResponses Wire = "responses" // OpenAI Responses: POST /v1/responses
	WireGemini    Wire = "gemini"    // Gemini: POST /v1beta/models/M:generateContent, :streamGenerateContent, :countTokens
)

var wireLabels = map[Wire]string{
	WireAnthropic: "Anthropic Messages", WireChat: "OpenAI chat completions",
	WireResponses: "OpenAI Responses", WireGemini: "Gemini generateContent",
}

// Label is the wire's name for messages ("Anthropic Messages").
func (w Wire) Label() string { return firstNonEmpty(wireLabels[w], string(w)) }

// ErrWireMismatch is wrapped by the error of a call in a wire the configured model is not
// served through (an Anthropic request for an OpenAI model): nothing is translated.
var ErrWireMismatch = errors.New("the configured model does not take this wire")

// RequestError is a call the proxy cannot forward: a body that is not a JSON object, or a wire
// the configured model does not take (wrapping ErrWireMismatch). Nothing was sent or billed.
type RequestError struct {
	Wire    Wire
	Message string
	wraps   error
}

func (e *RequestError) Error() string { return e.Message }

// Unwrap returns ErrWireMismatch for a wire the model does not take.
func (e *RequestError) Unwrap() error { return e.wraps }

// RetryAfter is the delay the provider asked for before a new attempt (0: none).
func (e *APIError) RetryAfter() time.Duration { return e.retryAfter }

// Upstream is the run's configured model as the proxy forwards to it: one per run, shared by
// every instance (safe for concurrent use). Its calls share the Budget and Limiters of the
// Options it was made with, so they count with the loop's calls of the same run or sweep.
type Upstream struct {
	p *apiProvider
}

// NewUpstream resolves cfg as New does (the same endpoint, credentials, price and limiter),
// for forwarding. The errors are New's; a replay model cannot be forwarded to.
func NewUpstream(cfg Config, opts Options) (*Upstream, error) {
	opts.defaults()
	ep, err := resolve(cfg, opts.Env)
	if err != nil {
		return nil, err
	}
	if ep.kind == kindReplay {
		return nil, fmt.Errorf("model %q: a replay model answers no proxy calls: give an installed agent a model served over HTTP", cfg.ModelName)
	}
	p, err := newAPIProvider(cfg, ep, opts)
	if err != nil {
		return nil, err
	}
	return &Upstream{p: p}, nil
}

// Model is the configured model name (model.model_name).
func (u *Upstream) Model() string { return u.p.cfg.ModelName }

// APIModel is the name sent to the provider, which replaces the one an agent asks for.
func (u *Upstream) APIModel() string { return u.p.ep.apiModel }

// Provider is the provider's name (anthropic, bedrock, vertex_ai, openai, azure, gemini, …).
func (u *Upstream) Provider() string { return u.p.ep.provider }

// Wires lists the wires the configured model takes.
func (u *Upstream) Wires() []Wire {
	var out []Wire
	for _, w := range []Wire{WireAnthropic, WireChat, WireResponses, WireGemini} {
		if u.Accepts(w) {
			out = append(out, w)
		}
	}
	return out
}

// Accepts reports whether a call in wire w can be forwarded to the configured model.
func (u *Upstream) Accepts(w Wire) bool {
	ep := u.p.ep
	openAIish := ep.provider == "openai" || ep.provider == "azure"
	switch w {
	case WireAnthropic:
		return ep.kind == kindAnthropic
	case WireChat:
		return ep.kind == kindOpenAI || ep.kind == kindResponses && openAIish
	case WireResponses:
		return ep.kind == kindResponses || ep.kind == kindOpenAI && openAIish && ep.cloud != cloudVertex
	case WireGemini:
		return ep.kind == kindGemini
	}
	return false
}

// ForwardCall is one call of an agent, as the proxy received it.
type ForwardCall struct {
	Wire Wire
	// CountTokens asks for a token count (Anthropic count_tokens, Gemini countTokens): free,
	// not billed, never streamed.
	CountTokens bool
	// Body is the request body as received: a JSON object.
	Body []byte
	// Stream is a streamed call in the Gemini wire (streamGenerateContent); the other wires
	// say it in the body ("stream": true).
	Stream bool
	// Model is the model the agent named in the URL (Gemini); the other wires name it in the body.
	Model string
	// Header holds the agent's request headers; only the Anthropic wire's anthropic-version
	// and anthropic-beta are passed on (to Bedrock as the body's anthropic_beta).
	Header http.Header
	// Emit passes one event of a streamed reply on to the agent: its SSE event name ("" for
	// none) and its data, in the agent's wire. An error stops the call (the agent went away).
	// The data is only valid during the call.
	Emit func(event string, data []byte) error
	// Flush, when set, is called when the events passed so far are all those of the data the
	// provider sent yet: the moment to flush them to the agent (once per read, not per event).
	Flush func()
}

// Forwarded is what became of a call, for the proxy's record.
type Forwarded struct {
	// Response is the reply: the provider's object (redacted), or for a stream the object
	// assembled from its events (the one the same call unstreamed returns).
	Response map[string]any
	// RequestedModel is the model the agent asked for; Model the one it got (APIModel).
	RequestedModel, Model string
	URL                   string // the provider URL called (it holds no credential)
	Stream                bool
	Events                int   // events passed on to the agent
	Bytes                 int64 // bytes of event data passed on
	Usage                 agent.Usage
	Cost                  float64
	// CostEstimated marks the cost of a stream cut before its end, estimated from the
	// request's size and the data passed on (4 bytes a token), as no usage was reported.
	CostEstimated bool
	Attempts      int
	Retries       []Retry // failed attempts that were retried
}

// Retry is one failed attempt of a call that was tried again.
type Retry struct {
	Status     string        `json:"status"`
	HTTPStatus int           `json:"http_status,omitempty"`
	Message    string        `json:"message"`
	Delay      time.Duration `json:"delay_ns"`
}

// Forward sends one call of an agent to the configured model and returns the reply. A stream
// is passed on to call.Emit as it arrives; a failure before the first event is retried as the
// loop's calls are, after it the call ends with the error (the agent's wire says how).
//
// The error is a *RequestError (nothing sent), a *BudgetError (the run's budget admits no
// call), an *APIError (the provider's failure, classified) or the context's error. The
// Forwarded returned with an error still says what was sent and billed.
func (u *Upstream) Forward(ctx context.Context, call ForwardCall) (Forwarded, error) {
	p := u.p
	out := Forwarded{Model: p.ep.apiModel, Stream: call.Stream}
	if !u.Accepts(call.Wire) {
		return out, &RequestError{Wire: call.Wire, wraps: ErrWireMismatch, Message: u.mismatch(call.Wire)}
	}
	// Only the top level is decoded: the fields changed are top-level ones, and the rest goes
	// on as the agent wrote it.
	var body rawObject
	if err := json.Unmarshal(call.Body, &body); err != nil || body == nil {
		msg := "the request body is not a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return out, &RequestError{Wire: call.Wire, Message: msg}
	}
	out.RequestedModel = call.Model
	if call.Wire != WireGemini {
		_ = json.Unmarshal(body["model"], &out.RequestedModel)
		out.Stream = string(body["stream"]) == "true" && !call.CountTokens
	}
	spec := u.route(call, body, out.Stream)
	out.URL = spec.url
	upBody, err := json.Marshal(spec.body)
	if err != nil {
		return out, &RequestError{Wire: call.Wire, Message: "encode request: " + err.Error()}
	}

	c := *p.client
	c.url = spec.url
	c.stream = streamNone
	if p.cfg.RequestTimeout <= 0 {
		c.requestTimeout = seconds(0, defaultRequestTimeout(out.Stream))
	}
	var tee *teeAssembler
	if out.Stream {
		c.stream = spec.format
		tee = &teeAssembler{emit: call.Emit, redact: c.redact, nameFromType: spec.nameFromType, skip: spec.skip}
		inner := spec.assembler
		c.newAssembler = func() assembler {
			tee.inner = inner()
			if spec.format == streamAWSEvent {
				return &bedrockChunks{inner: tee}
			}
			return tee
		}
		c.committed = func() bool { return tee.events.Load() > 0 }
		c.idle = call.Flush
	}
	c.retried = func(e *APIError, delay time.Duration) {
		out.Retries = append(out.Retries, Retry{Status: e.Status, HTTPStatus: e.HTTPStatus, Message: e.Message, Delay: delay})
	}
	headers := spec.headers
	c.auth = func(ctx context.Context, req *http.Request, b []byte) error {
		for k, v := range p.kw.headers {
			req.Header.Set(k, v)
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		return p.cred.apply(ctx, req, b)
	}

	if call.CountTokens {
		c.budget = nil // free: neither admitted nor stopped by the budget
		resp, n, err := c.send(ctx, upBody, func(map[string]any) (int, *APIError) { return 0, nil })
		out.Attempts = n
		if err != nil {
			return out, err
		}
		if spec.countReply != nil {
			resp = spec.countReply(resp)
		}
		out.Response = resp
		return out, nil
	}

	end, err := p.budget.begin()
	if err != nil {
		return out, err
	}
	defer end()
	w := usageWires[call.Wire]
	resp, n, err := c.send(ctx, upBody, func(r map[string]any) (int, *APIError) {
		if e := w.validate(r); e != nil {
			e.Provider = p.ep.provider
			return 0, e
		}
		us, _, _ := w.usage(r)
		return us.InputTokens + us.OutputTokens, nil
	})
	out.Attempts = n
	if tee != nil {
		out.Events, out.Bytes = int(tee.events.Load()), tee.bytes.Load()
	}
	if err != nil {
		if out.Events > 0 && p.havePrice {
			// The provider bills what it generated before the stream was cut; no usage came.
			out.Usage = agent.Usage{InputTokens: len(upBody) / 4, OutputTokens: int(out.Bytes / 4)}
			out.Cost, out.CostEstimated = p.price.Cost(out.Usage), true
			p.budget.Add(out.Cost)
		}
		return out, err
	}
	out.Response = resp
	usage, reported, has := w.usage(resp)
	out.Usage = usage
	switch {
	case has:
		out.Cost = reported
	case p.havePrice:
		out.Cost = p.price.Cost(usage)
	case !p.ignoreErrors:
		return out, &statusError{status: StatusCostTracking, wraps: []error{ErrFatal},
			msg: fmt.Sprintf("model %q: the provider reported no cost and no price is known: add it under model.prices or model.prices_file, or set model.cost_tracking: ignore_errors", p.cfg.ModelName)}
	}
	p.budget.Add(out.Cost)
	return out, nil
}

// usageWires read the usage and check the replies of each inbound wire (the loop's wires,
// whose reply side does not depend on their options).
var usageWires = map[Wire]wire{
	WireAnthropic: &anthropicWire{}, WireChat: &openAIWire{}, WireResponses: &responsesWire{}, WireGemini: &geminiWire{},
}

func (u *Upstream) mismatch(w Wire) string {
	var takes []string
	for _, x := range u.Wires() {
		takes = append(takes, x.Label())
	}
	served := "no wire the proxy serves"
	if len(takes) > 0 {
		served = "the " + strings.Join(takes, " and the ") + " API"
	}
	return fmt.Sprintf("this run's model %s (%s) is served through %s, not the %s API this request speaks: the proxy does not translate between APIs; give the agent a model of its own API (see docs/proxy.md)",
		u.p.cfg.ModelName, kindNames[u.p.ep.kind], served, w.Label())
}

// route is where and how one call goes: the URL, the body sent, extra headers, and for a
// stream its framing and assembler.
type route struct {
	url          string
	body         rawObject
	headers      map[string]string
	format       streamFormat
	assembler    func() assembler
	nameFromType bool                                // Bedrock's chunks carry no event names: take the JSON "type"
	skip         func(data []byte) bool              // events not passed on
	countReply   func(map[string]any) map[string]any // a count-tokens reply in the agent's shape
}

const (
	bedrockAnthropicVersion = "bedrock-2023-05-31"
	vertexAnthropicVersion  = "vertex-2023-10-16"
)

// rawObject is a JSON object with its values undecoded.
type rawObject map[string]json.RawMessage

// set sets key to the JSON encoding of v.
func (o rawObject) set(key string, v any) {
	b, _ := json.Marshal(v)
	o[key] = b
}

func (u *Upstream) route(call ForwardCall, body rawObject, stream bool) route {
	ep := u.p.ep
	base := strings.TrimSuffix(ep.baseURL, "/")
	r := route{body: body, format: streamSSE, headers: map[string]string{}}
	switch call.Wire {
	case WireAnthropic:
		r.assembler = func() assembler { return newAnthropicAssembler() }
		var betas []any
		for _, v := range call.Header.Values("Anthropic-Beta") {
			for _, b := range strings.Split(v, ",") {
				if b = strings.TrimSpace(b); b != "" {
					betas = append(betas, b)
				}
			}
		}
		switch ep.cloud {
		case cloudBedrock:
			// As Anthropic's Bedrock client does: no model or stream in the body (the URL says
			// them), the API version and the beta flags in it.
			delete(body, "model")
			delete(body, "stream")
			if _, ok := body["anthropic_version"]; !ok {
				body.set("anthropic_version", bedrockAnthropicVersion)
			}
			if _, ok := body["anthropic_beta"]; !ok && len(betas) > 0 {
				body.set("anthropic_beta", betas)
			}
			r.url = bedrockURL(base, ep.apiModel, "invoke", stream)
			if stream {
				r.format, r.nameFromType = streamAWSEvent, true
			}
			if call.CountTokens {
				inner, _ := json.Marshal(body)
				r.body = rawObject{}
				r.body.set("input", map[string]any{"invokeModel": map[string]any{"body": base64.StdEncoding.EncodeToString(inner)}})
				r.url = base + "/model/" + strings.NewReplacer(":", "%3A", "/", "%2F").Replace(url.PathEscape(ep.apiModel)) + "/count-tokens"
				r.countReply = func(resp map[string]any) map[string]any {
					return map[string]any{"input_tokens": firstNonNil(resp["inputTokens"], json.Number("0"))}
				}
			}
		case cloudVertex:
			if _, ok := body["anthropic_version"]; !ok {
				body.set("anthropic_version", vertexAnthropicVersion)
			}
			if len(betas) > 0 {
				r.headers["Anthropic-Beta"] = joinAny(betas)
			}
			if call.CountTokens {
				body.set("model", ep.apiModel) // count-tokens names the model in the body
				r.url = vertexURL(base, endpoint{project: ep.project, location: ep.location, apiModel: "count-tokens"}, "anthropic", "rawPredict")
				break
			}
			delete(body, "model")
			verb := "rawPredict"
			if stream {
				verb = "streamRawPredict"
			}
			r.url = vertexURL(base, ep, "anthropic", verb)
		default:
			body.set("model", ep.apiModel)
			r.url = base + "/v1/messages"
			if call.CountTokens {
				r.url += "/count_tokens"
			}
			r.headers["Anthropic-Version"] = firstNonEmpty(call.Header.Get("Anthropic-Version"), "2023-06-01")
			if len(betas) > 0 {
				r.headers["Anthropic-Beta"] = joinAny(betas)
			}
		}
	case WireChat:
		r.assembler = func() assembler { return &chatAssembler{} }
		body.set("model", ep.apiModel)
		switch ep.cloud {
		case cloudAzure:
			r.url = azureURL(base, ep.apiModel, "chat/completions", ep.apiVersion)
		case cloudVertex:
			r.url = vertexURL(base, ep, "", "chat/completions")
		default:
			r.url = base + "/chat/completions"
		}
		if stream {
			// The usage arrives in a last chunk only when asked for; it is kept from an agent
			// that did not ask.
			var so rawObject
			_ = json.Unmarshal(body["stream_options"], &so)
			if string(so["include_usage"]) != "true" {
				if so == nil {
					so = rawObject{}
				}
				so.set("include_usage", true)
				body.set("stream_options", so)
				r.skip = usageOnlyChunk
			}
		}
	case WireResponses:
		r.assembler = func() assembler { return &responsesAssembler{} }
		body.set("model", ep.apiModel)
		r.url = base + "/responses"
		if ep.cloud == cloudAzure {
			r.url = azureURL(base, "", "responses", ep.apiVersion)
		}
	case WireGemini:
		r.assembler = func() assembler { return &geminiAssembler{} }
		verb := "generateContent"
		switch {
		case call.CountTokens:
			verb = "countTokens"
		case stream:
			verb = "streamGenerateContent"
		}
		if ep.cloud == cloudVertex {
			r.url = vertexURL(base, ep, "google", verb)
		} else {
			r.url = base + "/v1beta/models/" + url.PathEscape(ep.apiModel) + ":" + verb
		}
		if stream {
			r.url += "?alt=sse"
		}
	}
	return r
}

func joinAny(v []any) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// usageOnlyChunk is the last chunk of a chat stream asked for with include_usage: no choices.
func usageOnlyChunk(data []byte) bool {
	if !bytes.Contains(data, []byte(`"usage"`)) {
		return false
	}
	var c struct {
		Choices []json.RawMessage `json:"choices"`
		Usage   json.RawMessage   `json:"usage"`
	}
	if json.Unmarshal(data, &c) != nil {
		return false
	}
	return len(c.Choices) == 0 && len(c.Usage) > 0 && string(c.Usage) != "null"
}

// teeAssembler passes each event of a stream on to the agent once the assembler took it: an
// error event of the provider, or one the assembler refuses, is not passed on, so that a
// failure before the first event passed can still be retried.
type teeAssembler struct {
	inner        assembler
	emit         func(event string, data []byte) error
	redact       redactor
	nameFromType bool
	skip         func([]byte) bool
	events       atomic.Int64
	bytes        atomic.Int64
}

func (t *teeAssembler) event(name string, data []byte) error {
	if err := t.inner.event(name, data); err != nil {
		return err
	}
	if t.skip != nil && t.skip(data) {
		return nil
	}
	if name == "" && t.nameFromType {
		var typed struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(data, &typed)
		name = typed.Type
	}
	for _, sec := range t.redact.secrets {
		if bytes.Contains(data, []byte(sec)) {
			data = []byte(t.redact.string(string(data)))
			break
		}
	}
	if err := t.emit(name, data); err != nil {
		return fmt.Errorf("pass the stream on: %w", err)
	}
	t.events.Add(1)
	t.bytes.Add(int64(len(data)))
	return nil
}

func (t *teeAssembler) result() (map[string]any, error) { return t.inner.result() }
