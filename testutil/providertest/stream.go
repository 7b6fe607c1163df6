package providertest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// Event is one event of a stream: its name (SSE "event:", the AWS :event-type) and JSON data.
type Event struct {
	Name string
	Data any
}

// SSE frames events as text/event-stream. An event with a raw string Data is sent as is.
func SSE(events []Event) []byte {
	var b bytes.Buffer
	for _, e := range events {
		if e.Name != "" {
			fmt.Fprintf(&b, "event: %s\n", e.Name)
		}
		data, ok := e.Data.(string)
		if !ok {
			raw, _ := json.Marshal(e.Data)
			data = string(raw)
		}
		fmt.Fprintf(&b, "data: %s\n\n", data)
	}
	return b.Bytes()
}

// AWSEvents frames events as application/vnd.amazon.eventstream messages.
func AWSEvents(events []Event) []byte {
	var b bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, e := range events {
		payload, _ := json.Marshal(e.Data)
		var h eventstream.Headers
		h.Set(":message-type", eventstream.StringValue("event"))
		h.Set(":event-type", eventstream.StringValue(e.Name))
		h.Set(":content-type", eventstream.StringValue("application/json"))
		if err := enc.Encode(&b, eventstream.Message{Headers: h, Payload: payload}); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

// AWSException frames one exception message of an event stream (:exception-type).
func AWSException(exception, message string) []byte {
	var b bytes.Buffer
	payload, _ := json.Marshal(map[string]string{"message": message})
	var h eventstream.Headers
	h.Set(":message-type", eventstream.StringValue("exception"))
	h.Set(":exception-type", eventstream.StringValue(exception))
	h.Set(":content-type", eventstream.StringValue("application/json"))
	if err := eventstream.NewEncoder().Encode(&b, eventstream.Message{Headers: h, Payload: payload}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// AWSChunks frames a model's own events as InvokeModelWithResponseStream does: "chunk" events
// whose "bytes" hold each event's JSON, base64-encoded.
func AWSChunks(events []Event) []byte {
	chunks := make([]Event, len(events))
	for i, e := range events {
		raw, _ := json.Marshal(e.Data)
		chunks[i] = Event{Name: "chunk", Data: map[string]any{"bytes": base64.StdEncoding.EncodeToString(raw)}}
	}
	return AWSEvents(chunks)
}

// halves cuts a string in two, so every text streams as more than one delta.
func halves(s string) []string {
	n := len(s) / 2
	for n > 0 && n < len(s) && !utf8Start(s[n]) {
		n++
	}
	return []string{s[:n], s[n:]}
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func copyMap(m map[string]any, drop ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for _, k := range drop {
		delete(out, k)
	}
	return out
}

// SSEEvents cuts an unstreamed reply of a wire into the events of its stream, every text in
// two deltas.
func SSEEvents(wire string, reply map[string]any) []Event { return SSEEventsSized(wire, reply, 0) }

// SSEEventsSized cuts texts into deltas of size bytes (about one token each at 4), as
// providers stream them; 0 cuts them in two.
func SSEEventsSized(wire string, reply map[string]any, size int) []Event {
	split := halves
	if size > 0 {
		split = func(s string) []string { return pieces(s, size) }
	}
	switch wire {
	case Chat:
		return chatEvents(reply, split)
	case Responses:
		return responsesEvents(reply, split)
	case Anthropic:
		return anthropicEvents(reply, split)
	case Gemini:
		return geminiEvents(reply, split)
	}
	panic("providertest: no SSE stream for " + wire)
}

// pieces cuts s into pieces of about size bytes, at rune boundaries.
func pieces(s string, size int) []string {
	var out []string
	for len(s) > size {
		n := size
		for n < len(s) && !utf8Start(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func chatEvents(reply map[string]any, split func(string) []string) []Event {
	top := copyMap(reply, "choices", "usage")
	top["object"] = "chat.completion.chunk"
	chunk := func(delta map[string]any, finish any) Event {
		c := copyMap(top)
		c["choices"] = []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}
		c["usage"] = nil
		return Event{Data: c}
	}
	choice := reply["choices"].([]any)[0].(map[string]any)
	msg := choice["message"].(map[string]any)
	var ev []Event
	first := map[string]any{"role": msg["role"], "content": "", "refusal": nil}
	if msg["content"] == nil {
		first["content"] = nil
	}
	ev = append(ev, chunk(first, nil))
	if s, ok := msg["content"].(string); ok {
		for _, h := range split(s) {
			ev = append(ev, chunk(map[string]any{"content": h}, nil))
		}
	}
	calls, _ := msg["tool_calls"].([]any)
	for i, c := range calls {
		cm := c.(map[string]any)
		fn := cm["function"].(map[string]any)
		ev = append(ev, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": cm["id"], "type": cm["type"],
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil))
		for _, h := range split(fn["arguments"].(string)) {
			ev = append(ev, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": h}}}}, nil))
		}
	}
	ev = append(ev, chunk(map[string]any{}, choice["finish_reason"]))
	last := copyMap(top)
	last["choices"] = []any{}
	last["usage"] = reply["usage"]
	return append(ev, Event{Data: last}, Event{Data: "[DONE]"})
}

func responsesEvents(reply map[string]any, split func(string) []string) []Event {
	start := copyMap(reply)
	start["status"], start["output"], start["usage"] = "in_progress", []any{}, nil
	ev := []Event{
		{"response.created", map[string]any{"type": "response.created", "response": start}},
		{"response.in_progress", map[string]any{"type": "response.in_progress", "response": start}},
	}
	for i, item := range reply["output"].([]any) {
		it := item.(map[string]any)
		ev = append(ev, Event{"response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it}})
		if it["type"] == "message" {
			parts, _ := it["content"].([]any)
			for j, part := range parts {
				pm, _ := part.(map[string]any)
				if text, ok := pm["text"].(string); ok {
					for _, h := range split(text) {
						ev = append(ev, Event{"response.output_text.delta", map[string]any{"type": "response.output_text.delta", "output_index": i, "content_index": j, "item_id": it["id"], "delta": h}})
					}
					ev = append(ev, Event{"response.output_text.done", map[string]any{"type": "response.output_text.done", "output_index": i, "content_index": j, "item_id": it["id"], "text": text}})
				}
			}
		}
		if it["type"] == "function_call" {
			for _, h := range split(it["arguments"].(string)) {
				ev = append(ev, Event{"response.function_call_arguments.delta", map[string]any{"type": "response.function_call_arguments.delta", "output_index": i, "item_id": it["id"], "delta": h}})
			}
		}
		ev = append(ev, Event{"response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it}})
	}
	return append(ev, Event{"response.completed", map[string]any{"type": "response.completed", "response": reply}})
}

func anthropicEvents(reply map[string]any, split func(string) []string) []Event {
	start := copyMap(reply, "content")
	start["content"], start["stop_reason"] = []any{}, nil
	usage := copyMap(reply["usage"].(map[string]any))
	usage["output_tokens"] = 1
	start["usage"] = usage
	ev := []Event{{"message_start", map[string]any{"type": "message_start", "message": start}}, {"ping", map[string]any{"type": "ping"}}}
	for i, b := range reply["content"].([]any) {
		bm := b.(map[string]any)
		var empty map[string]any
		var deltas []map[string]any
		switch bm["type"] {
		case "text":
			empty = map[string]any{"type": "text", "text": ""}
			for _, h := range split(bm["text"].(string)) {
				deltas = append(deltas, map[string]any{"type": "text_delta", "text": h})
			}
		case "thinking":
			empty = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			for _, h := range split(bm["thinking"].(string)) {
				deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": h})
			}
			deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": bm["signature"]})
		case "tool_use":
			empty = map[string]any{"type": "tool_use", "id": bm["id"], "name": bm["name"], "input": map[string]any{}}
			raw, _ := json.Marshal(bm["input"])
			for _, h := range split(string(raw)) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": h})
			}
		default:
			empty = bm
		}
		ev = append(ev, Event{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": empty}})
		for _, d := range deltas {
			ev = append(ev, Event{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}})
		}
		ev = append(ev, Event{"content_block_stop", map[string]any{"type": "content_block_stop", "index": i}})
	}
	ev = append(ev, Event{"message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": reply["stop_reason"], "stop_sequence": reply["stop_sequence"]},
		"usage": map[string]any{"output_tokens": reply["usage"].(map[string]any)["output_tokens"]}}})
	return append(ev, Event{"message_stop", map[string]any{"type": "message_stop"}})
}

func geminiEvents(reply map[string]any, split func(string) []string) []Event {
	cand := reply["candidates"].([]any)[0].(map[string]any)
	content := cand["content"].(map[string]any)
	top := copyMap(reply, "candidates")
	top["usageMetadata"] = map[string]any{"promptTokenCount": reply["usageMetadata"].(map[string]any)["promptTokenCount"]}
	var ev []Event
	chunk := func(parts []any, last bool) {
		c := copyMap(top)
		cd := map[string]any{"content": map[string]any{"role": content["role"], "parts": parts}, "index": cand["index"]}
		if last {
			cd["finishReason"] = cand["finishReason"]
			c["usageMetadata"] = reply["usageMetadata"]
		}
		c["candidates"] = []any{cd}
		ev = append(ev, Event{Data: c})
	}
	parts := content["parts"].([]any)
	var calls []any
	for _, p := range parts {
		pm := p.(map[string]any)
		if s, ok := pm["text"].(string); ok && len(pm) <= 2 {
			for _, h := range split(s) {
				q := copyMap(pm)
				q["text"] = h
				chunk([]any{q}, false)
			}
			continue
		}
		calls = append(calls, p)
	}
	chunk(calls, true)
	return ev
}

// ConverseEvents cuts a Converse response into the events of ConverseStream.
func ConverseEvents(reply map[string]any) []Event { return ConverseEventsSized(reply, 0) }

// ConverseEventsSized is ConverseEvents with texts cut into deltas of size bytes.
func ConverseEventsSized(reply map[string]any, size int) []Event {
	split := halves
	if size > 0 {
		split = func(s string) []string { return pieces(s, size) }
	}
	msg := reply["output"].(map[string]any)["message"].(map[string]any)
	ev := []Event{{"messageStart", map[string]any{"role": msg["role"]}}}
	for i, b := range msg["content"].([]any) {
		bm := b.(map[string]any)
		switch {
		case bm["text"] != nil:
			for _, h := range split(bm["text"].(string)) {
				ev = append(ev, Event{"contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"text": h}}})
			}
		case bm["toolUse"] != nil:
			tu := bm["toolUse"].(map[string]any)
			ev = append(ev, Event{"contentBlockStart", map[string]any{"contentBlockIndex": i, "start": map[string]any{"toolUse": map[string]any{"toolUseId": tu["toolUseId"], "name": tu["name"]}}}})
			raw, _ := json.Marshal(tu["input"])
			for _, h := range split(string(raw)) {
				ev = append(ev, Event{"contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"toolUse": map[string]any{"input": h}}}})
			}
		}
		ev = append(ev, Event{"contentBlockStop", map[string]any{"contentBlockIndex": i}})
	}
	ev = append(ev, Event{"messageStop", map[string]any{"stopReason": reply["stopReason"]}})
	return append(ev, Event{"metadata", map[string]any{"usage": reply["usage"], "metrics": reply["metrics"]}})
}
