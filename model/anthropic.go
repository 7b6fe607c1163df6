package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
)

// anthropicWire speaks the Anthropic Messages API (POST /v1/messages), natively.
//
// Messages in the trajectory: the assistant messages are Anthropic's own,
// {"role":"assistant","content":[thinking…, text…, tool_use…]}, stored exactly as returned so
// thinking blocks and their signatures go back unchanged; the messages the agent writes keep the
// agent's shape (system, user with string content, {"role":"tool","tool_call_id",…}). Each
// request converts the latter: system messages become the system parameter, tool messages become
// tool_result blocks, and consecutive user/tool messages merge into one user turn.
// OpenAI-shaped assistant messages (tool_calls, e.g. from a replayed or scripted trajectory) are
// converted to text and tool_use blocks. Like the OpenAI client, it is plain net/http rather than
// the SDK, so that stored content blocks are sent back verbatim.
type anthropicWire struct {
	model  string
	kwargs map[string]any
	cache  bool
	textRe *pyre.Regexp // nil: tool use
	mini1  bool         // mini-swe-agent 1.x: role and content only, no tools, text replies
	stream bool         // "stream": true in the body (the Anthropic API and Vertex streamRawPredict)
	// Bedrock and Vertex name the model in the URL and the API version in the body.
	omitModel bool
	version   string
}

const defaultAnthropicMaxTokens = 8192

