package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/internal/atomicfile"
)

// Errors of the hub client, for errors.Is.
var (
	ErrNotCached    = errors.New("not in the local cache")
	ErrUnauthorized = errors.New("the hub refused access")
	ErrNotFound     = errors.New("not found on the hub")
	ErrChecksum     = errors.New("checksum mismatch")
)

// HubError is an HTTP error answer from the hub. It never carries the token.
type HubError struct {
	What   string // what was asked for, e.g. "dataset princeton-nlp/SWE-bench_Verified"
	URL    string
	Status int
	Hint   string

	retryAfter time.Duration
}

func (e *HubError) Error() string {
	msg := fmt.Sprintf("%s: %s answered %d %s", e.What, e.URL, e.Status, http.StatusText(e.Status))
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

func (e *HubError) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	}
	return false
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// hubClient downloads dataset files from a HuggingFace hub (or a server speaking its API) into
// the cache. See the package documentation for the cache layout.
type hubClient struct {
	endpoint   string
	token      string
	root       string // <cache>/swebench-run/datasets
	offline    bool
	http       *http.Client
	progress   io.Writer
	retries    int
	retryDelay time.Duration
}

// hubFile is one downloaded file of a split.
type hubFile struct {
	Path   string `json:"path"`          // path in the repo (or the conversion URL's tail)
	URL    string `json:"url,omitempty"` // set for auto-converted parquet files
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	local  string
}

// hubSnapshot is the cached record of one split at one commit.
type hubSnapshot struct {
	Repo      string    `json:"repo"`
	SHA       string    `json:"sha"`
	Config    string    `json:"config"`
	Split     string    `json:"split"`
	Converted bool      `json:"converted,omitempty"` // files from the parquet-conversion listing
	Files     []hubFile `json:"files"`
	Fetched   time.Time `json:"fetched"`
}

type hubInfo struct {
	SHA      string `json:"sha"`
	Siblings []struct {
		RFilename string `json:"rfilename"`
		Size      int64  `json:"size"`
		LFS       *struct {
			SHA256 string `json:"sha256"`
			Size   int64  `json:"size"`
		} `json:"lfs"`
	} `json:"siblings"`
}

func (h *hubClient) repoDir(repo string) string {
	return filepath.Join(h.root, strings.ReplaceAll(repo, "/", "--"))
}

func (h *hubClient) snapshotPath(repo, sha, config, split string) string {
	return filepath.Join(h.repoDir(repo), "snapshots", sha, url.PathEscape(config)+"--"+url.PathEscape(split)+".json")
}

// fetch makes the split's parquet files of repo at revision (default "main") available locally,
// downloading what the cache lacks, and returns them with their sha256s.
func (h *hubClient) fetch(ctx context.Context, repo, config, split, revision string) (*hubSnapshot, error) {
	return h.fetchFiles(ctx, repo, config, split, revision, nil)
}

