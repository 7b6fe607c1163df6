package export

import (
	"bytes"
	"encoding/json"
)

// OpenAI's chat fine-tuning format (https://platform.openai.com/docs/guides/supervised-fine-tuning,
// and the per-line object of https://platform.openai.com/docs/api-reference/fine-tuning/chat-input):
// one JSON object per line with "messages" and, for tool calling, "tools" and
// "parallel_tool_calls". Replies carry "weight" (1: trained, 0: not), the only values the format
// allows; a reply whose tool calls end the trajectory (the submission) is the last message.

type oaiLine struct {
	Messages          []oaiMessage     `json:"messages"`
	Tools             []map[string]any `json:"tools,omitempty"`
	ParallelToolCalls *bool            `json:"parallel_tool_calls,omitempty"`
}

type oaiMessage struct {
	Role       string    `json:"role"`
	Content    *string   `json:"content,omitempty"`
	ToolCalls  []oaiCall `json:"tool_calls,omitempty"`
	ToolCallID string    `json:"tool_call_id,omitempty"`
	Weight     *int      `json:"weight,omitempty"`
}

type oaiCall struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Function oaiFunction `json:"function"`
}

type oaiFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// openAILine renders c as one line of the format (without the newline).
func openAILine(c *Conversation) ([]byte, error) {
	line := oaiLine{Messages: make([]oaiMessage, 0, len(c.Messages))}
	for _, m := range c.Messages {
		content := m.Content
		om := oaiMessage{Role: m.Role, Content: &content, ToolCallID: m.ToolCallID}
		if m.Role == "assistant" {
			w := 0
			if m.Trainable {
				w = 1
			}
			om.Weight = &w
			for _, tc := range m.ToolCalls {
				om.ToolCalls = append(om.ToolCalls, oaiCall{ID: tc.ID, Type: "function", Function: oaiFunction{Name: tc.Name, Arguments: tc.Arguments}})
			}
			if len(om.ToolCalls) > 0 && content == "" {
				om.Content = nil
			}
		}
		line.Messages = append(line.Messages, om)
	}
	if c.ToolCalling {
		line.Tools = c.Tools
		// The loops offered parallel calls (the APIs' default); mini-swe-agent runs the several
		// calls of one reply in order.
		t := true
		line.ParallelToolCalls = &t
	}
	return marshalLine(line)
}

// marshalLine encodes v as JSON without HTML escaping and without the final newline.
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
