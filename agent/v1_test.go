package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func v1TestConfig() Config {
	return Config{
		Mini1:               true,
		SystemTemplate:      "You are a bot.",
		InstanceTemplate:    "Task: {{task}} in {{repo}}",
		StepLimit:           10,
		CostLimit:           3,
		ObservationTemplate: "<returncode>{{output.returncode}}</returncode>\n<output>\n{{ output.output -}}\n</output>",
		FormatErrorTemplate: "found {{actions|length}} actions",
		TimeoutTemplate:     "<command>{{action['action']}}</command> timed out: {{output}}",
		ActionRegex:         "```bash\\s*\\n(.*?)\\n```",
	}
}

func textReply(cost float64, content string) fakeReply {
	return fakeReply{reply: Reply{Message: Message{"role": "assistant", "content": content}, Cost: cost}}
}

func TestPyRepr(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"plain", "'plain'"},
		{"it's", `"it's"`},
		{`it's "x"`, `'it\'s "x"'`},
		{"tab\tnl\ncr\rbs\\", `'tab\tnl\ncr\rbs\\'`},
		{"bell\x07del\x7f", `'bell\x07del\x7f'`},
		{"é → ü", "'é → ü'"},
		{"nbsp\u00a0zw\u200b", `'nbsp\xa0zw\u200b'`},
		{0, "0"},
		{-1, "-1"},
		{2.5, "2.5"},
		{3.0, "3.0"},
		{true, "True"},
		{nil, "None"},
	}
	for _, tt := range tests {
		if got := pyRepr(tt.in); got != tt.want {
			t.Errorf("pyRepr(%#v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	d := newPyDict("output", "hi\n", "returncode", 0, "action", "echo 'hi'")
	if got, want := d.String(), `{'output': 'hi\n', 'returncode': 0, 'action': "echo 'hi'"}`; got != want {
		t.Errorf("dict = %s, want %s", got, want)
	}
	out, err := NewRenderer().Render("t", "{{ o.returncode }} {{ o['action'] }} {{ o }}", map[string]any{"o": d})
	if err != nil {
		t.Fatal(err)
	}
	if want := `0 echo 'hi' {'output': 'hi\n', 'returncode': 0, 'action': "echo 'hi'"}`; out != want {
		t.Errorf("rendered %q, want %q", out, want)
	}
	if _, err := NewRenderer().Render("t", "{{ o.exception_info }}", map[string]any{"o": d}); err == nil {
		t.Error("a missing key rendered without error; 1.x's StrictUndefined fails")
	}
}

func TestRunV1(t *testing.T) {
	m := &fakeModel{replies: []fakeReply{
		textReply(0.5, "no block"),
		textReply(0.5, "```bash\nsleep 99\n```"),
		textReply(0.5, "```bash\n  ls  \n```"),
		textReply(0.5, "done\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```"),
	}}
	env := &fakeEnv{outputs: map[string]Output{
		"sleep 99": {Output: "partial\n", ReturnCode: -1, TimedOut: true},
		"ls":       {Output: "a.py\n"},
		"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff": {Output: "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndiff --git a/x b/x\n"},
	}}
	res, err, saves := runAgent(t, v1TestConfig(), m, env)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ role, content string }{
		{"system", "You are a bot."},
		{"user", "Task: fix it in demo/repo"},
		{"assistant", "no block"},
		{"user", "found 0 actions"},
		{"assistant", "```bash\nsleep 99\n```"},
		{"user", "<command>sleep 99</command> timed out: partial\n"},
		{"assistant", "```bash\n  ls  \n```"},
		{"user", "<returncode>0</returncode>\n<output>\na.py\n</output>"},
		{"assistant", "done\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```"},
		{"user", "diff --git a/x b/x\n"},
	}
	if len(res.Messages) != len(want) {
		t.Fatalf("got %d messages, want %d", len(res.Messages), len(want))
	}
	for i, w := range want {
		m := res.Messages[i]
		if m.Role() != w.role || m.Content() != w.content {
			t.Errorf("message %d = %s %q, want %s %q", i, m.Role(), m.Content(), w.role, w.content)
		}
		if _, ok := m["timestamp"].(float64); !ok {
			t.Errorf("message %d has no timestamp", i)
		}
		if _, ok := m["extra"]; ok {
			t.Errorf("message %d has an extra field: 1.x messages carry only what the model returned", i)
		}
	}
	if res.ExitStatus != StatusSubmitted || res.Submission != "diff --git a/x b/x\n" {
		t.Errorf("exit %q submission %q", res.ExitStatus, res.Submission)
	}
	if res.Stats.APICalls != 4 || res.Stats.Cost != 2 || len(res.Stats.Steps) != 4 {
		t.Errorf("stats = %+v, want 4 calls (format errors count), $2, 4 steps", res.Stats)
	}
	if got := strings.Join(env.ran, "|"); got != "sleep 99|ls|echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff" {
		t.Errorf("ran %q", got)
	}
	if saves != 4 {
		t.Errorf("saved %d times, want after each of the 4 steps (the last ends the run)", saves)
	}
}

func TestRunV1Ends(t *testing.T) {
	boom := errors.New("engine gone")
	tests := []struct {
		name       string
		cfg        func(*Config)
		replies    []fakeReply
		envErr     error
		stop       bool
		wantStatus string
		wantErr    error
		wantLast   string // content of the last message; "-" when no message ends the run
		wantMsgs   int
	}{
		{"step limit", func(c *Config) { c.StepLimit = 1 }, []fakeReply{textReply(0, "x")}, nil, false,
			StatusLimitsExceeded, nil, "", 5},
		{"cost limit", func(c *Config) { c.CostLimit = 1 }, []fakeReply{textReply(1, "x")}, nil, false,
			StatusLimitsExceeded, nil, "", 5},
		{"model error", nil, []fakeReply{{err: boom}}, nil, false, "Error", boom, "-", 2},
		{"environment error", nil, []fakeReply{textReply(0, "```bash\nls\n```")}, boom, false, "Error", boom, "-", 3},
		{"stop", nil, nil, nil, true, StatusInterrupted, nil, "-", 2},
		{"repeated action", func(c *Config) { c.MaxRepeatedActions = 2 },
			[]fakeReply{textReply(0, "```bash\nls\n```"), textReply(0, "```bash\nls\n```")}, nil, false,
			StatusRepeatedAction, nil, "The same command ran 2 times in a row with the same output; the run was stopped (agent.max_repeated_actions).", 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := v1TestConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			a := New(cfg, &fakeModel{replies: tt.replies}, &fakeEnv{err: tt.envErr}, nil)
			a.Vars = map[string]any{"repo": "r"}
			if tt.stop {
				stop := make(chan struct{})
				close(stop)
				a.Stop = stop
			}
			res, err := a.Run(context.Background(), "t")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if res.ExitStatus != tt.wantStatus {
				t.Errorf("exit status = %q, want %q", res.ExitStatus, tt.wantStatus)
			}
			if len(res.Messages) != tt.wantMsgs {
				t.Fatalf("got %d messages, want %d", len(res.Messages), tt.wantMsgs)
			}
			last := res.Messages[len(res.Messages)-1]
			if tt.wantLast == "-" {
				if tt.wantErr != nil && (res.ExceptionStr != boom.Error() || res.Traceback == "") {
					t.Errorf("exception %q traceback %q", res.ExceptionStr, res.Traceback)
				}
				return
			}
			if last.Role() != "user" || last.Content() != tt.wantLast {
				t.Errorf("last message = %s %q, want user %q", last.Role(), last.Content(), tt.wantLast)
			}
		})
	}
}

