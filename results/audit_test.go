package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/audit"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// Every trajectory form reads into commands with their outputs.
func TestReadAgentRuns(t *testing.T) {
	tests := []struct {
		name     string
		path     func(t *testing.T) string
		runs     int
		format   string
		id       string // of the first run
		steps    int    // commands of the first run
		step1    string // its first command
		hasExit  bool
		output   string // in its first command's output
		text     string // in its task text
		base     string // its base commit
		repo     string
		firstCmd int // the step of its first command
	}{
		{"mini-swe-agent 2.x run (tool calls)", func(t *testing.T) string {
			return testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output")
		}, 23, results.TrajectoryFormat, "marshmallow-code__marshmallow-1343", -1, "", true, "", "marshmallow", "", "marshmallow-code/marshmallow", 1},
		{"SWE-agent demonstration", func(t *testing.T) string {
			return testenv.Fixtures(t, "trajectories", "swe-agent-demonstrations", "demonstrations", "replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1", "marshmallow-code__marshmallow-1867.traj")
		}, 1, "swe-agent", "marshmallow-code__marshmallow-1867", 11, "create reproduce.py", false, "[File: reproduce.py", "TimeDelta", "bfd2593d4b416122e30cde", "marshmallow-code/marshmallow", 1},
		{"SWE-smith's SWE-agent trajectories folder", func(t *testing.T) string {
			return testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "trajectories")
		}, 2, "swe-agent", "pandas-dev__pandas.95280573.pr_53652", 37, `find /testbed -type f -name "*.py" | grep -v "__pycache__" | grep -v "test_" | head -20`, false, "/testbed/scripts", "", "pandas-dev__pandas.95280573.pr_53652", "pandas-dev/pandas", 1},
		{"OpenHands output.jsonl (Multi-SWE-bench examples)", func(t *testing.T) string {
			return testenv.Fixtures(t, "trajectories", "openhands", "multi-swe-bench-examples", "output.jsonl")
		}, 3, "openhands", "ponylang__ponyc-4588", -1, "cd /workspace/ponylang__ponyc__0.1 && ls -l", true, "", "ponyc", "", "ponylang/ponyc", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, err := results.ReadAgentRuns(tt.path(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != tt.runs {
				t.Fatalf("%d runs, want %d", len(runs), tt.runs)
			}
			r := runs[0]
			if r.InstanceID != tt.id || r.Format != tt.format {
				t.Errorf("first run %s (%s), want %s (%s)", r.InstanceID, r.Format, tt.id, tt.format)
			}
			if len(r.Steps) == 0 || tt.steps >= 0 && len(r.Steps) != tt.steps {
				t.Fatalf("%d commands, want %d", len(r.Steps), tt.steps)
			}
			s := r.Steps[0]
			if tt.step1 != "" && s.Command != tt.step1 {
				t.Errorf("first command %q, want %q", s.Command, tt.step1)
			}
			if s.HasExit != tt.hasExit {
				t.Errorf("first command has an exit code: %v, want %v", s.HasExit, tt.hasExit)
			}
			if !strings.Contains(s.Output, tt.output) || s.Output == "" {
				t.Errorf("first output %.80q, want it to hold %q", s.Output, tt.output)
			}
			if !strings.Contains(r.Task.Text, tt.text) || r.Task.Text == "" {
				t.Errorf("task text %.80q, want it to hold %q", r.Task.Text, tt.text)
			}
			if !strings.HasPrefix(r.Task.BaseCommit, tt.base) || (tt.base == "") != (r.Task.BaseCommit == "") && tt.format != "openhands" {
				t.Errorf("base commit %q, want %q", r.Task.BaseCommit, tt.base)
			}
			if r.Task.Repo != tt.repo {
				t.Errorf("repo %q, want %q", r.Task.Repo, tt.repo)
			}
			if tt.firstCmd > 0 && s.Step != tt.firstCmd {
				t.Errorf("first command at step %d, want %d", s.Step, tt.firstCmd)
			}
			for i := 1; i < len(r.Steps); i++ {
				if r.Steps[i].Step < r.Steps[i-1].Step {
					t.Fatalf("steps out of order at %d: %d after %d", i, r.Steps[i].Step, r.Steps[i-1].Step)
				}
			}
		})
	}
}