func (w *anthropicWire) request(msgs []agent.Message) ([]byte, error) {
	var system []any
	var turns []map[string]any
	appendBlocks := func(role string, blocks []any) {
		if n := len(turns); n > 0 && turns[n-1]["role"] == role && role == "user" {
			turns[n-1]["content"] = append(turns[n-1]["content"].([]any), blocks...)
			return
		}
		turns = append(turns, map[string]any{"role": role, "content": blocks})
	}
	for i, m := range msgs {
		switch m.Role() {
		case "system":
			system = append(system, textBlocks(m["content"])...)
		case "user":
			appendBlocks("user", anthropicImages(textBlocks(m["content"])))
		case "tool":
			appendBlocks("user", []any{map[string]any{
				"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": deepCopy(m["content"]),
			}})
		case "assistant":
			if w.mini1 {
				appendBlocks("assistant", textBlocks(m["content"]))
				continue
			}
			blocks, err := anthropicAssistantBlocks(m)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			appendBlocks("assistant", blocks)
		default:
			return nil, fmt.Errorf("message %d: role %q cannot be sent to the Anthropic API", i, m.Role())
		}
	}
	if w.cache && len(turns) > 0 {
		blocks := turns[len(turns)-1]["content"].([]any)
		if len(blocks) > 0 {
			if b, ok := blocks[len(blocks)-1].(map[string]any); ok {
				b["cache_control"] = ephemeral
			}
		}
	}
	body := map[string]any{"model": w.model, "messages": turns, "max_tokens": defaultAnthropicMaxTokens}
	if len(system) > 0 {
		body["system"] = system
	}
	if w.textRe == nil && !w.mini1 {
		body["tools"] = []any{map[string]any{
			"name": "bash", "description": bashToolDescription, "input_schema": bashToolSchema(),
		}}
	}
	for k, v := range w.kwargs {
		switch k {
		case "max_completion_tokens":
			body["max_tokens"] = v
		case "reasoning_effort":
			if _, set := w.kwargs["thinking"]; !set {
				budget := map[any]int{"low": 1024, "medium": 2048, "high": 4096}[v]
				if budget > 0 {
					body["thinking"] = map[string]any{"type": "enabled", "budget_tokens": budget}
				}
			}
		default:
			body[k] = v
		}
	}
	// Extended thinking needs max_tokens above its budget.
	if th, ok := body["thinking"].(map[string]any); ok {
		_, explicit := w.kwargs["max_tokens"]
		_, explicit2 := w.kwargs["max_completion_tokens"]
		if b := intOf(th["budget_tokens"]); b > 0 && !explicit && !explicit2 {
			body["max_tokens"] = b + defaultAnthropicMaxTokens
		}
	}
	if w.omitModel {
		delete(body, "model")
	}
	if w.version != "" {
		body["anthropic_version"] = w.version
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

// textBlocks turns message content (a string or a list of parts) into content blocks.
func textBlocks(content any) []any {
	switch c := content.(type) {
	case string:
		return []any{map[string]any{"type": "text", "text": c}}
	case []any:
		return deepCopy(c).([]any)
	case nil:
		return nil
	}
	return []any{map[string]any{"type": "text", "text": fmt.Sprint(content)}}
}

// anthropicAssistantBlocks returns an assistant message's content blocks, thinking first.
func anthropicAssistantBlocks(m agent.Message) ([]any, error) {
	if blocks, ok := m["content"].([]any); ok && m["tool_calls"] == nil {
		out := map[string]any{"role": "assistant", "content": deepCopy(blocks)}
		reorderThinking(out)
		return out["content"].([]any), nil
	}
	var blocks []any
	if s := m.Content(); s != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": s})
	}
	for _, tc := range openAIToolCalls(m) {
		input := map[string]any{}
		if tc.args != "" {
			if err := json.Unmarshal([]byte(tc.args), &input); err != nil {
				return nil, fmt.Errorf("tool call %s: arguments are not a JSON object: %w", tc.id, err)
			}
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": tc.id, "name": tc.name, "input": input})
	}
	return blocks, nil
}

func (w *anthropicWire) validate(resp map[string]any) *APIError {
	if _, ok := resp["content"].([]any); !ok {
		return invalidResponse("", "response has no content list")
	}
	return nil
}

func (w *anthropicWire) usage(resp map[string]any) (agent.Usage, float64, bool) {
	return anthropicUsage(resp), 0, false
}

// finishReasons maps Anthropic stop reasons to the OpenAI finish reasons that format-error
// templates test (as litellm does).
var finishReasons = map[string]string{
	"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls",
}

func (w *anthropicWire) reply(resp map[string]any) (agent.Message, []agent.Action, *agent.FormatError, error) {
	content := deepCopy(resp["content"]).([]any)
	msg := agent.Message{"role": "assistant", "content": content}
	if w.mini1 {
		// litellm's text of an Anthropic reply: its text blocks, concatenated.
		var text string
		for _, item := range content {
			if b, _ := item.(map[string]any); str(b["type"]) == "text" {
				text += str(b["text"])
			}
		}
		return agent.Message{"role": "assistant", "content": text}, nil, nil, nil
	}
	stop := str(resp["stop_reason"])
	if stop == "refusal" && len(anthropicToolCalls(content)) == 0 {
		return nil, nil, nil, contentFiltered("the model declined under the provider's usage policy (stop_reason refusal)")
	}
	finish := finishReasons[stop]
	if finish == "" {
		finish = stop
	}
	var actions []agent.Action
	var ferr *agent.FormatError
	if w.textRe != nil {
		actions, ferr = parseRegexActions(w.textRe, anthropicText(content), finish)
	} else {
		actions, ferr = parseToolCalls(anthropicToolCalls(content), finish)
	}
	return msg, actions, ferr, nil
}

// anthropicImages turns OpenAI-style image_url parts (the task's images, or parts of a
// mini-swe-agent trajectory) into Anthropic image blocks: base64 for data: URLs, url otherwise.
func anthropicImages(blocks []any) []any {
	for i, b := range blocks {
		bm, _ := b.(map[string]any)
		if str(bm["type"]) != "image_url" {
			continue
		}
		u := str(bm["image_url"])
		if iu, ok := bm["image_url"].(map[string]any); ok {
			u = str(iu["url"])
		}
		source := map[string]any{"type": "url", "url": u}
		if rest, ok := strings.CutPrefix(u, "data:"); ok {
			if mt, data, ok := strings.Cut(rest, ";base64,"); ok {
				source = map[string]any{"type": "base64", "media_type": mt, "data": data}
			}
		}
		blocks[i] = map[string]any{"type": "image", "source": source}
	}
	return blocks
}

// anthropicAssembler rebuilds a Messages response from its events: message_start carries the
// message without content, content_block_start/delta/stop build each block (text, thinking and
// its signature, tool_use input from partial JSON), message_delta the stop reason and the final
// usage; the stream is complete at message_stop.
type anthropicAssembler struct {
	msg    map[string]any
	blocks []map[string]any
	json   map[int]*strings.Builder // partial tool input by block index
	done   bool
}

func newAnthropicAssembler() *anthropicAssembler {
	return &anthropicAssembler{json: map[int]*strings.Builder{}}
}

// anthropicDelta is a content_block_delta event of the common kinds, decoded without the
// generic map (most events of a stream are these: one per few characters).
type anthropicDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta struct {
		Type        string  `json:"type"`
		Text        *string `json:"text"`
		Thinking    *string `json:"thinking"`
		Signature   *string `json:"signature"`
		PartialJSON *string `json:"partial_json"`
	} `json:"delta"`
}

// delta applies a text, thinking, signature or tool-input delta; false leaves the event to
// the generic path (another delta type, or not such an event).
func (a *anthropicAssembler) delta(name string, data []byte) (bool, error) {
	if name != "content_block_delta" && (name != "" || !bytes.Contains(data[:min(len(data), 48)], []byte(`"content_block_delta"`))) {
		return false, nil
	}
	var d anthropicDelta
	if err := json.Unmarshal(data, &d); err != nil || d.Type != "content_block_delta" {
		return false, nil
	}
	var key string
	var v *string
	switch d.Delta.Type {
	case "text_delta":
		key, v = "text", d.Delta.Text
	case "thinking_delta":
		key, v = "thinking", d.Delta.Thinking
	case "signature_delta":
		key, v = "signature", d.Delta.Signature
	case "input_json_delta":
		key, v = "", d.Delta.PartialJSON
	default:
		return false, nil
	}
	i := d.Index
	if i < 0 || i >= len(a.blocks) || a.blocks[i] == nil {
		return true, fmt.Errorf("content_block_delta for block %d before its start", i)
	}
	if key == "" {
		if v == nil {
			return true, nil
		}
		if a.json[i] == nil {
			a.json[i] = &strings.Builder{}
		}
		a.json[i].WriteString(*v)
		return true, nil
	}
	if v == nil {
		appendString(a.blocks[i], key, nil)
		return true, nil
	}
	appendString(a.blocks[i], key, *v)
	return true, nil
}

func (a *anthropicAssembler) event(name string, data []byte) error {
	if done, err := a.delta(name, data); done {
		return err
	}
	ev, err := decodeObject(data)
	if err != nil {
		return err
	}
	typ := firstNonEmpty(str(ev["type"]), name)
	switch typ {
	case "message_start":
		m, _ := ev["message"].(map[string]any)
		if m == nil {
			return fmt.Errorf("message_start without a message")
		}
		a.msg = m
	case "content_block_start":
		i := intOf(ev["index"])
		b, _ := ev["content_block"].(map[string]any)
		for len(a.blocks) <= i {
			a.blocks = append(a.blocks, nil)
		}
		a.blocks[i] = b
	case "content_block_delta":
		i := intOf(ev["index"])
		if i >= len(a.blocks) || a.blocks[i] == nil {
			return fmt.Errorf("content_block_delta for block %d before its start", i)
		}
		b := a.blocks[i]
		d, _ := ev["delta"].(map[string]any)
		switch str(d["type"]) {
		case "text_delta":
			appendString(b, "text", d["text"])
		case "thinking_delta":
			appendString(b, "thinking", d["thinking"])
		case "signature_delta":
			appendString(b, "signature", d["signature"])
		case "input_json_delta":
			if a.json[i] == nil {
				a.json[i] = &strings.Builder{}
			}
			a.json[i].WriteString(str(d["partial_json"]))
		case "citations_delta":
			prev, _ := b["citations"].([]any)
			b["citations"] = append(prev, d["citation"])
		}
	case "content_block_stop":
		i := intOf(ev["index"])
		if sb := a.json[i]; sb != nil && i < len(a.blocks) {
			in, err := decodePartialJSON(sb.String())
			if err != nil {
				return err
			}
			a.blocks[i]["input"] = in
		}
	case "message_delta":
		if a.msg == nil {
			return fmt.Errorf("message_delta before message_start")
		}
		d, _ := ev["delta"].(map[string]any)
		for k, v := range d {
			a.msg[k] = v
		}
		if u, ok := ev["usage"].(map[string]any); ok {
			prev, _ := a.msg["usage"].(map[string]any)
			if prev == nil {
				prev = map[string]any{}
			}
			for k, v := range u {
				if v != nil {
					prev[k] = v
				}
			}
			a.msg["usage"] = prev
		}
	case "message_stop":
		a.done = true
	case "error":
		return errorEvent(ev)
	}
	return nil
}

func (a *anthropicAssembler) result() (map[string]any, error) {
	if !a.done || a.msg == nil {
		return nil, errIncomplete
	}
	content := make([]any, 0, len(a.blocks))
	for _, b := range a.blocks {
		if b != nil {
			content = append(content, b)
		}
	}
	a.msg["content"] = content
	return finishStrings(a.msg).(map[string]any), nil
}
