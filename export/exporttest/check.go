// Package exporttest reads what export writes the way its consumers do, for the tests: the
// rules of OpenAI's chat fine-tuning format, the field rules of ShareGPT (LLaMA-Factory's
// convention), and the Parquet file read back by parquet-go with its schema. It is written from
// the formats' documentation, not from export's code.
package exporttest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/swebench-run/swebench-run/export"
)

// Lines decodes a JSONL file into one object per line.
func Lines(path string) ([]map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("%s:%d: not a JSON object: %w", path, n, err)
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// CheckOpenAI checks every line of a file against OpenAI's chat fine-tuning format, as its
// documentation states it: the guide https://platform.openai.com/docs/guides/supervised-fine-tuning
// (messages of system, user, assistant and tool roles; "weight" 0 or 1 on assistant messages to
// train on them or not; an example may end with the assistant's tool call) and the per-line
// object of the API reference https://platform.openai.com/docs/api-reference/fine-tuning/chat-input
// (messages, tools, parallel_tool_calls, functions; tool calls {id, type "function", function
// {name, arguments}} answered by tool messages carrying their tool_call_id, the function calling
// guide's rule that every call of an assistant message gets its tool message before the
// conversation goes on). It returns the number of lines.
func CheckOpenAI(path string) (int, error) {
	lines, err := Lines(path)
	if err != nil {
		return 0, err
	}
	for n, l := range lines {
		if err := checkOpenAILine(l); err != nil {
			return 0, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
	}
	return len(lines), nil
}

var openAIKeys = map[string][]string{
	"system":    {"role", "content", "name"},
	"developer": {"role", "content", "name"},
	"user":      {"role", "content", "name"},
	"assistant": {"role", "content", "name", "tool_calls", "function_call", "weight", "refusal"},
	"tool":      {"role", "content", "tool_call_id"},
}

func checkOpenAILine(l map[string]any) error {
	for k := range l {
		if !slices.Contains([]string{"messages", "tools", "parallel_tool_calls", "functions"}, k) {
			return fmt.Errorf("unknown key %q", k)
		}
	}
	msgs, ok := l["messages"].([]any)
	if !ok || len(msgs) == 0 {
		return errors.New("messages: want a non-empty list")
	}
	tools := map[string]bool{}
	if raw, ok := l["tools"]; ok {
		list, ok := raw.([]any)
		if !ok {
			return errors.New("tools: want a list")
		}
		for i, t := range list {
			tm, _ := t.(map[string]any)
			fn, _ := tm["function"].(map[string]any)
			name, _ := fn["name"].(string)
			params, hasParams := fn["parameters"]
			if tm["type"] != "function" || name == "" || tools[name] {
				return fmt.Errorf("tools[%d]: want {type: function, function: {name, …}} with a name of its own", i)
			}
			if hasParams {
				if pm, ok := params.(map[string]any); !ok || pm["type"] != "object" {
					return fmt.Errorf("tools[%d] (%s): parameters: want a JSON schema of type object", i, name)
				}
			}
			tools[name] = true
		}
	}
	parallel := true
	if raw, ok := l["parallel_tool_calls"]; ok {
		b, ok := raw.(bool)
		if !ok {
			return errors.New("parallel_tool_calls: want a boolean")
		}
		parallel = b
	}
	pending := map[string]bool{} // calls of the last assistant message not answered yet
	trained := 0
	for i, raw := range msgs {
		m, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("messages[%d]: not an object", i)
		}
		role, _ := m["role"].(string)
		allowed, ok := openAIKeys[role]
		if !ok {
			return fmt.Errorf("messages[%d]: role %q", i, m["role"])
		}
		for k := range m {
			if !slices.Contains(allowed, k) {
				return fmt.Errorf("messages[%d] (%s): key %q is not allowed", i, role, k)
			}
		}
		if i == 0 && (role == "assistant" || role == "tool") {
			return fmt.Errorf("messages[0]: a %s message cannot start the conversation", role)
		}
		content, hasContent := m["content"]
		_, isString := content.(string)
		if role != "tool" && len(pending) > 0 {
			return fmt.Errorf("messages[%d] (%s): tool calls %v of the assistant message before are not answered", i, role, keys(pending))
		}
		switch role {
		case "assistant":
			calls, _ := m["tool_calls"].([]any)
			if hasContent && content != nil && !isString {
				return fmt.Errorf("messages[%d]: content: want a string", i)
			}
			if (!hasContent || content == nil) && len(calls) == 0 {
				return fmt.Errorf("messages[%d]: an assistant message needs content or tool_calls", i)
			}
			if w, ok := m["weight"]; ok {
				if w != 0.0 && w != 1.0 {
					return fmt.Errorf("messages[%d]: weight %v: want 0 or 1", i, w)
				}
				if w == 1.0 {
					trained++
				}
			} else {
				trained++
			}
			if len(calls) > 1 && !parallel {
				return fmt.Errorf("messages[%d]: %d tool calls with parallel_tool_calls false", i, len(calls))
			}
			for k, c := range calls {
				cm, _ := c.(map[string]any)
				id, _ := cm["id"].(string)
				fn, _ := cm["function"].(map[string]any)
				name, _ := fn["name"].(string)
				args, isArgs := fn["arguments"].(string)
				if id == "" || cm["type"] != "function" || name == "" || !isArgs {
					return fmt.Errorf("messages[%d].tool_calls[%d]: want {id, type: function, function: {name, arguments: string}}", i, k)
				}
				if pending[id] {
					return fmt.Errorf("messages[%d].tool_calls[%d]: id %q twice in one message", i, k, id)
				}
				var v any
				if err := json.Unmarshal([]byte(args), &v); err != nil {
					return fmt.Errorf("messages[%d].tool_calls[%d]: arguments are not JSON: %w", i, k, err)
				}
				if !tools[name] {
					return fmt.Errorf("messages[%d].tool_calls[%d]: function %q is not among the tools given", i, k, name)
				}
				pending[id] = true
			}
		case "tool":
			id, _ := m["tool_call_id"].(string)
			if !pending[id] {
				return fmt.Errorf("messages[%d]: tool message for %q, which no unanswered call of the assistant message before has", i, id)
			}
			delete(pending, id)
			if !isString {
				return fmt.Errorf("messages[%d]: content: want a string", i)
			}
		default:
			if !isString {
				return fmt.Errorf("messages[%d] (%s): content: want a string", i, role)
			}
		}
	}
	// The calls of the last assistant message may stay unanswered: the example ends with them.
	if trained == 0 {
		return errors.New("no assistant message to train on")
	}
	return nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// CheckShareGPT checks every line of a file against the field rules of ShareGPT in
// LLaMA-Factory's convention (data/README.md, "Sharegpt Format"; SharegptDatasetConverter in
// src/llamafactory/data/converter.py): "conversations" is a list of {"from", "value"} turns,
// "from" one of system, human, gpt, function_call, observation, the system turn first if any;
// then human and observation at the odd positions and gpt and function_call at the even ones,
// an even number of them; a function_call's value is JSON of {"name", "arguments"} or a list of
// them (FunctionFormatter) naming functions of "tools" (a string holding the JSON list of the
// tools), and an observation answers a function_call. It returns the number of lines.
func CheckShareGPT(path string) (int, error) {
	lines, err := Lines(path)
	if err != nil {
		return 0, err
	}
	for n, l := range lines {
		if err := checkShareGPTLine(l); err != nil {
			return 0, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
	}
	return len(lines), nil
}

func checkShareGPTLine(l map[string]any) error {
	turns, ok := l["conversations"].([]any)
	if !ok || len(turns) == 0 {
		return errors.New("conversations: want a non-empty list")
	}
	tools := map[string]bool{}
	if raw, ok := l["tools"]; ok {
		s, ok := raw.(string)
		if !ok {
			return errors.New("tools: want a string (the JSON list of the tools)")
		}
		var list []map[string]any
		if err := json.Unmarshal([]byte(s), &list); err != nil {
			return fmt.Errorf("tools: %w", err)
		}
		for _, t := range list {
			fn := t
			if t["type"] == "function" {
				fn, _ = t["function"].(map[string]any)
			}
			name, _ := fn["name"].(string)
			tools[name] = true
		}
	}
	pos := 0 // position after the system turn
	for i, raw := range turns {
		t, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("conversations[%d]: not an object", i)
		}
		from, _ := t["from"].(string)
		if _, ok := t["value"].(string); !ok {
			return fmt.Errorf("conversations[%d]: value: want a string", i)
		}
		if from == "system" {
			if i != 0 {
				return fmt.Errorf("conversations[%d]: a system turn after the first", i)
			}
			continue
		}
		odd := pos%2 == 0 // the 1st, 3rd, … turn after the system's
		switch from {
		case "human", "observation":
			if !odd {
				return fmt.Errorf("conversations[%d]: %s at an even position", i, from)
			}
			if from == "observation" && (i == 0 || turns[i-1].(map[string]any)["from"] != "function_call") {
				return fmt.Errorf("conversations[%d]: an observation that answers no function_call", i)
			}
		case "gpt", "function_call":
			if odd {
				return fmt.Errorf("conversations[%d]: %s at an odd position", i, from)
			}
			if from == "function_call" {
				if err := checkFunctionCall(t["value"].(string), tools); err != nil {
					return fmt.Errorf("conversations[%d]: %w", i, err)
				}
			}
		default:
			return fmt.Errorf("conversations[%d]: from %q", i, t["from"])
		}
		pos++
	}
	if pos == 0 || pos%2 != 0 {
		return fmt.Errorf("%d turns after the system turn: want an even number, ending with gpt or function_call", pos)
	}
	return nil
}

func checkFunctionCall(value string, tools map[string]bool) error {
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return fmt.Errorf("function_call: not JSON: %w", err)
	}
	calls, ok := v.([]any)
	if !ok {
		calls = []any{v}
	}
	if len(calls) == 0 {
		return errors.New("function_call: an empty list")
	}
	for _, c := range calls {
		cm, _ := c.(map[string]any)
		name, _ := cm["name"].(string)
		if _, has := cm["arguments"]; !has || name == "" {
			return errors.New(`function_call: want {"name", "arguments"}`)
		}
		if !tools[name] {
			return fmt.Errorf("function_call: %q is not among the tools", name)
		}
	}
	return nil
}

// ReadParquet reads a file export wrote back with parquet-go, checking first that the file's
// schema is export.Row's.
func ReadParquet(path string) ([]export.Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if want := parquet.SchemaOf(export.Row{}); !parquet.EqualNodes(pf.Schema(), want) {
		return nil, fmt.Errorf("%s: schema\n%s\nwant\n%s", path, pf.Schema(), want)
	}
	r := parquet.NewGenericReader[export.Row](pf)
	defer r.Close()
	rows := make([]export.Row, pf.NumRows())
	n, err := r.Read(rows)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows[:n], nil
}

// RowGroups is the number of row groups of a Parquet file.
func RowGroups(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		return 0, err
	}
	return len(pf.RowGroups()), nil
}
