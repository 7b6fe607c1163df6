package model

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
)

// geminiWire speaks Gemini's generateContent, on Google AI Studio (gemini/…, an API key) and
// on Vertex AI (vertex_ai/gemini-…, OAuth tokens): the same body on both.
//
// Messages in the trajectory: an assistant message is {"role": "assistant", "content": PARTS}
// where PARTS is the candidate's parts list exactly as returned: text, thought parts, and
// functionCall parts with their thoughtSignature. Gemini 3 refuses a conversation whose
// function calls come back without their signatures; sending the parts verbatim keeps them.
// Tool messages become functionResponse parts (name "bash", response {"output": …}, and the
// call's id when Gemini gave one). A function call without an id gets the action id
// "call_<responseId>_<n>", which is never sent back.
type geminiWire struct {
	model  string
	gen    map[string]any // generationConfig
	extra  map[string]any // other top-level fields (safetySettings, cachedContent, labels, …)
	textRe *pyre.Regexp
	mini1  bool
}

// geminiPassThrough are native request fields given in model_kwargs.
var geminiPassThrough = map[string]bool{"safetySettings": true, "cachedContent": true, "labels": true, "toolConfig": true}

func newGeminiWire(model string, kw modelKwargs, o wireOptions) (*geminiWire, error) {
	w := &geminiWire{model: model, gen: map[string]any{}, extra: map[string]any{}, textRe: o.textRe, mini1: o.mini1}
	var refused []string
	for k, v := range kw.body {
		switch k {
		case "temperature", "seed", "candidateCount", "topP", "topK", "maxOutputTokens", "stopSequences", "responseMimeType":
			w.gen[k] = v
		case "top_p":
			w.gen["topP"] = v
		case "top_k":
			w.gen["topK"] = v
		case "max_tokens", "max_completion_tokens", "max_output_tokens":
			w.gen["maxOutputTokens"] = v
		case "n":
			w.gen["candidateCount"] = v
		case "presence_penalty":
			w.gen["presencePenalty"] = v
		case "frequency_penalty":
			w.gen["frequencyPenalty"] = v
		case "stop":
			if s, ok := v.(string); ok {
				v = []any{s}
			}
			w.gen["stopSequences"] = v
		case "generationConfig", "generation_config":
			m, _ := v.(map[string]any)
			for gk, gv := range m {
				w.gen[gk] = gv
			}
		case "thinkingConfig", "thinking_config":
			w.gen["thinkingConfig"] = v
		case "reasoning_effort":
			w.gen["thinkingConfig"] = geminiThinking(model, fmt.Sprint(v))
		case "thinking":
			th, _ := v.(map[string]any)
			if str(th["type"]) == "enabled" {
				w.gen["thinkingConfig"] = map[string]any{"thinkingBudget": th["budget_tokens"], "includeThoughts": true}
			}
		default:
			if geminiPassThrough[k] {
				w.extra[k] = v
			} else {
				refused = append(refused, k)
			}
		}
	}
	return w, kw.unsupported("Gemini API", refused)
}

// geminiThinking maps an OpenAI reasoning_effort to Gemini's thinking config, as litellm does:
// a thinking level for Gemini 3, a token budget for Gemini 2.5.
func geminiThinking(model, effort string) map[string]any {
	if strings.Contains(model, "gemini-3") {
		level := map[string]string{"minimal": "low", "low": "low", "medium": "high", "high": "high"}[effort]
		if level == "" {
			level = effort
		}
		return map[string]any{"thinkingLevel": level, "includeThoughts": true}
	}
	budget := map[string]int{"none": 0, "disable": 0, "minimal": 128, "low": 1024, "medium": 2048, "high": 4096}
	b, ok := budget[effort]
	if !ok {
		b = 2048
	}
	return map[string]any{"thinkingBudget": b, "includeThoughts": b > 0}
}

// skipSignature is the placeholder signature Google documents for function calls that Gemini 3
// did not produce (a conversation replayed from another model).
const skipSignature = "skip_thought_signature_validator"

