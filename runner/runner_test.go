package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
)

func TestPending(t *testing.T) {
	insts := []dataset.Instance{{InstanceID: "new"}, {InstanceID: "sub"}, {InstanceID: "lim"}, {InstanceID: "infra1"}, {InstanceID: "infra3"}, {InstanceID: "redo-infra"},
		{InstanceID: "cut"}, {InstanceID: "cut-often"}, {InstanceID: "infra2-cut"}}
	rec := func(status, cat string) results.Record {
		return results.Record{ExitStatus: status, Category: cat}
	}
	infra := rec("ContainerDied", results.CategoryInfrastructure)
	cut := rec(model.StatusRunBudgetExhausted, results.CategoryUnfinished)
	history := map[string][]results.Record{
		"sub":        {rec("Submitted", results.CategoryModel)},
		"lim":        {rec("LimitsExceeded", results.CategoryModel)},
		"infra1":     {infra},
		"infra3":     {infra, infra, infra},
		"redo-infra": {infra, infra, infra, rec("Submitted", results.CategoryModel), infra},
		// Cut by the run-wide budget: unfinished, run again whatever the attempts, and not
		// counted as attempts.
		"cut":        {cut},
		"cut-often":  {cut, cut, cut, cut},
		"infra2-cut": {infra, infra, cut},
	}
	tests := []struct {
		name        string
		r           Resume
		want        string
		wantSkipped int
	}{
		{"default", Resume{}, "new,infra1,redo-infra,cut,cut-often,infra2-cut", 3},
		{"retry failed", Resume{RetryFailed: true}, "new,lim,infra1,redo-infra,cut,cut-often,infra2-cut", 2},
		{"redo existing", Resume{RedoExisting: true}, "new,sub,lim,infra1,infra3,redo-infra,cut,cut-often,infra2-cut", 0},
		{"one attempt", Resume{MaxAttempts: 1}, "new,cut,cut-often,infra2-cut", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			todo, skipped := Pending(insts, history, tt.r)
			var ids []string
			for _, inst := range todo {
				ids = append(ids, inst.InstanceID)
			}
			if got := strings.Join(ids, ","); got != tt.want || skipped != tt.wantSkipped {
				t.Errorf("got %s (%d skipped), want %s (%d skipped)", got, skipped, tt.want, tt.wantSkipped)
			}
		})
	}
}

func TestCategory(t *testing.T) {
	for status, want := range map[string]string{
		"Submitted": results.CategoryModel, "LimitsExceeded": results.CategoryModel, "RepeatedAction": results.CategoryModel,
		"ContainerDied": results.CategoryInfrastructure, StatusImageUnavailable: results.CategoryInfrastructure,
		"Interrupted":                  results.CategoryInfrastructure,
		model.StatusRunBudgetExhausted: results.CategoryUnfinished,
	} {
		if got := Category(status); got != want {
			t.Errorf("Category(%s) = %s, want %s", status, got, want)
		}
	}
}

func TestEnvFailure(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	died := &sandbox.DiedError{Name: "c", ExitCode: 137, Err: errors.New("gone")}
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"engine error mid-exec", live, errors.New("read exec output: connection reset"), StatusEnvironmentError},
		{"container died keeps its status", live, died, "ContainerDied"},
		{"cancellation", cancelled, errors.New("read exec output: context canceled"), agent.StatusInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := agent.ExitStatusOf(envFailure(tt.ctx, tt.err))
			if got != tt.want {
				t.Errorf("status = %s, want %s", got, tt.want)
			}
			if Category(got) != results.CategoryInfrastructure {
				t.Errorf("category of %s = model, want infrastructure", got)
			}
		})
	}
}
