// Package atomicfile writes files so that a crash at any moment leaves either the old or the new
// version of a file, never a torn one. Every package that writes files the user keeps (the output
// directory, caches) goes through it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in the same directory, fsyncs it, renames
// it over path, then fsyncs the directory. The directory must exist (an output directory that
// vanished is an error, not something to recreate); MkdirWrite creates it.
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// MkdirWrite is Write after creating path's directory if needed (caches).
func MkdirWrite(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return Write(path, data, perm)
}

// File is a file written atomically as a stream: written through a temporary file in the same
// directory, it becomes path at Commit; Discard (or a failed Commit) leaves path as it was.
type File struct {
	tmp  *os.File
	path string
	perm os.FileMode
	done bool
}

// Create starts writing path. The directory must exist.
func Create(path string, perm os.FileMode) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &File{tmp: tmp, path: path, perm: perm}, nil
}

// Write appends p to the file.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.tmp.Write(p)
	if err != nil {
		err = fmt.Errorf("write %s: %w", f.path, err)
	}
	return n, err
}

// Commit fsyncs the file, renames it over path and fsyncs the directory.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("write %s: already committed or discarded", f.path)
	}
	f.done = true
	name := f.tmp.Name()
	err := f.tmp.Chmod(f.perm)
	if err == nil {
		err = f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, f.path)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return syncDir(filepath.Dir(f.path))
}

// Discard removes what was written; path is left as it was. It does nothing after Commit.
func (f *File) Discard() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}
