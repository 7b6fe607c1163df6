package family

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/results"
)

// Grading assets are the files a harness keeps outside its dataset rows and runs inside the
// instance's container (SWE-bench Pro's run_scripts/<instance_id>/run_script.sh and parser.py).
// They are never vendored: a family pins the harness's repository at a commit and commits a
// manifest of the files it needs there (path, size, sha256); an AssetStore downloads them from
// the repository at that commit on first use and caches them, checking every file against the
// manifest on every use, as the dataset cache does with hub files.

// AssetManifest lists the files of one repository at one commit.
type AssetManifest struct {
	Repo   string // OWNER/NAME on GitHub
	Commit string // a full commit id
	Files  map[string]AssetFile
}

// AssetFile is one file of an AssetManifest.
type AssetFile struct {
	Path   string // slash-separated, in the repository
	Size   int64
	SHA256 string // lowercase hex
}

var (
	commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)
	sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// ParseAssetManifest reads a manifest: comment lines (#), a "repo OWNER/NAME" and a "commit SHA"
// line, then one "PATH SIZE SHA256" line per file. Errors name the manifest and the line.
func ParseAssetManifest(r io.Reader, name string) (*AssetManifest, error) {
	m := &AssetManifest{Files: map[string]AssetFile{}}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "repo":
			m.Repo = f[1]
		case len(f) == 2 && f[0] == "commit" && commitRE.MatchString(f[1]):
			m.Commit = f[1]
		case len(f) == 3 && sha256RE.MatchString(f[2]):
			size, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || size < 0 || f[0] != path.Clean(f[0]) || strings.HasPrefix(f[0], "/") || strings.HasPrefix(f[0], "..") {
				return nil, fmt.Errorf("%s:%d: want PATH SIZE SHA256 with a relative path and a size, got %q", name, n, line)
			}
			m.Files[f[0]] = AssetFile{Path: f[0], Size: size, SHA256: f[2]}
		default:
			return nil, fmt.Errorf("%s:%d: want \"repo OWNER/NAME\", \"commit SHA\" (40 hex digits) or PATH SIZE SHA256, got %q", name, n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if m.Repo == "" || m.Commit == "" {
		return nil, fmt.Errorf("%s: no repo or commit line", name)
	}
	return m, nil
}

// Write writes the manifest in the form ParseAssetManifest reads, files sorted, after header
// (comment lines without their "# ").
func (m *AssetManifest) Write(w io.Writer, header []string) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	fmt.Fprintf(bw, "repo %s\ncommit %s\n", m.Repo, m.Commit)
	paths := make([]string, 0, len(m.Files))
	for p := range m.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		f := m.Files[p]
		fmt.Fprintf(bw, "%s %d %s\n", f.Path, f.Size, f.SHA256)
	}
	return bw.Flush()
}

// URL is where a file of the manifest is downloaded from: base (default
// https://raw.githubusercontent.com) / OWNER/NAME / COMMIT / PATH.
func (m *AssetManifest) URL(base, file string) string {
	if base == "" {
		base = "https://raw.githubusercontent.com"
	}
	return strings.TrimRight(base, "/") + "/" + m.Repo + "/" + m.Commit + "/" + file
}

// ErrAssetNotCached is wrapped by the error of an asset an offline store does not hold.
var ErrAssetNotCached = errors.New("not in the asset cache and offline")

// AssetStore fetches the files of asset manifests into a cache.
type AssetStore struct {
	// Dir is the cache: a file is kept as Dir/OWNER--NAME/COMMIT/PATH.
	Dir string
	// BaseURL stands in for https://raw.githubusercontent.com (a mirror, a test server).
	BaseURL string
	// Offline reads the cache only (HF_HUB_OFFLINE=1 sets it, as for datasets).
	Offline bool
	// HTTP downloads; nil: a client that gives up on a connection after 30 s and on a file after
	// 5 minutes.
	HTTP *http.Client
	// Retries after a network error, 429 or 5xx (default 3), RetryDelay before the first of them,
	// doubling (default 1 s).
	Retries    int
	RetryDelay time.Duration
}

// Path returns the cache path of a file of m.
func (s *AssetStore) Path(m *AssetManifest, file string) string {
	return filepath.Join(s.Dir, strings.ReplaceAll(m.Repo, "/", "--"), m.Commit, filepath.FromSlash(file))
}

// Read returns the content of file, a path of m: from the cache when it holds the file with the
// manifest's sha256, else downloaded from the repository at m's commit, checked and cached.
// Errors name the file, its URL and what to do.
func (s *AssetStore) Read(ctx context.Context, m *AssetManifest, file string) ([]byte, error) {
	f, ok := m.Files[file]
	if !ok {
		return nil, fmt.Errorf("%s is not among the files of %s at %s", file, m.Repo, m.Commit[:12])
	}
	p := s.Path(m, file)
	if data, err := os.ReadFile(p); err == nil {
		if checkAsset(data, f) == nil {
			return data, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("asset cache: %w", err)
	}
	url := m.URL(s.BaseURL, file)
	if s.Offline {
		return nil, fmt.Errorf("%s (%s): %w; run once with network (unset HF_HUB_OFFLINE) to fill %s", file, url, ErrAssetNotCached, s.Dir)
	}
	data, err := s.download(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	if err := checkAsset(data, f); err != nil {
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("asset cache: %w", err)
	}
	if err := results.WriteFileAtomic(p, data, 0o644); err != nil {
		return nil, fmt.Errorf("asset cache: %w", err)
	}
	return data, nil
}

func checkAsset(data []byte, f AssetFile) error {
	sum := sha256.Sum256(data)
	if int64(len(data)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
		return fmt.Errorf("%s: content (%d bytes, sha256 %s) is not the manifest's (%d bytes, sha256 %s)",
			f.Path, len(data), hex.EncodeToString(sum[:])[:12], f.Size, f.SHA256[:12])
	}
	return nil
}

const maxAssetSize = 16 << 20

func (s *AssetStore) download(ctx context.Context, url string) ([]byte, error) {
	client := s.HTTP
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   30 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
		}}
	}
	retries, delay := s.Retries, s.RetryDelay
	if retries == 0 {
		retries = 3
	}
	if delay == 0 {
		delay = time.Second
	}
	var lastErr error
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(delay):
			}
			delay *= 2
		}
		data, retry, err := fetchOnce(ctx, client, url)
		if err == nil {
			return data, nil
		}
		if !retry || ctx.Err() != nil {
			return nil, err
		}
		lastErr = err
	}
	return nil, fmt.Errorf("%w (after %d attempts)", lastErr, retries+1)
}

func fetchOnce(ctx context.Context, client *http.Client, url string) ([]byte, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, true, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return nil, retry, fmt.Errorf("answered %s", resp.Status)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(resp.Body, maxAssetSize+1)); err != nil {
		return nil, true, err
	}
	if buf.Len() > maxAssetSize {
		return nil, false, fmt.Errorf("larger than %d MiB", maxAssetSize>>20)
	}
	return buf.Bytes(), false, nil
}
