package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/swebench-run/swebench-run/model"
)

// Config is what a run's proxy needs.
type Config struct {
	// Upstream is the run's configured model (model.NewUpstream with the run's Options: its
	// Budget and Limiters are the loop's).
	Upstream *model.Upstream
	// Listen is the address to bind, host:port (port 0: a free one). Empty: 127.0.0.1:0, which
	// only sandboxes on the host's network reach; on Docker give the bridge gateway of the
	// containers' network, on Kubernetes an address of the node the pods reach (docs/proxy.md).
	Listen string
	// Advertise is the host or host:port the sandboxes reach the proxy at, when it is not the
	// address bound (a NAT, a Service in front). Empty: the bound address.
	Advertise string
	// MaxBodyBytes bounds a request body (default 32 MiB, the Messages API's own bound).
	MaxBodyBytes int64
	// ReadHeaderTimeout and ReadTimeout bound reading a request's headers and its body;
	// WriteTimeout bounds each write of a reply (an event of a stream, or a whole reply):
	// the wait for the provider is bounded by the model's own timeouts instead. IdleTimeout
	// bounds a kept-alive connection between calls. Defaults 10 s, 60 s, 60 s, 120 s.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	Logger                                                    *slog.Logger
}

// Proxy is a run's model proxy: one HTTP server shared by the run's instances, each known by
// its token. Safe for concurrent use.
type Proxy struct {
	up       *model.Upstream
	srv      *http.Server
	ln       net.Listener
	base     string // scheme://host:port the sandboxes use
	maxBody  int64
	writeTO  time.Duration
	logger   *slog.Logger
	served   chan error
	mu       sync.Mutex
	byID     map[string]*Instance // by token id
	byName   map[string]*Instance // by instance id
	closed   bool
	shutdown context.Context // cancelled when Close gives up waiting
	stop     context.CancelFunc
}

// Start binds cfg.Listen and serves until Close.
func Start(cfg Config) (*Proxy, error) {
	if cfg.Upstream == nil {
		return nil, errors.New("proxy: no upstream model")
	}
	listen := cfg.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("model proxy: listen on %s: %w (give an address of this host that the sandboxes reach, see docs/proxy.md)", listen, err)
	}
	host := ln.Addr().String()
	if cfg.Advertise != "" {
		host = cfg.Advertise
		if _, _, err := net.SplitHostPort(host); err != nil {
			_, port, _ := net.SplitHostPort(ln.Addr().String())
			host = net.JoinHostPort(strings.Trim(cfg.Advertise, "[]"), port)
		}
	}
	def := func(d, v time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return v
	}
	p := &Proxy{
		up: cfg.Upstream, ln: ln, base: "http://" + host, maxBody: cfg.MaxBodyBytes, writeTO: def(cfg.WriteTimeout, 60*time.Second),
		logger: cfg.Logger, served: make(chan error, 1), byID: map[string]*Instance{}, byName: map[string]*Instance{},
	}
	if p.maxBody <= 0 {
		p.maxBody = 32 << 20
	}
	if p.logger == nil {
		p.logger = slog.New(slog.DiscardHandler)
	}
	p.shutdown, p.stop = context.WithCancel(context.Background())
	p.srv = &http.Server{
		Handler:           p.routes(),
		ReadHeaderTimeout: def(cfg.ReadHeaderTimeout, 10*time.Second),
		ReadTimeout:       def(cfg.ReadTimeout, 60*time.Second),
		WriteTimeout:      p.writeTO,
		IdleTimeout:       def(cfg.IdleTimeout, 120*time.Second),
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(p.logger.Handler(), slog.LevelWarn),
	}
	go func() { p.served <- p.srv.Serve(ln) }()
	return p, nil
}

// Addr is the address bound.
func (p *Proxy) Addr() net.Addr { return p.ln.Addr() }

// URL is the proxy's base URL as the sandboxes reach it (http://host:port).
func (p *Proxy) URL() string { return p.base }

