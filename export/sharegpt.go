package export

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ShareGPT, in the convention of LLaMA-Factory (data/README.md, "Sharegpt Format", and its
// SharegptDatasetConverter in src/llamafactory/data/converter.py; hiyouga/LLaMA-Factory at
// ff6d4d12e): {"conversations": [{"from", "value"}…], "tools": "<JSON list>"}. "from" is system
// (first only), human, gpt, function_call or observation; after the system turn, human and
// observation take the odd positions (1st, 3rd, …) and gpt and function_call the even ones, and
// the conversation ends with gpt or function_call.
//
// A reply with tool calls is a function_call turn whose value is the call as JSON,
// {"name", "arguments": {…}}, or a list of them for several calls (LLaMA-Factory's
// FunctionFormatter reads both); the reply's text, which that value cannot hold, is kept in the
// turn's "thought" key (readers of the convention ignore other keys). The outputs of several
// calls of one reply are one observation turn, joined as LLaMA-Factory's own OpenAI converter
// joins them ("\n</tool_response>\n<tool_response>\n"). Two inputs in a row (a mini-swe-agent 2.x
// format error after an observation) are one turn, joined by a blank line. The format has no
// per-turn weight: untrained replies are written as gpt turns (drop them with
// --drop-format-errors).

// errUnrepresentable is wrapped by the error for a conversation the format cannot hold.
var errUnrepresentable = errors.New("not representable")

// toolResponseJoin joins the outputs of several calls of one reply (LLaMA-Factory's
// OpenAIDatasetConverter).
const toolResponseJoin = "\n</tool_response>\n<tool_response>\n"

type sgLine struct {
	Conversations []sgTurn `json:"conversations"`
	Tools         string   `json:"tools,omitempty"`
}

type sgTurn struct {
	From    string `json:"from"`
	Value   string `json:"value"`
	Thought string `json:"thought,omitempty"`
}

type sgCall struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
}

// shareGPTLine renders c as one ShareGPT line (without the newline).
func shareGPTLine(c *Conversation) ([]byte, error) {
	var turns []sgTurn
	input := func(from, value string) {
		if n := len(turns); n > 0 && (turns[n-1].From == "human" || turns[n-1].From == "observation") {
			sep := "\n\n"
			if from == "observation" && turns[n-1].From == "observation" {
				sep = toolResponseJoin
			}
			turns[n-1].Value += sep + value
			return
		}
		turns = append(turns, sgTurn{From: from, Value: value})
	}
	for i, m := range c.Messages {
		switch {
		case m.Role == "system" && i == 0:
			turns = append(turns, sgTurn{From: "system", Value: m.Content})
		case m.Role == "assistant":
			if n := len(turns); n == 0 || turns[n-1].From == "system" || turns[n-1].From == "gpt" || turns[n-1].From == "function_call" {
				return nil, fmt.Errorf("%s: message %d: a reply that follows no input: %w", c.InstanceID, i, errUnrepresentable)
			}
			if len(m.ToolCalls) == 0 {
				turns = append(turns, sgTurn{From: "gpt", Value: m.Content})
				continue
			}
			calls := make([]sgCall, len(m.ToolCalls))
			for k, tc := range m.ToolCalls {
				var args any
				if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
					args = tc.Arguments // not JSON: kept as the model wrote it
				}
				calls[k] = sgCall{Name: tc.Name, Arguments: args}
			}
			var v any = calls[0]
			if len(calls) > 1 {
				v = calls
			}
			value, err := marshalLine(v)
			if err != nil {
				return nil, err
			}
			turns = append(turns, sgTurn{From: "function_call", Value: string(value), Thought: m.Content})
		case m.Role == "tool":
			input("observation", m.Content)
		default:
			input("human", m.Content)
		}
	}
	if n := len(turns); n == 0 || (turns[n-1].From != "gpt" && turns[n-1].From != "function_call") {
		return nil, fmt.Errorf("%s: no reply to end the conversation: %w", c.InstanceID, errUnrepresentable)
	}
	line := sgLine{Conversations: turns}
	if c.ToolCalling {
		tools, err := marshalLine(c.Tools)
		if err != nil {
			return nil, err
		}
		line.Tools = string(tools)
	}
	return marshalLine(line)
}
