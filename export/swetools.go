package export

import (
	"regexp"
	"strings"
)

// SWE-agent keeps no tool schemas in its trajectories. Its replay config holds command_docs,
// the text SWE-agent renders from the same command definitions it builds the function-calling
// tools from (sweagent/tools/utils.py generate_command_docs; sweagent/tools/commands.py
// get_function_calling_tool): per command its name, docstring and arguments with their type and
// whether they are required. The tools are rebuilt from it; enums and array item types, which
// the docs leave out, are missing. A command called in the conversation but absent from the
// docs is declared with no parameters.

var (
	docsCommand  = regexp.MustCompile(`^([A-Za-z0-9_.-]+):$`)
	docsArgument = regexp.MustCompile(`^    - (\S+) \(([^)]*)\) \[(required|optional)\]: ?(.*)$`)
)

// sweAgentTools rebuilds the tools of a SWE-agent run from replay_config.agent.tools.command_docs
// and the calls of its conversation.
func sweAgentTools(config map[string]any, msgs []Message) []map[string]any {
	ag, _ := config["agent"].(map[string]any)
	tools, _ := ag["tools"].(map[string]any)
	docs, _ := tools["command_docs"].(string)
	out := parseCommandDocs(docs)
	have := map[string]bool{}
	for _, t := range out {
		fn, _ := t["function"].(map[string]any)
		name, _ := fn["name"].(string)
		have[name] = true
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Name != "" && !have[c.Name] {
				have[c.Name] = true
				out = append(out, map[string]any{"type": "function", "function": map[string]any{
					"name": c.Name, "description": "", "parameters": map[string]any{"type": "object"},
				}})
			}
		}
	}
	return out
}

// parseCommandDocs reads SWE-agent's command docs into OpenAI tool definitions, in their order.
func parseCommandDocs(docs string) []map[string]any {
	type command struct {
		name     string
		doc      []string
		args     []map[string]any
		names    []string
		required []any
		section  string // "docstring", "signature", "arguments"
	}
	var cmds []*command
	var cur *command
	for _, line := range strings.Split(docs, "\n") {
		if m := docsCommand.FindStringSubmatch(line); m != nil {
			cur = &command{name: m[1]}
			cmds = append(cmds, cur)
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case strings.HasPrefix(line, "  docstring: "):
			cur.section = "docstring"
			cur.doc = append(cur.doc, strings.TrimPrefix(line, "  docstring: "))
		case strings.HasPrefix(line, "  signature: "):
			cur.section = "signature"
		case line == "  arguments:":
			cur.section = "arguments"
		case cur.section == "arguments":
			if m := docsArgument.FindStringSubmatch(line); m != nil {
				cur.names = append(cur.names, m[1])
				cur.args = append(cur.args, map[string]any{"type": m[2], "description": m[4]})
				if m[3] == "required" {
					cur.required = append(cur.required, m[1])
				}
			}
		case cur.section == "docstring":
			cur.doc = append(cur.doc, line) // a docstring of several lines
		}
	}
	out := make([]map[string]any, 0, len(cmds))
	for _, c := range cmds {
		params := map[string]any{"type": "object"}
		if len(c.args) > 0 {
			props := map[string]any{}
			for k, n := range c.names {
				props[n] = c.args[k]
			}
			req := c.required
			if req == nil {
				req = []any{}
			}
			params = map[string]any{"type": "object", "properties": props, "required": req}
		}
		out = append(out, map[string]any{"type": "function", "function": map[string]any{
			"name": c.name, "description": strings.TrimRight(strings.Join(c.doc, "\n"), "\n"), "parameters": params,
		}})
	}
	return out
}