// Close stops the proxy gracefully: no new connection is taken, calls in flight (streams
// too) finish, then every instance is ended and its record closed. When ctx ends first, the
// calls still in flight are cut. It returns the first error of a record.
func (p *Proxy) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	err := p.srv.Shutdown(ctx)
	if err != nil {
		p.stop() // cut the upstream calls of the handlers still running
		_ = p.srv.Close()
	}
	<-p.served
	p.mu.Lock()
	insts := make([]*Instance, 0, len(p.byName))
	for _, in := range p.byName {
		insts = append(insts, in)
	}
	p.mu.Unlock()
	var first error
	for _, in := range insts {
		if _, e := in.End(); e != nil && first == nil {
			first = e
		}
	}
	p.stop()
	if first != nil {
		return first
	}
	if err != nil {
		return fmt.Errorf("model proxy: calls still in flight when the shutdown's time ran out were cut: %w", err)
	}
	return nil
}

// Limits are an instance's own limits (0: none), as the loop's step_limit and cost_limit.
type Limits struct {
	Calls int     // model calls (token counts excluded)
	Cost  float64 // dollars
}

// InstanceOptions are the settings of one instance.
type InstanceOptions struct {
	Limits Limits
	// RecordPath is the file of its record (e.g. <out>/<id>/agent/proxy.jsonl), created (its
	// folder too) or truncated by Register.
	RecordPath string
}

// Register makes an instance known to the proxy and returns it with its token. An instance id
// is registered once at a time: End it before registering it again.
func (p *Proxy) Register(instanceID string, o InstanceOptions) (*Instance, error) {
	if instanceID == "" {
		return nil, errors.New("proxy: empty instance id")
	}
	id, err := randomHex(8)
	if err != nil {
		return nil, err
	}
	secret, err := randomHex(24)
	if err != nil {
		return nil, err
	}
	// Checked before the record is opened: a second registration must not truncate the
	// record of the live instance.
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("proxy: closed")
	}
	if _, dup := p.byName[instanceID]; dup {
		return nil, fmt.Errorf("proxy: instance %s is already registered: end it first", instanceID)
	}
	rec, err := newRecorder(o.RecordPath)
	if err != nil {
		return nil, err
	}
	in := &Instance{p: p, id: instanceID, tokenID: id, secret: []byte(secret), token: "sbr-" + id + "-" + secret,
		limits: o.Limits, rec: rec, done: make(chan struct{})}
	in.ctx, in.cancel = context.WithCancel(p.shutdown)
	p.byID[id], p.byName[instanceID] = in, in
	return in, nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("proxy: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// authenticate finds the instance of the token a request bears where its wire's clients send
// their key: x-api-key, Authorization: Bearer, x-goog-api-key, or ?key=. The secret is
// compared in constant time.
func (p *Proxy) authenticate(r *http.Request) *Instance {
	candidates := []string{r.Header.Get("X-Api-Key"), r.Header.Get("X-Goog-Api-Key"), r.URL.Query().Get("key")}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		candidates = append(candidates, strings.TrimSpace(b))
	}
	for _, tok := range candidates {
		rest, ok := strings.CutPrefix(tok, "sbr-")
		if !ok {
			continue
		}
		id, secret, ok := strings.Cut(rest, "-")
		if !ok {
			continue
		}
		p.mu.Lock()
		in := p.byID[id]
		p.mu.Unlock()
		if in == nil {
			continue
		}
		if subtle.ConstantTimeCompare([]byte(secret), in.secret) == 1 {
			return in
		}
	}
	return nil
}

func (p *Proxy) forget(in *Instance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byID[in.tokenID] == in {
		delete(p.byID, in.tokenID)
	}
	if p.byName[in.id] == in {
		delete(p.byName, in.id)
	}
}

func (p *Proxy) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", p.serve(model.WireAnthropic, false))
	mux.HandleFunc("POST /v1/messages/count_tokens", p.serve(model.WireAnthropic, true))
	mux.HandleFunc("POST /v1/chat/completions", p.serve(model.WireChat, false))
	mux.HandleFunc("POST /v1/responses", p.serve(model.WireResponses, false))
	mux.HandleFunc("POST /v1beta/models/{call}", p.gemini)
	mux.HandleFunc("POST /v1/models/{call}", p.gemini)
	mux.HandleFunc("/", p.notFound)
	return mux
}

// wireOfPath guesses the wire of a request the proxy does not serve, for its error's shape.
func wireOfPath(r *http.Request) model.Wire {
	switch {
	case strings.HasPrefix(r.URL.Path, "/v1beta/") || r.Header.Get("X-Goog-Api-Key") != "" || r.URL.Query().Has("key"):
		return model.WireGemini
	case r.Header.Get("Anthropic-Version") != "" || r.Header.Get("X-Api-Key") != "" || strings.HasPrefix(r.URL.Path, "/v1/messages"):
		return model.WireAnthropic
	}
	return model.WireChat
}

