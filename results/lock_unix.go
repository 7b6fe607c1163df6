//go:build unix

package results

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive flock on f without blocking: false when another open file holds it.
func tryLock(f *os.File) (bool, error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EINVAL):
			return false, fmt.Errorf("%w (%v)", ErrLockUnsupported, err)
		default:
			return false, err
		}
	}
}

// sameFile reports whether f is still the file at path.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	if err != nil {
		return false
	}
	return os.SameFile(a, b)
}

// Filesystems on which a lock may not exclude processes of other machines (statfs f_type).
var networkFilesystems = map[int64]string{
	0x6969:     "nfs",
	0x517b:     "smb",
	0xff534d42: "cifs",
	0xfe534d42: "smb2",
	0x00c36400: "ceph",
	0x65735546: "fuse",
	0x01021997: "9p",
	0x5346414f: "afs",
	0x0bd00bd0: "lustre",
	0x47504653: "gpfs",
	0x013111a8: "ibrix",
	0x1161970:  "gfs2",
}

// networkFilesystem names dir's filesystem when it is a network (or FUSE) filesystem.
func networkFilesystem(dir string) (string, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return "", false
	}
	name, ok := networkFilesystems[int64(st.Type)]
	return name, ok
}
