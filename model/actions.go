package model

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
)

// DefaultActionRegex matches one fenced ```mswea_bash_command block (mini-swe-agent's text mode).
const DefaultActionRegex = "```mswea_bash_command\\s*\\n(.*?)\\n```"

// Reasons of format errors, worded as mini-swe-agent words them (templates may test for them).
const (
	reasonNoToolCalls   = "No tool calls found in the response. Every response MUST include at least one tool call."
	reasonMissingCmd    = "Missing 'command' argument in bash tool call."
	reasonBadArgsPrefix = "Error parsing tool call arguments: "
)

// compileActionRegex compiles a text-mode regex as mini-swe-agent's parse_regex_actions reads
// it: a Python pattern matched with re.DOTALL (Unicode \s \w \b, internal/pyre).
func compileActionRegex(expr string) (*pyre.Regexp, error) {
	if expr == "" {
		expr = DefaultActionRegex
	}
	re, err := pyre.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("model.%w", err) // model.action_regex "…": …
	}
	return re, nil
}

// parseRegexActions finds the commands in a text reply; exactly one is a valid reply.
func parseRegexActions(re *pyre.Regexp, content, finishReason string) ([]agent.Action, *agent.FormatError) {
	found := []string{}
	for _, m := range re.FindAllStringSubmatch(content, -1) {
		s := m[0]
		if len(m) > 1 {
			s = m[1]
		}
		found = append(found, strings.TrimSpace(s))
	}
	if len(found) != 1 {
		return nil, &agent.FormatError{
			Reason: fmt.Sprintf("Expected exactly 1 action, found %d.", len(found)),
			Vars:   map[string]any{"actions": found, "finish_reason": finishReason},
			Extra:  map[string]any{"interrupt_type": "FormatError", "n_actions": len(found), "model_response": content},
		}
	}
	return []agent.Action{{Command: found[0]}}, nil
}

// toolCall is one call of the bash tool, from either API.
type toolCall struct {
	id, name string
	args     string         // JSON arguments (OpenAI)
	input    map[string]any // decoded input (Anthropic)
	inputOK  bool
}

// parseToolCalls checks the calls and returns one action per call, in order.
func parseToolCalls(calls []toolCall, finishReason string) ([]agent.Action, *agent.FormatError) {
	if len(calls) == 0 {
		return nil, &agent.FormatError{
			Reason: reasonNoToolCalls,
			Vars:   map[string]any{"actions": []string{}, "has_tool_calls": false, "finish_reason": finishReason},
			Extra:  map[string]any{"interrupt_type": "FormatError"},
		}
	}
	actions := make([]agent.Action, 0, len(calls))
	for _, tc := range calls {
		var msg string
		args := tc.input
		if !tc.inputOK {
			args = nil
			var v any
			if err := json.Unmarshal([]byte(tc.args), &v); err != nil {
				msg = reasonBadArgsPrefix + err.Error() + "."
			} else {
				args, _ = v.(map[string]any)
			}
		}
		if tc.name != "bash" {
			msg += fmt.Sprintf("Unknown tool '%s'.", tc.name)
		}
		cmd, ok := args["command"].(string)
		if !ok {
			msg += reasonMissingCmd
		}
		if msg != "" {
			return nil, &agent.FormatError{
				Reason: strings.TrimSpace(msg),
				Vars:   map[string]any{"actions": []string{}, "has_tool_calls": true, "finish_reason": finishReason},
				Extra:  map[string]any{"interrupt_type": "FormatError"},
			}
		}
		actions = append(actions, agent.Action{Command: cmd, ToolCallID: tc.id})
	}
	return actions, nil
}

// openAIToolCalls reads the tool_calls of an OpenAI-shaped assistant message.
func openAIToolCalls(msg map[string]any) []toolCall {
	list, _ := msg["tool_calls"].([]any)
	calls := make([]toolCall, 0, len(list))
	for _, item := range list {
		m, _ := item.(map[string]any)
		fn, _ := m["function"].(map[string]any)
		calls = append(calls, toolCall{id: str(m["id"]), name: str(fn["name"]), args: str(fn["arguments"])})
	}
	return calls
}

// anthropicToolCalls reads the tool_use blocks of an Anthropic assistant message's content.
func anthropicToolCalls(content []any) []toolCall {
	var calls []toolCall
	for _, item := range content {
		b, _ := item.(map[string]any)
		if str(b["type"]) != "tool_use" {
			continue
		}
		in, ok := b["input"].(map[string]any)
		calls = append(calls, toolCall{id: str(b["id"]), name: str(b["name"]), input: in, inputOK: ok || b["input"] == nil})
	}
	return calls
}

// anthropicText joins the text blocks of an Anthropic message's content.
func anthropicText(content []any) string {
	var parts []string
	for _, item := range content {
		b, _ := item.(map[string]any)
		if str(b["type"]) == "text" {
			parts = append(parts, str(b["text"]))
		}
	}
	return strings.Join(parts, "\n")
}

// bashToolSchema is the parameters schema of the one tool, shared by both APIs.
func bashToolSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command": map[string]any{"type": "string", "description": "The bash command to execute"},
		},
		"required": []any{"command"},
	}
}

const bashToolDescription = "Execute a bash command"

// BashTool is the one tool the loop offers in tool-calling mode, as an OpenAI chat completions
// tool definition: what every wire sends in its own shape, and what exported training data
// declares (mini-swe-agent 2.x's BASH_TOOL has the same name, description and schema).
func BashTool() map[string]any {
	return map[string]any{"type": "function", "function": map[string]any{
		"name": "bash", "description": bashToolDescription, "parameters": bashToolSchema(),
	}}
}