func (p *Proxy) notFound(w http.ResponseWriter, r *http.Request) {
	wire := wireOfPath(r)
	ce := callError{class: classNotFound, message: fmt.Sprintf("%s %s is not served by swebench-run's model proxy (it serves POST /v1/messages, /v1/messages/count_tokens, /v1/chat/completions, /v1/responses, /v1beta/models/M:generateContent, :streamGenerateContent, :countTokens)", r.Method, r.URL.Path)}
	if p.authenticate(r) == nil {
		ce = callError{class: classUnauthorized, message: unauthorized(wire)}
	}
	ce.write(w, wire)
}

// unauthorized is each API's message for a key it does not know.
func unauthorized(w model.Wire) string {
	switch w {
	case model.WireAnthropic:
		return "invalid x-api-key"
	case model.WireGemini:
		return "API key not valid. Please pass a valid API key."
	}
	return "Incorrect API key provided. The model proxy takes the token of a live instance of this run."
}

// gemini serves /v1beta/models/MODEL:VERB.
func (p *Proxy) gemini(w http.ResponseWriter, r *http.Request) {
	m, verb, ok := strings.Cut(r.PathValue("call"), ":")
	switch {
	case ok && verb == "generateContent":
		p.handle(w, r, model.WireGemini, false, false, m)
	case ok && verb == "streamGenerateContent":
		p.handle(w, r, model.WireGemini, false, true, m)
	case ok && verb == "countTokens":
		p.handle(w, r, model.WireGemini, true, false, m)
	default:
		p.notFound(w, r)
	}
}

func (p *Proxy) serve(wire model.Wire, count bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { p.handle(w, r, wire, count, false, "") }
}

// handle serves one model call of an agent.
func (p *Proxy) handle(w http.ResponseWriter, r *http.Request, wire model.Wire, count, geminiStream bool, geminiModel string) {
	start := time.Now()
	in := p.authenticate(r)
	if in == nil || !in.enter() {
		callError{class: classUnauthorized, message: unauthorized(wire)}.write(w, wire)
		return
	}
	defer in.leave()
	kind := "generate"
	if count {
		kind = "count_tokens"
	}
	rec := &Call{Format: RecordFormat, Seq: in.nextSeq(), InstanceID: in.id, Wire: string(wire), Kind: kind, Path: r.URL.Path,
		Model: p.up.Model(), APIModel: p.up.APIModel(), Start: start.UTC(), Stream: geminiStream, RequestedModel: geminiModel}
	defer func() {
		rec.DurationMS = ms(time.Since(start))
		in.record(rec)
	}()

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, p.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		ce := callError{class: classInvalid, message: "reading the request body: " + err.Error()}
		if errors.As(err, &mbe) {
			ce = callError{class: classTooLarge, message: fmt.Sprintf("Request payload size exceeds the limit: %d bytes.", p.maxBody)}
		}
		rec.answer(ce, ce.write(w, wire), wire)
		return
	}
	rec.Request = body // made one line of JSON by the recorder, off the call's path
	// The body is read: the wait for the provider is bounded by the model's timeouts, each
	// write by WriteTimeout (set before it).
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	answer := func(ce callError) {
		_ = rc.SetWriteDeadline(time.Now().Add(p.writeTO))
		rec.answer(ce, ce.write(w, wire), wire)
	}

	if err := in.admit(count); err != nil {
		if wire != model.WireGemini {
			var head struct {
				Model string `json:"model"`
			}
			_ = json.Unmarshal(body, &head)
			rec.RequestedModel = head.Model
		}
		answer(classify(err))
		rec.Error.Status = exitStatus(err)
		in.stopWith(err)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stopAfter := context.AfterFunc(in.ctx, cancel)
	defer stopAfter()

	sw := &streamWriter{w: w, rc: rc, wire: wire, timeout: p.writeTO, start: start}
	res, err := p.up.Forward(ctx, model.ForwardCall{Wire: wire, CountTokens: count, Body: body, Stream: geminiStream,
		Model: geminiModel, Header: r.Header, Emit: sw.emit, Flush: sw.flush})
	sw.flush()
	rec.UpstreamURL, rec.Attempts, rec.Retries = res.URL, res.Attempts, res.Retries
	rec.Usage, rec.Cost, rec.CostEstimated = res.Usage, res.Cost, res.CostEstimated
	rec.Events, rec.StreamBytes, rec.FirstEventMS = res.Events, res.Bytes, sw.firstMS
	if res.RequestedModel != "" {
		rec.RequestedModel = res.RequestedModel
	}
	rec.Stream = rec.Stream || res.Stream
	in.spent(res.Cost)
	switch {
	case err != nil && ctx.Err() != nil && r.Context().Err() != nil:
		// The agent went away (or was ended): nobody to answer.
		rec.HTTPStatus = sw.status
		rec.Error = &CallErr{Status: "ClientClosed", Message: "the agent closed the connection", MidStream: sw.started}
	case err != nil && ctx.Err() != nil:
		rec.HTTPStatus = sw.status
		rec.Error = &CallErr{Status: "Ended", Message: "the instance was ended during the call", MidStream: sw.started}
	case err != nil && sw.started:
		ce := classify(err)
		name, data := ce.streamEvent(wire, res.Events)
		_ = sw.write(name, data)
		sw.flush()
		rec.HTTPStatus = sw.status
		rec.Error = &CallErr{Status: exitStatus(err), Message: ce.message, MidStream: true}
		in.failed(err)
	case err != nil:
		answer(classify(err))
		rec.Error.Status = exitStatus(err)
		in.failed(err)
	case sw.started:
		rec.HTTPStatus = sw.status
		rec.assembled = res.Response // encoded by the recorder, off the call's path
	default:
		data, _ := json.Marshal(res.Response)
		_ = rc.SetWriteDeadline(time.Now().Add(p.writeTO))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(data)
		rec.HTTPStatus, rec.Response = http.StatusOK, data
	}
}

