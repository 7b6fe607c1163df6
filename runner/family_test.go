package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// A family's instance runs in its working directory, after its commands before the agent
// starts, with its task text: the agent's first command sees the state those commands made, in
// that directory, and the task the family composed, not the bare problem statement.
func TestFamilyInstanceSetup(t *testing.T) {
	cases := []struct {
		name     string
		preAgent []string
		status   string
	}{
		{"commands before the agent", []string{"mkdir -p /opt/repo", "echo the-bug > /opt/repo/state"}, "Submitted"},
		{"a failing command ends the instance", []string{"mkdir -p /opt/repo", "exit 3"}, StatusEnvStartupFailed},
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
			cfg, err := configs.Load(nil, []string{"environment.cwd=/tmp"})
			if err != nil {
				t.Fatal(err)
			}
			out, err := results.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			id := fmt.Sprintf("family__%d", k)
			turns := []model.ScriptedTurn{
				{Content: "look", Commands: []string{"pwd; cat state"}},
				{Content: "submit", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}},
			}
			inst := dataset.Instance{
				InstanceID: id, ProblemStatement: "The bare issue.", Image: testenv.BaseImage,
				Family: "test", Task: "The bare issue.\n\nRequirements:\nKeep the state.", WorkDir: "/opt/repo",
				PreAgentCommands: tc.preAgent,
			}
			runID := fmt.Sprintf("test-family-%d-%d", os.Getpid(), k)
			if _, err := Run(ctx, []dataset.Instance{inst}, Options{
				RunID: runID, Version: "test", Workers: 1, Config: cfg, ModelName: "scripted",
				Models: model.NewScripted(map[string][]model.ScriptedTurn{id: turns}), Backend: pool, Out: out,
				Limits: sandbox.Limits{NetworkMode: "none"},
			}); err != nil {
				t.Fatal(err)
			}
			rec := out.History()[id][0]
			if rec.ExitStatus != tc.status {
				t.Fatalf("status %s (%s), want %s", rec.ExitStatus, rec.Error, tc.status)
			}
			if tc.status != "Submitted" {
				if !strings.Contains(rec.Error, "exit 3") || !strings.Contains(rec.Error, "exited with 3") {
					t.Errorf("error %q does not name the failing command and its status", rec.Error)
				}
				return
			}
			traj, err := results.ReadTrajectory(out.TrajectoryPath(id))
			if err != nil {
				t.Fatal(err)
			}
			msgs, _ := json.Marshal(traj.Messages)
			for _, want := range []string{"Requirements:\\nKeep the state.", "/opt/repo\\nthe-bug"} {
				if !strings.Contains(string(msgs), want) {
					t.Errorf("trajectory lacks %q:\n%s", want, msgs)
				}
			}
		})
	}
}
