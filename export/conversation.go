package export

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/internal/redact"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
)

// Message is one message of a conversation as the model saw it: the messages sent to it and
// its replies, in order.
type Message struct {
	Role string `json:"role"` // system, user, assistant or tool
	// Kind is what the message is in the run: system, task, reply, observation, format_error
	// or interrupt (results.MessageKind).
	Kind       string     `json:"kind"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"` // of an observation answering a call
	Reasoning  string     `json:"reasoning,omitempty"`    // a reply's reasoning, when the provider returned it as text
	// Thought is a SWE-agent reply's thought (SWE-smith's rendering puts it before the calls);
	// empty for the other forms, whose replies' text is Content.
	Thought string `json:"thought,omitempty"`
	// Trainable: a reply the model should learn. A mini-swe-agent 1.x reply answered by a format
	// error is not (it stays, untrained, unless format errors are dropped).
	Trainable bool `json:"trainable"`
}

// ToolCall is one call of a tool in a reply.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON, as the model produced it
}

// Conversation is one trajectory made ready to write: what the model saw and what is known of
// it.
type Conversation struct {
	InstanceID string `json:"instance_id"`
	Format     string `json:"format"` // the trajectory's layout: mini-swe-agent-1.1, mini-swe-agent-1, swe-agent
	// ToolCalling: the model was offered Tools and called them; otherwise it answered in text
	// and its commands were found by a regex.
	ToolCalling bool             `json:"tool_calling"`
	Tools       []map[string]any `json:"tools,omitempty"` // OpenAI chat tool definitions
	SWEAgent    bool             `json:"swe_agent,omitempty"`
	Messages    []Message        `json:"messages"`

	ExitStatus   string          `json:"exit_status"`
	Submission   string          `json:"submission"`
	Cost         *float64        `json:"cost,omitempty"`
	Tokens       *compare.Tokens `json:"tokens,omitempty"`
	Steps        int             `json:"steps"`         // model calls (info's api_calls, else replies)
	FormatErrors int             `json:"format_errors"` // format-error messages in the trajectory
	Model        string          `json:"model,omitempty"`
	ConfigHash   string          `json:"config_hash,omitempty"`
	Flags        []string        `json:"flags,omitempty"` // classes of the trajectory's flags (audit), sorted
	Revealed     bool            `json:"revealed,omitempty"`
}

// convertOptions change how a trajectory becomes a conversation.
type convertOptions struct {
	dropFormatErrors bool
	systemPrompt     *string // replaces every system message's content
	// smith takes a SWE-agent trajectory's messages as SWE-smith's conversion takes them (its
	// last step's), without trimming.
	smith   bool
	redact  *redact.Redactor
	history string // the run's environment.history, for the flags' revealed
}

// fromTrajectory converts a trajectory of ours or mini-swe-agent's (1.x or 2.x, tool calls or
// text). Exit messages (the model never saw them) and what follows the last reply (observations
// after which the run stopped) are left out.
func fromTrajectory(t *results.Trajectory, path string, o convertOptions) *Conversation {
	c := &Conversation{InstanceID: t.InstanceID, Format: t.TrajectoryFormat, ExitStatus: t.Info.ExitStatus, Submission: t.Info.Submission}
	if c.Format == "" {
		c.Format = results.TrajectoryFormatV1
	}
	kinds := t.Kinds()
	replies, calls := 0, t.Info.ModelStats.APICalls
	for i, m := range t.Messages {
		role := agent.Message(m).Role()
		msg := Message{Role: role, Kind: string(kinds[i]), Content: results.MessageText(m)}
		switch kinds[i] {
		case results.KindExit:
			continue
		case results.KindTask:
			msg.Role = "user"
		case results.KindReply:
			replies++
			msg.Role, msg.Trainable = "assistant", true
			msg.ToolCalls = toolCalls(m)
			msg.Reasoning = reasoningOf(m)
			if len(msg.ToolCalls) == 0 && len(t.Commands(i)) > 0 {
				// Calls of a shape not read above, recorded by the agent in extra.actions.
				extra, _ := m["extra"].(map[string]any)
				acts, _ := extra["actions"].([]any)
				for _, a := range acts {
					am, _ := a.(map[string]any)
					cmd, _ := am["command"].(string)
					id, _ := am["tool_call_id"].(string)
					if id != "" {
						args, _ := json.Marshal(map[string]string{"command": cmd})
						msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: id, Name: "bash", Arguments: string(args)})
					}
				}
			}
			if len(msg.ToolCalls) > 0 {
				c.ToolCalling = true
			}
		case results.KindObservation:
			if role == "tool" {
				msg.ToolCallID, _ = m["tool_call_id"].(string)
				if msg.ToolCallID == "" {
					msg.ToolCallID, _ = m["call_id"].(string)
				}
			} else {
				msg.Role = "user"
			}
		case results.KindFormatError:
			c.FormatErrors++
			msg.Role = "user"
			// mini-swe-agent 1.x keeps the reply that had no valid command before the error;
			// 2.x (and our loop) keep only the error.
			if n := len(c.Messages); n > 0 && c.Messages[n-1].Role == "assistant" {
				c.Messages[n-1].Trainable = false
				if o.dropFormatErrors {
					c.Messages = c.Messages[:n-1]
				}
			}
			if o.dropFormatErrors {
				continue
			}
		case results.KindSystem:
			msg.Role = "system"
		default: // interrupts: as sent
			if msg.Role == "" {
				msg.Role = "user"
			}
		}
		c.Messages = append(c.Messages, msg)
	}
	c.Messages = trimAfterLastReply(c.Messages)
	fillCallIDs(c.Messages)
	if calls > 0 {
		c.Steps = calls
	} else {
		c.Steps = replies
	}
	if c.ToolCalling {
		c.Tools = []map[string]any{model.BashTool()}
	}
	cfg, _ := t.Info.Config.(map[string]any)
	if results.KnownCost(t.Info.ModelStats.InstanceCost, calls, results.CostUntracked(cfg)) {
		cost := t.Info.ModelStats.InstanceCost
		c.Cost = &cost
	}
	c.Tokens = trajectoryTokens(t, calls)
	c.Model = t.ModelName()
	c.ConfigHash = compare.ConfigHash(cfg)
	run := t.AgentRun(path)
	if run.Task.History == "" {
		run.Task.History = o.history
	}
	c.setFlags(run)
	c.redact(o)
	return c
}