// answer records an error reply sent before any event.
func (c *Call) answer(ce callError, body []byte, wire model.Wire) {
	c.HTTPStatus = ce.httpStatus(wire)
	c.Response = body
	c.Error = &CallErr{Status: statusOfClass(ce.class), Message: ce.message}
}

func statusOfClass(c class) string {
	switch c {
	case classUnauthorized:
		return "Unauthorized"
	case classTooLarge:
		return "RequestTooLarge"
	case classInvalid:
		return model.StatusBadRequest
	}
	return ""
}

// exitStatus is the exit status an error carries (agent.ExitStatuser), else BadRequestError
// for what the proxy refused itself.
func exitStatus(err error) string {
	var es interface{ ExitStatus() string }
	if errors.As(err, &es) {
		return es.ExitStatus()
	}
	var re *model.RequestError
	if errors.As(err, &re) {
		return model.StatusBadRequest
	}
	return fmt.Sprintf("%T", err)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// streamWriter passes a stream's events on as server-sent events, the status line and headers
// going out with the first event. Events are flushed once per read of the provider's stream
// (flush), so that a burst of small events costs one write to the agent.
type streamWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	wire    model.Wire
	timeout time.Duration
	start   time.Time
	started bool
	pending bool // written since the last flush
	status  int
	firstMS float64
	buf     []byte
	err     error // the first write error: the agent went away
}

func (s *streamWriter) emit(name string, data []byte) error {
	if !s.started {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
		s.started, s.status = true, http.StatusOK
		s.firstMS = ms(time.Since(s.start))
	}
	return s.write(name, data)
}

func (s *streamWriter) write(name string, data []byte) error {
	if s.err != nil {
		return s.err
	}
	b := s.buf[:0]
	if name != "" {
		b = append(append(append(b, "event: "...), name...), '\n')
	}
	for {
		line, rest, more := bytes.Cut(data, []byte("\n"))
		b = append(append(append(b, "data: "...), line...), '\n')
		if !more {
			break
		}
		data = rest
	}
	b = append(b, '\n')
	s.buf = b
	if !s.pending {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
		s.pending = true
	}
	if _, err := s.w.Write(b); err != nil {
		s.err = err
	}
	return s.err
}

// flush sends what was written since the last flush.
func (s *streamWriter) flush() {
	if !s.pending || s.err != nil {
		return
	}
	s.pending = false
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if err := s.rc.Flush(); err != nil {
		s.err = err
	}
}
