package installed

import (
	"encoding/json"
	"fmt"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/model/proxy"
)

// Messages turns an installed agent's proxy record into the messages of a trajectory, so that
// every reader of our loop's trajectories (stats, inspect, report, audit, export) reads it: a
// system message saying so, the task as the user message, then for each model call (in the order the calls arrived) the
// observations the agent sent back since the previous call (role "tool") and the reply as an
// assistant message in chat-completions shape (content, tool_calls with the command of each
// call whose arguments hold one). Each assistant message's extra holds the call's seq, wire,
// cost, usage, timing and the proxy's error, if any; extra.raw_response is the reply as the
// agent got it. Token counts are left out. The record itself stays the full account
// (<out>/<id>/agent/proxy.jsonl).
func Messages(task string, calls []proxy.Call) []agent.Message {
	out := []agent.Message{
		{"role": "system", "content": "An installed agent ran this task: its own prompts and every model call are in the proxy record (agent/proxy.jsonl).", "extra": map[string]any{"source": "swebench-run"}},
		{"role": "user", "content": task, "extra": map[string]any{"source": "task_file"}},
	}
	seen := 0 // observations already shown
	for _, c := range calls {
		if c.Kind != "" && c.Kind != "generate" {
			continue
		}
		obs := observations(c.Wire, c.Request)
		if seen < len(obs) {
			out = append(out, obs[seen:]...)
		}
		seen = len(obs)
		msg := replyMessage(c.Wire, c.Response)
		extra := map[string]any{
			"proxy_seq": c.Seq, "wire": c.Wire, "cost": c.Cost, "usage": c.Usage,
			"duration_ms": c.DurationMS, "http_status": c.HTTPStatus, "timestamp": float64(c.Start.UnixNano()) / 1e9,
			"requested_model": c.RequestedModel,
		}
		if c.Error != nil {
			extra["error"] = c.Error
			msg["content"] = fmt.Sprintf("[%s] %s", c.Error.Status, c.Error.Message)
		}
		var actions []any
		if tcs, ok := msg["tool_calls"].([]any); ok {
			for _, tc := range tcs {
				m, _ := tc.(map[string]any)
				fn, _ := m["function"].(map[string]any)
				args, _ := fn["arguments"].(string)
				var a map[string]any
				if json.Unmarshal([]byte(args), &a) == nil {
					if cmd, ok := a["command"].(string); ok {
						actions = append(actions, map[string]any{"command": cmd, "tool_call_id": m["id"]})
					}
				}
			}
		}
		if actions != nil {
			extra["actions"] = actions
		}
		var raw any
		if json.Unmarshal(c.Response, &raw) == nil {
			extra["raw_response"] = raw
		}
		msg["extra"] = extra
		out = append(out, msg)
	}
	return out
}

func obj(b json.RawMessage) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func arr(v any) []any { a, _ := v.([]any); return a }

func str(v any) string { s, _ := v.(string); return s }

func toolCall(id, name string, args any) map[string]any {
	s, ok := args.(string)
	if !ok {
		b, _ := json.Marshal(args)
		s = string(b)
	}
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": s}}
}

// replyMessage is a reply as a chat-completions assistant message.
func replyMessage(wire string, resp json.RawMessage) agent.Message {
	r := obj(resp)
	text, calls := "", []any{}
	switch wire {
	case "chat":
		if ch := arr(r["choices"]); len(ch) > 0 {
			m, _ := ch[0].(map[string]any)["message"].(map[string]any)
			text = str(m["content"])
			for _, tc := range arr(m["tool_calls"]) {
				t, _ := tc.(map[string]any)
				fn, _ := t["function"].(map[string]any)
				calls = append(calls, toolCall(str(t["id"]), str(fn["name"]), fn["arguments"]))
			}
		}
	case "responses":
		for _, it := range arr(r["output"]) {
			item, _ := it.(map[string]any)
			switch item["type"] {
			case "message":
				for _, p := range arr(item["content"]) {
					if pm, ok := p.(map[string]any); ok {
						text += str(pm["text"])
					}
				}
			case "function_call":
				calls = append(calls, toolCall(str(item["call_id"]), str(item["name"]), item["arguments"]))
			}
		}
	case "anthropic":
		for _, b := range arr(r["content"]) {
			bm, _ := b.(map[string]any)
			switch bm["type"] {
			case "text":
				text += str(bm["text"])
			case "tool_use":
				calls = append(calls, toolCall(str(bm["id"]), str(bm["name"]), bm["input"]))
			}
		}
	case "gemini":
		if cs := arr(r["candidates"]); len(cs) > 0 {
			content, _ := cs[0].(map[string]any)["content"].(map[string]any)
			for i, p := range arr(content["parts"]) {
				pm, _ := p.(map[string]any)
				text += str(pm["text"])
				if fc, ok := pm["functionCall"].(map[string]any); ok {
					calls = append(calls, toolCall(fmt.Sprintf("gemini_call_%d", i), str(fc["name"]), fc["args"]))
				}
			}
		}
	}
	msg := agent.Message{"role": "assistant", "content": text}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	return msg
}

// observations are the tool results a request carries, in order, as role "tool" messages.
func observations(wire string, req json.RawMessage) []agent.Message {
	r := obj(req)
	var out []agent.Message
	add := func(id string, content any) {
		s, ok := content.(string)
		if !ok {
			if parts := arr(content); parts != nil {
				for _, p := range parts {
					if pm, ok := p.(map[string]any); ok {
						s += str(pm["text"])
					}
				}
			} else {
				b, _ := json.Marshal(content)
				s = string(b)
			}
		}
		out = append(out, agent.Message{"role": "tool", "tool_call_id": id, "content": s})
	}
	switch wire {
	case "chat":
		for _, m := range arr(r["messages"]) {
			mm, _ := m.(map[string]any)
			if mm["role"] == "tool" {
				add(str(mm["tool_call_id"]), mm["content"])
			}
		}
	case "responses":
		for _, it := range arr(r["input"]) {
			item, _ := it.(map[string]any)
			if item["type"] == "function_call_output" {
				add(str(item["call_id"]), item["output"])
			}
		}
	case "anthropic":
		for _, m := range arr(r["messages"]) {
			mm, _ := m.(map[string]any)
			for _, b := range arr(mm["content"]) {
				bm, _ := b.(map[string]any)
				if bm["type"] == "tool_result" {
					add(str(bm["tool_use_id"]), bm["content"])
				}
			}
		}
	case "gemini":
		for _, c := range arr(r["contents"]) {
			cm, _ := c.(map[string]any)
			for i, p := range arr(cm["parts"]) {
				pm, _ := p.(map[string]any)
				if fr, ok := pm["functionResponse"].(map[string]any); ok {
					resp, _ := fr["response"].(map[string]any)
					var content any = resp
					if o, ok := resp["output"]; ok {
						content = o
					}
					add(fmt.Sprintf("gemini_call_%d", i), content)
				}
			}
		}
	}
	return out
}
