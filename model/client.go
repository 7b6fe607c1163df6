package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// maxResponseBytes bounds a response body read into memory.
const maxResponseBytes = 64 << 20

// client posts JSON to one provider endpoint with retries, timeouts, the shared limiter and
// the budget. It is shared by all workers.
type client struct {
	provider string
	url      string
	http     *http.Client
	// auth sets the credentials of one attempt: a key header, a fresh OAuth token, or a
	// SigV4 signature of body.
	auth     func(ctx context.Context, req *http.Request, body []byte) error
	keyEnv   string // where the key or credentials come from, for hints
	credHint string // what to do when credentials cannot be had
	redact   redactor
	lim      *limiter
	budget   *Budget
	logger   *slog.Logger
	clock    Clock
	// stream is the framing of a streamed reply (streamNone: one JSON object); newAssembler
	// makes the assembler of one streamed reply.
	stream       streamFormat
	newAssembler func() assembler
	// Set only on the per-call copies the proxy makes (forward.go): committed reports that a
	// streamed reply was already passed on, so a failure can no longer be retried; retried
	// learns of each failed attempt that will be.
	committed func() bool
	retried   func(e *APIError, delay time.Duration)
	// idle is called before each read of a stream's body: the events of the data read so far
	// were all taken (the proxy flushes what it passed on once per read, not once per event).
	idle func()

	requestTimeout    time.Duration
	stallTimeout      time.Duration
	streamIdleTimeout time.Duration
	maxRetries        int
	backoffBase       time.Duration
	backoffMax        time.Duration
	maxRetryAfter     time.Duration
}

// post sends body and returns the decoded JSON response. Transient failures are retried with
// backoff; a 429 also pauses every worker. check validates a decoded response and returns the
// tokens it used.
func (c *client) post(ctx context.Context, body []byte, check func(map[string]any) (int, *APIError)) (map[string]any, error) {
	resp, _, err := c.send(ctx, body, check)
	return resp, err
}

// send is post that also returns the number of attempts made.
func (c *client) send(ctx context.Context, body []byte, check func(map[string]any) (int, *APIError)) (map[string]any, int, error) {
	est := len(body) / 4
	for attempt := 0; ; attempt++ {
		if err := c.budget.spentOut(); err != nil { // retries of an admitted call stop at the limit
			return nil, attempt, err
		}
		t, err := c.lim.acquire(ctx, est)
		if err != nil {
			return nil, attempt, err
		}
		resp, apiErr := c.once(ctx, body)
		used := 0
		if apiErr == nil {
			used, apiErr = check(resp)
		}
		c.lim.release(t, apiErr == nil, apiErr != nil && apiErr.Status == StatusRateLimit, used)
		if apiErr == nil {
			return resp, attempt + 1, nil
		}
		apiErr.Attempts = attempt + 1
		if ctx.Err() != nil {
			return nil, attempt + 1, ctx.Err() // cancelled by the caller: not a model failure
		}
		if !apiErr.retryable || c.committed != nil && c.committed() {
			return nil, attempt + 1, apiErr
		}
		if attempt >= c.maxRetries {
			apiErr.exhausted = true
			return nil, attempt + 1, apiErr
		}
		delay := c.delay(attempt, apiErr.retryAfter)
		if apiErr.Status == StatusRateLimit {
			c.lim.pause(delay)
		}
		c.logger.Warn("model call failed, retrying", "provider", c.provider, "attempt", attempt+1,
			"status", apiErr.Status, "http_status", apiErr.HTTPStatus, "delay", delay, "error", apiErr.Error())
		if c.retried != nil {
			c.retried(apiErr, delay)
		}
		if err := c.clock.Sleep(ctx, delay, nil); err != nil {
			return nil, attempt + 1, err
		}
	}
}

// delay is the wait before retry number attempt+1: the server's Retry-After when it sent one,
// else exponential backoff with jitter.
func (c *client) delay(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, c.maxRetryAfter)
	}
	d := c.backoffBase
	for i := 0; i < attempt && d < c.backoffMax; i++ {
		d *= 2
	}
	d = min(d, c.backoffMax)
	return d/2 + rand.N(d/2+1)
}

// once makes one HTTP call. Every error is an *APIError.
func (c *client) once(ctx context.Context, body []byte) (map[string]any, *APIError) {
	reqCtx, cancel := context.WithTimeout(ctx, c.requestTimeout)
	defer cancel()
	var stalled, streaming atomic.Bool
	watchdog := time.AfterFunc(c.stallTimeout, func() { stalled.Store(true); cancel() })
	defer watchdog.Stop()
	alive := func() {
		if streaming.Load() {
			watchdog.Reset(c.streamIdleTimeout)
		} else {
			watchdog.Reset(c.stallTimeout)
		}
	}
	trace := &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { alive() },
		GotFirstResponseByte: alive,
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(reqCtx, trace), http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, &APIError{Provider: c.provider, Status: StatusConnection, Message: c.redact.string(err.Error()), Hint: "check base_url"}
	}
	req.Header.Set("Content-Type", "application/json")
	switch c.stream {
	case streamSSE:
		req.Header.Set("Accept", "text/event-stream")
	case streamAWSEvent:
		req.Header.Set("Accept", "application/vnd.amazon.eventstream")
	default:
		req.Header.Set("Accept", "application/json")
	}
	if err := c.auth(reqCtx, req, body); err != nil {
		return nil, c.credentialError(ctx, err)
	}

	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, reqCtx, &stalled, &streaming, err)
	}
	defer resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if ok && c.stream != streamNone {
		streaming.Store(true)
		alive()
		return c.readStream(ctx, reqCtx, &stalled, &streaming, resp, alive)
	}
	data, err := io.ReadAll(io.LimitReader(&progressReader{r: resp.Body, alive: alive}, maxResponseBytes))
	if err != nil {
		return nil, c.transportError(ctx, reqCtx, &stalled, &streaming, err)
	}
	if !ok {
		return nil, c.classify(resp.StatusCode, data, resp.Header)
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil || out == nil {
		return nil, invalidResponse(c.provider, "response is not a JSON object: %s", c.redact.string(string(truncate(data, 200))))
	}
	if e := c.errorInBody(out, resp.Header); e != nil {
		return nil, e
	}
	return c.redact.value(out).(map[string]any), nil
}

