package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

const rootMessage = "The task's starting state (history removed by swebench-run's history guard)"

// The history guard runs after the family's commands and before the agent's first command: the
// agent sees only the start; its outcome is in status.jsonl and the trajectory; a guard that
// fails ends the instance as HistoryGuardFailed, an infrastructure failure, with no command run.
func TestHistoryGuardInTheRun(t *testing.T) {
	repo := "set -e; mkdir -p /opt/repo && cd /opt/repo && git init -q -b main && echo one > f && git add f && git -c user.name=a -c user.email=a@a commit -qm base && " +
		"echo fixed > f && git -c user.name=a -c user.email=a@a commit -qam 'the fix' && git branch fix && git reset -q --hard HEAD~1"
	cases := []struct {
		name, mode string
		preAgent   []string
		history    func(dataset.Instance) family.History
		status     string
		applied    string
		sees       string // in the first command's output
	}{
		{"past", "past", []string{repo}, nil, "Submitted", "past", "LOG=base|"},
		{"none", "none", []string{repo}, nil, "Submitted", "none", "LOG=" + rootMessage + "|"},
		{"a family whose past is the answer", "past", []string{repo}, func(dataset.Instance) family.History { return family.History{PastIsAnswer: true} }, "Submitted", "none", "LOG=" + rootMessage + "|"},
		{"as-is", "as-is", []string{repo}, nil, "Submitted", "as-is", "LOG=the fix|base|"},
		{"no repository", "past", []string{"mkdir -p /opt/repo"}, nil, "Submitted", "no repository", "LOG=\n"},
		{"a repository git cannot read", "past", []string{"mkdir -p /opt/repo/.git"}, nil, StatusHistoryGuardFailed, "", ""},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testenv.RequireImage(t, testenv.Docker(t), testenv.BaseImage)
			ctx := context.Background()
			pool, err := dockerenv.NewPool(ctx, nil, 1, dockerenv.Options{Pull: dockerenv.PullNever})
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			cfg, err := configs.Load(nil, []string{"environment.history=" + tc.mode})
			if err != nil {
				t.Fatal(err)
			}
			out, err := results.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			id := fmt.Sprintf("guard__%d", k)
			turns := []model.ScriptedTurn{
				{Content: "look", Commands: []string{"echo \"LOG=$(git log --all --format=%s 2>/dev/null | tr '\\n' '|')\""}},
				{Content: "submit", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}},
			}
			inst := dataset.Instance{InstanceID: id, ProblemStatement: "Fix it.", Image: testenv.BaseImage, WorkDir: "/opt/repo", PreAgentCommands: tc.preAgent}
			if _, err := Run(ctx, []dataset.Instance{inst}, Options{
				RunID: fmt.Sprintf("test-guard-%d-%d", os.Getpid(), k), Version: "test", Workers: 1, Config: cfg, ModelName: "scripted",
				Models: model.NewScripted(map[string][]model.ScriptedTurn{id: turns}), Backend: pool, Out: out, History: tc.history,
				Limits: sandbox.Limits{NetworkMode: "none"},
			}); err != nil {
				t.Fatal(err)
			}
			rec := out.History()[id][0]
			if rec.ExitStatus != tc.status {
				t.Fatalf("status %s (%s), want %s", rec.ExitStatus, rec.Error, tc.status)
			}
			traj, err := results.ReadTrajectory(out.TrajectoryPath(id))
			if err != nil {
				t.Fatal(err)
			}
			if tc.status == StatusHistoryGuardFailed {
				if rec.Category != results.CategoryInfrastructure || !strings.Contains(rec.Error, "history guard of /opt/repo") || rec.Steps > 1 {
					t.Errorf("record %+v: want an infrastructure failure naming the guard", rec)
				}
				return
			}
			h := traj.Info.SwebenchRun.History
			if rec.History != tc.applied || h == nil || h.Applied != tc.applied || h.Mode != tc.mode || (tc.mode != "as-is" && rec.HistoryGuard <= 0) {
				t.Errorf("record history %q %vs, trajectory %+v; want %s", rec.History, rec.HistoryGuard, h, tc.applied)
			}
			obs := traj.Messages[3]["content"]
			if s := fmt.Sprint(obs); !strings.Contains(s, tc.sees) {
				t.Errorf("the first command saw %q, want %q", s, tc.sees)
			}
		})
	}
}
