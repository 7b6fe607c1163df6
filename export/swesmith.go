package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// SWE-smith's SFT format, as its tooling writes it (SWE-bench/SWE-smith,
// swesmith/train/traj_mgr/transform_to_ft.py with the default "xml" style of utils.py,
// transform_traj_xml): one line per trajectory, json.dumps({"messages": [{"role", "content"}…],
// "instance_id": …}) with Python's separators and ASCII escapes. Tool messages become user
// messages; a reply is its thought, a blank line, and each tool call as
//
//	<function=NAME>
//	<parameter=KEY>VALUE</parameter>
//	</function>
//
// (calls joined by a newline; old_str, new_str and file_text values on lines of their own; a
// value that is not a string as Python's str() writes it); a reply whose text is "Exit due to
// cost limit" becomes SWE-smith's fixed submission. SWE-smith replaces the system prompt with
// the system template of its agent config (agent/swesmith_infer.yaml): pass that text with
// --system-prompt to get its output, else the system prompt as sent is kept. SWE-agent
// trajectories are taken as SWE-smith takes them (their last step's messages); a text-mode
// reply of ours (no tool calls) is its text as sent.

// smithStrParams are the parameters written on lines of their own (utils.py, XML_STR_REPLACES).
var smithStrParams = map[string]bool{"old_str": true, "new_str": true, "file_text": true}

// smithCostLimitReply is what transform_traj_xml writes for a reply "Exit due to cost limit".
const smithCostLimitReply = "Since we have successfully fixed the issue and verified it works, let's submit the changes:\n\n<function=submit>\n</function>"

// smithLine renders c as one SWE-smith SFT line (without the newline).
func smithLine(c *Conversation) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"messages": [`)
	for i, m := range c.Messages {
		role := m.Role
		if role == "tool" {
			role = "user"
		}
		content := m.Content
		if m.Role == "assistant" {
			switch {
			case m.Content == "Exit due to cost limit":
				content = smithCostLimitReply
			case c.SWEAgent || c.ToolCalling:
				thought := m.Content
				if c.SWEAgent {
					thought = m.Thought
				}
				actions, err := smithActions(m.ToolCalls)
				if err != nil {
					return nil, fmt.Errorf("%s: message %d: %w", c.InstanceID, i, err)
				}
				content = thought + "\n\n" + actions
			}
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"role": %s, "content": %s}`, pytext.QuoteJSON(role, true), pytext.QuoteJSON(content, true))
	}
	fmt.Fprintf(&b, `], "instance_id": %s}`, pytext.QuoteJSON(c.InstanceID, true))
	return b.Bytes(), nil
}

// smithActions writes tool calls in SWE-smith's XML form.
func smithActions(calls []ToolCall) (string, error) {
	actions := make([]string, 0, len(calls))
	for _, tc := range calls {
		lines := []string{"<function=" + tc.Name + ">"}
		args, err := orderedObject(tc.Arguments)
		if err != nil {
			return "", fmt.Errorf("tool call %s: arguments: %w", tc.ID, err)
		}
		for _, kv := range args {
			v := pyStr(kv.value)
			if smithStrParams[kv.key] {
				lines = append(lines, "<parameter="+kv.key+">\n"+v+"\n</parameter>")
			} else {
				lines = append(lines, "<parameter="+kv.key+">"+v+"</parameter>")
			}
		}
		lines = append(lines, "</function>")
		actions = append(actions, strings.Join(lines, "\n"))
	}
	return strings.Join(actions, "\n"), nil
}

// keyValue is one member of a JSON object, in order.
type keyValue struct {
	key   string
	value any
}

// pyObject is a JSON object decoded with its members in order, as Python's json.loads keeps them.
type pyObject []keyValue

// orderedObject decodes a JSON object keeping its members' order; numbers stay json.Number.
func orderedObject(s string) (pyObject, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := orderedValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the JSON value")
	}
	obj, ok := v.(pyObject)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return obj, nil
}

func orderedValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := pyObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := orderedValue(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, keyValue{kt.(string), v})
			}
			_, err := dec.Token() // }
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := orderedValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ]
			return list, err
		}
	}
	return tok, nil
}

// pyStr is str(v) in Python of a value json.loads returned: a string as it is, anything else
// as repr writes it.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyRepr is Python's repr of a decoded JSON value.
func pyRepr(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case bool:
		if t {
			return "True"
		}
		return "False"
	case string:
		return pytext.StrRepr(t)
	case json.Number:
		return pyNumber(t)
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = pyRepr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case pyObject:
		parts := make([]string, len(t))
		for i, kv := range t {
			parts[i] = pytext.StrRepr(kv.key) + ": " + pyRepr(kv.value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// pyNumber is repr of the int or float json.loads makes of a JSON number: an integer as its
// digits, a float in the shortest form that reads back (fixed notation for exponents from -4
// to 15, else scientific with a signed two-digit exponent, as float.__repr__).
func pyNumber(n json.Number) string {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return strings.TrimPrefix(s, "+") // a big integer: Python keeps every digit
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	if x >= -4 && x < 16 {
		fixed := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(fixed, ".") {
			fixed += ".0"
		}
		return fixed
	}
	return mant + "e" + exp
}
