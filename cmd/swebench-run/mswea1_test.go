package main

// mini-swe-agent 1.x configs and trajectories on the command line: the layout config show names,
// inspect and stats on 1.x trajectories, and the demo run with -c swebench_v1.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// v1Trajectory is a trajectory mini-swe-agent 1.17.5 wrote (agent/testdata/mswea1).
func v1Trajectory(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(testenv.RepoRoot(t), "agent", "testdata", "mswea1", name+".traj.json")
}

func TestConfigShowLayout(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantLayout string
		wantKey    string // a key of the printed agent section
	}{
		{"default", nil, "config layout: mini-swe-agent 2.x (agent.max_consecutive_format_errors, environment.interpreter, model.format_error_template, model.observation_template)", "max_consecutive_format_errors"},
		{"swebench_v1", []string{"-c", "swebench_v1"}, "config layout: mini-swe-agent 1.x (agent.action_observation_template, agent.format_error_template)", "timeout_template"},
		{"a 1.x trajectory's info.config", []string{"-c", v1Trajectory(t, "timeouts")}, "config layout: mini-swe-agent 1.x (agent.action_observation_template, agent.action_regex, agent.format_error_template, agent.timeout_template)", "action_regex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := execCLI(append([]string{"config", "show"}, tt.args...), &out, &errOut); err != nil {
				t.Fatalf("config show: %v\n%s", err, errOut.String())
			}
			if !strings.Contains(errOut.String(), tt.wantLayout+"\n") {
				t.Errorf("stderr = %q, want %q", errOut.String(), tt.wantLayout)
			}
			var got map[string]map[string]any
			if err := yaml.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if _, ok := got["agent"][tt.wantKey]; !ok {
				t.Errorf("agent section lacks %s: %v", tt.wantKey, got["agent"])
			}
		})
	}
}

func TestInspectV1(t *testing.T) {
	tests := []struct {
		name  string
		path  func(t *testing.T) string
		want  []string
		steps int
	}{
		{"format errors", func(t *testing.T) string { return v1Trajectory(t, "format_errors") }, []string{
			"written by   mini-swe-agent 1.17.5\n", "exit status  Submitted\n", "model calls  4\n",
			"━━ step 1 ━━\n  No code blocks here\n  → format error (not one command)\n    Please always provide EXACTLY ONE action in triple backticks, found 0 actions.\n",
			"  Blanks after the info string\n  $ ls -la\n  → returncode 0\n    <output>\n    total 0\n",
			"━━ exit: Submitted ━━\n  submission (1 lines):\n    done\n",
		}, 4},
		{"timeouts", func(t *testing.T) string { return v1Trajectory(t, "timeouts") }, []string{
			"  $ echo $((111*9)); sleep 10\n  → returncode ?\n    The last command <command>echo $((111*9)); sleep 10</command> timed out",
			"━━ exit: Submitted ━━\n  submission (6 lines):\n    diff --git a/a.py b/a.py\n",
		}, 4},
		{"limits", func(t *testing.T) string { return v1Trajectory(t, "step_limit") }, []string{
			"  $ false\n  → returncode 1\n", "━━ exit: LimitsExceeded ━━\n",
		}, 3},
		{"1.x test data", func(t *testing.T) string {
			return testenv.Fixtures(t, "trajectories", "mini-swe-agent-1.17.5", "github_issue.traj.json")
		}, []string{
			"written by   mini-swe-agent (a bare message list)\n",
			"  $ echo MINI_SWE_AGENT_FINAL_OUTPUT && git add -A && git diff --cached\n",
			"  submission (",
		}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := execCLI([]string{"inspect", tt.path(t)}, &out, &errOut); err != nil {
				t.Fatalf("inspect: %v (stderr %s)", err, errOut.String())
			}
			got := out.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			if n := len(regexp.MustCompile(`(?m)^━━ step \d+`).FindAllString(got, -1)); n != tt.steps {
				t.Errorf("shows %d steps, want %d", n, tt.steps)
			}
		})
	}
}

