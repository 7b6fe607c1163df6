package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
)

// Reading trajectories of every layout swebench-run and mini-swe-agent write, for the commands
// that look at runs (inspect, stats, compare, report):
//
//   - mini-swe-agent-1.1: mini-swe-agent 2.x, and swebench-run's runs of 2.x configs. Messages
//     carry extra (actions, raw outputs, interrupt types); the run ends with an "exit" message.
//   - mini-swe-agent-1: mini-swe-agent 1.x, and swebench-run's runs of 1.x configs. Messages are
//     {role, content, timestamp[, extra.response]}: no tool or exit messages, commands only in
//     the replies' text, format errors and timeouts as plain user messages, the submission as the
//     last user message; exit status and submission only in info.
//   - a bare JSON list of messages: mini-swe-agent 1.x's test data, read as mini-swe-agent-1.

// ReadTrajectory reads a trajectory file of any layout. InstanceID defaults to the file name;
// for mini-swe-agent-1.1 files without info.exit_status, exit status and submission come from
// the exit message.
func ReadTrajectory(path string) (*Trajectory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := &Trajectory{}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &t.Messages)
	} else {
		err = json.Unmarshal(trimmed, t)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a trajectory: %w", path, err)
	}
	if t.InstanceID == "" {
		t.InstanceID = strings.TrimSuffix(filepath.Base(path), ".traj.json")
	}
	if t.Info.ExitStatus == "" && len(t.Messages) > 0 {
		last := t.Messages[len(t.Messages)-1]
		if last["role"] == "exit" {
			extra, _ := last["extra"].(map[string]any)
			t.Info.ExitStatus, _ = extra["exit_status"].(string)
			t.Info.Submission, _ = extra["submission"].(string)
		}
	}
	return t, nil
}

// IsV1 reports whether t has mini-swe-agent 1.x's layout (mini-swe-agent-1, or a bare list).
func (t *Trajectory) IsV1() bool {
	return t.TrajectoryFormat == TrajectoryFormatV1 || t.TrajectoryFormat == "" && !t.hasRole("exit", "tool")
}

func (t *Trajectory) hasRole(roles ...string) bool {
	for _, m := range t.Messages {
		for _, r := range roles {
			if agent.Message(m).Role() == r {
				return true
			}
		}
	}
	return false
}

// mentions reports whether an assistant message's text contains s.
func (t *Trajectory) mentions(s string) bool {
	for _, m := range t.Messages {
		if agent.Message(m).Role() == "assistant" && strings.Contains(MessageText(m), s) {
			return true
		}
	}
	return false
}

// configSection returns info.config[name] when it is a mapping.
func (t *Trajectory) configSection(name string) map[string]any {
	cfg, _ := t.Info.Config.(map[string]any)
	sec, _ := cfg[name].(map[string]any)
	return sec
}

// ModelName is info.config.model.model_name ("" when not recorded).
func (t *Trajectory) ModelName() string {
	s, _ := t.configSection("model")["model_name"].(string)
	return s
}

// Default action regexes of the text-mode layouts.
const (
	actionRegexV1       = "```bash\\s*\\n(.*?)\\n```"
	actionRegexV1Before = "```bash\\n(.*?)\\n```" // 1.x releases before 1.12
	actionRegexV2       = "```mswea_bash_command\\s*\\n(.*?)\\n```"
)

// ActionRegex is the regex that found the commands in the replies of a text-mode trajectory:
// the recorded agent.action_regex (1.x) or model.action_regex (2.x), else the default of the
// layout and version (for a bare message list: 2.x's when its replies use its fence).
func (t *Trajectory) ActionRegex() string {
	if t.TrajectoryFormat == "" && t.mentions("```mswea_bash_command") {
		return actionRegexV2 // a bare list of 2.x text mode (mini-swe-agent's later test data)
	}
	if t.IsV1() {
		if s, ok := t.configSection("agent")["action_regex"].(string); ok && s != "" {
			return s
		}
		if major, rest, _ := strings.Cut(t.Info.MiniVersion, "."); major == "1" {
			minor, _, _ := strings.Cut(rest, ".")
			if n, err := strconv.Atoi(minor); err == nil && n < 12 {
				return actionRegexV1Before
			}
		}
		return actionRegexV1
	}
	if s, ok := t.configSection("model")["action_regex"].(string); ok && s != "" {
		return s
	}
	return actionRegexV2
}