// errorInBody classifies an error object in a 2xx body: some proxies (OpenRouter) report
// upstream failures that way, and so do streams in their error events.
func (c *client) errorInBody(out map[string]any, h http.Header) *APIError {
	if _, hasErr := out["error"]; !hasErr {
		return nil
	}
	pe, ok := errorFromMap(out)
	if !ok {
		return nil
	}
	code := pe.Num
	if code < 400 {
		code = http.StatusBadGateway
	}
	raw, _ := json.Marshal(out)
	return c.classify(code, raw, h)
}

// classify turns an error response into a redacted *APIError.
func (c *client) classify(code int, body []byte, h http.Header) *APIError {
	e := classifyHTTP(c.provider, code, body, h, c.keyEnv)
	e.Message = c.redact.string(e.Message)
	return e
}

// readStream assembles a streamed reply. Errors reported inside the stream are classified as
// the same errors would be in an HTTP response; a stream that ends early is a transient error.
func (c *client) readStream(ctx, reqCtx context.Context, stalled, streaming *atomic.Bool, resp *http.Response, alive func()) (map[string]any, *APIError) {
	asm := c.newAssembler()
	body := io.LimitReader(&progressReader{r: resp.Body, alive: alive, before: c.idle}, maxResponseBytes)
	var err error
	switch c.stream {
	case streamAWSEvent:
		err = readAWSEvents(body, asm, c.classify)
	default:
		err = readSSE(body, asm)
	}
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr):
		if apiErr.Provider == "" {
			apiErr.Provider = c.provider
		}
		apiErr.Message = c.redact.string(apiErr.Message)
		return nil, apiErr
	case err != nil && (ctx.Err() != nil || reqCtx.Err() != nil):
		return nil, c.transportError(ctx, reqCtx, stalled, streaming, err)
	case err != nil:
		return nil, &APIError{Provider: c.provider, Status: StatusConnection, retryable: true, cause: err,
			Message: "stream broken: " + c.redact.string(err.Error())}
	}
	out, err := asm.result()
	if err != nil {
		if ctx.Err() != nil || reqCtx.Err() != nil {
			return nil, c.transportError(ctx, reqCtx, stalled, streaming, err)
		}
		return nil, &APIError{Provider: c.provider, Status: StatusConnection, retryable: true, cause: err,
			Message: c.redact.string(err.Error())}
	}
	return c.redact.value(out).(map[string]any), nil
}

// credentialError reports a failure to obtain credentials (a token, a signature): fatal, as
// no call of the run can succeed without them, unless the run was cancelled.
func (c *client) credentialError(ctx context.Context, err error) *APIError {
	if ctx.Err() != nil {
		return &APIError{Provider: c.provider, Status: StatusConnection, Message: "cancelled", cause: ctx.Err()}
	}
	return &APIError{Provider: c.provider, Status: StatusAuthentication, fatal: true, cause: err,
		Message: "no credentials: " + c.redact.string(err.Error()), Hint: c.credHint}
}

func (c *client) transportError(ctx, reqCtx context.Context, stalled, streaming *atomic.Bool, err error) *APIError {
	e := &APIError{Provider: c.provider, retryable: true, cause: err}
	switch {
	case ctx.Err() != nil:
		e.Status, e.Message, e.cause = StatusConnection, "cancelled", ctx.Err()
	case stalled.Load() && streaming.Load():
		e.Status = StatusTimeout
		e.Message = fmt.Sprintf("the stream was silent for %s (stream_idle_timeout)", c.streamIdleTimeout)
	case stalled.Load():
		e.Status = StatusTimeout
		e.Message = fmt.Sprintf("no data received for %s (stall_timeout)", c.stallTimeout)
	case errors.Is(reqCtx.Err(), context.DeadlineExceeded):
		e.Status = StatusTimeout
		e.Message = fmt.Sprintf("no complete response within %s (request_timeout)", c.requestTimeout)
	default:
		e.Status = StatusConnection
		e.Message = c.redact.string(err.Error())
	}
	return e
}

// progressReader reports every read that returned data (and, when before is set, every read
// about to be made).
type progressReader struct {
	r      io.Reader
	alive  func()
	before func()
}

func (p *progressReader) Read(b []byte) (int, error) {
	if p.before != nil {
		p.before()
	}
	n, err := p.r.Read(b)
	if n > 0 {
		p.alive()
	}
	return n, err
}
