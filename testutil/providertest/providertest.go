// Package providertest is a fake model provider for tests: an httptest server that speaks one
// real wire format (OpenAI chat completions, OpenAI Responses, Anthropic Messages, Gemini
// generateContent, Bedrock Converse; Anthropic also as Bedrock InvokeModel and Vertex
// rawPredict), checks the request's path and credentials (an API key header, a SigV4 signature
// recomputed with the AWS SDK's signer, an OAuth token it issued itself to a service-account
// file), and plays a script of turns, streamed (server-sent events or AWS event-stream frames)
// or not as the request asks. A streamed reply is the unstreamed one cut into events, so a
// client that assembles streams correctly stores identical messages either way.
package providertest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Wire formats.
const (
	Chat      = "chat"      // OpenAI chat completions
	Responses = "responses" // OpenAI Responses
	Anthropic = "anthropic" // Anthropic Messages
	Gemini    = "gemini"    // Gemini generateContent
	Converse  = "converse"  // Bedrock Converse
)

// Turn is one scripted reply: text and one bash tool call per command.
type Turn struct {
	Content  string   `yaml:"content"`
	Commands []string `yaml:"commands"`
}

// Script finds the turns of a conversation: the instance whose task text the request holds.
type Script struct {
	Tasks map[string]string // instance id → its task text (problem statement)
	Turns map[string][]Turn // instance id → its turns
}

// Server is a fake provider.
type Server struct {
	*httptest.Server
	t      testing.TB
	wire   string
	auth   func(r *http.Request, body []byte) error
	script Script
	// Calls counts the model calls answered; Streamed those answered as streams.
	Calls, Streamed atomic.Int64
	mu              sync.Mutex
	paths           map[string]int
}

// Options shape a Server.
type Options struct {
	Wire string
	// Auth checks a request's credentials (nil: none checked); an error answers 401 or 403.
	Auth func(r *http.Request, body []byte) error
	// Path checks a request's path (URL-escaped) and says whether it asks for a stream.
	Path func(escapedPath string, body map[string]any) (stream bool, err error)
	// Extra handles requests Path refuses (a token endpoint); nil: 404.
	Extra http.Handler
	// Check inspects a model call's request after its credentials (the body a cloud takes,
	// a header); an error answers 400.
	Check func(r *http.Request, body map[string]any) error
	// Wrap puts a handler in front of the fake (faults: a 429 first, a stream cut short).
	Wrap func(http.Handler) http.Handler
}

// New starts a fake provider, stopped when the test ends.
func New(t testing.TB, script Script, o Options) *Server {
	t.Helper()
	s := &Server{t: t, wire: o.Wire, auth: o.Auth, script: script, paths: map[string]int{}}
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(body, &req)
		stream, err := o.Path(r.URL.EscapedPath(), req)
		if err != nil {
			if o.Extra != nil {
				r.Body = io.NopCloser(bytes.NewReader(body))
				o.Extra.ServeHTTP(w, r)
				return
			}
			writeError(w, http.StatusNotFound, err.Error())
			return
		}
		if s.auth != nil {
			if err := s.auth(r, body); err != nil {
				writeError(w, http.StatusForbidden, err.Error())
				return
			}
		}
		if o.Check != nil {
			if err := o.Check(r, req); err != nil {
				writeError(w, http.StatusBadRequest, err.Error())
				return
			}
		}
		s.mu.Lock()
		s.paths[r.URL.EscapedPath()]++
		s.mu.Unlock()
		reply, err := s.answer(body, req)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		s.Calls.Add(1)
		if !stream {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(reply)
			return
		}
		s.Streamed.Add(1)
		switch {
		case strings.HasSuffix(r.URL.Path, "/invoke-with-response-stream"):
			w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
			_, _ = w.Write(AWSChunks(SSEEvents(Anthropic, reply)))
		case s.wire == Converse:
			w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
			_, _ = w.Write(AWSEvents(ConverseEvents(reply)))
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(SSE(SSEEvents(s.wire, reply)))
		}
	})
	if o.Wrap != nil {
		h = o.Wrap(h)
	}
	s.Server = httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// Paths returns the request paths served, with their counts.
func (s *Server) Paths() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.paths {
		out[k] = v
	}
	return out
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": strconv.Itoa(code)}})
	_, _ = w.Write(b)
}

