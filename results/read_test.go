package results_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// v1Scenario is a trajectory that mini-swe-agent 1.17.5 wrote (agent/testdata/mswea1).
func v1Scenario(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(testenv.RepoRoot(t), "agent", "testdata", "mswea1", name+".traj.json")
}

func kindsString(k []results.MessageKind) string {
	s := make([]string, len(k))
	for i, x := range k {
		s[i] = string(x)
	}
	return strings.Join(s, " ")
}

func TestReadTrajectoryV1(t *testing.T) {
	const (
		sys, task, reply, obs, fe, exit = "system", "task", "reply", "observation", "format_error", "exit"
	)
	tests := []struct {
		name     string
		path     func(t *testing.T) string
		status   string
		calls    int
		kinds    []string
		commands map[int][]string // message index → commands
		rc       map[int]int      // message index → return code
	}{
		{"format errors", func(t *testing.T) string { return v1Scenario(t, "format_errors") }, "Submitted", 4,
			[]string{sys, task, reply, fe, reply, fe, reply, obs, reply, exit},
			map[int][]string{2: nil, 4: nil, 6: {"ls -la"}}, map[int]int{7: 0}},
		{"step limit", func(t *testing.T) string { return v1Scenario(t, "step_limit") }, "LimitsExceeded", 3,
			[]string{sys, task, reply, obs, reply, obs, reply, fe, exit},
			map[int][]string{4: {"false"}}, map[int]int{3: 0, 5: 1}},
		{"timeouts", func(t *testing.T) string { return v1Scenario(t, "timeouts") }, "Submitted", 4,
			[]string{sys, task, reply, obs, reply, obs, reply, obs, reply, exit},
			map[int][]string{2: {"echo $((111*9)); sleep 10"}}, nil},
		{"1.x test data (a bare list)", func(t *testing.T) string {
			return testenv.Fixtures(t, "trajectories", "mini-swe-agent-1.17.5", "local.traj.json")
		}, "", 0,
			[]string{sys, task, reply, obs, reply, exit},
			map[int][]string{2: {"echo 'hello world'"}, 4: {"echo MINI_SWE_AGENT_FINAL_OUTPUT"}}, map[int]int{3: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := results.ReadTrajectory(tt.path(t))
			if err != nil {
				t.Fatal(err)
			}
			if !tr.IsV1() {
				t.Error("not read as 1.x")
			}
			if tr.Info.ExitStatus != tt.status || tr.Info.ModelStats.APICalls != tt.calls {
				t.Errorf("exit %q calls %d, want %q %d", tr.Info.ExitStatus, tr.Info.ModelStats.APICalls, tt.status, tt.calls)
			}
			if got, want := kindsString(tr.Kinds()), strings.Join(tt.kinds, " "); got != want {
				t.Errorf("kinds = %s\nwant    %s", got, want)
			}
			for i, want := range tt.commands {
				if got := tr.Commands(i); strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("commands of message %d = %q, want %q", i, got, want)
				}
			}
			for i, want := range tt.rc {
				if got, ok := tr.ReturnCode(i); !ok || got != want {
					t.Errorf("return code of message %d = %d, %v; want %d", i, got, ok, want)
				}
			}
		})
	}
	tr, err := results.ReadTrajectory(v1Scenario(t, "truncation"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.ModelName() != "anthropic/claude-sonnet-4-5-20250929" || tr.Info.MiniVersion != "1.17.5" || tr.InstanceID != "demo__adder-1" {
		t.Errorf("model %q version %q id %q", tr.ModelName(), tr.Info.MiniVersion, tr.InstanceID)
	}
	if !strings.HasPrefix(tr.Info.Submission, "diff --git") {
		t.Errorf("submission = %.40q", tr.Info.Submission)
	}
}

// mini-swe-agent 2.x trajectories read as before: kinds from their marks, exit from the exit
// message.
func TestReadTrajectoryV2(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output"), "*", "*.traj.json"))
	if len(paths) == 0 {
		t.Fatal("no fixture trajectories")
	}
	for _, p := range paths {
		tr, err := results.ReadTrajectory(p)
		if err != nil {
			t.Fatal(err)
		}
		if tr.IsV1() || tr.TrajectoryFormat != results.TrajectoryFormat || tr.Info.ExitStatus == "" {
			t.Fatalf("%s: v1 %v, format %q, exit %q", p, tr.IsV1(), tr.TrajectoryFormat, tr.Info.ExitStatus)
		}
		kinds := tr.Kinds()
		if kinds[0] != results.KindSystem || kinds[1] != results.KindTask || kinds[len(kinds)-1] != results.KindExit {
			t.Errorf("%s: kinds %s", tr.InstanceID, kindsString(kinds))
		}
		for i, k := range kinds {
			if k == results.KindReply && tr.Info.ExitStatus == "Submitted" && i == len(kinds)-2 && len(tr.Commands(i)) == 0 {
				t.Errorf("%s: the submitting reply has no commands", tr.InstanceID)
			}
		}
	}
}

// A mini-swe-agent output directory (no ledger) has statistics from its trajectories.
func TestStatsFromTrajectories(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"format_errors", "step_limit", "cost_limit", "truncation"} {
		data, err := os.ReadFile(v1Scenario(t, name))
		if err != nil {
			t.Fatal(err)
		}
		id := "demo__" + name
		if err := os.MkdirAll(filepath.Join(dir, id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id, id+".traj.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := results.ComputeStats(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !st.FromTrajectories || st.Instances != 4 || st.ByStatus["Submitted"] != 2 || st.ByStatus["LimitsExceeded"] != 2 {
		t.Errorf("stats = %+v", st)
	}
	if st.Cost.Total != 2+1.5+3.75+3 || st.Steps.Total != 4+3+3+6 {
		t.Errorf("cost %v steps %v, want 10.25 and 16", st.Cost.Total, st.Steps.Total)
	}
	if _, err := results.ComputeStats(t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "traj.json") {
		t.Errorf("empty directory: err = %v", err)
	}
}