// fetchFiles is fetch; with files (path.Match patterns of repository paths, e.g. "go/*.jsonl")
// it takes the repository's files that match them instead of a split's parquet files.
func (h *hubClient) fetchFiles(ctx context.Context, repo, config, split, revision string, files []string) (*hubSnapshot, error) {
	if files != nil {
		config, split = "files", strings.Join(files, ";")
	}
	if revision == "" {
		revision = "main"
	}
	what := fmt.Sprintf("dataset %s (split %s, revision %s)", repo, split, revision)
	// A commit sha that is cached needs no network at all.
	if shaRE.MatchString(revision) {
		if snap, err := h.cached(repo, revision, config, split); err == nil {
			return snap, nil
		}
	}
	if h.offline {
		sha := revision
		if !shaRE.MatchString(revision) {
			b, err := os.ReadFile(h.refPath(repo, revision))
			if err != nil {
				return nil, fmt.Errorf("%s: offline mode (HF_HUB_OFFLINE=1) and the revision was never resolved in the cache at %s; run once online (without HF_HUB_OFFLINE) to download it: %w",
					what, h.repoDir(repo), ErrNotCached)
			}
			sha = strings.TrimSpace(string(b))
		}
		snap, err := h.cached(repo, sha, config, split)
		if err != nil {
			return nil, fmt.Errorf("%s: offline mode (HF_HUB_OFFLINE=1): commit %s: %w; run once online to download it", what, sha, err)
		}
		return snap, nil
	}
	info, err := h.info(ctx, repo, revision)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.MkdirWrite(h.refPath(repo, revision), []byte(info.SHA+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if snap, err := h.cached(repo, info.SHA, config, split); err == nil {
		return snap, nil
	}
	snap := &hubSnapshot{Repo: repo, SHA: info.SHA, Config: config, Split: split}
	var splits []string
	prefixes := []string{"data/"}
	if config != "default" {
		prefixes = []string{config + "/", "data/" + config + "/"}
	}
	seenSplit := map[string]bool{}
	for _, s := range info.Siblings {
		if files != nil {
			if matchAny(files, s.RFilename) {
				f := hubFile{Path: s.RFilename, Size: s.Size}
				if s.LFS != nil {
					f.SHA256, f.Size = s.LFS.SHA256, s.LFS.Size
				}
				snap.Files = append(snap.Files, f)
			}
			continue
		}
		dir, base := path.Split(s.RFilename)
		if !slices.Contains(prefixes, dir) || !strings.HasSuffix(base, ".parquet") {
			continue
		}
		name := strings.TrimSuffix(base, ".parquet")
		if i := strings.IndexByte(name, '-'); i >= 0 {
			name = name[:i]
		}
		if !seenSplit[name] {
			seenSplit[name] = true
			splits = append(splits, name)
		}
		if name != split {
			continue
		}
		f := hubFile{Path: s.RFilename, Size: s.Size}
		if s.LFS != nil {
			f.SHA256, f.Size = s.LFS.SHA256, s.LFS.Size
		}
		snap.Files = append(snap.Files, f)
	}
	sort.Slice(snap.Files, func(a, b int) bool { return snap.Files[a].Path < snap.Files[b].Path })
	base := h.repoDir(repo)
	if len(snap.Files) == 0 && files != nil {
		return nil, fmt.Errorf("dataset %s at commit %s has no file matching %s: the dataset's layout changed; pin an older revision with hf:%s@REVISION", repo, info.SHA, strings.Join(files, ", "), repo)
	}
	if len(snap.Files) == 0 {
		urls, err := h.converted(ctx, repo, config, split)
		if err != nil {
			sort.Strings(splits)
			hint := "the repository has no parquet files under data/ for any split"
			if len(splits) > 0 {
				hint = "splits with parquet files: " + strings.Join(splits, ", ")
			}
			return nil, fmt.Errorf("%s: no data/%s-*.parquet at commit %s (%s), and the parquet-conversion listing failed: %w", what, split, info.SHA, hint, err)
		}
		snap.Converted = true
		for k, u := range urls {
			snap.Files = append(snap.Files, hubFile{Path: fmt.Sprintf("parquet/%s/%s/%d.parquet", config, split, k), URL: u})
		}
	}
	for k := range snap.Files {
		f := &snap.Files[k]
		f.local = filepath.Join(base, "snapshots", info.SHA, "files", filepath.FromSlash(f.Path))
		u := f.URL
		if u == "" {
			u = h.endpoint + "/datasets/" + repo + "/resolve/" + info.SHA + "/" + escapePath(f.Path)
		}
		sum, size, err := h.download(ctx, u, f.local, *f, repo+"/"+f.Path)
		if err != nil {
			return nil, err
		}
		f.SHA256, f.Size = sum, size
	}
	snap.Fetched = time.Now().UTC()
	data, _ := json.MarshalIndent(snap, "", "  ")
	if err := atomicfile.MkdirWrite(h.snapshotPath(repo, info.SHA, config, split), data, 0o644); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return snap, nil
}

// matchAny reports whether name matches one of the path.Match patterns.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for k := range parts {
		parts[k] = url.PathEscape(parts[k])
	}
	return strings.Join(parts, "/")
}