// Commands returns the commands of message i (an assistant message): its recorded
// extra.actions, else its tool calls (OpenAI or Anthropic shape), else what the trajectory's
// action regex finds in its text (stripped). A 1.x reply with other than one match ran nothing.
func (t *Trajectory) Commands(i int) []string {
	m := t.Messages[i]
	extra, _ := m["extra"].(map[string]any)
	var cmds []string
	if acts, ok := extra["actions"].([]any); ok {
		for _, a := range acts {
			am, _ := a.(map[string]any)
			if c, ok := am["command"].(string); ok {
				cmds = append(cmds, c)
			}
		}
		return cmds
	}
	calls, _ := m["tool_calls"].([]any)
	for _, c := range calls {
		cm, _ := c.(map[string]any)
		fn, _ := cm["function"].(map[string]any)
		args, _ := fn["arguments"].(string)
		var v struct {
			Command string `json:"command"`
		}
		if json.Unmarshal([]byte(args), &v) == nil && v.Command != "" {
			cmds = append(cmds, v.Command)
		}
	}
	if blocks, ok := m["content"].([]any); ok {
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			in, _ := bm["input"].(map[string]any)
			if c, ok := in["command"].(string); ok && bm["type"] == "tool_use" {
				cmds = append(cmds, c)
			}
		}
	}
	if len(cmds) > 0 {
		return cmds
	}
	re, err := pyre.Compile(t.ActionRegex())
	if err != nil {
		return nil
	}
	found := pyre.FindAll(re, MessageText(m))
	if t.IsV1() && len(found) != 1 {
		return nil
	}
	for _, f := range found {
		cmds = append(cmds, strings.TrimSpace(f))
	}
	return cmds
}

// MessageText is a message's text: a string content, or the text blocks of a list content; of an
// OpenAI Responses API reply its messages' text, of a function_call_output item its output.
func MessageText(m map[string]any) string {
	switch {
	case m["object"] == "response": // an OpenAI Responses API reply: its messages' text
		var parts []string
		items, _ := m["output"].([]any)
		for _, item := range items {
			if im, _ := item.(map[string]any); im["type"] == "message" {
				if s := MessageText(im); s != "" {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	case m["type"] == "function_call_output":
		s, _ := m["output"].(string)
		return s
	}
	switch c := m["content"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			bm, _ := b.(map[string]any)
			if s, ok := bm["text"].(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// MessageKind is what a message is in the run.
type MessageKind string

// Message kinds.
const (
	KindSystem      MessageKind = "system"       // the system prompt
	KindTask        MessageKind = "task"         // the instance prompt
	KindReply       MessageKind = "reply"        // a model reply
	KindObservation MessageKind = "observation"  // a command's output (a 1.x timeout included)
	KindFormatError MessageKind = "format_error" // the answer to a reply without a valid command
	KindInterrupt   MessageKind = "interrupt"    // another message of the loop (2.x interrupts)
	KindExit        MessageKind = "exit"         // the end: a 2.x exit message; 1.x's last user message (the submission, or empty at a limit)
)

// Kinds classifies every message. 2.x messages say what they are (role tool or exit,
// extra.interrupt_type, extra.raw_output); 1.x user messages do not, so they are told by their
// place: the answer to a reply without exactly one command is a format error, the last message
// is the exit unless it answers a command of a run that did not submit, and the others are
// observations.
func (t *Trajectory) Kinds() []MessageKind {
	kinds := make([]MessageKind, len(t.Messages))
	v1 := t.IsV1()
	for i, m := range t.Messages {
		role := agent.Message(m).Role()
		extra, _ := m["extra"].(map[string]any)
		last := i == len(t.Messages)-1
		switch {
		case role == "system":
			kinds[i] = KindSystem
		case role == "assistant":
			kinds[i] = KindReply
		case role == "exit":
			kinds[i] = KindExit
		case role == "tool":
			kinds[i] = KindObservation
		case role != "user":
			kinds[i] = KindInterrupt
		case i <= 1 || kinds[i-1] == KindSystem:
			kinds[i] = KindTask
		case !v1 && extra["interrupt_type"] == "FormatError":
			kinds[i] = KindFormatError
		case !v1 && extra["raw_output"] != nil:
			kinds[i] = KindObservation
		case !v1:
			kinds[i] = KindInterrupt
		case kinds[i-1] != KindReply:
			kinds[i] = KindExit // 1.x: a limit's empty message after an observation or format error
		case len(t.Commands(i-1)) != 1:
			kinds[i] = KindFormatError
		case last && (t.Info.ExitStatus == "Submitted" || t.Info.ExitStatus == "" && t.TrajectoryFormat == ""):
			kinds[i] = KindExit
		default:
			kinds[i] = KindObservation
		}
	}
	return kinds
}

var returnCodeRe = regexp.MustCompile(`\A\s*<returncode>(-?\d+)</returncode>`)

// ReturnCode is the return code of observation message i: extra.returncode (2.x), else the
// <returncode> element its rendering starts with (1.x's configs); false when neither says.
func (t *Trajectory) ReturnCode(i int) (int, bool) {
	m := t.Messages[i]
	extra, _ := m["extra"].(map[string]any)
	switch v := extra["returncode"].(type) {
	case float64:
		return int(v), true
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	if g := returnCodeRe.FindStringSubmatch(MessageText(m)); g != nil {
		n, err := strconv.Atoi(g[1])
		return n, err == nil
	}
	return 0, false
}
