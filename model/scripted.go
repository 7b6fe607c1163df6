package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/agent"
)

// ScriptedTurn is one model reply of a script: optional text and the commands to run, each
// becoming one `bash` tool call. Delay makes the "model" take that long, like a real LLM call.
type ScriptedTurn struct {
	Content  string        `yaml:"content"`
	Commands []string      `yaml:"commands"`
	Delay    time.Duration `yaml:"delay"`
	Cost     float64       `yaml:"cost"`
}

// Scripted is a model that plays per-instance lists of turns from a YAML file keyed by instance
// id. It is used by the demo and the tests, and costs nothing unless a turn says so.
type Scripted struct {
	path    string
	scripts map[string][]ScriptedTurn
	// Default, when set, is played for instances the file does not name.
	Default []ScriptedTurn
	// Fence, when set, makes the replies text, as a mini-swe-agent 1.x config expects (use
	// "bash"): each command becomes its own reply, the turn's content then the command in a
	// fenced block with this info string; the first reply of a turn carries its content, delay
	// and cost.
	Fence string
}

// LoadScripted reads a script file.
func LoadScripted(path string) (*Scripted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scripted model: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	scripts := map[string][]ScriptedTurn{}
	if err := dec.Decode(&scripts); err != nil {
		return nil, fmt.Errorf("scripted model: %s: %w (expected a map of instance id to a list of {content, commands})", path, err)
	}
	for id, turns := range scripts {
		for i, t := range turns {
			if len(t.Commands) == 0 {
				return nil, fmt.Errorf("scripted model: %s: %s turn %d has no commands", path, id, i+1)
			}
		}
	}
	return &Scripted{path: path, scripts: scripts}, nil
}

// NewScripted returns a scripted model over in-memory scripts.
func NewScripted(scripts map[string][]ScriptedTurn) *Scripted {
	return &Scripted{path: "(memory)", scripts: scripts}
}

// IDs returns the instance ids the script covers, sorted.
func (s *Scripted) IDs() []string {
	ids := make([]string, 0, len(s.scripts))
	for id := range s.scripts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// ForInstance returns the model that plays the turns of instanceID.
func (s *Scripted) ForInstance(instanceID string) (agent.Model, error) {
	turns, ok := s.scripts[instanceID]
	if !ok {
		if s.Default == nil {
			return nil, fmt.Errorf("scripted model: %s has no script for instance %s", s.path, instanceID)
		}
		turns = s.Default
	}
	if s.Fence != "" {
		turns = textTurns(turns, s.Fence)
	}
	return &scriptedModel{id: instanceID, turns: turns, text: s.Fence != ""}, nil
}

// textTurns splits turns into one text reply per command.
func textTurns(turns []ScriptedTurn, fence string) []ScriptedTurn {
	var out []ScriptedTurn
	for _, t := range turns {
		for i, cmd := range t.Commands {
			text := "```" + fence + "\n" + cmd + "\n```"
			nt := ScriptedTurn{Commands: []string{cmd}}
			if i == 0 {
				if c := strings.TrimSpace(t.Content); c != "" {
					text = c + "\n\n" + text
				}
				nt.Delay, nt.Cost = t.Delay, t.Cost
			}
			nt.Content = text
			out = append(out, nt)
		}
	}
	return out
}

type scriptedModel struct {
	mu    sync.Mutex
	id    string
	turns []ScriptedTurn
	next  int
	text  bool // replies are text (Content holds the fenced command), not tool calls
}

// ErrScriptExhausted is returned when the agent asks for more turns than the script has.
type ErrScriptExhausted struct{ InstanceID string }

func (e *ErrScriptExhausted) Error() string {
	return fmt.Sprintf("scripted model: the script of %s has no more turns", e.InstanceID)
}

// ExitStatus names the exit status of an exhausted script.
func (e *ErrScriptExhausted) ExitStatus() string { return "ScriptExhausted" }

func (m *scriptedModel) Query(ctx context.Context, _ []agent.Message) (agent.Reply, error) {
	m.mu.Lock()
	if m.next >= len(m.turns) {
		m.mu.Unlock()
		return agent.Reply{}, &ErrScriptExhausted{InstanceID: m.id}
	}
	turn := m.turns[m.next]
	m.next++
	n := m.next
	m.mu.Unlock()

	if turn.Delay > 0 {
		t := time.NewTimer(turn.Delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return agent.Reply{}, ctx.Err()
		case <-t.C:
		}
	}
	if m.text {
		msg := agent.Message{"role": "assistant", "content": turn.Content}
		return agent.Reply{Message: msg, Actions: []agent.Action{{Command: turn.Commands[0]}}, Cost: turn.Cost}, nil
	}
	calls := make([]any, len(turn.Commands))
	actions := make([]agent.Action, len(turn.Commands))
	for i, cmd := range turn.Commands {
		id := fmt.Sprintf("call_%d_%d", n, i)
		args, _ := json.Marshal(map[string]string{"command": cmd})
		calls[i] = map[string]any{
			"id":   id,
			"type": "function",
			"function": map[string]any{
				"name":      "bash",
				"arguments": string(args),
			},
		}
		actions[i] = agent.Action{Command: cmd, ToolCallID: id}
	}
	msg := agent.Message{"role": "assistant", "content": strings.TrimSpace(turn.Content), "tool_calls": calls}
	return agent.Reply{Message: msg, Actions: actions, Cost: turn.Cost}, nil
}

// Script returns the turns of instanceID.
func (s *Scripted) Script(instanceID string) ([]ScriptedTurn, bool) {
	t, ok := s.scripts[instanceID]
	return t, ok
}
