package corpus

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// MissingError lists corpus files that are neither in the cache nor in a local mirror.
type MissingError struct {
	Dir    string // the cache
	Mirror string // "" when there is none
	Files  []*FileError
}

func (e *MissingError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "test corpus file %s is not in the cache %s", e.Files[0].Path, e.Dir)
	if len(e.Files) > 1 {
		fmt.Fprintf(&b, " (nor %d more)", len(e.Files)-1)
	}
	b.WriteString("; run `make testdata`")
	if e.Mirror != "" {
		fmt.Fprintf(&b, " (%v)", e.Files[0].Err)
	}
	return b.String()
}

// ensureMu serialises the fills of one process (tests of a package call Ensure in parallel).
var ensureMu sync.Mutex

// Ensure returns the cache path of p, a corpus file or directory ("" for the root), after
// copying the files it lacks from the local mirror (see MirrorDir; root is the repository root).
// It never downloads: that is `make testdata`'s job. The error wraps ErrNotListed when p is not
// in the manifest, and is a *MissingError when files cannot be had.
func Ensure(ctx context.Context, root, p string) (string, error) {
	m := Default()
	entries, err := m.Under(p)
	if err != nil {
		return "", err
	}
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	f := &Filler{Dir: dir, Offline: true}
	missing := false
	for _, e := range entries {
		if !f.present(e) {
			missing = true
			break
		}
	}
	if missing {
		ensureMu.Lock()
		defer ensureMu.Unlock()
		if f.Mirror, err = MirrorDir(root); err != nil {
			return "", err
		}
		res, _ := f.Fill(ctx, m, entries)
		if len(res.Failed) > 0 {
			return "", &MissingError{Dir: dir, Mirror: f.Mirror, Files: res.Failed}
		}
	}
	return f.Path(p), nil
}
