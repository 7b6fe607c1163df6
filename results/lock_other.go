//go:build !unix

package results

import (
	"fmt"
	"os"
)

// tryLock fails where flock is unavailable: two runs on one output directory cannot be kept apart.
func tryLock(*os.File) (bool, error) {
	return false, fmt.Errorf("%w on this operating system", ErrLockUnsupported)
}

func sameFile(*os.File, string) bool { return true }

func networkFilesystem(string) (string, bool) { return "", false }
