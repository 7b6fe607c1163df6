package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/internal/redact"
)

// Server serves the report's pages from the live inputs: the summary is read again when it is
// older than MaxAge (a run in progress shows its counts growing), instance pages are read on
// every request, and the search index is rebuilt when a trajectory changed. It serves the
// embedded pages, the generated data, and the raw evaluation and trajectory files of known
// instances (configs redacted); any other path is 404, a path that climbs out is 403.
type Server struct {
	srcs   []compare.Source
	opts   Options
	MaxAge time.Duration
	Log    *slog.Logger

	mu       sync.Mutex
	rep      *Report
	loaded   time.Time
	loadTook time.Duration
	loadErr  error
	problems map[string]string // kept across reloads: datasets do not change under a server

	ixMu  sync.Mutex
	ix    *index
	ixKey string
}

// NewServer returns a server of srcs. opts.Live is set.
func NewServer(srcs []compare.Source, opts Options) *Server {
	opts.Live = true
	if opts.Redactor == nil {
		opts.Redactor = redact.New()
	}
	return &Server{srcs: srcs, opts: opts, MaxAge: time.Second, Log: slog.New(slog.DiscardHandler)}
}

// Load reads the inputs now: a server whose inputs cannot be read fails at start, not at the
// first request.
func (s *Server) Load(ctx context.Context) error {
	_, err := s.report(ctx, true)
	return err
}

// report returns the current report, read again when older than MaxAge (or when force).
func (s *Server) report(ctx context.Context, force bool) (*Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Reading a large input takes a while: read again at most every MaxAge, and never spend
	// more than a fifth of the time reading (MaxAge 0: read on every request).
	wait := s.MaxAge
	if wait > 0 {
		wait = max(wait, 5*s.loadTook)
	}
	if !force && s.rep != nil && time.Since(s.loaded) < wait {
		return s.rep, nil
	}
	start := time.Now()
	opts := s.opts
	opts.problems = s.problems
	rep, err := Load(ctx, s.srcs, opts)
	if err != nil {
		if s.rep != nil {
			// A file caught mid-write: keep showing the last good state.
			s.Log.Warn("reading the inputs", "err", err)
			s.loadErr = err
			return s.rep, nil
		}
		return nil, err
	}
	s.rep, s.loaded, s.loadTook, s.loadErr = rep, time.Now(), time.Since(start), nil
	if s.problems == nil {
		s.problems = rep.problems
	}
	return rep, nil
}

// ServeHTTP serves the pages.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'")
	h.Set("Cache-Control", "no-store")
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !allowedHost(req) {
		http.Error(w, "forbidden: unexpected Host header", http.StatusForbidden)
		return
	}
	raw := req.URL.EscapedPath()
	p, err := cleanPath(raw)
	if err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	switch {
	case p == "/" || p == "/index.html":
		s.asset(w, "assets/index.html")
	case strings.HasPrefix(p, "/assets/"):
		s.asset(w, "assets/"+strings.TrimPrefix(p, "/assets/"))
	case p == "/data/summary.js":
		s.summary(w, req)
	case strings.HasPrefix(p, "/data/i/"):
		s.instance(w, req, strings.TrimPrefix(p, "/data/i/"))
	case strings.HasPrefix(p, "/data/search/"):
		s.shard(w, req, strings.TrimPrefix(p, "/data/search/"))
	case strings.HasPrefix(p, "/files/"):
		s.file(w, req, strings.TrimPrefix(p, "/files/"))
	default:
		http.NotFound(w, req)
	}
}

// cleanPath decodes the URL path and refuses any that climbs (a ".." segment, encoded or not, or
// a backslash).
func cleanPath(escaped string) (string, error) {
	for _, seg := range strings.Split(escaped, "/") {
		dec, err := pathUnescape(seg)
		if err != nil {
			return "", errors.New("forbidden: bad path")
		}
		if dec == ".." || strings.ContainsAny(dec, "\\\x00") || strings.Contains(dec, "/") {
			return "", errors.New("forbidden: the path leaves the report")
		}
	}
	dec, err := pathUnescape(escaped)
	if err != nil {
		return "", errors.New("forbidden: bad path")
	}
	return path.Clean("/" + dec), nil
}

func pathUnescape(s string) (string, error) {
	// url.PathUnescape without importing net/url's query semantics.
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", errors.New("bad escape")
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", errors.New("bad escape")
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// allowedHost refuses requests for other host names when the server listens on a loopback
// address (a web page elsewhere cannot read the report through DNS rebinding).
func allowedHost(req *http.Request) bool {
	local, _ := req.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		return true
	}
	host, _, err := net.SplitHostPort(local.String())
	if err != nil {
		return true
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return true
	}
	name := req.Host
	if h, _, err := net.SplitHostPort(name); err == nil {
		name = h
	}
	name = strings.Trim(name, "[]")
	if ip := net.ParseIP(name); ip != nil {
		return ip.IsLoopback()
	}
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}