// stats reads a mini-swe-agent output directory (trajectories, no ledger).
func TestStatsMiniDir(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"format_errors", "step_limit", "timeouts"} {
		data, err := os.ReadFile(v1Trajectory(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, name+".traj.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if err := execCLI([]string{"stats", dir}, &out, &errOut); err != nil {
		t.Fatalf("stats: %v (stderr %s)", err, errOut.String())
	}
	for _, w := range []string{"3 instances, 3 attempts\n(no status.jsonl: read from the trajectories", "Submitted       2", "LimitsExceeded  1", "cost ($)      5.5000"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}

// The demo with mini-swe-agent 1.x's SWE-bench config and the scripted model in 1.x text mode:
// every instance submits the gold patch and is resolved, and the trajectories are 1.x's.
func TestDemoRunV1(t *testing.T) {
	split, insts := demoInstances(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "-c", "swebench_v1",
		"--workers", "2", "-o", out, "--eval", "--progress", "lines")
	if code != 0 {
		t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
	}
	for _, w := range []string{
		"config key environment.environment_class has no meaning here and is ignored",
		"config layout: mini-swe-agent 1.x (agent.action_observation_template, agent.format_error_template): the mini-swe-agent 1.17.5 loop",
		"resolved rate: 100.0% of submitted (6/6)",
	} {
		if !strings.Contains(stderr+stdout, w) {
			t.Errorf("output lacks %q:\n%s%s", w, stdout, stderr)
		}
	}
	var preds map[string]results.Prediction
	data, err := os.ReadFile(filepath.Join(out, results.PredsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &preds); err != nil {
		t.Fatal(err)
	}
	bash := regexp.MustCompile("(?s)\\A(?:.*\\n\\n)?```bash\\n.*\\n```\\z")
	for _, inst := range insts {
		id := inst.InstanceID
		path := filepath.Join(out, id, id+".traj.json")
		tr, err := results.ReadTrajectory(path)
		if err != nil {
			t.Fatal(err)
		}
		if tr.TrajectoryFormat != "mini-swe-agent-1" || tr.Info.MiniVersion != "1.17.5" || !tr.IsV1() {
			t.Errorf("%s: format %q, mini_version %q", id, tr.TrajectoryFormat, tr.Info.MiniVersion)
		}
		if tr.Info.ExitStatus != "Submitted" || tr.Info.Submission != inst.Patch || preds[id].ModelPatch != inst.Patch {
			t.Errorf("%s: exit %q, submission is the gold patch: %v, prediction too: %v", id, tr.Info.ExitStatus, tr.Info.Submission == inst.Patch, preds[id].ModelPatch == inst.Patch)
		}
		msgs := tr.Messages
		last := msgs[len(msgs)-1]
		if last["role"] != "user" || last["content"] != inst.Patch {
			t.Errorf("%s: the last message is %v %.40q, want the submission as a user message", id, last["role"], last["content"])
		}
		if !strings.Contains(msgs[1]["content"].(string), "<pr_description>\nConsider the following PR description:\n"+inst.ProblemStatement[:20]) {
			t.Errorf("%s: the instance message is not 1.x's swebench.yaml rendering", id)
		}
		for i, m := range msgs {
			if _, ok := m["timestamp"].(float64); !ok {
				t.Errorf("%s: message %d has no timestamp", id, i)
			}
			role := m["role"]
			switch {
			case i == 0 && role != "system", i > 0 && i%2 == 1 && role != "user", i > 0 && i%2 == 0 && role != "assistant":
				t.Errorf("%s: message %d is %v: 1.x alternates assistant and user", id, i, role)
			case role == "assistant" && !bash.MatchString(m["content"].(string)):
				t.Errorf("%s: reply %d is not one ```bash block: %.60q", id, i, m["content"])
			}
		}
		cfg, _ := tr.Info.Config.(map[string]any)
		if agentCfg, _ := cfg["agent"].(map[string]any); agentCfg["action_observation_template"] == nil {
			t.Errorf("%s: info.config is not the 1.x config", id)
		}
	}
	st, err := results.ComputeStats(out, eval.ReportVerdict)
	if err != nil {
		t.Fatal(err)
	}
	if st.ByStatus["Submitted"] != len(insts) || st.Eval == nil || st.Eval.Resolved != len(insts) {
		t.Errorf("stats: %+v, eval %+v", st.ByStatus, st.Eval)
	}
	man, err := results.ReadManifest(out)
	if err != nil || man == nil {
		t.Fatalf("run.json: %v", err)
	}
	assertNoContainers(t, man.RunID)

	// The run's own trajectory reloads as its config.
	var cfgOut, cfgErr bytes.Buffer
	first := filepath.Join(out, insts[0].InstanceID, insts[0].InstanceID+".traj.json")
	if err := execCLI([]string{"config", "show", "-c", first}, &cfgOut, &cfgErr); err != nil || !strings.Contains(cfgErr.String(), "mini-swe-agent 1.x") {
		t.Errorf("config show -c %s: %v, %s", first, err, cfgErr.String())
	}
}
