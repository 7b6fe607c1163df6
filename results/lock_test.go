package results

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestLockExcludesAndNamesTheHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := LockDir(context.Background(), dir, LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDir(context.Background(), dir, LockOptions{})
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second lock: err = %v, want a *LockedError", err)
	}
	if le.Holder.PID != os.Getpid() || le.Holder.Host == "" || len(le.Holder.Command) == 0 || le.Holder.Started.IsZero() {
		t.Errorf("holder = %+v, want this process with host, command and start time", le.Holder)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after Unlock: %v", err)
	}
	l2, err := LockDir(context.Background(), dir, LockOptions{})
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	l2.Unlock()
}

func TestLockWaitsForTheHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := LockDir(context.Background(), dir, LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan Holder, 1)
	got := make(chan error, 1)
	go func() {
		l2, err := LockDir(context.Background(), dir, LockOptions{Wait: true, OnWait: func(h Holder) { waiting <- h }})
		if err == nil {
			l2.Unlock()
		}
		got <- err
	}()
	if h := <-waiting; h.PID != os.Getpid() {
		t.Errorf("waiting for %+v, want this process", h)
	}
	select {
	case err := <-got:
		t.Fatalf("the waiter got the lock while it was held (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	l.Unlock()
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

func TestLockWaitEndsWithContext(t *testing.T) {
	dir := t.TempDir()
	l, err := LockDir(context.Background(), dir, LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LockDir(ctx, dir, LockOptions{Wait: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// A holder killed with SIGKILL leaves its lock file behind, but not its lock.
func TestLockOfAKilledHolderIsFree(t *testing.T) {
	if os.Getenv("RESULTS_LOCK_HOLDER") != "" {
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$")
	cmd.Env = append(os.Environ(), "RESULTS_LOCK_HOLDER="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("holder process said %q (%v)", line, err)
	}
	_, err = LockDir(context.Background(), dir, LockOptions{})
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.PID != cmd.Process.Pid {
		t.Fatalf("err = %v, want held by pid %d", err, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Fatalf("the killed holder's lock file: %v", err)
	}
	l, err := LockDir(context.Background(), dir, LockOptions{})
	if err != nil {
		t.Fatalf("lock after the holder was killed: %v", err)
	}
	l.Unlock()
}

// TestLockHolderProcess is the holder of TestLockOfAKilledHolderIsFree, run as a subprocess.
func TestLockHolderProcess(t *testing.T) {
	dir := os.Getenv("RESULTS_LOCK_HOLDER")
	if dir == "" {
		return // only a subprocess of TestLockOfAKilledHolderIsFree holds the lock
	}
	if _, err := LockDir(context.Background(), dir, LockOptions{}); err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Minute)
	os.Exit(0)
}
