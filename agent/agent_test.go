package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeModel plays replies in order; a nil Message with Err set returns that error.
type fakeModel struct {
	replies []fakeReply
	n       int
	seen    [][]Message
}

type fakeReply struct {
	reply Reply
	err   error
}

func (m *fakeModel) Query(_ context.Context, msgs []Message) (Reply, error) {
	m.seen = append(m.seen, append([]Message(nil), msgs...))
	if m.n >= len(m.replies) {
		return Reply{}, errors.New("fake model: out of replies")
	}
	r := m.replies[m.n]
	m.n++
	return r.reply, r.err
}

// fakeEnv answers commands from a table; unknown commands echo themselves.
type fakeEnv struct {
	outputs map[string]Output
	err     error
	ran     []string
}

func (e *fakeEnv) Execute(_ context.Context, cmd string) (Output, error) {
	e.ran = append(e.ran, cmd)
	if e.err != nil {
		return Output{}, e.err
	}
	if o, ok := e.outputs[cmd]; ok {
		return o, nil
	}
	return Output{Output: cmd + "\n"}, nil
}

func toolReply(cost float64, cmds ...string) fakeReply {
	var calls []any
	var acts []Action
	for i, c := range cmds {
		id := fmt.Sprintf("call_%d", i)
		calls = append(calls, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": fmt.Sprintf("{\"command\": %q}", c)}})
		acts = append(acts, Action{Command: c, ToolCallID: id})
	}
	return fakeReply{reply: Reply{Message: Message{"role": "assistant", "content": "thinking", "tool_calls": calls}, Actions: acts, Cost: cost}}
}

func testConfig() Config {
	return Config{
		SystemTemplate:             "You are a bot.\n",
		InstanceTemplate:           "Task: {{task}} in {{repo}}\n",
		StepLimit:                  10,
		CostLimit:                  3,
		MaxConsecutiveFormatErrors: 3,
		ObservationTemplate:        "<returncode>{{output.returncode}}</returncode>\n<output>\n{{ output.output -}}\n</output>",
		FormatErrorTemplate:        "Format error: {{error}}",
	}
}

func runAgent(t *testing.T, cfg Config, m *fakeModel, env *fakeEnv) (Result, error, int) {
	t.Helper()
	a := New(cfg, m, env, nil)
	a.Vars = map[string]any{"repo": "demo/repo"}
	saves := 0
	a.OnStep = func([]Message, Stats) error { saves++; return nil }
	res, err := a.Run(context.Background(), "fix it")
	return res, err, saves
}

