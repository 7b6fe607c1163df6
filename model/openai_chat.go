package model

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
)

// openAIWire speaks OpenAI-compatible chat completions (OpenAI, OpenRouter, DeepSeek, Together,
// vLLM, SGLang, LiteLLM proxy).
//
// It is plain net/http + encoding/json rather than the official SDK on purpose: the agent's
// messages are replayed to the API as the provider returned them, including fields the SDK's
// typed structs do not model (DeepSeek's reasoning_content, OpenRouter's reasoning_details,
// cache_control parts), and the raw response is saved in the trajectory. Sending the stored maps
// as they are is both simpler and more faithful; retries, timeouts and rate limits are ours.
type openAIWire struct {
	model      string
	kwargs     map[string]any
	cache      bool
	textRe     *pyre.Regexp // nil: tool calling
	openRouter bool
	mini1      bool // mini-swe-agent 1.x: role and content only, no tools, text replies
	stream     bool // ask for server-sent events (chatAssembler rebuilds the reply)
	// streamOptions is sent with a stream (default include_usage: the usage arrives in the
	// last chunk); nil: none.
	streamOptions any
}

func (w *openAIWire) request(msgs []agent.Message) ([]byte, error) {
	prepared := make([]any, 0, len(msgs))
	for _, m := range msgs {
		if w.mini1 {
			prepared = append(prepared, map[string]any{"role": m["role"], "content": deepCopy(m["content"])})
			continue
		}
		prepared = append(prepared, openAIMessage(m))
	}
	if w.cache && len(prepared) > 0 {
		markLastOpenAI(prepared[len(prepared)-1].(map[string]any))
	}
	body := map[string]any{"model": w.model, "messages": prepared}
	if w.textRe == nil && !w.mini1 {
		body["tools"] = []any{BashTool()}
	}
	if w.openRouter {
		body["usage"] = map[string]any{"include": true}
	}
	for k, v := range w.kwargs {
		body[k] = v
	}
	if w.stream {
		body["stream"] = true
		if w.streamOptions != nil {
			body["stream_options"] = w.streamOptions
		}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b, nil
}

// openAIMessage prepares a stored message for the API: a copy without "extra", without null
// fields (content excepted) and litellm bookkeeping, tool calls reduced to id/type/function,
// thinking blocks first.
func openAIMessage(m agent.Message) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case k == "extra" || k == "provider_specific_fields":
		case v == nil && k != "content":
		case k == "annotations":
			if l, ok := v.([]any); ok && len(l) == 0 {
				continue
			}
			out[k] = deepCopy(v)
		case k == "tool_calls":
			list, _ := v.([]any)
			calls := make([]any, 0, len(list))
			for _, item := range list {
				tc, _ := item.(map[string]any)
				c := map[string]any{"id": tc["id"], "type": "function", "function": deepCopy(tc["function"])}
				if t, ok := tc["type"]; ok && t != nil {
					c["type"] = t
				}
				calls = append(calls, c)
			}
			out[k] = calls
		default:
			out[k] = deepCopy(v)
		}
	}
	reorderThinking(out)
	return out
}

// reorderThinking puts thinking blocks before the other blocks of an assistant message, as the
// Anthropic API requires.
func reorderThinking(m map[string]any) {
	content, ok := m["content"].([]any)
	if m["role"] != "assistant" || !ok {
		return
	}
	var thinking, other []any
	for _, b := range content {
		bm, _ := b.(map[string]any)
		if t := str(bm["type"]); t == "thinking" || t == "redacted_thinking" {
			thinking = append(thinking, b)
		} else {
			other = append(other, b)
		}
	}
	if len(thinking) > 0 {
		m["content"] = append(thinking, other...)
	}
}

var ephemeral = map[string]any{"type": "ephemeral"}

// markLastOpenAI sets a cache-control mark on the last message as mini-swe-agent does for
// OpenAI-shaped messages (OpenRouter and LiteLLM pass it on to Anthropic).
func markLastOpenAI(m map[string]any) {
	switch c := m["content"].(type) {
	case nil:
		m["cache_control"] = ephemeral
		return
	case string:
		m["content"] = []any{map[string]any{"type": "text", "text": c, "cache_control": ephemeral}}
	case []any:
		if len(c) > 0 {
			if b, ok := c[0].(map[string]any); ok {
				b["cache_control"] = ephemeral
			}
		}
	}
	if m["role"] == "tool" {
		if c, ok := m["content"].([]any); ok && len(c) > 0 {
			if b, ok := c[0].(map[string]any); ok {
				delete(b, "cache_control")
			}
		}
		m["cache_control"] = ephemeral
	}
}

func (w *openAIWire) validate(resp map[string]any) *APIError {
	choices, _ := resp["choices"].([]any)
	if len(choices) == 0 {
		return invalidResponse("", "response has no choices")
	}
	c, _ := choices[0].(map[string]any)
	if _, ok := c["message"].(map[string]any); !ok {
		return invalidResponse("", "response has no choices[0].message")
	}
	return nil
}