func (w *geminiWire) request(msgs []agent.Message) ([]byte, error) {
	native := map[string]bool{} // tool call ids Gemini gave: sent back in functionResponse
	for _, m := range msgs {
		if parts, ok := m["content"].([]any); ok && m.Role() == "assistant" {
			for _, p := range parts {
				pm, _ := p.(map[string]any)
				if fc, ok := pm["functionCall"].(map[string]any); ok && str(fc["id"]) != "" {
					native[str(fc["id"])] = true
				}
			}
		}
	}
	var system []any
	var contents []map[string]any
	add := func(role string, parts []any) {
		if n := len(contents); n > 0 && contents[n-1]["role"] == role && role == "user" {
			contents[n-1]["parts"] = append(contents[n-1]["parts"].([]any), parts...)
			return
		}
		contents = append(contents, map[string]any{"role": role, "parts": parts})
	}
	for i, m := range msgs {
		switch m.Role() {
		case "system":
			system = append(system, map[string]any{"text": textOf(m["content"])})
		case "user":
			add("user", geminiUserParts(m["content"]))
		case "tool":
			fr := map[string]any{"name": "bash", "response": map[string]any{"output": textOf(m["content"])}}
			if id := str(m["tool_call_id"]); native[id] {
				fr["id"] = id
			}
			add("user", []any{map[string]any{"functionResponse": fr}})
		case "assistant":
			if w.mini1 {
				add("model", []any{map[string]any{"text": textOf(m["content"])}})
				continue
			}
			parts, err := geminiAssistantParts(m)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			add("model", parts)
		default:
			return nil, fmt.Errorf("message %d: role %q cannot be sent to the Gemini API", i, m.Role())
		}
	}
	body := map[string]any{"contents": contents}
	if len(system) > 0 {
		body["systemInstruction"] = map[string]any{"parts": system}
	}
	if w.textRe == nil && !w.mini1 {
		body["tools"] = []any{map[string]any{"functionDeclarations": []any{map[string]any{
			"name": "bash", "description": bashToolDescription, "parameters": bashToolSchema(),
		}}}}
	}
	if len(w.gen) > 0 {
		body["generationConfig"] = w.gen
	}
	for k, v := range w.extra {
		body[k] = v
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b, nil
}

// geminiUserParts converts a user message's content: text, and images as inline data (data:
// URLs) or, for other URLs, as text Gemini can read.
func geminiUserParts(c any) []any {
	parts, ok := c.([]any)
	if !ok {
		return []any{map[string]any{"text": textOf(c)}}
	}
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		switch str(pm["type"]) {
		case "text":
			out = append(out, map[string]any{"text": pm["text"]})
		case "image_url":
			u := str(pm["image_url"])
			if iu, ok := pm["image_url"].(map[string]any); ok {
				u = str(iu["url"])
			}
			if rest, ok := strings.CutPrefix(u, "data:"); ok {
				if mt, data, ok := strings.Cut(rest, ";base64,"); ok {
					out = append(out, map[string]any{"inlineData": map[string]any{"mimeType": mt, "data": data}})
					continue
				}
			}
			out = append(out, map[string]any{"text": "Image: " + u})
		default:
			out = append(out, deepCopy(p))
		}
	}
	return out
}

// geminiAssistantParts returns an assistant message's parts: its own when it is a Gemini reply,
// else text and function calls converted from the OpenAI shape (scripted or replayed turns).
func geminiAssistantParts(m agent.Message) ([]any, error) {
	if parts, ok := m["content"].([]any); ok && m["tool_calls"] == nil {
		return deepCopy(parts).([]any), nil
	}
	var parts []any
	if s := m.Content(); s != "" {
		parts = append(parts, map[string]any{"text": s})
	}
	for i, tc := range openAIToolCalls(m) {
		args := map[string]any{}
		if tc.args != "" {
			if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
				return nil, fmt.Errorf("tool call %s: arguments are not a JSON object: %w", tc.id, err)
			}
		}
		part := map[string]any{"functionCall": map[string]any{"name": tc.name, "args": args}}
		if i == 0 {
			part["thoughtSignature"] = skipSignature
		}
		parts = append(parts, part)
	}
	return parts, nil
}

// geminiBlocked are finish reasons of a reply withheld under Google's policies.
var geminiBlocked = map[string]bool{"SAFETY": true, "RECITATION": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true,
	"SPII": true, "IMAGE_SAFETY": true, "LANGUAGE": true}

func (w *geminiWire) validate(resp map[string]any) *APIError {
	cands, _ := resp["candidates"].([]any)
	if len(cands) == 0 {
		if pf, ok := resp["promptFeedback"].(map[string]any); ok && str(pf["blockReason"]) != "" {
			e := contentFiltered("the prompt was blocked: promptFeedback.blockReason " + str(pf["blockReason"]))
			e.Code = str(pf["blockReason"])
			return e
		}
		return invalidResponse("", "response has no candidates")
	}
	c, _ := cands[0].(map[string]any)
	content, _ := c["content"].(map[string]any)
	parts, _ := content["parts"].([]any)
	if fr := str(c["finishReason"]); geminiBlocked[fr] && len(parts) == 0 {
		e := contentFiltered("the reply was withheld: finishReason " + fr)
		e.Code = fr
		return e
	}
	return nil
}

func (w *geminiWire) usage(resp map[string]any) (agent.Usage, float64, bool) {
	return geminiUsage(resp), 0, false
}