// fromSWEAgent converts a SWE-agent trajectory: its history (the whole conversation), without
// what follows the last reply; with o.smith, the messages of its last step as SWE-smith's
// conversion takes them (swesmith/train/traj_mgr/utils.py, get_messages: the step's
// "messages" without the last one, the submission's output, or its "query").
func fromSWEAgent(t *results.SWEAgentTrajectory, o convertOptions) (*Conversation, error) {
	c := &Conversation{InstanceID: t.InstanceID, Format: "swe-agent", SWEAgent: true, ExitStatus: t.Info.ExitStatus, Submission: t.Info.Submission}
	msgs := t.History
	stepMsgs := false
	if o.smith || len(msgs) == 0 {
		if n := len(t.Steps); n > 0 {
			last, field, err := t.StepMessages(n - 1)
			if err != nil {
				return nil, err
			}
			if field == "messages" && len(last) > 0 {
				last = last[:len(last)-1]
			}
			if field != "" {
				msgs, stepMsgs = last, true
			}
		}
	}
	replies := 0
	seenTask := false
	for _, m := range msgs {
		role, _ := m["role"].(string)
		msg := Message{Role: role, Content: textOf(m["content"])}
		switch role {
		case "system":
			msg.Kind = string(results.KindSystem)
		case "assistant":
			replies++
			msg.Kind, msg.Trainable = string(results.KindReply), true
			msg.ToolCalls = toolCalls(m)
			msg.Thought, _ = m["thought"].(string)
			if len(msg.ToolCalls) > 0 {
				c.ToolCalling = true
			}
		case "tool":
			msg.Kind = string(results.KindObservation)
			if ids, _ := m["tool_call_ids"].([]any); len(ids) > 0 {
				msg.ToolCallID, _ = ids[0].(string)
			} else {
				msg.ToolCallID, _ = m["tool_call_id"].(string)
			}
		default:
			msg.Role = "user"
			msg.Kind = string(results.KindObservation)
			if !seenTask {
				msg.Kind, seenTask = string(results.KindTask), true
			}
		}
		c.Messages = append(c.Messages, msg)
	}
	if !o.smith || !stepMsgs {
		// SWE-smith's conversion takes the last step's messages as they are; a trajectory
		// whose steps keep none (SWE-agent's demonstrations) is its history up to the last reply.
		c.Messages = trimAfterLastReply(c.Messages)
	}
	fillCallIDs(c.Messages)
	stats := t.Info.ModelStats
	c.Steps = stats.APICalls
	if c.Steps == 0 {
		c.Steps = replies
	}
	cost := stats.InstanceCost
	c.Cost = &cost
	if results.KnownTokens(stats.TokensSent, stats.TokensReceived, stats.APICalls) {
		c.Tokens = &compare.Tokens{Input: stats.TokensSent, Output: stats.TokensReceived}
	}
	c.Model = t.ModelName()
	c.ConfigHash = compare.ConfigHash(t.ConfigMap())
	if c.ToolCalling {
		c.Tools = sweAgentTools(t.ConfigMap(), c.Messages)
	}
	run := t.AgentRun()
	if run.Task.History == "" {
		run.Task.History = o.history
	}
	c.setFlags(run)
	c.redact(o)
	return c, nil
}

// fillCallIDs names the tool calls a provider returned without an id (call_<message>_<k>) and
// gives the observations without one the id of the call they answer, in order: every format
// links a call to its output by the id.
func fillCallIDs(msgs []Message) {
	var pending []string
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case "assistant":
			pending = pending[:0]
			for k := range m.ToolCalls {
				if m.ToolCalls[k].ID == "" {
					m.ToolCalls[k].ID = fmt.Sprintf("call_%d_%d", i, k)
				}
				pending = append(pending, m.ToolCalls[k].ID)
			}
		case "tool":
			if m.ToolCallID == "" && len(pending) > 0 {
				m.ToolCallID = pending[0]
			}
			if n := slices.Index(pending, m.ToolCallID); n >= 0 {
				pending = slices.Delete(pending, n, n+1)
			}
		}
	}
}

