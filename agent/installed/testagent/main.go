// Command testagent is a small CLI coding agent written for the tests of installed agents: it
// reads the task file, asks a model for shell commands over one of the four wires the model
// proxy serves (-wire chat|responses|anthropic|gemini, default $TESTAGENT_WIRE or chat),
// runs them with bash, writes the files of heredoc edits itself, and stops when a command's
// output starts with COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT, when a reply asks for no command,
// or after -max-steps replies. It finds the model where every installed agent does:
// OPENAI_BASE_URL/OPENAI_API_KEY, ANTHROPIC_BASE_URL/ANTHROPIC_API_KEY,
// GOOGLE_GEMINI_BASE_URL/GEMINI_API_KEY. It logs its session (one JSON line per call) in
// $SWEBENCH_RUN_AGENT_LOGS/testagent.jsonl when that is set.
//
// Built static by the tests (CGO_ENABLED=0 go build); `-sleep` makes it start a child that
// sleeps, for the tests that kill an agent and look for processes left behind.
//
// Exit codes: 0 done, 1 usage, 2 a model call failed, 3 the quota is exhausted (a limit of
// the run), 4 out of steps.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

const submit = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"

type call struct{ id, command string }

type wire interface {
	// ask sends the conversation and returns the reply's commands; it appends the reply.
	ask() ([]call, error)
	// answer appends the outputs of calls.
	answer(calls []call, outputs []string)
}

var (
	client  = &http.Client{Timeout: 10 * time.Minute}
	logFile *os.File
)

func main() {
	wireName := flag.String("wire", envOr("TESTAGENT_WIRE", "chat"), "chat, responses, anthropic or gemini")
	taskFile := flag.String("task", "", "the task file")
	model := flag.String("model", envOr("TESTAGENT_MODEL", "test-model"), "the model to ask for")
	maxSteps := flag.Int("max-steps", 50, "replies at most")
	sleep := flag.Duration("sleep", 0, "start a child that sleeps this long, then wait for it (tests of kills)")
	flag.Parse()
	if *sleep > 0 {
		c := exec.Command("sh", "-c", fmt.Sprintf("sleep %d & sleep %d; wait", int(sleep.Seconds()), int(sleep.Seconds())))
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		_ = c.Run()
		return
	}
	if *taskFile == "" {
		fmt.Fprintln(os.Stderr, "testagent: -task FILE is required")
		os.Exit(1)
	}
	task, err := os.ReadFile(*taskFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testagent:", err)
		os.Exit(1)
	}
	if dir := os.Getenv("SWEBENCH_RUN_AGENT_LOGS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err == nil {
			logFile, _ = os.Create(dir + "/testagent.jsonl")
		}
	}
	system := "You are a software engineer. Run one bash command per tool call in the repository to fix the issue; when done, run `echo " + submit + "`."
	var w wire
	switch *wireName {
	case "chat":
		w = newChat(*model, system, string(task))
	case "responses":
		w = newResponses(*model, system, string(task))
	case "anthropic":
		w = newAnthropic(*model, system, string(task))
	case "gemini":
		w = newGemini(*model, system, string(task))
	default:
		fmt.Fprintf(os.Stderr, "testagent: -wire %q: want chat, responses, anthropic or gemini\n", *wireName)
		os.Exit(1)
	}
	for step := 1; step <= *maxSteps; step++ {
		calls, err := w.ask()
		if err != nil {
			fmt.Fprintln(os.Stderr, "testagent:", err)
			if qe, ok := err.(*quotaError); ok {
				_ = qe
				os.Exit(3)
			}
			os.Exit(2)
		}
		if len(calls) == 0 {
			fmt.Println("testagent: the model asked for no command; done")
			return
		}
		outputs := make([]string, len(calls))
		done := false
		for i, c := range calls {
			fmt.Printf("$ %s\n", c.command)
			out := run(c.command)
			fmt.Print(out)
			outputs[i] = out
			if first, _, _ := strings.Cut(out, "\n"); strings.TrimSpace(first) == submit {
				done = true
			}
		}
		if done {
			fmt.Println("testagent: submitted")
			return
		}
		w.answer(calls, outputs)
	}
	fmt.Fprintln(os.Stderr, "testagent: out of steps")
	os.Exit(4)
}

