package corpus

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/swebench-run/swebench-run/results"
)

// Environment variables that place the cache, the mirror and the origins.
const (
	EnvCache  = "SWEBENCH_RUN_TESTDATA"        // the cache directory
	EnvMirror = "SWEBENCH_RUN_TESTDATA_MIRROR" // a local copy of the corpus to fill the cache from
	EnvOrigin = "SWEBENCH_RUN_TESTDATA_ORIGIN" // a base URL standing in for every origin host
)

// CacheDir returns the cache: $SWEBENCH_RUN_TESTDATA, else $XDG_CACHE_HOME/swebench-run/testdata,
// else ~/.cache/swebench-run/testdata.
func CacheDir() (string, error) {
	if d := os.Getenv(EnvCache); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "swebench-run", "testdata"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the test corpus (set %s): %w", EnvCache, err)
	}
	return filepath.Join(home, ".cache", "swebench-run", "testdata"), nil
}

// MirrorDir returns the local mirror of the corpus: $SWEBENCH_RUN_TESTDATA_MIRROR (which must
// exist), else ../shared/fixtures beside the repository root when it is a directory, else "".
func MirrorDir(root string) (string, error) {
	if d := os.Getenv(EnvMirror); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%s=%s: not a directory; point it at a copy of the test corpus or unset it", EnvMirror, d)
		}
		return abs, nil
	}
	if root == "" {
		return "", nil
	}
	d, err := filepath.Abs(filepath.Join(root, "..", "shared", "fixtures"))
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return d, nil
	}
	return "", nil
}

// FileError is a corpus file that could not be had: its path, where it was looked for and why.
type FileError struct {
	Path   string
	Origin string
	Err    error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s (origin %s): %v", e.Path, e.Origin, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// ErrChecksum is wrapped by the error of a file whose bytes are not the manifest's.
var ErrChecksum = errors.New("content does not match the manifest")

// Result counts what Fill did, file by file.
type Result struct {
	Cached, Mirrored, Downloaded, Generated int
	Failed                                  []*FileError
}

// Filler fills a cache directory with corpus files.
type Filler struct {
	Dir    string       // the cache
	Mirror string       // a directory laid out as the corpus, tried first; "" for none
	Origin string       // base URL standing in for every origin host ("" = the origins themselves)
	Client *http.Client // nil: gives up on a connection after 10 s, on a file after 5 minutes
	Jobs   int          // files fetched at once (default 4)
	// Offline fills from the cache and the mirror only, never downloading.
	Offline bool
	// Verify rehashes files already in the cache (otherwise their size is trusted: every file
	// was verified before it was written).
	Verify bool
	// Retries of a download after a network error or a 5xx/429 answer (default 2), RetryDelay
	// before the first of them, doubling (default 1 s).
	Retries    int
	RetryDelay time.Duration

	mu   sync.Mutex
	down map[string]error // origin host → the network error that put it out of use
}

// Fill makes every entry (and the inputs of derived ones) present and verified in the cache.
// Failures are collected in Result.Failed; the error joins them.
func (f *Filler) Fill(ctx context.Context, m *Manifest, entries []Entry) (Result, error) {
	var (
		res   Result
		resMu sync.Mutex
	)
	record := func(e Entry, how source, err error) {
		resMu.Lock()
		defer resMu.Unlock()
		if err != nil {
			res.Failed = append(res.Failed, &FileError{Path: e.Path, Origin: e.Origin, Err: err})
			return
		}
		switch how {
		case cached:
			res.Cached++
		case mirrored:
			res.Mirrored++
		case downloaded:
			res.Downloaded++
		case generated:
			res.Generated++
		}
	}
	all := m.WithInputs(entries)
	g, gctx := errgroup.WithContext(ctx)
	jobs := f.Jobs
	if jobs <= 0 {
		jobs = 4
	}
	g.SetLimit(jobs)
	var derived []Entry
	for _, e := range all {
		if e.Input() != "" {
			derived = append(derived, e)
			continue
		}
		g.Go(func() error {
			how, err := f.fetch(gctx, e)
			record(e, how, err)
			return nil
		})
	}
	_ = g.Wait()
	for _, e := range derived {
		how, err := f.derive(ctx, m, e)
		record(e, how, err)
	}
	slices.SortFunc(res.Failed, func(a, b *FileError) int { return strings.Compare(a.Path, b.Path) })
	errs := make([]error, len(res.Failed))
	for k, fe := range res.Failed {
		errs[k] = fe
	}
	return res, errors.Join(errs...)
}

// Path returns the cache path of a corpus path.
func (f *Filler) Path(p string) string { return filepath.Join(f.Dir, filepath.FromSlash(p)) }

// present reports whether the cache holds e, verified (by size, and by sha256 with Verify).
func (f *Filler) present(e Entry) bool {
	fi, err := os.Stat(f.Path(e.Path))
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != e.Size {
		return false
	}
	if !f.Verify {
		return true
	}
	data, err := os.ReadFile(f.Path(e.Path))
	return err == nil && check(e, data) == nil
}

// source is where a file of the cache came from.
type source int

const (
	cached source = iota
	mirrored
	downloaded
	generated
)

func (f *Filler) fetch(ctx context.Context, e Entry) (source, error) {
	if f.present(e) {
		return cached, nil
	}
	var errs []error
	if f.Mirror != "" {
		src := filepath.Join(f.Mirror, filepath.FromSlash(e.Path))
		data, err := os.ReadFile(src)
		if err == nil {
			err = check(e, data)
		}
		if err == nil {
			return mirrored, f.write(e, data)
		}
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("not in the mirror %s", f.Mirror)
		} else {
			err = fmt.Errorf("mirror %s: %w", src, err)
		}
		errs = append(errs, err)
	}
	if f.Offline {
		if len(errs) == 0 {
			errs = append(errs, errors.New("not in the cache, and no mirror"))
		}
		return 0, joinLine(errs)
	}
	data, err := f.download(ctx, e, e.Size)
	if err == nil {
		err = check(e, data)
	}
	if err != nil {
		return 0, joinLine(append(errs, err))
	}
	return downloaded, f.write(e, data)
}