// callIDs are the tool call ids the fake gives: call_t<turn>_<n>.
var callIDs = regexp.MustCompile(`call_t(\d+)_\d+`)

// answer finds the instance and the turn of a request and renders the reply.
func (s *Server) answer(raw []byte, req map[string]any) (map[string]any, error) {
	id := ""
	for inst, task := range s.script.Tasks {
		enc, _ := json.Marshal(task)
		if bytes.Contains(raw, enc[1:len(enc)-1]) {
			id = inst
		}
	}
	turn := 0
	if s.wire == Gemini {
		contents, _ := req["contents"].([]any)
		for _, c := range contents {
			if cm, _ := c.(map[string]any); cm["role"] == "model" {
				turn++
			}
		}
	} else {
		seen := map[string]bool{}
		for _, m := range callIDs.FindAllSubmatch(raw, -1) {
			seen[string(m[1])] = true
		}
		turn = len(seen)
	}
	if err := history(s.wire, req, turn); err != nil {
		return nil, err
	}
	turns := s.script.Turns[id]
	if id == "" || turn >= len(turns) {
		return nil, fmt.Errorf("unexpected conversation (instance %q, turn %d)", id, turn)
	}
	return Reply(s.wire, turns[turn], turn, id), nil
}

// Reply renders a turn as the unstreamed response object of a wire. Its ids derive from the
// turn and the instance, so the same conversation always gets the same reply.
func Reply(wire string, t Turn, turn int, instance string) map[string]any {
	callID := func(i int) string { return fmt.Sprintf("call_t%d_%d", turn, i) }
	args := func(c string) map[string]any { return map[string]any{"command": c} }
	argJSON := func(c string) string { b, _ := json.Marshal(args(c)); return string(b) }
	in, out := json.Number("1000"), json.Number("100")
	switch wire {
	case Chat:
		calls := []any{}
		for i, c := range t.Commands {
			calls = append(calls, map[string]any{"id": callID(i), "type": "function", "function": map[string]any{"name": "bash", "arguments": argJSON(c)}})
		}
		return map[string]any{
			"id": "chatcmpl-" + instance, "object": "chat.completion", "created": json.Number("1700000000"), "model": "fake-model",
			"choices": []any{map[string]any{"index": json.Number("0"), "finish_reason": "tool_calls", "logprobs": nil,
				"message": map[string]any{"role": "assistant", "content": t.Content, "refusal": nil, "tool_calls": calls}}},
			"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": json.Number("1100"),
				"prompt_tokens_details": map[string]any{"cached_tokens": json.Number("0")}},
		}
	case Responses:
		output := []any{
			map[string]any{"id": fmt.Sprintf("rs_t%d", turn), "type": "reasoning", "summary": []any{}, "encrypted_content": "enc-" + instance},
			map[string]any{"id": fmt.Sprintf("msg_t%d", turn), "type": "message", "status": "completed", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "annotations": []any{}, "text": t.Content}}},
		}
		for i, c := range t.Commands {
			output = append(output, map[string]any{"id": fmt.Sprintf("fc_t%d_%d", turn, i), "type": "function_call", "status": "completed",
				"call_id": callID(i), "name": "bash", "arguments": argJSON(c)})
		}
		return map[string]any{"id": fmt.Sprintf("resp_%s_t%d", instance, turn), "object": "response", "created_at": json.Number("1700000000"),
			"status": "completed", "model": "fake-model", "output": output, "incomplete_details": nil, "error": nil,
			"usage": map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": json.Number("0")},
				"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": json.Number("40")}, "total_tokens": json.Number("1100")}}
	case Anthropic:
		content := []any{
			map[string]any{"type": "thinking", "thinking": "Thinking about turn " + strconv.Itoa(turn), "signature": "sig-" + instance},
			map[string]any{"type": "text", "text": t.Content},
		}
		for i, c := range t.Commands {
			content = append(content, map[string]any{"type": "tool_use", "id": callID(i), "name": "bash", "input": args(c)})
		}
		return map[string]any{"id": "msg_" + instance, "type": "message", "role": "assistant", "model": "fake-model", "content": content,
			"stop_reason": "tool_use", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": in, "cache_creation_input_tokens": json.Number("0"), "cache_read_input_tokens": json.Number("0"), "output_tokens": out}}
	case Gemini:
		parts := []any{map[string]any{"text": "Thinking about turn " + strconv.Itoa(turn), "thought": true}, map[string]any{"text": t.Content}}
		for i, c := range t.Commands {
			p := map[string]any{"functionCall": map[string]any{"name": "bash", "args": args(c)}}
			if i == 0 {
				// Gemini's signatures are base64 (bytes in the Go SDK's Part.ThoughtSignature).
				p["thoughtSignature"] = base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "sig-%s-t%d", instance, turn))
			}
			parts = append(parts, p)
		}
		return map[string]any{
			"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": json.Number("0")}},
			"usageMetadata": map[string]any{"promptTokenCount": in, "candidatesTokenCount": json.Number("60"), "thoughtsTokenCount": json.Number("40"),
				"totalTokenCount": json.Number("1100")},
			"modelVersion": "fake-model", "responseId": fmt.Sprintf("%s-t%d", instance, turn),
		}
	case Converse:
		content := []any{map[string]any{"text": t.Content}}
		for i, c := range t.Commands {
			content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": callID(i), "name": "bash", "input": args(c)}})
		}
		return map[string]any{"output": map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
			"stopReason": "tool_use", "usage": map[string]any{"inputTokens": in, "outputTokens": out, "totalTokens": json.Number("1100")},
			"metrics": map[string]any{"latencyMs": json.Number("100")}}
	}
	panic("providertest: unknown wire " + wire)
}

