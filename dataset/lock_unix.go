//go:build unix

package dataset

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on p (created if needed), so that processes sharing
// a cache (shards started together) download each file once.
func lockFile(p string) (unlock func(), err error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
