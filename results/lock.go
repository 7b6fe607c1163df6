package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockFile is the lock file inside an output directory. It holds a description of its holder;
// the lock itself is the kernel's (flock), so a process that dies releases it.
const LockFile = ".swebench-run.lock"

// Holder describes the process that holds an output directory.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Command []string  `json:"command"`
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "another process (it has not said which yet)"
	}
	return fmt.Sprintf("pid %d on %s since %s (%s)", h.PID, h.Host, h.Started.Local().Format(time.DateTime), strings.Join(h.Command, " "))
}

// LockedError says that another process holds the output directory.
type LockedError struct {
	Dir    string
	Holder Holder
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is in use by %s; wait for it to finish (or pass --wait), or use another output directory", e.Dir, e.Holder)
}

// ErrLockUnsupported is wrapped when the filesystem of an output directory cannot lock files.
var ErrLockUnsupported = errors.New("file locks are not supported here")

// LockOptions tune Lock.
type LockOptions struct {
	// Wait blocks until the holder releases the directory (or ctx ends) instead of failing
	// with a *LockedError. OnWait, when set, is called once with the holder before waiting.
	Wait   bool
	OnWait func(Holder)
	// Warn receives a warning about the filesystem (a network filesystem, where a lock may not
	// exclude processes of other machines).
	Warn func(string)
}

// Lock is an exclusive lock on an output directory, held for the life of a run, a sweep, an
// eval, a merge or a submission that writes the directory.
type Lock struct {
	f    *os.File
	path string
}

// LockDir takes the exclusive lock of dir (created if needed). With another process holding it,
// it returns a *LockedError naming the holder, or waits when opts.Wait is set.
func LockDir(ctx context.Context, dir string, opts LockOptions) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	if fs, network := networkFilesystem(dir); network && opts.Warn != nil {
		opts.Warn(fmt.Sprintf("%s is on a network filesystem (%s): its lock keeps out other runs on this machine, but other machines only if the file server supports locks; do not run on it from two machines at once", dir, fs))
	}
	path := filepath.Join(dir, LockFile)
	waited := false
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w: keep the output directory on a local filesystem", path, err)
		}
		if ok {
			// The holder before us may have removed the file after we opened it: our lock is on
			// a file nobody else will open again. Start over with the file now at path.
			if sameFile(f, path) {
				l := &Lock{f: f, path: path}
				if err := l.describe(); err != nil {
					l.Unlock()
					return nil, err
				}
				return l, nil
			}
			f.Close()
			continue
		}
		holder := readHolder(path)
		f.Close()
		if !opts.Wait {
			return nil, &LockedError{Dir: dir, Holder: holder}
		}
		if !waited && opts.OnWait != nil {
			opts.OnWait(holder)
		}
		waited = true
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// describe writes the holder description into the lock file.
func (l *Lock) describe() error {
	host, _ := os.Hostname()
	data, err := json.Marshal(Holder{PID: os.Getpid(), Host: host, Started: time.Now().UTC().Truncate(time.Second), Command: os.Args})
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	if _, err := l.f.WriteAt(append(data, '\n'), 0); err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	return l.f.Sync()
}

// Unlock removes the lock file and releases the lock. A crash releases the lock as well (the
// kernel does); the file it leaves is harmless.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	// Remove before unlocking, so that a waiter never sees an empty file while we hold it.
	err := os.Remove(l.path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// readHolder reads the holder's description, retrying briefly: the holder writes it right after
// taking the lock.
func readHolder(path string) Holder {
	var h Holder
	for i := 0; i < 10; i++ {
		data, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(data, &h) == nil && h.PID != 0 {
			return h
		}
		time.Sleep(20 * time.Millisecond)
	}
	return Holder{}
}