// PathFunc checks a request path; see Options.Path.
type PathFunc = func(escapedPath string, body map[string]any) (bool, error)

// BodyStream accepts one path and reads "stream": true from the body (OpenAI, Anthropic).
func BodyStream(path string) PathFunc {
	return func(p string, body map[string]any) (bool, error) {
		if p != path {
			return false, fmt.Errorf("path %s: want %s", p, path)
		}
		return body["stream"] == true, nil
	}
}

// URLStream accepts two paths: the unstreamed one and the streamed one (Gemini, Vertex,
// Bedrock name the stream in the URL).
func URLStream(path, streamPath string) PathFunc {
	return func(p string, _ map[string]any) (bool, error) {
		switch p {
		case path:
			return false, nil
		case streamPath:
			return true, nil
		}
		return false, fmt.Errorf("path %s: want %s or %s", p, path, streamPath)
	}
}

// history refuses, as the real APIs do, a conversation whose earlier replies came back without
// what the provider needs to see again: Gemini 3's thought signature on the first function call
// of each model turn, Anthropic's signed thinking block first in each assistant turn, and the
// Responses API's reasoning item of each earlier turn.
func history(wire string, req map[string]any, turns int) error {
	switch wire {
	case Gemini:
		contents, _ := req["contents"].([]any)
		for i, c := range contents {
			cm, _ := c.(map[string]any)
			if cm["role"] != "model" {
				continue
			}
			parts, _ := cm["parts"].([]any)
			for _, p := range parts {
				pm, _ := p.(map[string]any)
				if pm["functionCall"] == nil {
					continue
				}
				sig, _ := pm["thoughtSignature"].(string)
				if raw, err := base64.StdEncoding.DecodeString(sig); err != nil || !bytes.HasPrefix(raw, []byte("sig-")) {
					return fmt.Errorf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly (contents[%d])", i)
				}
				break
			}
		}
	case Anthropic:
		msgs, _ := req["messages"].([]any)
		for i, m := range msgs {
			mm, _ := m.(map[string]any)
			if mm["role"] != "assistant" {
				continue
			}
			blocks, _ := mm["content"].([]any)
			if len(blocks) == 0 {
				return fmt.Errorf("messages.%d: assistant message without content", i)
			}
			first, _ := blocks[0].(map[string]any)
			if sig, _ := first["signature"].(string); first["type"] != "thinking" || !strings.HasPrefix(sig, "sig-") {
				return fmt.Errorf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%v`", i, first["type"])
			}
		}
	case Responses:
		input, _ := req["input"].([]any)
		seen := 0
		for _, it := range input {
			im, _ := it.(map[string]any)
			if im["type"] == "reasoning" && strings.HasPrefix(fmt.Sprint(im["encrypted_content"]), "enc-") {
				seen++
			}
		}
		if seen != turns {
			return fmt.Errorf("%d of %d earlier reasoning items sent back", seen, turns)
		}
	}
	return nil
}