// A model that parses replies itself (a FormatError) cannot drive the 1.x loop: that is a
// wiring error, reported as such.
func TestRunV1RejectsParsedReplies(t *testing.T) {
	m := &fakeModel{replies: []fakeReply{{err: &FormatError{Reason: "Expected exactly 1 action, found 0."}}}}
	a := New(v1TestConfig(), m, &fakeEnv{}, nil)
	a.Vars = map[string]any{"repo": "r"}
	_, err := a.Run(context.Background(), "t")
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "1.x config needs its text") {
		t.Errorf("err = %v", err)
	}
}

func TestSubmissionV1(t *testing.T) {
	tests := []struct {
		out    Output
		want   string
		submit bool
	}{
		{Output{Output: "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\npatch\n"}, "patch\n", true},
		{Output{Output: "MINI_SWE_AGENT_FINAL_OUTPUT\n"}, "", true},
		{Output{Output: "\n\t COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT \r\na\r\nb"}, "a\r\nb", true},
		{Output{Output: "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\npatch\n", ReturnCode: 1}, "", false},
		{Output{Output: "x COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n"}, "", false},
		{Output{Output: "  \n"}, "", false},
	}
	for _, tt := range tests {
		got, ok := submissionV1(tt.out)
		if ok != tt.submit || got != tt.want {
			t.Errorf("submissionV1(%q, rc %d) = %q, %v; want %q, %v", tt.out.Output, tt.out.ReturnCode, got, ok, tt.want, tt.submit)
		}
	}
}
