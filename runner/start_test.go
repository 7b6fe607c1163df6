package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// hookedModels runs hook (once per instance) before the first model call of each instance.
type hookedModels struct {
	inner Models
	hook  func(ctx context.Context, instanceID string) error
}

func (m hookedModels) ForInstance(id string) (agent.Model, error) {
	inner, err := m.inner.ForInstance(id)
	if err != nil {
		return nil, err
	}
	return &hookedModel{inner: inner, hook: func(ctx context.Context) error { return m.hook(ctx, id) }}, nil
}

type hookedModel struct {
	inner agent.Model
	hook  func(ctx context.Context) error
	calls int
}

func (m *hookedModel) Query(ctx context.Context, msgs []agent.Message) (agent.Reply, error) {
	m.calls++
	if m.calls == 1 {
		if err := m.hook(ctx); err != nil {
			return agent.Reply{}, err
		}
	}
	return m.inner.Query(ctx, msgs)
}

// runOne runs the instance id on the base image through runner.Run with the given config
// overrides and limits, and returns its ledger record.
func runOne(t *testing.T, runID, id string, overrides []string, limits sandbox.Limits, hook func(context.Context, string) error) results.Record {
	t.Helper()
	testenv.RequireImage(t, testenv.Docker(t), testenv.BaseImage)
	ctx := context.Background()
	pool, err := dockerenv.NewPool(ctx, nil, 1, dockerenv.Options{Pull: dockerenv.PullNever})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	cfg, err := configs.Load(nil, append([]string{"environment.cwd=/tmp"}, overrides...))
	if err != nil {
		t.Fatal(err)
	}
	out, err := results.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	turns := []model.ScriptedTurn{
		{Content: "look", Commands: []string{"cat /tmp/go"}},
		{Content: "submit", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}},
	}
	sum, err := Run(ctx, []dataset.Instance{{InstanceID: id, ProblemStatement: "Do nothing.", Image: testenv.BaseImage}}, Options{
		RunID: runID, Version: "test", Workers: 1, Config: cfg, ModelName: "scripted",
		Models:  hookedModels{inner: model.NewScripted(map[string][]model.ScriptedTurn{id: turns}), hook: hook},
		Backend: pool, Out: out, Limits: limits,
		Resume: Resume{MaxAttempts: 1}, // one attempt: the tests look at its record
	})
	if err != nil {
		t.Fatalf("run: %v (summary %+v)", err, sum)
	}
	// Run returns only after its containers are gone.
	if ids := containersOf(t, runID); ids != "" {
		t.Errorf("containers of run %s left behind: %s", runID, ids)
	}
	recs := out.History()[id]
	if len(recs) != 1 {
		t.Fatalf("want 1 ledger record of %s, got %+v", id, recs)
	}
	return recs[0]
}

func containersOf(t *testing.T, runID string) string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label="+dockerenv.LabelRun+"="+runID).Output()
	if err != nil {
		t.Fatalf("docker ps: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// The first model call runs while the container starts: env_startup_command blocks until a file
// appears in the container, and only the first model call creates it. Run one after the other,
// the start would wait for a model call that waits for the start, and the instance would end
// with EnvStartupFailed.
func TestContainerStartsDuringFirstModelCall(t *testing.T) {
	runID := fmt.Sprintf("test-overlap-%d", os.Getpid())
	rec := runOne(t, runID, "overlap__1", []string{
		`run.env_startup_command=for i in $(seq 300); do [ -e /tmp/go ] && exit 0; sleep 0.1; done; exit 1`,
	}, sandbox.Limits{NetworkMode: "none"}, func(ctx context.Context, id string) error {
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if c := containersOf(t, runID); c != "" {
				out, err := exec.CommandContext(ctx, "docker", "exec", strings.Fields(c)[0], "touch", "/tmp/go").CombinedOutput()
				if err == nil {
					return nil
				}
				t.Logf("docker exec: %v: %s", err, out) // created, not started yet
			}
		}
		return fmt.Errorf("no container of run %s appeared during the first model call", runID)
	})
	if rec.ExitStatus != "Submitted" {
		t.Fatalf("status %s (%s), want Submitted", rec.ExitStatus, rec.Error)
	}
}

// A container that cannot start ends the instance with ContainerStartError, an infrastructure
// failure, even though the first model call already ran.
func TestContainerStartFailureDuringFirstModelCall(t *testing.T) {
	runID := fmt.Sprintf("test-startfail-%d", os.Getpid())
	rec := runOne(t, runID, "startfail__1", nil, sandbox.Limits{NetworkMode: "swebench-run-no-such-network"},
		func(context.Context, string) error { return nil })
	if rec.ExitStatus != StatusContainerError || rec.Category != results.CategoryInfrastructure {
		t.Fatalf("status %s/%s (%s), want %s/infrastructure", rec.ExitStatus, rec.Category, rec.Error, StatusContainerError)
	}
	if !strings.Contains(rec.Error, "swebench-run-no-such-network") {
		t.Errorf("error %q does not name the network", rec.Error)
	}
	if rec.APICalls != 1 {
		t.Errorf("api calls %d, want 1 (the call made while the container started)", rec.APICalls)
	}
}