func TestRunSubmits(t *testing.T) {
	m := &fakeModel{replies: []fakeReply{
		toolReply(0.5, "ls", "cat x"),
		toolReply(0.25, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"),
	}}
	env := &fakeEnv{outputs: map[string]Output{
		"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt": {Output: "\n  COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndiff --git a/x b/x\n"},
	}}
	res, err, saves := runAgent(t, testConfig(), m, env)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.ExitStatus, StatusSubmitted; got != want {
		t.Fatalf("exit status = %q, want %q", got, want)
	}
	if got, want := res.Submission, "diff --git a/x b/x\n"; got != want {
		t.Errorf("submission = %q, want %q", got, want)
	}
	if got, want := res.Stats.Cost, 0.75; got != want {
		t.Errorf("cost = %v, want %v", got, want)
	}
	roles := []string{}
	for _, msg := range res.Messages {
		roles = append(roles, msg.Role())
	}
	// system, user, assistant, tool, tool, assistant, exit: no observation for the submitting step.
	if got, want := strings.Join(roles, ","), "system,user,assistant,tool,tool,assistant,exit"; got != want {
		t.Errorf("roles = %s, want %s", got, want)
	}
	if got, want := res.Messages[0].Content(), "You are a bot."; got != want {
		t.Errorf("system = %q, want %q (Jinja2 drops the trailing newline)", got, want)
	}
	if got, want := res.Messages[1].Content(), "Task: fix it in demo/repo"; got != want {
		t.Errorf("instance message = %q, want %q", got, want)
	}
	if got, want := res.Messages[3]["tool_call_id"], "call_0"; got != want {
		t.Errorf("tool_call_id = %v, want %v", got, want)
	}
	if got, want := res.Messages[4].Content(), "<returncode>0</returncode>\n<output>\ncat x\n</output>"; got != want {
		t.Errorf("observation = %q, want %q", got, want)
	}
	if saves != 2 {
		t.Errorf("saved %d times, want 2 (after each step)", saves)
	}
	// The model saw the messages as they stood, never the ones appended later.
	if got := len(m.seen[1]); got != 5 {
		t.Errorf("second query saw %d messages, want 5", got)
	}
	acts := res.Messages[2].Extra()["actions"].([]any)
	if len(acts) != 2 || acts[1].(map[string]any)["command"] != "cat x" {
		t.Errorf("extra.actions = %v", acts)
	}
}

func TestRunSubmitNeedsExitZero(t *testing.T) {
	m := &fakeModel{replies: []fakeReply{toolReply(0, "submit"), toolReply(0, "submit")}}
	env := &fakeEnv{outputs: map[string]Output{"submit": {Output: SubmitMarker + "\npatch", ReturnCode: 1}}}
	cfg := testConfig()
	cfg.StepLimit = 2
	res, err, _ := runAgent(t, cfg, m, env)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.ExitStatus, StatusLimitsExceeded; got != want {
		t.Fatalf("exit status = %q, want %q", got, want)
	}
}

func TestRunLimits(t *testing.T) {
	tests := []struct {
		name      string
		cfg       func(*Config)
		cost      float64
		wantCalls int
		want      string
	}{
		{"step limit", func(c *Config) { c.StepLimit = 3 }, 0, 3, StatusLimitsExceeded},
		{"cost limit", func(c *Config) { c.CostLimit = 1.0 }, 0.4, 3, StatusLimitsExceeded},
		{"no limits stop at the script's end", func(c *Config) { c.StepLimit = 0; c.CostLimit = 0 }, 1, 5, "Error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var replies []fakeReply
			for i := 0; i < 5; i++ {
				replies = append(replies, toolReply(tt.cost, "ls"))
			}
			m := &fakeModel{replies: replies}
			cfg := testConfig()
			tt.cfg(&cfg)
			res, _, _ := runAgent(t, cfg, m, &fakeEnv{})
			if got := res.ExitStatus; got != tt.want {
				t.Errorf("exit status = %q, want %q", got, tt.want)
			}
			if got := m.n; got != tt.wantCalls {
				t.Errorf("model calls = %d, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestRunWallTimeLimit(t *testing.T) {
	now := time.Unix(1000, 0)
	m := &fakeModel{replies: []fakeReply{toolReply(0, "ls"), toolReply(0, "ls"), toolReply(0, "ls")}}
	cfg := testConfig()
	cfg.WallTimeLimitSeconds = 60
	a := New(cfg, m, &fakeEnv{}, nil)
	a.Vars = map[string]any{"repo": "r"}
	a.Now = func() time.Time { now = now.Add(25 * time.Second); return now }
	res, err := a.Run(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.ExitStatus, StatusTimeExceeded; got != want {
		t.Errorf("exit status = %q, want %q", got, want)
	}
}

func TestRunFormatErrors(t *testing.T) {
	fe := fakeReply{err: &FormatError{Reason: "No tool calls found", Cost: 0.1, Extra: map[string]any{"response": "raw"}}}
	t.Run("three in a row end the run", func(t *testing.T) {
		m := &fakeModel{replies: []fakeReply{fe, fe, fe, toolReply(0, "ls")}}
		res, err, _ := runAgent(t, testConfig(), m, &fakeEnv{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.ExitStatus, StatusRepeatedFormatError; got != want {
			t.Fatalf("exit status = %q, want %q", got, want)
		}
		n := len(res.Messages)
		if got, want := res.Messages[n-2].Content(), "Format error: No tool calls found"; got != want {
			t.Errorf("format error message = %q, want %q", got, want)
		}
		if got := res.Messages[n-2].Extra()["response"]; got != "raw" {
			t.Errorf("format error extra.response = %v, want raw", got)
		}
		if got, want := res.Stats.Cost, 0.1*3; fmt.Sprintf("%.3f", got) != fmt.Sprintf("%.3f", want) {
			t.Errorf("cost = %v, want %v (format errors are billed)", got, want)
		}
	})
	t.Run("a clean step resets the streak", func(t *testing.T) {
		cfg := testConfig()
		cfg.StepLimit = 6
		m := &fakeModel{replies: []fakeReply{fe, fe, toolReply(0, "ls"), fe, fe, toolReply(0, "ls")}}
		res, err, _ := runAgent(t, cfg, m, &fakeEnv{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.ExitStatus, StatusLimitsExceeded; got != want {
			t.Errorf("exit status = %q, want %q", got, want)
		}
	})
}

type diedError struct{}

func (diedError) Error() string      { return "container died" }
func (diedError) ExitStatus() string { return "ContainerDied" }

func TestRunUncaughtError(t *testing.T) {
	m := &fakeModel{replies: []fakeReply{toolReply(0, "ls")}}
	res, err, saves := runAgent(t, testConfig(), m, &fakeEnv{err: diedError{}})
	if !errors.Is(err, diedError{}) {
		t.Fatalf("err = %v, want the environment's error", err)
	}
	if got, want := res.ExitStatus, "ContainerDied"; got != want {
		t.Errorf("exit status = %q, want %q", got, want)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role() != "exit" || last.Extra()["exception_str"] != "container died" {
		t.Errorf("last message = %v, want an exit message with the exception", last)
	}
	if saves != 1 {
		t.Errorf("saved %d times, want 1", saves)
	}
}

func TestRunStrictTemplates(t *testing.T) {
	cfg := testConfig()
	cfg.InstanceTemplate = "{{ not_a_column }}"
	res, err, _ := runAgent(t, cfg, &fakeModel{}, &fakeEnv{})
	if err == nil || !strings.Contains(err.Error(), "instance_template") {
		t.Fatalf("err = %v, want an error naming instance_template", err)
	}
	if res.ExitStatus == "" {
		t.Error("no exit status recorded")
	}
}

func TestRunStop(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	m := &fakeModel{replies: []fakeReply{toolReply(0, "ls")}}
	a := New(testConfig(), m, &fakeEnv{}, nil)
	a.Vars = map[string]any{"repo": "r"}
	a.Stop = stop
	res, err := a.Run(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitStatus != StatusInterrupted || m.n != 0 {
		t.Errorf("exit %q after %d calls, want Interrupted after 0", res.ExitStatus, m.n)
	}
}

func TestRunRepeatedAction(t *testing.T) {
	same := func() fakeReply { return toolReply(0.01, "pytest -x") }
	tests := []struct {
		name      string
		max       int
		replies   []fakeReply
		outputs   map[string]Output
		want      string
		wantCalls int
	}{
		{"off", 0, []fakeReply{same(), same(), same(), same()}, nil, StatusLimitsExceeded, 4},
		{"three in a row", 3, []fakeReply{same(), same(), same(), same()}, nil, StatusRepeatedAction, 3},
		{"a different command resets the streak", 3,
			[]fakeReply{same(), same(), toolReply(0, "ls"), same(), same()}, nil, StatusLimitsExceeded, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.StepLimit = 4
			cfg.MaxRepeatedActions = tt.max
			m := &fakeModel{replies: tt.replies}
			res, err, _ := runAgent(t, cfg, m, &fakeEnv{outputs: tt.outputs})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.ExitStatus; got != tt.want {
				t.Errorf("exit status = %q, want %q", got, tt.want)
			}
			if got := m.n; got != tt.wantCalls {
				t.Errorf("model calls = %d, want %d", got, tt.wantCalls)
			}
			if tt.want == StatusRepeatedAction {
				n := len(res.Messages)
				if got := res.Messages[n-2].Role(); got != "tool" {
					t.Errorf("message before the exit is %q, want the last observation", got)
				}
			}
		})
	}
}

// A command repeated with a changing output is progress (e.g. a test run after edits).
func TestRunRepeatedActionNeedsSameOutput(t *testing.T) {
	cfg := testConfig()
	cfg.StepLimit = 4
	cfg.MaxRepeatedActions = 2
	m := &fakeModel{replies: []fakeReply{toolReply(0, "date"), toolReply(0, "date"), toolReply(0, "date"), toolReply(0, "date")}}
	n := 0
	env := envFunc(func(cmd string) Output { n++; return Output{Output: fmt.Sprint(n)} })
	a := New(cfg, m, env, nil)
	a.Vars = map[string]any{"repo": "r"}
	res, err := a.Run(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.ExitStatus, StatusLimitsExceeded; got != want {
		t.Errorf("exit status = %q, want %q", got, want)
	}
}

type envFunc func(cmd string) Output

func (f envFunc) Execute(_ context.Context, cmd string) (Output, error) { return f(cmd), nil }

// Submission follows mini-swe-agent's Python rules: output.lstrip().splitlines(keepends=True).
func TestSubmission(t *testing.T) {
	tests := []struct {
		name   string
		out    Output
		want   string
		wantOK bool
	}{
		{"plain", Output{Output: SubmitMarker + "\ndiff\n"}, "diff\n", true},
		{"leading blank lines and spaces", Output{Output: "\n \t" + SubmitMarker + "  \nd"}, "d", true},
		{"marker only", Output{Output: SubmitMarker + "\n"}, "", true},
		{"marker without newline", Output{Output: SubmitMarker}, "", true},
		{"CRLF", Output{Output: SubmitMarker + "\r\nd\r\n"}, "d\r\n", true},
		{"lone CR is a line break", Output{Output: SubmitMarker + "\rd"}, "d", true},
		{"form feed is a line break", Output{Output: SubmitMarker + "\fd"}, "d", true},
		{"failed command", Output{Output: SubmitMarker + "\nd", ReturnCode: 1}, "", false},
		{"marker later", Output{Output: "x\n" + SubmitMarker + "\nd"}, "", false},
		{"marker with suffix", Output{Output: SubmitMarker + "X\nd"}, "", false},
		{"empty", Output{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := submission(tt.out)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("submission = %q, %v, want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// Template variables merge as in mini-swe-agent: agent config < Vars < counters < task.
func TestTemplateVars(t *testing.T) {
	cfg := testConfig()
	cfg.InstanceTemplate = "{{task}}|{{step_limit}}|{{system}}|{{n_model_calls}}|{{cost_limit}}"
	a := New(cfg, &fakeModel{}, &fakeEnv{}, nil)
	a.Vars = map[string]any{"system": "Linux", "task": "overridden", "step_limit": 99}
	res, _ := a.Run(context.Background(), "the task")
	if got, want := res.Messages[1].Content(), "the task|99|Linux|0|3.0"; got != want {
		t.Errorf("instance message = %q, want %q", got, want)
	}
}

// blockingModel never answers until its context ends.
type blockingModel struct{}

func (blockingModel) Query(ctx context.Context, _ []Message) (Reply, error) {
	<-ctx.Done()
	return Reply{}, fmt.Errorf("model call: %w", ctx.Err())
}

// A step that hangs is cut at the wall-time limit and the run ends with TimeExceeded, not with
// an error (which would count as an infrastructure failure).
func TestRunWallTimeCutsHangingStep(t *testing.T) {
	cfg := testConfig()
	cfg.WallTimeLimitSeconds = 1
	a := New(cfg, blockingModel{}, &fakeEnv{}, nil)
	a.Vars = map[string]any{"repo": "r"}
	res, err := a.Run(context.Background(), "t")
	if err != nil {
		t.Fatalf("err = %v, want none", err)
	}
	if got, want := res.ExitStatus, StatusTimeExceeded; got != want {
		t.Errorf("exit status = %q, want %q", got, want)
	}
}

// Cancelling the caller's context is an interruption, not a time limit.
func TestRunCancelled(t *testing.T) {
	cfg := testConfig()
	cfg.WallTimeLimitSeconds = 3600
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := New(cfg, blockingModel{}, &fakeEnv{}, nil)
	a.Vars = map[string]any{"repo": "r"}
	res, err := a.Run(ctx, "t")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got, want := res.ExitStatus, StatusInterrupted; got != want {
		t.Errorf("exit status = %q, want %q", got, want)
	}
}

// shapingModel is a fakeModel whose API keeps observations in its own shape.
type shapingModel struct{ fakeModel }

func (m *shapingModel) ShapeMessage(msg Message) Message {
	return Message{"type": "shaped", "from": msg.Role(), "content": msg["content"], "extra": msg["extra"]}
}

// A model that shapes the agent's messages (MessageShaper) gets every observation and format
// error in its shape, in the trajectory and in the next request; the agent's own prompts and the
// exit message keep theirs.
func TestMessageShaper(t *testing.T) {
	m := &shapingModel{fakeModel{replies: []fakeReply{
		toolReply(0, "ls"),
		{err: &FormatError{Reason: "no command"}},
		toolReply(0, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
	}}}
	a := New(testConfig(), m, &fakeEnv{outputs: map[string]Output{
		"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT": {Output: "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n"},
	}}, nil)
	a.Vars = map[string]any{"repo": "demo/repo"}
	res, err := a.Run(context.Background(), "fix it")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range res.Messages {
		got = append(got, fmt.Sprintf("%v/%v", msg["type"], msg["from"]))
	}
	want := "<nil>/<nil> <nil>/<nil> <nil>/<nil> shaped/tool shaped/user <nil>/<nil> <nil>/<nil>"
	if strings.Join(got, " ") != want {
		t.Errorf("messages = %s, want %s", strings.Join(got, " "), want)
	}
	if last := m.seen[len(m.seen)-1]; last[4]["type"] != "shaped" || last[4]["extra"].(map[string]any)["interrupt_type"] != "FormatError" {
		t.Errorf("format error sent as %v", last[4])
	}
}
