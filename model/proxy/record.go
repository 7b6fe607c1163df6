package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/model"
)

// RecordFormat names the shape of a record's lines; readers check it.
const RecordFormat = "swebench-run-proxy-1"

// Call is one line of an instance's record: one request of its agent and what became of it.
// docs/proxy.md describes every field.
type Call struct {
	Format     string `json:"format"`
	Seq        int    `json:"seq"` // 1, 2, … in the order the calls arrived
	InstanceID string `json:"instance_id"`
	Wire       string `json:"wire"` // anthropic, chat, responses, gemini
	Kind       string `json:"kind"` // generate or count_tokens
	Path       string `json:"path"` // the path the agent called (no query: a ?key= stays out)
	Stream     bool   `json:"stream"`
	// RequestedModel is the model the agent asked for; Model the run's configured model
	// (model_name), which replaced it; APIModel the name the provider got.
	RequestedModel string `json:"requested_model"`
	Model          string `json:"model"`
	APIModel       string `json:"api_model"`
	UpstreamURL    string `json:"upstream_url,omitempty"`
	// Request is the request body as received (a JSON value; a body that is not JSON is kept
	// as a string). Absent when the body was not read (over the bound).
	Request json.RawMessage `json:"request,omitempty"`
	// Response is the reply as sent: the provider's object, or for a stream the object
	// assembled from the events sent (what the same call unstreamed returns), or the error
	// body sent.
	Response   json.RawMessage `json:"response,omitempty"`
	HTTPStatus int             `json:"http_status"` // the status sent (0: the agent went away first)
	Error      *CallErr        `json:"error,omitempty"`
	Usage      agent.Usage     `json:"usage"`
	Cost       float64         `json:"cost"`
	// CostEstimated: a stream cut before its end, billed at an estimate (see model.Forwarded).
	CostEstimated bool          `json:"cost_estimated,omitempty"`
	Attempts      int           `json:"attempts"`
	Retries       []model.Retry `json:"retries,omitempty"`
	Events        int           `json:"events,omitempty"`       // stream events sent
	StreamBytes   int64         `json:"stream_bytes,omitempty"` // bytes of their data
	Start         time.Time     `json:"start"`
	// FirstEventMS is the time from the request to the first event sent (streams).
	FirstEventMS float64 `json:"first_event_ms,omitempty"`
	DurationMS   float64 `json:"duration_ms"`
	// InstanceCalls and InstanceCost are the instance's totals after this call.
	InstanceCalls int     `json:"instance_calls"`
	InstanceCost  float64 `json:"instance_cost"`

	assembled map[string]any // a stream's reply, encoded into Response when written
}

// CallErr is the failure of a call.
type CallErr struct {
	// Status is the exit status the failure means (model's error classes: RateLimitError,
	// LimitsExceeded, RunBudgetExhausted, …, or Unauthorized, BadRequestError for what the
	// proxy refused itself, ClientClosed for an agent that went away).
	Status  string `json:"status"`
	Message string `json:"message"`
	// MidStream: the failure came after events were sent; the agent got it as an error event.
	MidStream bool `json:"mid_stream,omitempty"`
}

// recorder appends an instance's calls to its record, one JSON line each, the lines queued
// together written in one write and synced: a crash leaves the lines before it whole and at most a torn last line,
// which ReadRecord ignores. The writes happen on the recorder's own goroutine (from
// newRecorder to close), so that a reply is complete for the agent without waiting for the disk.
type recorder struct {
	f    *os.File
	path string
	ch   chan *Call
	done chan struct{}
	err  error // the first write error, reported by close (set by the goroutine)
}

func newRecorder(path string) (*recorder, error) {
	if path == "" {
		return nil, errors.New("proxy: an instance needs a record path (e.g. <out>/<id>/agent/proxy.jsonl)")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("proxy record: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("proxy record: %w", err)
	}
	r := &recorder{f: f, path: path, ch: make(chan *Call, 64), done: make(chan struct{})}
	go r.loop()
	return r, nil
}

// write queues a call; it must not be called after close.
func (r *recorder) write(c *Call) { r.ch <- c }

func (r *recorder) loop() {
	defer close(r.done)
	var batch []byte
	for c := range r.ch {
		// Take every call queued behind this one too: one write and one sync for them all.
		batch = r.line(batch[:0], c)
		for more := true; more; {
			select {
			case c, ok := <-r.ch:
				if !ok {
					more = false
					break
				}
				batch = r.line(batch, c)
			default:
				more = false
			}
		}
		if _, err := r.f.Write(batch); err != nil && r.err == nil {
			r.err = fmt.Errorf("proxy record %s: %w", r.path, err)
		}
		if err := r.f.Sync(); err != nil && r.err == nil {
			r.err = fmt.Errorf("proxy record %s: %w", r.path, err)
		}
	}
}

// line appends a call's line to b. The bodies are compacted once and spliced in, not
// encoded again.
func (r *recorder) line(b []byte, c *Call) []byte {
	if c.assembled != nil {
		c.Response, _ = json.Marshal(c.assembled)
	}
	req, resp := rawJSON(c.Request), rawJSON(c.Response)
	c.Request, c.Response = nil, nil
	head, err := json.Marshal(c)
	if err != nil {
		head, _ = json.Marshal(Call{Format: RecordFormat, Seq: c.Seq, InstanceID: c.InstanceID, Error: &CallErr{Status: "RecordError", Message: err.Error()}})
		req, resp = nil, nil
	}
	b = append(b, head[:len(head)-1]...) // without its closing brace
	if req != nil {
		b = append(append(b, `,"request":`...), req...)
	}
	if resp != nil {
		b = append(append(b, `,"response":`...), resp...)
	}
	return append(b, "}\n"...)
}

// close writes what is queued, closes the file and returns the first error. Once only.
func (r *recorder) close() error {
	close(r.ch)
	<-r.done
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = fmt.Errorf("proxy record %s: %w", r.path, err)
	}
	return r.err
}

// rawJSON keeps a body as the JSON value it is, on one line, or as a JSON string.
func rawJSON(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(len(b))
	if json.Compact(&buf, b) == nil {
		return buf.Bytes()
	}
	s, _ := json.Marshal(string(b))
	return s
}

// ReadRecord reads an instance's record: its calls in the order they were written. torn
// reports a last line cut short by a crash (left out). A line of another format is an error.
func ReadRecord(path string) (calls []Call, torn bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("proxy record: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(bytes.TrimSpace(line)) > 0 {
				return calls, true, nil // no newline: the write was cut
			}
			return calls, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("proxy record %s: %w", path, err)
		}
		var c Call
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, false, fmt.Errorf("proxy record %s line %d: %w", path, n, err)
		}
		if c.Format != RecordFormat {
			return nil, false, fmt.Errorf("proxy record %s line %d: format %q, want %q", path, n, c.Format, RecordFormat)
		}
		calls = append(calls, c)
	}
}
