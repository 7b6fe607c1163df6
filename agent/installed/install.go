package installed

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Install is a prepared install: the tar stream the runner writes into every sandbox and
// unpacks at the install directory, and the checksum it was verified against.
type Install struct {
	// Tar is an uncompressed tar stream of the install's files.
	Tar []byte
	// SHA256 is the checksum verified (of the archive's bytes, or of a directory's canonical
	// tar, which is Tar itself).
	SHA256 string
	// Source is the path on the host.
	Source string
}

// ChecksumError is an install whose SHA-256 is not the pinned one (or no pin was given).
type ChecksumError struct {
	Path, Want, Got string
}

func (e *ChecksumError) Error() string {
	if e.Want == "" {
		return fmt.Sprintf("agent.installed.install.sha256 is empty: the install %s has sha256 %s; pin it with agent.installed.install.sha256=%s", e.Path, e.Got, e.Got)
	}
	return fmt.Sprintf("agent.installed.install %s: sha256 is %s, but agent.installed.install.sha256 pins %s: the install changed since it was pinned; check it, then pin the new checksum", e.Path, e.Got, e.Want)
}

// maxInstall bounds an install (it is held in memory and written into every sandbox).
const maxInstall = 2 << 30

// Prepare reads the install at path (a directory, or a .tar, .tar.gz or .tgz archive),
// verifies its SHA-256 against want (hex; "" is an error that names the checksum to pin) and
// returns it ready to copy. A directory's checksum is that of its canonical tar: its files in
// path order, with their modes and contents and nothing else (no owners, no times), as
// Checksum computes it.
func Prepare(path, want string) (*Install, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("agent.installed.install.path: %w", err)
	}
	in := &Install{Source: path}
	var sum string
	if fi.IsDir() {
		if in.Tar, err = canonicalTar(path); err != nil {
			return nil, fmt.Errorf("agent.installed.install.path %s: %w", path, err)
		}
		sum = hexSum(in.Tar)
	} else {
		if fi.Size() > maxInstall {
			return nil, fmt.Errorf("agent.installed.install.path %s: %d bytes, over the bound of %d", path, fi.Size(), int64(maxInstall))
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("agent.installed.install.path: %w", err)
		}
		sum = hexSum(data)
		if in.Tar, err = asTar(path, data); err != nil {
			return nil, fmt.Errorf("agent.installed.install.path %s: %w", path, err)
		}
	}
	in.SHA256 = sum
	if !strings.EqualFold(strings.TrimPrefix(want, "sha256:"), sum) {
		return nil, &ChecksumError{Path: path, Want: want, Got: sum}
	}
	return in, nil
}

// Checksum is the SHA-256 Prepare verifies for the install at path.
func Checksum(path string) (string, error) {
	_, err := Prepare(path, "-")
	var ce *ChecksumError
	if errors.As(err, &ce) {
		return ce.Got, nil
	}
	return "", err
}

func hexSum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// asTar checks an archive and returns it as an uncompressed tar stream.
func asTar(path string, data []byte) ([]byte, error) {
	name := strings.ToLower(path)
	switch {
	case strings.HasSuffix(name, ".tar.gz"), strings.HasSuffix(name, ".tgz"):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		out, err := io.ReadAll(io.LimitReader(zr, maxInstall+1))
		if err != nil {
			return nil, err
		}
		if len(out) > maxInstall {
			return nil, fmt.Errorf("unpacks to more than %d bytes", int64(maxInstall))
		}
		data = out
	case strings.HasSuffix(name, ".tar"):
	default:
		return nil, errors.New("not a directory, .tar, .tar.gz or .tgz")
	}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, fmt.Errorf("not a valid tar archive: %w", err)
		}
		if clean := filepath.ToSlash(filepath.Clean(h.Name)); filepath.IsAbs(h.Name) || clean == ".." || strings.HasPrefix(clean, "../") {
			return nil, fmt.Errorf("entry %q leaves the install directory", h.Name)
		}
	}
}

// canonicalTar writes dir's regular files, directories and symbolic links in path order with
// their permission bits only.
func canonicalTar(dir string) ([]byte, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		h := &tar.Header{Name: rel, Mode: int64(fi.Mode().Perm()), Format: tar.FormatPAX}
		switch {
		case fi.IsDir():
			h.Typeflag, h.Name = tar.TypeDir, rel+"/"
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return nil, err
			}
			h.Typeflag, h.Linkname = tar.TypeSymlink, target
		case fi.Mode().IsRegular():
			h.Typeflag, h.Size = tar.TypeReg, fi.Size()
		default:
			continue // sockets, devices: not part of an install
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			f, err := os.Open(p)
			if err != nil {
				return nil, err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			if err != nil {
				return nil, err
			}
		}
		if buf.Len() > maxInstall {
			return nil, fmt.Errorf("over the bound of %d bytes", int64(maxInstall))
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
