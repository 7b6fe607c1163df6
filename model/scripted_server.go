package model

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ScriptedPrice is what the scripted model's calls cost when it is served over HTTP
// (ScriptedHandler), in dollars per million tokens: they are billed through the price table as a provider's calls
// are, so that cost limits and budgets have something to count.
var ScriptedPrice = Price{Input: 1, Output: 2}

// ScriptedHandler serves the scripted model as an OpenAI-compatible provider (POST
// /v1/chat/completions, streamed or not): an installed agent behind the model proxy plays the
// same turns as the loop. A request is the conversation of the instance whose task text
// (tasks: instance id → task) one of its user messages holds, the longest such task winning;
// its turn is the number of assistant messages it already holds. Usage is counted as the
// request's and the reply's bytes ÷ 4, and billed at ScriptedPrice by the model layer. A turn
// past the script's end is a reply without a tool call (the agent stops).
func (s *Scripted) ScriptedHandler(tasks map[string]string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req struct {
			Model    string           `json:"model"`
			Stream   bool             `json:"stream"`
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			writeScriptedError(w, http.StatusBadRequest, "body is not JSON: "+err.Error())
			return
		}
		id, assistants := "", 0
		for _, m := range req.Messages {
			switch m["role"] {
			case "assistant":
				assistants++
			case "user":
				text := contentText(m["content"])
				for iid, task := range tasks {
					if task != "" && strings.Contains(text, task) && len(task) > len(tasks[id]) {
						id = iid
					}
				}
			}
		}
		turns, ok := s.scripts[id]
		if !ok {
			turns = s.Default
		}
		if id == "" && turns == nil {
			writeScriptedError(w, http.StatusBadRequest, "scripted model: no instance's task text is in the request's user messages")
			return
		}
		msg := map[string]any{"role": "assistant", "content": "The script has no more turns."}
		if assistants < len(turns) {
			turn := turns[assistants]
			if turn.Delay > 0 {
				select {
				case <-time.After(turn.Delay):
				case <-r.Context().Done():
					return
				}
			}
			calls := make([]any, len(turn.Commands))
			for i, cmd := range turn.Commands {
				args, _ := json.Marshal(map[string]string{"command": cmd})
				calls[i] = map[string]any{"id": fmt.Sprintf("call_%d_%d", assistants+1, i), "type": "function",
					"function": map[string]any{"name": "bash", "arguments": string(args)}}
			}
			msg = map[string]any{"role": "assistant", "content": strings.TrimSpace(turn.Content), "tool_calls": calls}
		}
		reply, _ := json.Marshal(msg)
		usage := map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": len(reply)/4 + 1}
		usage["total_tokens"] = usage["prompt_tokens"].(int) + usage["completion_tokens"].(int)
		finish := "stop"
		if _, ok := msg["tool_calls"]; ok {
			finish = "tool_calls"
		}
		created := time.Now().Unix()
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{
				"id": "chatcmpl-scripted", "object": "chat.completion", "created": created, "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
				"usage":   usage,
			})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		delta := map[string]any{"role": "assistant", "content": msg["content"]}
		if tc, ok := msg["tool_calls"].([]any); ok {
			for i, c := range tc {
				c.(map[string]any)["index"] = i
			}
			delta["tool_calls"] = tc
		}
		for _, chunk := range []map[string]any{
			{"choices": []any{map[string]any{"index": 0, "delta": delta}}},
			{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}},
			{"choices": []any{}, "usage": usage},
		} {
			chunk["id"], chunk["object"], chunk["created"], chunk["model"] = "chatcmpl-scripted", "chat.completion.chunk", created, req.Model
			data, _ := json.Marshal(chunk)
			fmt.Fprintf(w, "data: %s\n\n", data)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	return mux
}

func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, p := range v {
			if m, ok := p.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return b.String()
	}
	return ""
}

func writeScriptedError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}