// trimAfterLastReply drops the messages after the last reply: the run stopped (a limit, the
// submission) before the model saw them.
func trimAfterLastReply(msgs []Message) []Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			return msgs[:i+1]
		}
	}
	return msgs
}

// setFlags scans the trajectory's commands with the one scanner.
func (c *Conversation) setFlags(run *results.AgentRun) {
	a := results.AuditRuns([]*results.AgentRun{run}, nil)
	seen := map[string]bool{}
	for _, f := range a.Flags {
		if !seen[string(f.Class)] {
			seen[string(f.Class)] = true
			c.Flags = append(c.Flags, string(f.Class))
		}
		c.Revealed = c.Revealed || f.Revealed
	}
	sort.Strings(c.Flags)
}

// Flagged reports whether a command of the trajectory reached beyond the task's start.
func (c *Conversation) Flagged() bool { return len(c.Flags) > 0 }

// redact removes secrets and host paths from everything written of the conversation, and puts
// the system prompt in place when one was given.
func (c *Conversation) redact(o convertOptions) {
	r := o.redact
	for i := range c.Messages {
		m := &c.Messages[i]
		if m.Role == "system" && o.systemPrompt != nil {
			m.Content = *o.systemPrompt
		}
		m.Content = r.Text(m.Content)
		m.Reasoning = r.Text(m.Reasoning)
		m.Thought = r.Text(m.Thought)
		for k := range m.ToolCalls {
			m.ToolCalls[k].Arguments = r.Text(m.ToolCalls[k].Arguments)
		}
	}
	c.Submission = r.Text(c.Submission)
	for k, t := range c.Tools {
		c.Tools[k] = r.Value(t).(map[string]any)
	}
}

// toolCalls reads a reply's tool calls in the shapes providers return them: OpenAI's
// tool_calls, Anthropic's tool_use blocks, the OpenAI Responses API's function_call items.
func toolCalls(m map[string]any) []ToolCall {
	var out []ToolCall
	calls, _ := m["tool_calls"].([]any)
	for _, c := range calls {
		cm, _ := c.(map[string]any)
		fn, _ := cm["function"].(map[string]any)
		id, _ := cm["id"].(string)
		name, _ := fn["name"].(string)
		out = append(out, ToolCall{ID: id, Name: name, Arguments: argumentsText(fn["arguments"])})
	}
	if blocks, ok := m["content"].([]any); ok {
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if bm["type"] == "tool_use" {
				id, _ := bm["id"].(string)
				name, _ := bm["name"].(string)
				out = append(out, ToolCall{ID: id, Name: name, Arguments: argumentsText(bm["input"])})
			}
		}
	}
	if m["object"] == "response" {
		items, _ := m["output"].([]any)
		for _, it := range items {
			im, _ := it.(map[string]any)
			if im["type"] == "function_call" {
				id, _ := im["call_id"].(string)
				name, _ := im["name"].(string)
				out = append(out, ToolCall{ID: id, Name: name, Arguments: argumentsText(im["arguments"])})
			}
		}
	}
	return out
}

// argumentsText is a call's arguments as JSON text: a string as it is, an object encoded.
func argumentsText(v any) string {
	switch a := v.(type) {
	case string:
		return a
	case nil:
		return "{}"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// reasoningOf is a reply's reasoning when the provider returned it as text: reasoning_content
// (DeepSeek, vLLM), or Anthropic's thinking blocks.
func reasoningOf(m map[string]any) string {
	if s, ok := m["reasoning_content"].(string); ok {
		return s
	}
	var parts []string
	if blocks, ok := m["content"].([]any); ok {
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if s, ok := bm["thinking"].(string); ok && bm["type"] == "thinking" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// trajectoryTokens are the trajectory's tokens: ours record them in info.swebench_run;
// mini-swe-agent keeps each reply's response with its usage (prompt and completion tokens).
func trajectoryTokens(t *results.Trajectory, calls int) *compare.Tokens {
	if sr := t.Info.SwebenchRun; sr != nil {
		if !results.KnownTokens(sr.Tokens.Input, sr.Tokens.Output, calls) {
			return nil
		}
		return &compare.Tokens{Input: sr.Tokens.Input, Output: sr.Tokens.Output}
	}
	var tok compare.Tokens
	found := false
	for _, m := range t.Messages {
		extra, _ := m["extra"].(map[string]any)
		resp, _ := extra["response"].(map[string]any)
		usage, _ := resp["usage"].(map[string]any)
		in, okIn := usage["prompt_tokens"].(float64)
		out, okOut := usage["completion_tokens"].(float64)
		if okIn || okOut {
			found = true
			tok.Input += int(in)
			tok.Output += int(out)
		}
	}
	if !found {
		return nil
	}
	return &tok
}

// textOf is a message content's text: a string, or the text parts of a list.
func textOf(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			if m, _ := p.(map[string]any); m != nil {
				if s, ok := m["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