// heredoc is a whole-file write as agents' edits look: cat > FILE <<'EOF' … EOF.
var heredoc = regexp.MustCompile(`(?s)^cat > (\S+) <<'(\w+)'\n(.*)\n(\w+)\s*$`)

// run runs one command, or writes the file of a heredoc edit itself, as a CLI agent's edit
// tool does.
func run(command string) string {
	if m := heredoc.FindStringSubmatch(command); m != nil && m[2] == m[4] {
		if err := os.WriteFile(m[1], []byte(m[3]+"\n"), 0o644); err != nil {
			return "edit failed: " + err.Error() + "\n"
		}
		return ""
	}
	c := exec.Command("bash", "-c", command)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return fmt.Sprintf("%s[exit %d]\n", out.String(), ee.ExitCode())
	} else if err != nil {
		return out.String() + err.Error() + "\n"
	}
	return out.String()
}

type quotaError struct{ msg string }

func (e *quotaError) Error() string { return e.msg }

// post sends body as JSON and decodes the reply into v.
func post(url string, headers map[string]string, body any, v any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, val := range headers {
		req.Header.Set(k, val)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if logFile != nil {
		line, _ := json.Marshal(map[string]any{"url": url, "status": resp.StatusCode, "ms": time.Since(start).Milliseconds(), "request": json.RawMessage(data), "reply": string(reply)})
		logFile.Write(append(line, '\n'))
	}
	if resp.StatusCode == http.StatusPaymentRequired || resp.StatusCode == http.StatusTooManyRequests {
		return &quotaError{fmt.Sprintf("%s: %d: %s", url, resp.StatusCode, reply)}
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d: %s", url, resp.StatusCode, reply)
	}
	return json.Unmarshal(reply, v)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

var bashSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"command": map[string]any{"type": "string", "description": "the bash command"}},
	"required":   []string{"command"},
}

func commandOf(args any) string {
	switch a := args.(type) {
	case string:
		var m map[string]any
		if json.Unmarshal([]byte(a), &m) == nil {
			s, _ := m["command"].(string)
			return s
		}
	case map[string]any:
		s, _ := a["command"].(string)
		return s
	}
	return ""
}

// chat is OpenAI chat completions.
type chat struct {
	model    string
	messages []any
}

func newChat(model, system, task string) *chat {
	return &chat{model: model, messages: []any{
		map[string]any{"role": "system", "content": system},
		map[string]any{"role": "user", "content": task},
	}}
}

func (c *chat) ask() ([]call, error) {
	var r struct {
		Choices []struct {
			Message map[string]any `json:"message"`
		} `json:"choices"`
	}
	body := map[string]any{"model": c.model, "messages": c.messages, "tools": []any{map[string]any{
		"type": "function", "function": map[string]any{"name": "bash", "description": "run a bash command", "parameters": bashSchema}}}}
	if err := post(strings.TrimSuffix(os.Getenv("OPENAI_BASE_URL"), "/")+"/chat/completions",
		map[string]string{"Authorization": "Bearer " + os.Getenv("OPENAI_API_KEY")}, body, &r); err != nil {
		return nil, err
	}
	if len(r.Choices) == 0 {
		return nil, fmt.Errorf("chat completions: no choices")
	}
	msg := r.Choices[0].Message
	c.messages = append(c.messages, msg)
	var calls []call
	tcs, _ := msg["tool_calls"].([]any)
	for _, tc := range tcs {
		m, _ := tc.(map[string]any)
		fn, _ := m["function"].(map[string]any)
		id, _ := m["id"].(string)
		calls = append(calls, call{id: id, command: commandOf(fn["arguments"])})
	}
	return calls, nil
}

func (c *chat) answer(calls []call, outputs []string) {
	for i, cl := range calls {
		c.messages = append(c.messages, map[string]any{"role": "tool", "tool_call_id": cl.id, "content": outputs[i]})
	}
}

// responses is the OpenAI Responses API.
type responses struct {
	model, system string
	input         []any
}

func newResponses(model, system, task string) *responses {
	return &responses{model: model, system: system, input: []any{map[string]any{"role": "user", "content": task}}}
}

