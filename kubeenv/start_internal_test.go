package kubeenv

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/swebench-run/swebench-run/sandbox"
)

// stuckStream is an exec whose stream the runtime never connects: no output, no end, until the
// stream's context ends.
type stuckStream struct{ calls, ended *atomic.Int64 }

func (s stuckStream) Stream(remotecommand.StreamOptions) error {
	return errors.New("not used")
}

func (s stuckStream) StreamWithContext(ctx context.Context, _ remotecommand.StreamOptions) error {
	s.calls.Add(1)
	<-ctx.Done()
	s.ended.Add(1)
	return ctx.Err()
}

// An exec whose command never starts ends after startTimeout, is tried again a bounded number
// of times, and fails instead of waiting for ever (the command's own timeout starts with it).
func TestExecThatNeverStartsIsRetriedThenFails(t *testing.T) {
	var calls, ended atomic.Int64
	saved, savedTimeout := execExecutor, startTimeout
	t.Cleanup(func() { execExecutor, startTimeout = saved, savedTimeout })
	execExecutor = func(*Pod, *corev1.PodExecOptions) (remotecommand.Executor, error) {
		return stuckStream{&calls, &ended}, nil
	}
	startTimeout = 20 * time.Millisecond

	p := &Pod{name: "stuck", spec: sandbox.Spec{Cwd: "/testbed"}.WithDefaults()}
	_, err := p.Exec(context.Background(), "echo hi", sandbox.ExecOptions{Timeout: time.Minute})
	if !errors.Is(err, errNoStart) {
		t.Fatalf("err = %v, want errNoStart", err)
	}
	if got := calls.Load(); got != inputAttempts {
		t.Errorf("%d execs, want %d", got, inputAttempts)
	}
	if got := ended.Load(); got != calls.Load() {
		t.Errorf("%d of %d stuck streams were closed", got, calls.Load())
	}
}