func (w *openAIWire) usage(resp map[string]any) (agent.Usage, float64, bool) {
	return openAIUsage(resp)
}

func (w *openAIWire) reply(resp map[string]any) (agent.Message, []agent.Action, *agent.FormatError, error) {
	choice := resp["choices"].([]any)[0].(map[string]any)
	msg := agent.Message(deepCopy(choice["message"]).(map[string]any))
	finish := str(choice["finish_reason"])
	if w.mini1 {
		return agent.Message{"role": "assistant", "content": msg.Content()}, nil, nil, nil
	}
	if finish == "content_filter" && msg.Content() == "" && len(openAIToolCalls(msg)) == 0 {
		return nil, nil, nil, contentFiltered("the reply was withheld by the provider's content filter (finish_reason content_filter)")
	}
	var actions []agent.Action
	var ferr *agent.FormatError
	if w.textRe != nil {
		actions, ferr = parseRegexActions(w.textRe, msg.Content(), finish)
	} else {
		actions, ferr = parseToolCalls(openAIToolCalls(msg), finish)
	}
	return msg, actions, ferr, nil
}

// chatAssembler rebuilds a chat.completion from its chunks (stream: true with
// stream_options.include_usage): string fields of the deltas are concatenated, tool calls are
// merged by index, the usage comes from the last chunk. The stream is complete at "data: [DONE]"
// (or at a chunk with usage after the finish reason, for servers that send no [DONE]).
type chatAssembler struct {
	resp   map[string]any
	msg    map[string]any
	calls  []map[string]any
	choice map[string]any
	finish any
	usage  any
	done   bool
}

func (a *chatAssembler) event(_ string, data []byte) error {
	if string(bytes.TrimSpace(data)) == "[DONE]" {
		a.done = true
		return nil
	}
	chunk, err := decodeObject(data)
	if err != nil {
		return err
	}
	if _, ok := chunk["error"]; ok {
		return errorEvent(chunk)
	}
	if a.resp == nil {
		a.resp, a.msg, a.choice = map[string]any{}, map[string]any{}, map[string]any{}
	}
	for k, v := range chunk {
		switch k {
		case "choices", "object":
		case "usage":
			if v != nil {
				a.usage = v
			}
		default:
			a.resp[k] = v
		}
	}
	choices, _ := chunk["choices"].([]any)
	if len(choices) == 0 {
		return nil
	}
	c, _ := choices[0].(map[string]any)
	for k, v := range c {
		switch k {
		case "delta", "logprobs", "index":
		case "finish_reason":
			if v != nil {
				a.finish = v
			}
		default:
			a.choice[k] = v
		}
	}
	delta, _ := c["delta"].(map[string]any)
	for k, v := range delta {
		switch k {
		case "role":
			a.msg[k] = v
		case "tool_calls":
			list, _ := v.([]any)
			for _, item := range list {
				a.mergeCall(item)
			}
		default:
			switch v.(type) {
			case string, nil:
				appendString(a.msg, k, v)
			case []any:
				prev, _ := a.msg[k].([]any)
				a.msg[k] = append(prev, v.([]any)...)
			default:
				a.msg[k] = v
			}
		}
	}
	return nil
}

func (a *chatAssembler) mergeCall(item any) {
	d, _ := item.(map[string]any)
	i := intOf(d["index"])
	for len(a.calls) <= i {
		a.calls = append(a.calls, map[string]any{"function": map[string]any{}})
	}
	tc := a.calls[i]
	fn := tc["function"].(map[string]any)
	for k, v := range d {
		switch k {
		case "index":
		case "function":
			f, _ := v.(map[string]any)
			for fk, fv := range f {
				appendString(fn, fk, fv)
			}
		default:
			if s, ok := v.(string); ok && s == "" && tc[k] != nil { // ids and types come once
				continue
			}
			tc[k] = v
		}
	}
}

func (a *chatAssembler) result() (map[string]any, error) {
	if a.resp == nil || a.finish == nil || !a.done && a.usage == nil {
		return nil, errIncomplete
	}
	if _, ok := a.msg["content"]; !ok {
		a.msg["content"] = nil
	}
	if len(a.calls) > 0 {
		calls := make([]any, len(a.calls))
		for i, c := range a.calls {
			calls[i] = c
		}
		a.msg["tool_calls"] = calls
	}
	a.choice["index"] = json.Number("0")
	a.choice["message"] = a.msg
	a.choice["finish_reason"] = a.finish
	a.choice["logprobs"] = nil
	a.resp["object"] = "chat.completion"
	a.resp["choices"] = []any{a.choice}
	if a.usage != nil {
		a.resp["usage"] = a.usage
	}
	return finishStrings(a.resp).(map[string]any), nil
}