func (c *responses) ask() ([]call, error) {
	var r struct {
		Output []map[string]any `json:"output"`
	}
	body := map[string]any{"model": c.model, "instructions": c.system, "input": c.input, "store": false, "tools": []any{map[string]any{
		"type": "function", "name": "bash", "description": "run a bash command", "parameters": bashSchema}}}
	if err := post(strings.TrimSuffix(os.Getenv("OPENAI_BASE_URL"), "/")+"/responses",
		map[string]string{"Authorization": "Bearer " + os.Getenv("OPENAI_API_KEY")}, body, &r); err != nil {
		return nil, err
	}
	var calls []call
	for _, item := range r.Output {
		delete(item, "status")
		c.input = append(c.input, item)
		if item["type"] == "function_call" {
			id, _ := item["call_id"].(string)
			calls = append(calls, call{id: id, command: commandOf(item["arguments"])})
		}
	}
	return calls, nil
}

func (c *responses) answer(calls []call, outputs []string) {
	for i, cl := range calls {
		c.input = append(c.input, map[string]any{"type": "function_call_output", "call_id": cl.id, "output": outputs[i]})
	}
}

// anthropic is the Anthropic Messages API.
type anthropic struct {
	model, system string
	messages      []any
}

func newAnthropic(model, system, task string) *anthropic {
	return &anthropic{model: model, system: system, messages: []any{map[string]any{"role": "user", "content": task}}}
}

func (c *anthropic) ask() ([]call, error) {
	var r struct {
		Content []map[string]any `json:"content"`
	}
	body := map[string]any{"model": c.model, "max_tokens": 4096, "system": c.system, "messages": c.messages,
		"tools": []any{map[string]any{"name": "bash", "description": "run a bash command", "input_schema": bashSchema}}}
	if err := post(strings.TrimSuffix(os.Getenv("ANTHROPIC_BASE_URL"), "/")+"/v1/messages",
		map[string]string{"x-api-key": os.Getenv("ANTHROPIC_API_KEY"), "anthropic-version": "2023-06-01"}, body, &r); err != nil {
		return nil, err
	}
	c.messages = append(c.messages, map[string]any{"role": "assistant", "content": r.Content})
	var calls []call
	for _, b := range r.Content {
		if b["type"] == "tool_use" {
			id, _ := b["id"].(string)
			calls = append(calls, call{id: id, command: commandOf(b["input"])})
		}
	}
	return calls, nil
}

func (c *anthropic) answer(calls []call, outputs []string) {
	var blocks []any
	for i, cl := range calls {
		blocks = append(blocks, map[string]any{"type": "tool_result", "tool_use_id": cl.id, "content": outputs[i]})
	}
	c.messages = append(c.messages, map[string]any{"role": "user", "content": blocks})
}

// gemini is Gemini's generateContent.
type gemini struct {
	model, system string
	contents      []any
}

func newGemini(model, system, task string) *gemini {
	return &gemini{model: model, system: system, contents: []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": task}}}}}
}

func (c *gemini) ask() ([]call, error) {
	var r struct {
		Candidates []struct {
			Content map[string]any `json:"content"`
		} `json:"candidates"`
	}
	body := map[string]any{"contents": c.contents,
		"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": c.system}}},
		"tools":             []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "bash", "description": "run a bash command", "parameters": bashSchema}}}}}
	url := strings.TrimSuffix(os.Getenv("GOOGLE_GEMINI_BASE_URL"), "/") + "/v1beta/models/" + c.model + ":generateContent"
	if err := post(url, map[string]string{"x-goog-api-key": os.Getenv("GEMINI_API_KEY")}, body, &r); err != nil {
		return nil, err
	}
	if len(r.Candidates) == 0 {
		return nil, fmt.Errorf("gemini: no candidates")
	}
	content := r.Candidates[0].Content
	c.contents = append(c.contents, content)
	var calls []call
	parts, _ := content["parts"].([]any)
	for _, p := range parts {
		m, _ := p.(map[string]any)
		if fc, ok := m["functionCall"].(map[string]any); ok {
			calls = append(calls, call{command: commandOf(fc["args"])})
		}
	}
	return calls, nil
}

func (c *gemini) answer(calls []call, outputs []string) {
	var parts []any
	for i := range calls {
		parts = append(parts, map[string]any{"functionResponse": map[string]any{"name": "bash", "response": map[string]any{"output": outputs[i]}}})
	}
	c.contents = append(c.contents, map[string]any{"role": "user", "parts": parts})
}
