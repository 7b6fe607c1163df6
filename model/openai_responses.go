package model

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
)

// responsesWire speaks the OpenAI Responses API (POST /v1/responses): model_class
// litellm_response, as mini-swe-agent 2.x names it, and the models OpenAI serves only there
// (the codex and -pro models).
//
// Messages in the trajectory are those mini-swe-agent 2.x's litellm_response class writes: an
// assistant message is the response object itself ({"object": "response", "id", "output":
// [reasoning…, message…, function_call…], "usage", …}, no role), an observation answering a
// tool call a {"type": "function_call_output", "call_id", "output"} item, and an observation of
// a command without a call or a format error a {"type": "message", "role": "user", "content":
// [{"type": "input_text", …}]} item (shape). Each request flattens a response back into its
// output items, verbatim: reasoning items (with their encrypted content when the request
// includes "reasoning.encrypted_content") go back exactly as they came. With a text-based
// action regex or a 1.x config, messages keep the chat shape.
type responsesWire struct {
	model  string
	body   map[string]any // request fields from model_kwargs, translated
	textRe *pyre.Regexp
	mini1  bool
	stream bool
}

// responsesOnlyChat are chat-completions fields the Responses API does not take.
var responsesOnlyChat = map[string]bool{"stop": true, "n": true, "presence_penalty": true, "frequency_penalty": true,
	"logprobs": true, "seed": true, "response_format": true, "logit_bias": true, "thinking": true}

func newResponsesWire(model string, kw modelKwargs, o wireOptions) (*responsesWire, error) {
	w := &responsesWire{model: model, body: map[string]any{}, textRe: o.textRe, mini1: o.mini1, stream: kw.stream}
	var refused []string
	for k, v := range kw.body {
		switch {
		case k == "reasoning_effort":
			r, _ := w.body["reasoning"].(map[string]any)
			if r == nil {
				r = map[string]any{}
			}
			r["effort"] = v
			w.body["reasoning"] = r
		case k == "reasoning":
			r, _ := v.(map[string]any)
			merged, _ := w.body["reasoning"].(map[string]any)
			if merged == nil {
				merged = map[string]any{}
			}
			for rk, rv := range r {
				merged[rk] = rv
			}
			w.body["reasoning"] = merged
		case k == "max_tokens" || k == "max_completion_tokens":
			w.body["max_output_tokens"] = v
		case responsesOnlyChat[k]:
			refused = append(refused, k)
		default:
			w.body[k] = v
		}
	}
	return w, kw.unsupported("OpenAI Responses API", refused)
}

// shape implements messageShaper: the agent's observations and format errors as the Responses
// API's input items, extra kept (stripped before sending).
func (w *responsesWire) shape(m agent.Message) agent.Message {
	if w.textRe != nil || w.mini1 || m["type"] != nil {
		return m
	}
	out := agent.Message{}
	switch m.Role() {
	case "tool":
		out["type"], out["call_id"], out["output"] = "function_call_output", m["tool_call_id"], textOf(m["content"])
	case "user":
		content := responsesContent(m["content"])
		if s, ok := content.(string); ok {
			content = []any{map[string]any{"type": "input_text", "text": s}}
		}
		out["type"], out["role"], out["content"] = "message", "user", content
	default:
		return m
	}
	if e, ok := m["extra"]; ok {
		out["extra"] = e
	}
	return out
}

func (w *responsesWire) request(msgs []agent.Message) ([]byte, error) {
	input := make([]any, 0, len(msgs))
	for i, m := range msgs {
		switch {
		case w.mini1:
			input = append(input, map[string]any{"role": m["role"], "content": deepCopy(m["content"])})
		case m["object"] == "response":
			out, _ := m["output"].([]any)
			for _, item := range out {
				input = append(input, deepCopy(item))
			}
		case m["type"] != nil:
			// an input item already in the Responses shape (shape, or a mini-swe-agent 2.x trajectory)
			input = append(input, openAIMessage(m))
		case m.Role() == "tool":
			input = append(input, map[string]any{"type": "function_call_output", "call_id": m["tool_call_id"], "output": textOf(m["content"])})
		case m.Role() == "assistant":
			if s := m.Content(); s != "" {
				input = append(input, map[string]any{"role": "assistant", "content": s})
			}
			for _, tc := range openAIToolCalls(m) {
				input = append(input, map[string]any{"type": "function_call", "call_id": tc.id, "name": tc.name, "arguments": tc.args})
			}
		case m.Role() == "system" || m.Role() == "user" || m.Role() == "developer":
			input = append(input, map[string]any{"role": m.Role(), "content": responsesContent(m["content"])})
		default:
			return nil, fmt.Errorf("message %d: role %q cannot be sent to the Responses API", i, m.Role())
		}
	}
	body := map[string]any{"model": w.model, "input": input}
	if w.textRe == nil && !w.mini1 {
		body["tools"] = []any{map[string]any{"type": "function", "name": "bash", "description": bashToolDescription, "parameters": bashToolSchema()}}
	}
	for k, v := range w.body {
		body[k] = v
	}
	if w.stream {
		body["stream"] = true
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b, nil
}

// responsesContent converts chat-style content parts (text, image_url) to input parts.
func responsesContent(c any) any {
	parts, ok := c.([]any)
	if !ok {
		return deepCopy(c)
	}
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		switch str(pm["type"]) {
		case "text":
			out = append(out, map[string]any{"type": "input_text", "text": pm["text"]})
		case "image_url":
			u := str(pm["image_url"])
			if iu, ok := pm["image_url"].(map[string]any); ok {
				u = str(iu["url"])
			}
			out = append(out, map[string]any{"type": "input_image", "image_url": u})
		default:
			out = append(out, deepCopy(p))
		}
	}
	return out
}