// The real deepseek run on Lite dev: sqlfluff-1625's agent ran `git log --all --grep="L031" -p`
// (mini-swe-agent PR 816's trajectory, step 9), the only command of the 23 trajectories reaching
// beyond HEAD's ancestry; its ordinary git diff, git status and git log --oneline -5 are not flagged.
func TestAuditRealRun(t *testing.T) {
	a, err := results.AuditPath(testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Instances != 23 {
		t.Errorf("%d instances scanned, want 23", a.Instances)
	}
	var got []string
	for _, f := range a.Flags {
		got = append(got, f.Instance+": "+f.Command)
	}
	want := []string{`sqlfluff__sqlfluff-1625: cd /testbed && git log --all --grep="L031" -p | head -200`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("flags:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f := a.Flags[0]
	if f.Class != audit.ClassHistory || !f.Revealed || f.Step == 0 {
		t.Errorf("flag %+v, want history, revealed, with its step", f)
	}
	if ids := a.Revealing(); len(ids) != 1 || ids[0] != "sqlfluff__sqlfluff-1625" {
		t.Errorf("revealing %v", ids)
	}
}

// run.json's environment.history is every trajectory's history mode.
func TestAuditHistoryFromManifest(t *testing.T) {
	dir := t.TempDir()
	id := "o__r-1"
	if err := os.MkdirAll(filepath.Join(dir, id), 0o755); err != nil {
		t.Fatal(err)
	}
	traj := `{"trajectory_format":"mini-swe-agent-1.1","instance_id":"o__r-1","info":{"exit_status":"Submitted"},"messages":[
{"role":"system","content":"s"},{"role":"user","content":"fix it"},
{"role":"assistant","content":"","extra":{"actions":[{"command":"git log --all --oneline"}]}},
{"role":"tool","content":"<returncode>0</returncode><output>abc1234 start</output>","extra":{"returncode":0,"raw_output":"abc1234 start"}},
{"role":"exit","content":"","extra":{"exit_status":"Submitted","submission":""}}]}`
	if err := os.WriteFile(filepath.Join(dir, id, id+".traj.json"), []byte(traj), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		manifest string
		revealed bool
		history  string
	}{
		{`{"config":{"environment":{"history":"past"}}}`, false, "past"},
		{`{"config":{"environment":{"history":"as-is"}}}`, true, "as-is"},
		{`{"config":{}}`, true, ""},
	} {
		if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), []byte(tt.manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := results.AuditPath(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Flags) != 1 || a.Flags[0].Revealed != tt.revealed || a.History != tt.history {
			t.Errorf("run.json %s: flags %+v, history %q; want one flag, revealed %v, history %q", tt.manifest, a.Flags, a.History, tt.revealed, tt.history)
		}
	}
}

func TestRepoOfInstance(t *testing.T) {
	for id, want := range map[string]string{
		"django__django-11099":                 "django/django",
		"pylint-dev__astroid-1333":             "pylint-dev/astroid",
		"scikit-learn__scikit-learn-25500":     "scikit-learn/scikit-learn",
		"pandas-dev__pandas.95280573.pr_53652": "pandas-dev/pandas",
		"instance_gravitational__teleport-82185f232ae8974258397e121b3bc2ed0c3729ed-v626ec2a48416b10a88641359a169d99e935ff03": "gravitational/teleport",
		"demo-1": "",
	} {
		if got := results.RepoOfInstance(id); got != want {
			t.Errorf("RepoOfInstance(%q) = %q, want %q", id, got, want)
		}
	}
}

// OpenHands' completion logs: llm_completions/<id>/<model>-<time>.json, each {"messages",
// "response", "args", "kwargs", "timestamp", "cost"} (written by openhands/llm/llm.py at
// All-Hands-AI/OpenHands 156d0686c4, lines 383-413); the newest holds the whole conversation.
// No real log is in the test corpus (none was found in a public repository), so this one is
// written here in that shape.
func TestReadOpenHandsCompletionLogs(t *testing.T) {
	dir := t.TempDir()
	id := "django__django-11099"
	logs := filepath.Join(dir, "llm_completions", id)
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	call := func(cid, cmd string) string {
		return `{"id":"` + cid + `","type":"function","function":{"name":"execute_bash","arguments":"{\"command\": \"` + cmd + `\"}"}}`
	}
	older := `{"messages":[{"role":"system","content":[{"type":"text","text":"You are OpenHands agent"}]},{"role":"user","content":[{"type":"text","text":"Fix UsernameValidator"}]}],
"response":{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[` + call("c1", "git log --oneline -3") + `]}}]},"args":[],"kwargs":{},"timestamp":100.5,"cost":0.01}`
	newer := `{"messages":[{"role":"system","content":[{"type":"text","text":"You are OpenHands agent"}]},{"role":"user","content":[{"type":"text","text":"Fix UsernameValidator"}]},
{"role":"assistant","content":null,"tool_calls":[` + call("c1", "git log --oneline -3") + `]},
{"role":"tool","tool_call_id":"c1","name":"execute_bash","content":[{"type":"text","text":"e7fd69d051 Fixed #30211\n[The command completed with exit code 0.]"}]},
{"role":"assistant","content":null,"tool_calls":[` + call("c2", "cd /testbed && git log --all --oneline | head") + `]},
{"role":"tool","tool_call_id":"c2","name":"execute_bash","content":"abc1234 Fixed #30224 -- allow trailing newline\n[The command completed with exit code 0.]"}],
"response":{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[` + call("c3", "git show abc1234") + `]}}]},"args":[],"kwargs":{},"timestamp":200.25,"cost":0.02}`
	for name, content := range map[string]string{"openai__gpt-4o-100.5.json": older, "openai__gpt-4o-200.25.json": newer} {
		if err := os.WriteFile(filepath.Join(logs, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := results.ReadAgentRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].InstanceID != id || runs[0].Format != "openhands-completions" {
		t.Fatalf("runs %+v", runs)
	}
	var cmds []string
	for _, s := range runs[0].Steps {
		cmds = append(cmds, s.Command)
	}
	want := []string{"git log --oneline -3", "cd /testbed && git log --all --oneline | head", "git show abc1234"}
	if strings.Join(cmds, "\n") != strings.Join(want, "\n") || !strings.HasPrefix(runs[0].Steps[1].Output, "abc1234") || runs[0].Task.Text != "Fix UsernameValidator" {
		t.Fatalf("steps %+v", runs[0].Steps)
	}
	fl := runs[0].Flags()
	if len(fl) != 2 || fl[0].Step != 2 || !fl[0].Revealed || fl[1].Step != 3 || fl[1].Revealed {
		t.Errorf("flags %+v, want step 2 (revealed) and step 3 (no output)", fl)
	}
	// One completion log alone is read too.
	one, err := results.ReadAgentRuns(filepath.Join(logs, "openai__gpt-4o-200.25.json"))
	if err != nil || len(one) != 1 || one[0].InstanceID != id || len(one[0].Steps) != 3 {
		t.Errorf("one log: %+v, %v", one, err)
	}
}

// A SWE-agent trajectory reads whole: its info, config and the messages of its steps.
func TestReadSWEAgent(t *testing.T) {
	dir := testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "trajectories")
	paths, err := results.TrajectoryFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || !strings.HasSuffix(paths[1], "pydantic__pydantic.acb0f10f.pr_8316.traj") {
		t.Fatalf("TrajectoryFiles = %v", paths)
	}
	tr, err := results.ReadSWEAgent(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	// The figures of the file's info and replay_config (a JSON string in this file).
	if tr.InstanceID != "pydantic__pydantic.acb0f10f.pr_8316" || tr.Info.ExitStatus != "submitted" || tr.Info.ModelStats.APICalls != 22 ||
		tr.Info.ModelStats.TokensSent != 161683 || tr.ModelName() != "claude-3-7-sonnet-20250219" || len(tr.Steps) != 22 || len(tr.History) != 46 {
		t.Errorf("read %s: exit %q, stats %+v, model %q, %d steps, %d history messages", tr.InstanceID, tr.Info.ExitStatus, tr.Info.ModelStats, tr.ModelName(), len(tr.Steps), len(tr.History))
	}
	msgs, field, err := tr.StepMessages(len(tr.Steps) - 1)
	if err != nil || field != "messages" || len(msgs) != 46 || msgs[0]["role"] != "system" {
		t.Errorf("last step: %d messages from %q, %v", len(msgs), field, err)
	}
	if got := tr.AgentRun(); len(got.Steps) != 22 || got.Steps[21].Command != "submit" {
		t.Errorf("AgentRun: %d steps", len(got.Steps))
	}
}

// The walk stops at the first error of its function.
func TestWalkAgentRunsStops(t *testing.T) {
	dir := testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output")
	stop := errors.New("enough")
	n := 0
	err := results.WalkAgentRuns(dir, func(r *results.AgentRun) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("walk: %d runs, %v; want 3 and the function's error", n, err)
	}
	if _, err := results.TrajectoryFiles(t.TempDir()); err != nil {
		t.Errorf("an empty folder: %v", err)
	}
	err = results.WalkAgentRuns(t.TempDir(), func(*results.AgentRun) error { return nil })
	if !errors.Is(err, results.ErrNoTrajectories) {
		t.Errorf("an empty folder: %v, want ErrNoTrajectories", err)
	}
}

// A trajectory's history mode: its config's environment.history, else (a 1.x config records no
// such key) what the guard recorded in info.swebench_run.history.
func TestAgentRunHistory(t *testing.T) {
	tests := []struct {
		name string
		traj results.Trajectory
		want string
	}{
		{"from the config", results.Trajectory{Info: results.TrajectoryInfo{Config: map[string]any{"environment": map[string]any{"history": "none"}},
			SwebenchRun: &results.RunInfo{History: &results.HistoryInfo{Mode: "past"}}}}, "none"},
		{"from the guard's record", results.Trajectory{Info: results.TrajectoryInfo{Config: map[string]any{"environment": map[string]any{}},
			SwebenchRun: &results.RunInfo{History: &results.HistoryInfo{Mode: "past", Applied: "none"}}}}, "past"},
		{"not recorded", results.Trajectory{Info: results.TrajectoryInfo{Config: map[string]any{}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.traj.AgentRun("x").Task.History; got != tt.want {
				t.Errorf("history %q, want %q", got, tt.want)
			}
		})
	}
}