func (s *Server) asset(w http.ResponseWriter, name string) {
	data, err := assets.ReadFile(name)
	if err != nil {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", contentType(name))
	w.Write(data)
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".json":
		return "application/json; charset=utf-8"
	case ".png":
		return "image/png"
	case ".svg":
		return "image/svg+xml"
	}
	return "text/plain; charset=utf-8"
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	s.Log.Warn("view", "err", err)
	if errors.Is(err, fs.ErrNotExist) {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	http.Error(w, s.opts.Redactor.Text(err.Error()), http.StatusInternalServerError)
}

func (s *Server) summary(w http.ResponseWriter, req *http.Request) {
	rep, err := s.report(req.Context(), false)
	if err != nil {
		s.fail(w, err)
		return
	}
	data, err := rep.summaryScript(nil)
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Write(data)
}

// instance serves data/i/<run>/<encoded id>.js.
func (s *Server) instance(w http.ResponseWriter, req *http.Request, rest string) {
	runStr, file, ok := strings.Cut(rest, "/")
	k, err := strconv.Atoi(runStr)
	if !ok || err != nil || !strings.HasSuffix(file, ".js") {
		http.NotFound(w, req)
		return
	}
	rep, err := s.report(req.Context(), false)
	if err != nil {
		s.fail(w, err)
		return
	}
	id, ok := decodeID(strings.TrimSuffix(file, ".js"))
	if !ok || k < 0 || k >= len(rep.runs) {
		http.NotFound(w, req)
		return
	}
	d, _, err := rep.instance(k, id)
	if err != nil {
		s.fail(w, err)
		return
	}
	data, err := rep.instanceScript(k, id, d, false)
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Write(data)
}

// decodeID reverses encodeID.
func decodeID(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), true
}

// shard serves data/search/<key>.js from the index of the current trajectories; a key without
// terms is an empty shard.
func (s *Server) shard(w http.ResponseWriter, req *http.Request, file string) {
	key := strings.TrimSuffix(file, ".js")
	if key == file || len(key) == 0 || len(key) > 2 {
		http.NotFound(w, req)
		return
	}
	rep, err := s.report(req.Context(), false)
	if err != nil {
		s.fail(w, err)
		return
	}
	ix, err := s.index(req.Context(), rep)
	if err != nil {
		s.fail(w, err)
		return
	}
	data, ok := ix.shards[key]
	if !ok {
		q, _ := json.Marshal(key)
		data = []byte("SR.shard(" + string(q) + ",\"\");\n")
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Write(data)
}

// index returns the search index, rebuilt when the summary or a trajectory changed.
func (s *Server) index(ctx context.Context, rep *Report) (*index, error) {
	s.ixMu.Lock()
	defer s.ixMu.Unlock()
	key := rep.fingerprint()
	if s.ix != nil && s.ixKey == key {
		return s.ix, nil
	}
	b := newIndexBuilder()
	n := uint32(len(rep.ids))
	seen := make([]bool, n)
	for k, rd := range rep.runs {
		for j := range rd.Instances {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			id := rd.Instances[j].ID
			i, ok := rep.index[id]
			if !ok {
				continue
			}
			d, text, err := rep.instance(k, id)
			if err != nil {
				return nil, err
			}
			b.add(n+uint32(k)*n+uint32(i), docTerms(text))
			if !seen[i] && d.Problem != "" {
				seen[i] = true
				b.add(uint32(i), docTerms(d.Problem))
			}
		}
	}
	s.ix, s.ixKey = b.finish(), key
	return s.ix, nil
}

// fingerprint changes when an instance or a trajectory file changes.
func (r *Report) fingerprint() string {
	var b bytes.Buffer
	for k, rd := range r.runs {
		for j := range rd.Instances {
			in := &rd.Instances[j]
			fmt.Fprintf(&b, "%d %s %s", k, in.ID, in.Verdict)
			if p := rd.trajPath(in.ID); p != "" {
				if fi, err := os.Stat(p); err == nil {
					fmt.Fprintf(&b, " %d %d", fi.Size(), fi.ModTime().UnixNano())
				}
			}
			b.WriteByte('\n')
		}
	}
	return shortHash(b.Bytes())
}

// file serves /files/<run>/<encoded id>/<name>: the instance's trajectory (its config redacted)
// or one of its evaluation files. Nothing else of the input folders is served.
func (s *Server) file(w http.ResponseWriter, req *http.Request, rest string) {
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		http.NotFound(w, req)
		return
	}
	k, err := strconv.Atoi(parts[0])
	id, ok := decodeID(parts[1])
	if err != nil || !ok {
		http.NotFound(w, req)
		return
	}
	rep, err := s.report(req.Context(), false)
	if err != nil {
		s.fail(w, err)
		return
	}
	if k < 0 || k >= len(rep.runs) {
		http.NotFound(w, req)
		return
	}
	rd := rep.runs[k]
	if _, known := rd.Get(id); !known {
		http.NotFound(w, req)
		return
	}
	var p string
	switch name := parts[2]; name {
	case "trajectory":
		p = rd.trajPath(id)
	case "report.json", "test_output.txt", "patch.diff", "eval.sh":
		p = rd.evalPath(id, name)
	}
	if p == "" {
		http.NotFound(w, req)
		return
	}
	data, err := os.ReadFile(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	red := s.opts.Redactor
	ctype := "text/plain; charset=utf-8"
	if parts[2] == "trajectory" || parts[2] == "report.json" {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			s.fail(w, fmt.Errorf("%s: %w", p, err))
			return
		}
		out, err := json.MarshalIndent(red.Value(v), "", "  ")
		if err != nil {
			s.fail(w, err)
			return
		}
		data, ctype = out, "application/json; charset=utf-8"
	} else {
		data = []byte(red.Text(toValidUTF8(string(data))))
	}
	w.Header().Set("Content-Type", ctype)
	w.Write(data)
}

// Serve serves on ln until ctx is cancelled, then shuts down within a few seconds.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-errc
	return nil
}
