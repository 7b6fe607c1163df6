package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// Streamed replies (model_kwargs.stream: true) arrive as a sequence of events: server-sent
// events for OpenAI, Anthropic, Gemini and Vertex, AWS event-stream frames for Bedrock. Each wire
// has an assembler that rebuilds, from its events, the response object the same call would have
// returned unstreamed; the rest of the model layer (usage, cost, actions, the stored message) sees
// only that object, so a streamed and an unstreamed reply are stored identically.
//
// A reply is taken only from a complete stream: one that ended without its provider's final
// event (a connection cut, a proxy timeout) is a transient error and the call is retried, so
// half a message never reaches a trajectory. A stream silent for longer than
// stream_idle_timeout is cut and retried the same way.

// streamFormat is the framing of a streamed response body.
type streamFormat int

const (
	streamNone     streamFormat = iota // one JSON object
	streamSSE                          // text/event-stream
	streamAWSEvent                     // application/vnd.amazon.eventstream
)

// assembler rebuilds a response object from the events of a stream.
type assembler interface {
	// event takes one event: its name (SSE "event:" or the AWS :event-type, "" when the
	// stream names none) and its data. An error event of the provider returns an *APIError.
	event(name string, data []byte) error
	// result returns the reply in the unstreamed shape, or an error when the stream ended
	// before the provider's final event.
	result() (map[string]any, error)
}

// errIncomplete is returned by assemblers whose stream ended early.
var errIncomplete = errors.New("the stream ended before the reply was complete")

// maxSSELine bounds one line of an event stream (a data line holds one event's JSON).
const maxSSELine = 16 << 20

// readSSE feeds the events of a text/event-stream body to asm. Lines starting with ":" are
// comments (keep-alives); "data: [DONE]" ends OpenAI streams and is passed on as an event.
func readSSE(r io.Reader, asm assembler) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxSSELine)
	var name string
	var data bytes.Buffer
	dispatch := func() error {
		if data.Len() == 0 {
			name = ""
			return nil
		}
		err := asm.event(name, bytes.TrimSuffix(data.Bytes(), []byte("\n")))
		name = ""
		data.Reset()
		return err
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if err := dispatch(); err != nil {
				return err
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			data.Write(value)
			data.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return dispatch()
}

// readAWSEvents feeds the frames of an AWS event stream to asm. Exception frames (throttling,
// validation, model errors reported mid-stream) become classified errors.
func readAWSEvents(r io.Reader, asm assembler, classify func(code int, body []byte, h http.Header) *APIError) error {
	dec := eventstream.NewDecoder()
	buf := make([]byte, 0, 64<<10)
	for {
		msg, err := dec.Decode(r, buf)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		header := func(n string) string {
			if v := msg.Headers.Get(n); v != nil {
				return v.String()
			}
			return ""
		}
		switch header(":message-type") {
		case "event":
			if err := asm.event(header(":event-type"), msg.Payload); err != nil {
				return err
			}
		case "exception":
			typ := header(":exception-type")
			h := http.Header{}
			h.Set("X-Amzn-Errortype", typ)
			return classify(awsExceptionStatus(typ), msg.Payload, h)
		case "error":
			h := http.Header{}
			h.Set("X-Amzn-Errortype", header(":error-code"))
			body, _ := json.Marshal(map[string]string{"message": header(":error-message")})
			return classify(http.StatusInternalServerError, body, h)
		}
	}
}

// decodeObject decodes one JSON object with numbers kept exact, as unstreamed responses are.
func decodeObject(data []byte) (map[string]any, error) {
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("stream event is not JSON: %w", err)
	}
	if out == nil {
		return nil, fmt.Errorf("stream event is not a JSON object: %s", truncate(data, 200))
	}
	return out, nil
}

// appendString concatenates a streamed string field onto m[key]. A null delta sets the key
// when it is absent (an unstreamed reply has "content": null where nothing was said). The
// field holds a *strings.Builder until finishStrings turns it into its string: appending to a
// string delta by delta would copy it again each time, quadratic in the reply's length.
func appendString(m map[string]any, key string, v any) {
	switch s := v.(type) {
	case string:
		switch cur := m[key].(type) {
		case *strings.Builder:
			cur.WriteString(s)
		case string:
			b := &strings.Builder{}
			b.WriteString(cur)
			b.WriteString(s)
			m[key] = b
		default:
			b := &strings.Builder{}
			b.WriteString(s)
			m[key] = b
		}
	case nil:
		if _, ok := m[key]; !ok {
			m[key] = nil
		}
	}
}

// finishStrings replaces, in place, the builders appendString left in a value by their strings.
func finishStrings(v any) any {
	switch x := v.(type) {
	case *strings.Builder:
		return x.String()
	case map[string]any:
		for k, e := range x {
			x[k] = finishStrings(e)
		}
	case []any:
		for i, e := range x {
			x[i] = finishStrings(e)
		}
	case []map[string]any:
		for _, e := range x {
			finishStrings(e)
		}
	}
	return v
}

// decodePartialJSON parses accumulated tool-call input; empty input is an empty object.
func decodePartialJSON(s string) (any, error) {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}, nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("streamed tool input is not JSON: %w", err)
	}
	return v, nil
}