func (h *hubClient) refPath(repo, revision string) string {
	return filepath.Join(h.repoDir(repo), "refs", url.PathEscape(revision))
}

// cached returns the snapshot of a split at commit sha when the cache holds it and every file
// still has its recorded size and sha256.
func (h *hubClient) cached(repo, sha, config, split string) (*hubSnapshot, error) {
	p := h.snapshotPath(repo, sha, config, split)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("split %s/%s not cached (no %s): %w", config, split, p, ErrNotCached)
	}
	var snap hubSnapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, fmt.Errorf("cache record %s is corrupt (delete it): %v: %w", p, err, ErrNotCached)
	}
	for k := range snap.Files {
		f := &snap.Files[k]
		f.local = filepath.Join(h.repoDir(repo), "snapshots", sha, "files", filepath.FromSlash(f.Path))
		sum, size, err := hashFile(f.local)
		if err != nil {
			return nil, fmt.Errorf("cached file %s: %v: %w", f.local, err, ErrNotCached)
		}
		if size != f.Size || sum != f.SHA256 {
			return nil, fmt.Errorf("cached file %s changed since download (sha256 %s, want %s): %w", f.local, sum, f.SHA256, ErrNotCached)
		}
	}
	return &snap, nil
}

// info asks the hub which commit revision is and which files it has.
func (h *hubClient) info(ctx context.Context, repo, revision string) (*hubInfo, error) {
	u := h.endpoint + "/api/datasets/" + repo
	if revision != "main" {
		u += "/revision/" + url.PathEscape(revision)
	}
	u += "?blobs=true"
	what := fmt.Sprintf("dataset %s at revision %s", repo, revision)
	var info hubInfo
	err := h.getJSON(ctx, u, what, &info)
	if err != nil {
		return nil, err
	}
	if !shaRE.MatchString(info.SHA) {
		return nil, fmt.Errorf("%s: the hub's answer has no commit sha (got %q)", what, info.SHA)
	}
	return &info, nil
}

func (h *hubClient) converted(ctx context.Context, repo, config, split string) ([]string, error) {
	u := h.endpoint + "/api/datasets/" + repo + "/parquet/" + url.PathEscape(config) + "/" + url.PathEscape(split)
	var urls []string
	if err := h.getJSON(ctx, u, fmt.Sprintf("parquet conversion of %s %s/%s", repo, config, split), &urls); err != nil {
		return nil, err
	}
	if len(urls) == 0 {
		return nil, fmt.Errorf("parquet conversion of %s %s/%s lists no files", repo, config, split)
	}
	return urls, nil
}