func (f *Filler) derive(ctx context.Context, m *Manifest, e Entry) (source, error) {
	if f.present(e) {
		return cached, nil
	}
	in, _ := m.Lookup(e.Input())
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if !f.present(in) {
		return 0, fmt.Errorf("not generated: its input %s is not in the cache", in.Path)
	}
	data, err := os.ReadFile(f.Path(in.Path))
	if err == nil {
		err = check(in, data)
	}
	if err != nil {
		return 0, fmt.Errorf("input %s: %w", in.Path, err)
	}
	out, err := ParquetToJSONL(in.Path, data)
	if err == nil {
		err = check(e, out)
	}
	if err != nil {
		return 0, fmt.Errorf("generate from %s: %w", in.Path, err)
	}
	return generated, f.write(e, out)
}

func (f *Filler) write(e Entry, data []byte) error {
	dst := f.Path(e.Path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return results.WriteFileAtomic(dst, data, 0o644)
}

// lineErrors joins errors on one line, each still matched by errors.Is and errors.As.
type lineErrors []error

func (l lineErrors) Error() string {
	s := make([]string, len(l))
	for k, err := range l {
		s[k] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (l lineErrors) Unwrap() []error { return l }

func joinLine(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return lineErrors(errs)
}

// HostDownError is the error of a download that was not tried because the origin's host did
// not answer for an earlier file of the same fill.
type HostDownError struct {
	Host string
	Err  error // the network error of that earlier file
}

func (e *HostDownError) Error() string {
	return fmt.Sprintf("not tried: %s did not answer for an earlier file (%v)", e.Host, e.Err)
}

func (e *HostDownError) Unwrap() error { return e.Err }

// check verifies data against e's size and sha256.
func check(e Entry, data []byte) error {
	if int64(len(data)) != e.Size {
		return fmt.Errorf("%w: %d bytes, want %d", ErrChecksum, len(data), e.Size)
	}
	if got := SHA256(data); got != e.SHA256 {
		return fmt.Errorf("%w: sha256 %s, want %s", ErrChecksum, got, e.SHA256)
	}
	return nil
}

// URL returns where e is downloaded from: its origin, or with Origin set, the origin's host and
// path under that base (https://HOST/PATH → BASE/HOST/PATH).
func (f *Filler) URL(e Entry) (string, error) {
	if f.Origin == "" {
		return e.Origin, nil
	}
	u, err := url.Parse(e.Origin)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(f.Origin, "/") + "/" + u.Host + u.EscapedPath(), nil
}

// Download fetches e from its origin (through Origin when set), unverified: for a new entry.
func (f *Filler) Download(ctx context.Context, e Entry) ([]byte, error) {
	return f.download(ctx, e, maxNew)
}

// maxNew bounds the size of a file downloaded for a new entry.
const maxNew = 1 << 30

// SHA256 returns the lowercase hex sha256 of data.
func SHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// download fetches e, failing when it is larger than limit bytes.
func (f *Filler) download(ctx context.Context, e Entry, limit int64) ([]byte, error) {
	src, err := f.URL(e)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(src)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	downErr := f.down[u.Host]
	f.mu.Unlock()
	if downErr != nil {
		return nil, &HostDownError{Host: u.Host, Err: downErr}
	}
	what := "download"
	if src != e.Origin {
		what += " " + src
	}
	retries := f.Retries
	if retries == 0 {
		retries = 2
	}
	delay := f.RetryDelay
	if delay == 0 {
		delay = time.Second
	}
	for attempt := 0; ; attempt++ {
		data, retry, err := f.get(ctx, src, limit)
		if err == nil {
			return data, nil
		}
		if !retry || attempt >= retries || ctx.Err() != nil {
			if unreachable(err) {
				f.mu.Lock()
				if f.down == nil {
					f.down = map[string]error{}
				}
				f.down[u.Host] = err
				f.mu.Unlock()
			}
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay << attempt):
		}
	}
}

// unreachable reports whether err says the host cannot be reached at all (no name, no route, no
// connection): retrying, or trying its other files, would only wait for the same answer.
func unreachable(err error) bool {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	return errors.As(err, &dnsErr) || (errors.As(err, &opErr) && opErr.Op == "dial")
}

// defaultClient gives up on a host that does not accept a connection within 10 s (a firewall
// that drops packets), and on a file that takes more than 5 minutes.
var defaultClient = &http.Client{
	Timeout: 5 * time.Minute,
	Transport: func() http.RoundTripper {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
		return t
	}(),
}

// get fetches src, failing when it has more than limit bytes; retry tells whether another
// attempt may help.
func (f *Filler) get(ctx context.Context, src string, limit int64) (data []byte, retry bool, err error) {
	client := f.Client
	if client == nil {
		client = defaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, !unreachable(err), err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
		return nil, retry, fmt.Errorf("HTTP %s", resp.Status)
	}
	var b bytes.Buffer
	n, err := io.Copy(&b, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, true, err
	}
	if n > limit {
		return nil, false, fmt.Errorf("%w: more than %d bytes", ErrChecksum, limit)
	}
	return b.Bytes(), false, nil
}
