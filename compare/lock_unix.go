//go:build unix

package compare

import (
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on f until unlock, so that two processes appending to
// one history file take turns.
func lock(f *os.File) (unlock func(), err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