func (h *hubClient) getJSON(ctx context.Context, u, what string, v any) error {
	var body []byte
	err := h.retry(ctx, what, func() (bool, error) {
		resp, err := h.do(ctx, u, nil)
		if err != nil {
			return true, fmt.Errorf("%s: %w", what, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return retryable(resp.StatusCode), h.statusError(what, u, resp)
		}
		body, err = io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return true, fmt.Errorf("%s: reading the answer: %w", what, err)
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %s did not answer valid JSON: %w", what, u, err)
	}
	return nil
}

func (h *hubClient) statusError(what, u string, resp *http.Response) error {
	e := &HubError{What: what, URL: u, Status: resp.StatusCode}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		if h.token == "" {
			e.Hint = "the dataset may be private or gated: set HF_TOKEN to a token with read access (and accept the dataset's terms on its page)"
		} else {
			e.Hint = "HF_TOKEN was sent but does not grant access: check that it is valid and that you accepted the dataset's terms on its page"
		}
	case resp.StatusCode == http.StatusNotFound:
		e.Hint = "check the dataset id, split and revision (or HF_ENDPOINT)"
	case resp.StatusCode == http.StatusTooManyRequests:
		e.Hint = "rate limited: wait and retry, or set HF_TOKEN (authenticated requests get higher limits)"
	}
	return e
}

// do sends a GET and follows redirects itself, so that the token goes only to the hub's own
// host and port (Go's client would also forward it to another port of the same host).
func (h *hubClient) do(ctx context.Context, u string, header http.Header) (*http.Response, error) {
	client := *h.http
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	endpoint, _ := url.Parse(h.endpoint)
	for redirects := 0; ; redirects++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		for k, v := range header {
			req.Header[k] = v
		}
		req.Header.Set("User-Agent", "swebench-run")
		if h.token != "" && endpoint != nil && endpoint.Host == req.URL.Host {
			req.Header.Set("Authorization", "Bearer "+h.token)
		}
		// url.Error includes the URL, never headers: the token cannot leak through it.
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			return resp, nil
		}
		loc, err := resp.Location()
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("redirect from %s without a usable Location: %w", u, err)
		}
		if redirects >= 10 {
			return nil, fmt.Errorf("%s: more than 10 redirects", u)
		}
		u = loc.String()
	}
}

// retry runs op until it succeeds, fails permanently (retry=false) or attempts run out.
func (h *hubClient) retry(ctx context.Context, what string, op func() (retry bool, err error)) error {
	var err error
	for attempt := 0; ; attempt++ {
		var again bool
		again, err = op()
		if err == nil || !again || ctx.Err() != nil {
			break
		}
		if attempt >= h.retries {
			return fmt.Errorf("%w (gave up after %d attempts)", err, attempt+1)
		}
		delay := h.retryDelay << attempt
		var he *HubError
		if errors.As(err, &he) && he.retryAfter > 0 {
			delay = max(delay, he.retryAfter)
		}
		if h.progress != nil {
			fmt.Fprintf(h.progress, "hub: %v; retrying in %s\n", err, delay.Round(time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay):
		}
	}
	if err != nil && ctx.Err() != nil {
		return errors.Join(err, ctx.Err())
	}
	return err
}

// download fetches u into dest atomically: bytes go to dest+".incomplete" (kept across attempts
// and processes so a broken transfer resumes with a Range request), are checked against the
// expected size and sha256 when known, fsynced, then renamed. It returns the sha256 and size.
func (h *hubClient) download(ctx context.Context, u, dest string, want hubFile, label string) (string, int64, error) {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", 0, fmt.Errorf("cache: %w", err)
	}
	unlock, err := lockFile(dest + ".lock")
	if err != nil {
		return "", 0, fmt.Errorf("cache: lock %s: %w", dest, err)
	}
	defer unlock()
	// Another process may have finished it while we waited for the lock.
	if sum, size, err := hashFile(dest); err == nil && (want.SHA256 == "" || sum == want.SHA256) && (want.Size == 0 || size == want.Size) {
		return sum, size, nil
	}
	tmp := dest + ".incomplete"
	what := "download " + label
	var sum string
	var size int64
	err = h.retry(ctx, what, func() (bool, error) {
		var again bool
		var err error
		sum, size, again, err = h.downloadOnce(ctx, u, tmp, want, what)
		return again, err
	})
	if err != nil {
		return "", 0, err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return "", 0, fmt.Errorf("cache: %w", err)
	}
	syncDir(filepath.Dir(dest))
	if h.progress != nil {
		fmt.Fprintf(h.progress, "hub: downloaded %s (%s, sha256 %s)\n", label, humanBytes(size), sum[:12])
	}
	return sum, size, nil
}

