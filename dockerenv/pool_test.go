package dockerenv_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// second is what the tests of this package did with the second engine, for TestMain.
var second struct {
	script string // scripts/start-second-engine.sh, once a test asked for the engine
	wasUp  bool   // it answered before the first test asked for it
}

// TestMain stops the second engine after the tests when they started it (even when they
// failed), unless testenv.EnvKeepEngines asks to keep it for a faster rerun.
func TestMain(m *testing.M) {
	code := m.Run()
	if second.script != "" && !second.wasUp && !testenv.KeepEngines() {
		if out, err := exec.Command(second.script, "--stop").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "stop the second engine: %v: %s\n", err, out)
			code = 1
		}
	}
	os.Exit(code)
}

// secondEngine starts (idempotently) the second engine of scripts/start-second-engine.sh and
// returns its address; the test skips, with the reason, where it cannot start.
func secondEngine(t *testing.T) string {
	t.Helper()
	testenv.Docker(t)
	script := filepath.Join(testenv.RepoRoot(t), "scripts", "start-second-engine.sh")
	if second.script == "" {
		second.wasUp = exec.Command(script, "--status").Run() == nil
		second.script = script
	}
	out, err := exec.Command(script).Output()
	if err != nil {
		msg := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg += ": " + string(ee.Stderr)
		}
		// This machine kind runs a second engine: in CI its failure is a failure, not a skip.
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and the second Docker engine did not start: %s", msg)
		}
		t.Skipf("a second Docker engine cannot start here: %s", msg)
	}
	return strings.TrimSpace(string(out))
}

func stopSecondEngine(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(filepath.Join(testenv.RepoRoot(t), "scripts", "start-second-engine.sh"), "--stop").CombinedOutput(); err != nil {
		t.Fatalf("stop the second engine: %v: %s", err, out)
	}
}

// Instances spread over two engines by free capacity, and really run on both.
func TestPoolSpreadsByFreeCapacity(t *testing.T) {
	second := secondEngine(t)
	ctx := context.Background()
	pool, err := dockerenv.NewPool(ctx, []dockerenv.HostSpec{{URL: "", Workers: 2}, {URL: second, Workers: 1}}, 4, dockerenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	first := pool.Engines()[0]
	var got []string
	var slots []sandbox.Slot
	for range 3 {
		s, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, s)
		got = append(got, s.Host())
	}
	want := []string{first.Host(), second, first.Host()}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("hosts = %v, want %v", got, want)
	}
	// Full: the next Acquire waits until a slot is released, and gets that slot's engine.
	done := make(chan sandbox.Slot)
	go func() {
		s, _ := pool.Acquire(ctx)
		done <- s
	}()
	slots[1].Release(nil)
	if slots[1] = <-done; slots[1].Host() != second {
		t.Errorf("after releasing a slot of %s, Acquire gave %s", second, slots[1].Host())
	}
	// Each engine runs containers: one on each.
	runID := "test-pool-spread"
	t.Cleanup(func() { _, _ = pool.Sweep(context.Background(), sandbox.Selector{RunID: runID}) })
	for i, s := range slots[:2] {
		if _, err := s.PrepareImage(ctx, testenv.BaseImage); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Start(ctx, sandbox.Spec{Image: testenv.BaseImage, RunID: runID, InstanceID: "pool__spread-" + string(rune('a'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range pool.Engines() {
		names, err := e.ListContainers(ctx, runID)
		if err != nil {
			t.Fatal(err)
		}
		if len(names) != 1 {
			t.Errorf("%s runs %v, want one container", e.Host(), names)
		}
	}
}

// An engine that stops answering: its operations fail with an error matching
// sandbox.ErrBackendDown, releasing the slot with it takes the engine out of rotation, and
// Revive brings it back once it answers again.
func TestPoolFailover(t *testing.T) {
	second := secondEngine(t)
	ctx := context.Background()
	pool, err := dockerenv.NewPool(ctx, []dockerenv.HostSpec{{URL: "", Workers: 1}, {URL: second, Workers: 4}}, 1, dockerenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	s, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Host() != second {
		t.Fatalf("Acquire gave %s, want the engine with the most free slots, %s", s.Host(), second)
	}
	runID := "test-pool-failover"
	t.Cleanup(func() { _, _ = pool.Sweep(context.Background(), sandbox.Selector{RunID: runID}) })
	if _, err := s.PrepareImage(ctx, testenv.BaseImage); err != nil {
		t.Fatal(err)
	}
	c, err := s.Start(ctx, sandbox.Spec{Image: testenv.BaseImage, RunID: runID, InstanceID: "pool__failover-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { secondEngine(t) }) // leave it running for the other tests

	stopSecondEngine(t)
	_, err = c.Exec(ctx, "echo hi", sandbox.ExecOptions{})
	if !errors.Is(err, sandbox.ErrBackendDown) {
		t.Fatalf("Exec on a stopped engine: err = %v, want one matching sandbox.ErrBackendDown", err)
	}
	s.Release(err)
	if got, want := pool.Capacity(), 1; got != want {
		t.Errorf("capacity with one engine down = %d, want %d", got, want)
	}
	if n := pool.Revive(ctx); n != 1 {
		t.Errorf("Revive with the engine still stopped: %d up, want 1", n)
	}
	if err := pool.Probe(ctx); err != nil {
		t.Errorf("Probe with one engine of two up = %v, want nil (the pool can take sandboxes)", err)
	}
	s2, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Host() == second {
		t.Errorf("Acquire chose the engine that is down")
	}
	s2.Release(nil)

	secondEngine(t)
	if n := pool.Revive(ctx); n != 2 {
		t.Errorf("Revive with the engine back: %d up, want 2", n)
	}
	if got, want := pool.Capacity(), 5; got != want {
		t.Errorf("capacity after Revive = %d, want %d", got, want)
	}
}

// With every engine down, Acquire fails with ErrNoEngine, which matches sandbox.ErrBackendDown,
// instead of waiting forever.
func TestPoolAllDown(t *testing.T) {
	second := secondEngine(t)
	ctx := context.Background()
	pool, err := dockerenv.NewPool(ctx, []dockerenv.HostSpec{{URL: second, Workers: 1}}, 1, dockerenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	t.Cleanup(func() { secondEngine(t) })
	s, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stopSecondEngine(t)
	s.Release(&dockerenv.EngineDownError{Host: second, Err: errors.New("test")})
	_, err = pool.Acquire(ctx)
	if !errors.Is(err, dockerenv.ErrNoEngine) || !errors.Is(err, sandbox.ErrBackendDown) {
		t.Errorf("Acquire = %v, want ErrNoEngine matching sandbox.ErrBackendDown", err)
	}
	// The runner probes while it waits: down, then back once the engine answers again.
	if err := pool.Probe(ctx); !errors.Is(err, sandbox.ErrBackendDown) || !strings.Contains(err.Error(), second) {
		t.Errorf("Probe with the engine stopped = %v, want an error matching sandbox.ErrBackendDown naming %s", err, second)
	}
	secondEngine(t)
	if err := pool.Probe(ctx); err != nil {
		t.Errorf("Probe with the engine back = %v, want nil", err)
	}
	s, err = pool.Acquire(ctx)
	if err != nil {
		t.Fatalf("Acquire after the engine came back: %v", err)
	}
	s.Release(nil)
}