// textOf is a content's text: a string, or the text of its parts.
func textOf(c any) string {
	if s, ok := c.(string); ok {
		return s
	}
	parts, _ := c.([]any)
	return anthropicText(parts)
}

func (w *responsesWire) validate(resp map[string]any) *APIError {
	if _, ok := resp["output"].([]any); !ok {
		return invalidResponse("", "response has no output list")
	}
	if resp["status"] == "failed" {
		if e, ok := resp["error"].(map[string]any); ok {
			return errorEvent(map[string]any{"error": e})
		}
		return invalidResponse("", "response status failed")
	}
	return nil
}

func (w *responsesWire) usage(resp map[string]any) (agent.Usage, float64, bool) {
	return responsesUsage(resp), 0, false
}

// responsesUsage reads the usage of a Responses API response: input_tokens includes the cached
// ones, output_tokens the reasoning ones.
func responsesUsage(resp map[string]any) agent.Usage {
	us, _ := resp["usage"].(map[string]any)
	if us == nil {
		return agent.Usage{}
	}
	u := agent.Usage{InputTokens: intOf(us["input_tokens"]), OutputTokens: intOf(us["output_tokens"])}
	if d, ok := us["input_tokens_details"].(map[string]any); ok {
		u.CacheReadTokens = intOf(d["cached_tokens"])
	}
	if d, ok := us["output_tokens_details"].(map[string]any); ok {
		u.ReasoningTokens = intOf(d["reasoning_tokens"])
	}
	return u
}

func (w *responsesWire) reply(resp map[string]any) (agent.Message, []agent.Action, *agent.FormatError, error) {
	msg := agent.Message(deepCopy(resp).(map[string]any))
	output, _ := resp["output"].([]any)
	var text []string
	var calls []toolCall
	for _, item := range output {
		it, _ := item.(map[string]any)
		switch str(it["type"]) {
		case "message":
			parts, _ := it["content"].([]any)
			for _, p := range parts {
				pm, _ := p.(map[string]any)
				if str(pm["type"]) == "output_text" {
					text = append(text, str(pm["text"]))
				}
			}
		case "function_call":
			calls = append(calls, toolCall{id: firstNonEmpty(str(it["call_id"]), str(it["id"])), name: str(it["name"]), args: str(it["arguments"])})
		}
	}
	content := strings.Join(text, "\n")
	if w.mini1 {
		return agent.Message{"role": "assistant", "content": content}, nil, nil, nil
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if d, ok := resp["incomplete_details"].(map[string]any); ok {
		switch str(d["reason"]) {
		case "max_output_tokens":
			finish = "length"
		case "content_filter":
			if len(calls) == 0 {
				return nil, nil, nil, contentFiltered("the reply was withheld by the provider's content filter (incomplete_details.reason content_filter)")
			}
			finish = "content_filter"
		}
	}
	var actions []agent.Action
	var ferr *agent.FormatError
	if w.textRe != nil {
		actions, ferr = parseRegexActions(w.textRe, content, finish)
	} else {
		actions, ferr = parseToolCalls(calls, finish)
	}
	return msg, actions, ferr, nil
}

// responsesAssembler takes the final response object of a Responses stream: the
// response.completed (or response.incomplete) event carries it whole. Output items seen in
// response.output_item.done fill its output when a server sends the final event without them.
type responsesAssembler struct {
	resp  map[string]any
	items []any
}

func (a *responsesAssembler) event(name string, data []byte) error {
	ev, err := decodeObject(data)
	if err != nil {
		return err
	}
	switch firstNonEmpty(str(ev["type"]), name) {
	case "response.completed", "response.incomplete":
		r, _ := ev["response"].(map[string]any)
		if r == nil {
			return fmt.Errorf("%s event without a response", str(ev["type"]))
		}
		a.resp = r
	case "response.output_item.done":
		a.items = append(a.items, ev["item"])
	case "response.failed":
		r, _ := ev["response"].(map[string]any)
		if e, ok := r["error"].(map[string]any); ok {
			return errorEvent(map[string]any{"error": e})
		}
		return errorEvent(map[string]any{"error": map[string]any{"message": "response failed"}})
	case "error":
		e := map[string]any{"message": ev["message"], "code": ev["code"], "type": ev["type"]}
		if inner, ok := ev["error"].(map[string]any); ok {
			e = inner
		}
		return errorEvent(map[string]any{"error": e})
	}
	return nil
}

func (a *responsesAssembler) result() (map[string]any, error) {
	if a.resp == nil {
		return nil, errIncomplete
	}
	if out, _ := a.resp["output"].([]any); len(out) == 0 && len(a.items) > 0 {
		a.resp["output"] = a.items
	}
	return a.resp, nil
}