func (h *hubClient) downloadOnce(ctx context.Context, u, tmp string, want hubFile, what string) (sum string, size int64, retry bool, err error) {
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return "", 0, false, fmt.Errorf("cache: %w", err)
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return "", 0, false, fmt.Errorf("cache: %w", err)
	}
	if want.Size > 0 && have > want.Size {
		have = 0
	}
	header := http.Header{}
	if have > 0 {
		header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := h.do(ctx, u, header)
	if err != nil {
		return "", 0, true, fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	total := int64(-1)
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, end, length, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			have = 0 // the server sent something else: start over on the next attempt
			f.Truncate(0)
			return "", 0, true, fmt.Errorf("%s: unexpected Content-Range %q", what, resp.Header.Get("Content-Range"))
		}
		_ = end
		total = length
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// Probably complete already; verify below.
		total = have
	case resp.StatusCode == http.StatusOK:
		have = 0
		total = resp.ContentLength
	default:
		err := h.statusError(what, u, resp)
		if he, ok := err.(*HubError); ok {
			he.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
		}
		return "", 0, retryable(resp.StatusCode), err
	}
	if err := f.Truncate(have); err != nil {
		return "", 0, false, fmt.Errorf("cache: %w", err)
	}
	if _, err := f.Seek(have, io.SeekStart); err != nil {
		return "", 0, false, fmt.Errorf("cache: %w", err)
	}
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		pw := &progressWriter{w: h.progress, label: what, done: have, total: total}
		n, err := io.Copy(f, io.TeeReader(resp.Body, pw))
		if err != nil {
			return "", 0, true, fmt.Errorf("%s: connection broken after %s (will resume): %w", what, humanBytes(have+n), err)
		}
		if total >= 0 && have+n != total {
			return "", 0, true, fmt.Errorf("%s: connection closed after %s of %s (will resume)", what, humanBytes(have+n), humanBytes(total))
		}
	}
	if err := f.Sync(); err != nil {
		return "", 0, false, fmt.Errorf("cache: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", 0, false, fmt.Errorf("cache: %w", err)
	}
	hsh := sha256.New()
	size, err = io.Copy(hsh, f)
	if err != nil {
		return "", 0, false, fmt.Errorf("cache: %w", err)
	}
	sum = hex.EncodeToString(hsh.Sum(nil))
	if (want.Size > 0 && size != want.Size) || (want.SHA256 != "" && sum != want.SHA256) {
		f.Truncate(0)
		return "", 0, true, fmt.Errorf("%s: %w: got %s bytes with sha256 %s, the hub lists %d bytes with sha256 %s",
			what, ErrChecksum, strconv.FormatInt(size, 10), sum, want.Size, want.SHA256)
	}
	return sum, size, false, nil
}

func parseContentRange(s string) (start, end, length int64, ok bool) {
	// "bytes 100-199/200"
	s, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, l, found := strings.Cut(s, "/")
	a, b, found2 := strings.Cut(rng, "-")
	if !found || !found2 {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	start, err1 = strconv.ParseInt(a, 10, 64)
	end, err2 = strconv.ParseInt(b, 10, 64)
	length = -1
	if l != "*" {
		length, err3 = strconv.ParseInt(l, 10, 64)
	}
	return start, end, length, err1 == nil && err2 == nil && err3 == nil
}

func parseRetryAfter(s string) time.Duration {
	if s == "" {
		return 0
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return min(time.Duration(n)*time.Second, 5*time.Minute)
	}
	if t, err := http.ParseTime(s); err == nil {
		return min(max(time.Until(t), 0), 5*time.Minute)
	}
	return 0
}

type progressWriter struct {
	w           io.Writer
	label       string
	done, total int64
	last        time.Time
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	if p.w != nil && time.Since(p.last) >= time.Second {
		p.last = time.Now()
		if p.total > 0 {
			fmt.Fprintf(p.w, "hub: %s: %s / %s (%d%%)\n", p.label, humanBytes(p.done), humanBytes(p.total), p.done*100/p.total)
		} else {
			fmt.Fprintf(p.w, "hub: %s: %s\n", p.label, humanBytes(p.done))
		}
	}
	return len(b), nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func hashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
