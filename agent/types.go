// Package agent runs the mini-swe-agent loop: messages are the only state, the model chooses
// shell commands, the environment executes them, and interrupts end the run with an exit message.
package agent

import (
	"context"
	"time"
)

// Message is one chat message exactly as the model saw it, in the provider's native shape
// (role, content, tool_calls, tool_call_id, …), plus an "extra" field that is stripped before a
// message is sent to a model.
type Message map[string]any

// Role returns the message's role ("system", "user", "assistant", "tool", "exit"). Messages in
// the OpenAI Responses API's shape, as mini-swe-agent 2.x stores them, carry none: a response
// object is the assistant's reply and a function_call_output item a tool's answer.
func (m Message) Role() string {
	if s, ok := m["role"].(string); ok {
		return s
	}
	switch {
	case m["object"] == "response":
		return "assistant"
	case m["type"] == "function_call_output":
		return "tool"
	}
	return ""
}

// Content returns the message's content when it is a plain string.
func (m Message) Content() string { s, _ := m["content"].(string); return s }

// Extra returns the message's extra map, creating it if needed.
func (m Message) Extra() map[string]any {
	e, ok := m["extra"].(map[string]any)
	if !ok {
		e = map[string]any{}
		m["extra"] = e
	}
	return e
}

// Action is one shell command chosen by the model. ToolCallID is set in tool-calling mode and
// makes the observation a role "tool" message answering that call.
type Action struct {
	Command    string `json:"command"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// Usage counts tokens of one model call.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
}

// Reply is the outcome of one successful model call.
type Reply struct {
	// Message is the assistant message to append, in the provider's native shape. The agent adds
	// extra.actions, extra.cost and extra.timestamp; the model may put more in extra (e.g. the raw
	// provider response under "response").
	Message Message
	Actions []Action
	Cost    float64
	Usage   Usage
}

// Model is a language model the agent queries. Messages passed in still carry "extra"; the model
// must strip it before sending. A reply the model cannot parse into actions is returned as a
// *FormatError (the call was still billed: its Cost counts).
type Model interface {
	Query(ctx context.Context, messages []Message) (Reply, error)
}

// MessageShaper is implemented by models whose API keeps the agent's own messages in its own
// item shape, as mini-swe-agent's model class for that API writes them to the trajectory (the
// OpenAI Responses API: function_call_output items and input_text messages). The agent passes
// every observation and format-error message it builds (role "tool" or "user", with content and
// extra) through ShapeMessage before appending it.
type MessageShaper interface {
	ShapeMessage(m Message) Message
}

// FormatError reports a model reply that does not contain valid actions. The agent renders the
// format error template with Vars (which always include "error" and "actions") and appends the
// result as a user message whose extra holds Extra.
type FormatError struct {
	Reason string         // the "error" template variable
	Vars   map[string]any // further template variables (actions, has_tool_calls, finish_reason, …)
	Extra  map[string]any // merged into the format-error message's extra (response, model_response, …)
	Cost   float64
	Usage  Usage
}

func (e *FormatError) Error() string { return "format error: " + e.Reason }

// Output is the result of executing one action, with the fields mini-swe-agent's observation
// templates read: output, returncode, exception_info.
type Output struct {
	Output        string
	ReturnCode    int
	ExceptionInfo string
	// Extra is merged into the observation message's extra (e.g. timed_out, truncated bytes).
	Extra map[string]any
	// Duration is how long the command ran.
	Duration time.Duration
	// TimedOut reports that the command was killed at its timeout; Output is what it printed
	// until then. (The 2.x loop reads Extra; the 1.x loop renders its timeout template.)
	TimedOut bool
}

// Env executes shell commands for the agent. A command that fails or times out is an Output with
// a non-zero return code, not an error; Execute returns an error only when the environment itself
// is broken (container gone, daemon unreachable). Such errors may implement ExitStatuser.
type Env interface {
	Execute(ctx context.Context, command string) (Output, error)
}

// ExitStatuser is implemented by errors that name the exit status an instance should end with
// when they stop the loop (e.g. "ContainerDied", "ContextWindowExceeded").
type ExitStatuser interface {
	ExitStatus() string
}