// geminiUsage reads usageMetadata: promptTokenCount includes the cached tokens; thoughts are
// billed as output and counted in OutputTokens too.
func geminiUsage(resp map[string]any) agent.Usage {
	um, _ := resp["usageMetadata"].(map[string]any)
	if um == nil {
		return agent.Usage{}
	}
	thoughts := intOf(um["thoughtsTokenCount"])
	return agent.Usage{
		InputTokens:     intOf(um["promptTokenCount"]) + intOf(um["toolUsePromptTokenCount"]),
		OutputTokens:    intOf(um["candidatesTokenCount"]) + thoughts,
		CacheReadTokens: intOf(um["cachedContentTokenCount"]),
		ReasoningTokens: thoughts,
	}
}

func (w *geminiWire) reply(resp map[string]any) (agent.Message, []agent.Action, *agent.FormatError, error) {
	c := resp["candidates"].([]any)[0].(map[string]any)
	content, _ := c["content"].(map[string]any)
	parts, _ := deepCopy(content["parts"]).([]any)
	if parts == nil {
		parts = []any{}
	}
	var text []string
	var calls []toolCall
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		if fc, ok := pm["functionCall"].(map[string]any); ok {
			id := str(fc["id"])
			if id == "" {
				id = fmt.Sprintf("call_%s_%d", str(resp["responseId"]), len(calls))
			}
			args, ok := fc["args"].(map[string]any)
			calls = append(calls, toolCall{id: id, name: str(fc["name"]), input: args, inputOK: ok || fc["args"] == nil})
			continue
		}
		if s, ok := pm["text"].(string); ok && pm["thought"] != true {
			text = append(text, s)
		}
	}
	content2 := strings.Join(text, "")
	if w.mini1 {
		return agent.Message{"role": "assistant", "content": content2}, nil, nil, nil
	}
	finish := strings.ToLower(str(c["finishReason"]))
	switch {
	case finish == "max_tokens":
		finish = "length"
	case finish == "stop" && len(calls) > 0:
		finish = "tool_calls"
	}
	msg := agent.Message{"role": "assistant", "content": parts}
	var actions []agent.Action
	var ferr *agent.FormatError
	if w.textRe != nil {
		actions, ferr = parseRegexActions(w.textRe, content2, finish)
	} else {
		actions, ferr = parseToolCalls(calls, finish)
	}
	return msg, actions, ferr, nil
}

// geminiAssembler rebuilds a generateContent response from the chunks of
// streamGenerateContent?alt=sse: parts are appended in order, consecutive text parts of the
// same kind (thought or not) joined, a thoughtSignature kept on the part it arrived with (a
// part that carries one is never joined onto); finishReason, usageMetadata, modelVersion and
// responseId come from the last chunk that has them. The stream is complete once a chunk has
// a finishReason.
type geminiAssembler struct {
	resp  map[string]any
	cand  map[string]any
	role  any
	parts []any
	done  bool
}

func (a *geminiAssembler) event(_ string, data []byte) error {
	chunk, err := decodeObject(data)
	if err != nil {
		return err
	}
	if _, ok := chunk["error"]; ok {
		return errorEvent(chunk)
	}
	if a.resp == nil {
		a.resp, a.cand = map[string]any{}, map[string]any{}
	}
	for k, v := range chunk {
		if k != "candidates" {
			a.resp[k] = v
		}
	}
	cands, _ := chunk["candidates"].([]any)
	if len(cands) == 0 {
		return nil
	}
	c, _ := cands[0].(map[string]any)
	for k, v := range c {
		switch k {
		case "content":
			cm, _ := v.(map[string]any)
			if r, ok := cm["role"]; ok {
				a.role = r
			}
			parts, _ := cm["parts"].([]any)
			for _, p := range parts {
				a.addPart(p)
			}
		case "finishReason":
			a.cand[k] = v
			a.done = true
		default:
			a.cand[k] = v
		}
	}
	return nil
}

func (a *geminiAssembler) addPart(p any) {
	pm, _ := p.(map[string]any)
	if n := len(a.parts); n > 0 {
		prev, _ := a.parts[n-1].(map[string]any)
		if textPart(prev) && textPart(pm) && prev["thought"] == pm["thought"] && prev["thoughtSignature"] == nil {
			appendString(prev, "text", pm["text"])
			if sig, ok := pm["thoughtSignature"]; ok {
				prev["thoughtSignature"] = sig
			}
			return
		}
	}
	a.parts = append(a.parts, pm)
}

// textPart reports a part that holds text and nothing else but its thought flag and signature.
func textPart(p map[string]any) bool {
	switch p["text"].(type) {
	case string, *strings.Builder:
	default:
		return false
	}
	for k := range p {
		if k != "text" && k != "thought" && k != "thoughtSignature" {
			return false
		}
	}
	return true
}

func (a *geminiAssembler) result() (map[string]any, error) {
	if !a.done {
		return nil, errIncomplete
	}
	content := map[string]any{"parts": a.parts}
	if a.role != nil {
		content["role"] = a.role
	}
	if len(a.parts) > 0 || a.role != nil {
		a.cand["content"] = content
	}
	a.resp["candidates"] = []any{a.cand}
	return finishStrings(a.resp).(map[string]any), nil
}
