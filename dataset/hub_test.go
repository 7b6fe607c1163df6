package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHub is an httptest server that speaks the parts of the HuggingFace hub API Load uses.
// Resolve URLs redirect to a second server (the "CDN", on another host:port) that serves the
// bytes with Range support, like the real hub's LFS storage.
type fakeHub struct {
	t     *testing.T
	api   *httptest.Server
	cdn   *httptest.Server
	token string // when set, the API and resolve URLs demand "Authorization: Bearer <token>"

	mu        sync.Mutex
	repos     map[string]*fakeRepo
	blobs     map[string][]byte   // sha256 → content
	requests  []string            // "METHOD path [Range]" of every request, API and CDN
	failures  map[string][]int    // path prefix → statuses to answer, consumed in order
	cutAfter  map[string]int      // blob sha256 → bytes to send before cutting the connection (once)
	noRange   bool                // the CDN ignores Range headers
	cdnAuth   []string            // Authorization headers the CDN received
	badSHA256 map[string]string   // repo file path → wrong sha256 to advertise
	converted map[string][]string // "repo|config|split" → blob sha256s served by the conversion listing
}

type fakeRepo struct {
	refs    map[string]string            // "main" → commit sha
	commits map[string]map[string]string // commit sha → repo path → blob sha256
}

func newFakeHub(t *testing.T) *fakeHub {
	h := &fakeHub{t: t, repos: map[string]*fakeRepo{}, blobs: map[string][]byte{}, failures: map[string][]int{},
		cutAfter: map[string]int{}, badSHA256: map[string]string{}, converted: map[string][]string{}}
	h.cdn = httptest.NewServer(http.HandlerFunc(h.serveCDN))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/datasets/{org}/{name}", h.serveInfo)
	mux.HandleFunc("GET /api/datasets/{org}/{name}/revision/{rev}", h.serveInfo)
	mux.HandleFunc("GET /api/datasets/{org}/{name}/parquet/{config}/{split}", h.serveConvertedList)
	mux.HandleFunc("GET /api/datasets/{org}/{name}/parquet/{config}/{split}/{n}", h.serveConvertedFile)
	mux.HandleFunc("GET /datasets/{org}/{name}/resolve/{rev}/{path...}", h.serveResolve)
	h.api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.log(r)
		if h.failNext(w, r) {
			return
		}
		if h.token != "" && r.Header.Get("Authorization") != "Bearer "+h.token {
			http.Error(w, `{"error":"Invalid credentials"}`, http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(h.api.Close)
	t.Cleanup(h.cdn.Close)
	return h
}

func (h *fakeHub) log(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := r.Method + " " + r.URL.Path
	if rg := r.Header.Get("Range"); rg != "" {
		s += " " + rg
	}
	h.requests = append(h.requests, s)
}

func (h *fakeHub) failNext(w http.ResponseWriter, r *http.Request) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for prefix, statuses := range h.failures {
		if strings.HasPrefix(r.URL.Path, prefix) && len(statuses) > 0 {
			h.failures[prefix] = statuses[1:]
			if statuses[0] == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
			}
			http.Error(w, "injected failure", statuses[0])
			return true
		}
	}
	return false
}

// count returns how many logged requests contain every one of substrs.
func (h *fakeHub) count(substrs ...string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
next:
	for _, r := range h.requests {
		for _, s := range substrs {
			if !strings.Contains(r, s) {
				continue next
			}
		}
		n++
	}
	return n
}

func (h *fakeHub) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests = nil
}

// addCommit stores files (repo path → content) as commit sha of repo, and points ref at it.
func (h *fakeHub) addCommit(repo, ref, sha string, files map[string][]byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.repos[repo]
	if r == nil {
		r = &fakeRepo{refs: map[string]string{}, commits: map[string]map[string]string{}}
		h.repos[repo] = r
	}
	c := map[string]string{}
	for p, data := range files {
		sum := sha256hex(data)
		h.blobs[sum] = data
		c[p] = sum
	}
	r.commits[sha] = c
	if ref != "" {
		r.refs[ref] = sha
	}
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (h *fakeHub) commit(w http.ResponseWriter, r *http.Request) (string, map[string]string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	repo := h.repos[r.PathValue("org")+"/"+r.PathValue("name")]
	if repo == nil {
		http.Error(w, `{"error":"Repository not found"}`, http.StatusNotFound)
		return "", nil, false
	}
	rev := r.PathValue("rev")
	if rev == "" {
		rev = "main"
	}
	sha := rev
	if s, ok := repo.refs[rev]; ok {
		sha = s
	}
	files, ok := repo.commits[sha]
	if !ok {
		http.Error(w, `{"error":"Revision not found"}`, http.StatusNotFound)
		return "", nil, false
	}
	return sha, files, true
}

func (h *fakeHub) serveInfo(w http.ResponseWriter, r *http.Request) {
	sha, files, ok := h.commit(w, r)
	if !ok {
		return
	}
	type lfs struct {
		SHA256 string `json:"sha256"`
		Size   int    `json:"size"`
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
		Size      int    `json:"size"`
		LFS       *lfs   `json:"lfs,omitempty"`
	}
	info := struct {
		ID       string    `json:"id"`
		SHA      string    `json:"sha"`
		Siblings []sibling `json:"siblings"`
	}{ID: r.PathValue("org") + "/" + r.PathValue("name"), SHA: sha}
	info.Siblings = append(info.Siblings, sibling{RFilename: "README.md", Size: 10})
	h.mu.Lock()
	for p, sum := range files {
		size := len(h.blobs[sum])
		if bad, ok := h.badSHA256[p]; ok {
			sum = bad
		}
		info.Siblings = append(info.Siblings, sibling{RFilename: p, Size: size, LFS: &lfs{SHA256: sum, Size: size}})
	}
	h.mu.Unlock()
	json.NewEncoder(w).Encode(info)
}

func (h *fakeHub) serveResolve(w http.ResponseWriter, r *http.Request) {
	_, files, ok := h.commit(w, r)
	if !ok {
		return
	}
	sum, ok := files[r.PathValue("path")]
	if !ok {
		http.Error(w, `{"error":"Entry not found"}`, http.StatusNotFound)
		return
	}
	http.Redirect(w, r, h.cdn.URL+"/blobs/"+sum, http.StatusFound)
}

func (h *fakeHub) serveConvertedList(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("org") + "/" + r.PathValue("name") + "|" + r.PathValue("config") + "|" + r.PathValue("split")
	h.mu.Lock()
	sums, ok := h.converted[key]
	h.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
		return
	}
	var urls []string
	for k := range sums {
		urls = append(urls, fmt.Sprintf("%s%s/%d.parquet", h.api.URL, r.URL.Path, k))
	}
	json.NewEncoder(w).Encode(urls)
}

func (h *fakeHub) serveConvertedFile(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("org") + "/" + r.PathValue("name") + "|" + r.PathValue("config") + "|" + r.PathValue("split")
	n, err := strconv.Atoi(strings.TrimSuffix(r.PathValue("n"), ".parquet"))
	h.mu.Lock()
	sums := h.converted[key]
	h.mu.Unlock()
	if err != nil || n >= len(sums) {
		http.NotFound(w, r)
		return
	}
	http.Redirect(w, r, h.cdn.URL+"/blobs/"+sums[n], http.StatusFound)
}

func (h *fakeHub) serveCDN(w http.ResponseWriter, r *http.Request) {
	h.log(r)
	h.mu.Lock()
	if a := r.Header.Get("Authorization"); a != "" {
		h.cdnAuth = append(h.cdnAuth, a)
	}
	sum := strings.TrimPrefix(r.URL.Path, "/blobs/")
	data, ok := h.blobs[sum]
	cut, doCut := h.cutAfter[sum]
	if doCut {
		delete(h.cutAfter, sum)
	}
	noRange := h.noRange
	h.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if noRange {
		r.Header.Del("Range")
	}
	if doCut {
		start := 0
		if rg := r.Header.Get("Range"); rg != "" {
			fmt.Sscanf(rg, "bytes=%d-", &start)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(data)-1, len(data)))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)-start))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(http.StatusOK)
		}
		w.Write(data[start : start+cut])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drop the connection mid-body
	}
	http.ServeContent(w, r, "", time.Time{}, strings.NewReader(string(data)))
}

func fixtureBytes(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixture(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	shaOld = "1111111111111111111111111111111111111111"
	shaNew = "2222222222222222222222222222222222222222"
)

// hubOpts returns options pointing at the fake hub with a fresh cache and fast retries.
func (h *fakeHub) opts(t *testing.T) LoadOptions {
	return LoadOptions{HFEndpoint: h.api.URL, CacheDir: t.TempDir(), Named: testNamed, retryDelay: time.Millisecond}
}

func TestHubDownloadAndCacheHit(t *testing.T) {
	hub := newFakeHub(t)
	liteDev := fixtureBytes(t, "datasets/SWE-bench_Lite.dev.parquet")
	hub.addCommit("princeton-nlp/SWE-bench_Lite", "main", shaNew, map[string][]byte{
		"data/dev-00000-of-00001.parquet":  liteDev,
		"data/test-00000-of-00001.parquet": fixtureBytes(t, "datasets/SWE-bench_Lite.test.parquet"),
	})
	opts := hub.opts(t)
	var progress strings.Builder
	opts.Progress = &progress

	got, err := Load(context.Background(), "hf:princeton-nlp/SWE-bench_Lite:dev", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Instances) != 23 || got.Instances[0].InstanceID != "sqlfluff__sqlfluff-1625" {
		t.Fatalf("got %d instances, first %q; want 23, sqlfluff__sqlfluff-1625", len(got.Instances), got.Instances[0].InstanceID)
	}
	wantFiles := []File{{Path: "data/dev-00000-of-00001.parquet", SHA256: sha256hex(liteDev), Size: int64(len(liteDev)), Rows: 23}}
	src := got.Source
	if src.Kind != "hf" || src.HFRepo != "princeton-nlp/SWE-bench_Lite" || src.Split != "dev" || src.Revision != "main" || src.ResolvedSHA != shaNew || src.Rows != 23 {
		t.Errorf("got source %+v", src)
	}
	if fmt.Sprint(src.Files) != fmt.Sprint(wantFiles) {
		t.Errorf("got files %+v, want %+v", src.Files, wantFiles)
	}
	if !strings.Contains(progress.String(), "downloaded princeton-nlp/SWE-bench_Lite/data/dev-00000-of-00001.parquet") {
		t.Errorf("got progress %q, want a line about the download", progress.String())
	}
	if n := hub.count("/blobs/"); n != 1 {
		t.Errorf("got %d blob downloads, want 1 (only the dev file)", n)
	}
	// The cache layout is documented: check it.
	cached := filepath.Join(opts.CacheDir, "swebench-run", "datasets", "princeton-nlp--SWE-bench_Lite", "snapshots", shaNew, "files", "data", "dev-00000-of-00001.parquet")
	if b, err := os.ReadFile(cached); err != nil || sha256hex(b) != sha256hex(liteDev) {
		t.Errorf("cached file %s: err %v, or content differs", cached, err)
	}

	// Second load: one API call to resolve main, no download.
	hub.reset()
	again, err := Load(context.Background(), "hf:princeton-nlp/SWE-bench_Lite:dev", opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := hub.count("/blobs/"); n != 0 {
		t.Errorf("got %d downloads on a cache hit, want 0", n)
	}
	if n := hub.count("/api/datasets/"); n != 1 {
		t.Errorf("got %d API calls on a cache hit, want 1", n)
	}
	if len(again.Instances) != 23 || again.Source.ResolvedSHA != shaNew {
		t.Errorf("got %d instances at %s from the cache", len(again.Instances), again.Source.ResolvedSHA)
	}

	// Pinned to the resolved sha and cached: no network at all.
	hub.reset()
	if _, err := Load(context.Background(), "hf:princeton-nlp/SWE-bench_Lite:dev@"+shaNew, opts); err != nil {
		t.Fatal(err)
	}
	if n := len(hub.requests); n != 0 {
		t.Errorf("got %d requests for a cached commit sha, want 0: %v", n, hub.requests)
	}

	// A cached file that was altered is not trusted: it is downloaded again.
	if err := os.WriteFile(cached, []byte("PAR1 garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	hub.reset()
	if _, err := Load(context.Background(), "hf:princeton-nlp/SWE-bench_Lite:dev", opts); err != nil {
		t.Fatal(err)
	}
	if n := hub.count("/blobs/"); n != 1 {
		t.Errorf("got %d downloads after the cached file changed, want 1", n)
	}
}

func TestHubNamedDatasetAndEnv(t *testing.T) {
	hub := newFakeHub(t)
	hub.addCommit("SWE-bench/SWE-bench_Verified", "main", shaNew, map[string][]byte{
		"data/test-00000-of-00001.parquet": fixtureBytes(t, "datasets/SWE-bench_Verified.test.parquet"),
	})
	hub.token = "hf_env_TOKEN_abc"
	cache := t.TempDir()
	t.Setenv("HF_ENDPOINT", hub.api.URL+"/")
	t.Setenv("HF_TOKEN", hub.token)
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_HUB_OFFLINE", "")

	got, err := Load(context.Background(), "verified", LoadOptions{Named: testNamed, retryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Instances) != 500 || got.Source.Kind != "named" || got.Source.Name != "verified" || got.Source.Split != "test" ||
		got.Source.ResolvedSHA != shaNew || got.Source.Endpoint != hub.api.URL {
		t.Errorf("got %d instances, source %+v", len(got.Instances), got.Source)
	}
	if _, err := os.Stat(filepath.Join(cache, "swebench-run", "datasets", "SWE-bench--SWE-bench_Verified")); err != nil {
		t.Errorf("HF_HUB_CACHE not used: %v", err)
	}
	if len(hub.cdnAuth) != 0 {
		t.Errorf("the token was sent to the storage host after the redirect: %d times", len(hub.cdnAuth))
	}

	// HF_HOME/hub when HF_HUB_CACHE is unset; offline from the environment.
	home := t.TempDir()
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HOME", home)
	if _, err := Load(context.Background(), "verified", LoadOptions{Named: testNamed, retryDelay: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "hub", "swebench-run", "datasets", "SWE-bench--SWE-bench_Verified")); err != nil {
		t.Errorf("HF_HOME/hub not used: %v", err)
	}
	hub.reset()
	t.Setenv("HF_HUB_OFFLINE", "1")
	off, err := Load(context.Background(), "verified", LoadOptions{Named: testNamed})
	if err != nil {
		t.Fatalf("offline load from the cache: %v", err)
	}
	if len(off.Instances) != 500 || off.Source.ResolvedSHA != shaNew || len(hub.requests) != 0 {
		t.Errorf("offline: got %d instances at %s with %d requests", len(off.Instances), off.Source.ResolvedSHA, len(hub.requests))
	}
}

func TestHubRevisionPinning(t *testing.T) {
	hub := newFakeHub(t)
	oldData := fixtureBytes(t, "datasets/SWE-bench_Verified.test.2026-02-16.parquet")
	newData := fixtureBytes(t, "datasets/SWE-bench_Verified.test.parquet")
	const repo = "SWE-bench/SWE-bench_Verified"
	hub.addCommit(repo, "v1", shaOld, map[string][]byte{"data/test-00000-of-00001.parquet": oldData})
	hub.addCommit(repo, "main", shaNew, map[string][]byte{"data/test-00000-of-00001.parquet": newData})
	opts := hub.opts(t)

	load := func(spec string) *Loaded {
		t.Helper()
		l, err := Load(context.Background(), spec, opts)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	latest := load("hf:" + repo)
	byTag := load("hf:" + repo + ":test@v1")
	bySHA := load("hf:" + repo + "@" + shaOld)

	if latest.Source.ResolvedSHA != shaNew || byTag.Source.ResolvedSHA != shaOld || bySHA.Source.ResolvedSHA != shaOld {
		t.Errorf("got resolved %s, %s, %s; want %s, %s, %s", latest.Source.ResolvedSHA, byTag.Source.ResolvedSHA, bySHA.Source.ResolvedSHA, shaNew, shaOld, shaOld)
	}
	if hub.count("/revision/v1") != 1 {
		t.Errorf("want the tag resolved through /revision/v1; requests: %v", hub.requests)
	}
	if got, want := byTag.Source.Files[0].SHA256, sha256hex(oldData); got != want {
		t.Errorf("got file sha256 %s, want %s", got, want)
	}
	if diff := differingRows(latest.Instances, byTag.Instances); diff != 2 {
		t.Errorf("got %d rows differing between the two revisions, want 2", diff)
	}
	if err := byTag.Manifest().Comparable(bySHA.Manifest()); err != nil {
		t.Errorf("same commit, same selection: %v", err)
	}
	err := latest.Manifest().Comparable(byTag.Manifest())
	if err == nil || !strings.Contains(err.Error(), "dataset files differ") {
		t.Errorf("got %v, want an error saying the dataset files differ", err)
	}
}

// differingRows counts the instances of a whose row in b (by id) differs in the 13 HuggingFace
// columns, or is missing. (The harness-v5 eval_script column changed in every row between the
// two fixture versions.)
func differingRows(a, b []Instance) int {
	byID := map[string]Instance{}
	for _, i := range b {
		byID[i.InstanceID] = i
	}
	n := 0
	for _, i := range a {
		o, ok := byID[i.InstanceID]
		i.EvalScript, o.EvalScript = "", ""
		if !ok || !reflect.DeepEqual(i, o) {
			n++
		}
	}
	return n
}

func TestHubOfflineMissing(t *testing.T) {
	hub := newFakeHub(t)
	opts := hub.opts(t)
	opts.Offline = true
	for _, spec := range []string{"hf:org/missing", "hf:org/missing@" + shaOld, "lite"} {
		_, err := Load(context.Background(), spec, opts)
		if !errors.Is(err, ErrNotCached) || !strings.Contains(err.Error(), "HF_HUB_OFFLINE") {
			t.Errorf("%s: got %v, want ErrNotCached mentioning HF_HUB_OFFLINE", spec, err)
		}
	}
	if len(hub.requests) != 0 {
		t.Errorf("offline mode made %d requests", len(hub.requests))
	}
}

func TestHubErrors(t *testing.T) {
	const secret = "hf_SECRET_never_shown"
	liteDev := fixtureBytes(t, "datasets/SWE-bench_Lite.dev.parquet")
	tests := []struct {
		name    string
		setup   func(h *fakeHub)
		spec    string
		token   string
		retries int
		wantIs  error
		wantMsg []string
	}{
		{
			name:    "unknown repo",
			spec:    "hf:org/nope",
			wantIs:  ErrNotFound,
			wantMsg: []string{"org/nope", "404", "check the dataset id"},
		},
		{
			name: "unknown revision",
			setup: func(h *fakeHub) {
				h.addCommit("org/ds", "main", shaNew, map[string][]byte{"data/dev-0.parquet": liteDev})
			},
			spec:    "hf:org/ds:dev@nosuchtag",
			wantIs:  ErrNotFound,
			wantMsg: []string{"revision nosuchtag", "404"},
		},
		{
			name: "unknown split lists the available ones",
			setup: func(h *fakeHub) {
				h.addCommit("org/ds", "main", shaNew, map[string][]byte{"data/dev-0.parquet": liteDev})
			},
			spec:    "hf:org/ds:validation",
			wantIs:  ErrNotFound,
			wantMsg: []string{"no data/validation-*.parquet", "splits with parquet files: dev"},
		},
		{
			name: "gated without token",
			setup: func(h *fakeHub) {
				h.token = "hf_right"
				h.addCommit("org/ds", "main", shaNew, map[string][]byte{"data/dev-0.parquet": liteDev})
			},
			spec:    "hf:org/ds:dev",
			wantIs:  ErrUnauthorized,
			wantMsg: []string{"401", "set HF_TOKEN"},
		},
		{
			name: "wrong token",
			setup: func(h *fakeHub) {
				h.token = "hf_right"
				h.addCommit("org/ds", "main", shaNew, map[string][]byte{"data/dev-0.parquet": liteDev})
			},
			spec:    "hf:org/ds:dev",
			token:   secret,
			wantIs:  ErrUnauthorized,
			wantMsg: []string{"401", "HF_TOKEN was sent but does not grant access"},
		},
		{
			name: "persistent 500",
			setup: func(h *fakeHub) {
				h.addCommit("org/ds", "main", shaNew, map[string][]byte{"data/dev-0.parquet": liteDev})
				h.failures["/api/"] = []int{500, 502, 503, 500, 500, 500}
			},
			spec:    "hf:org/ds:dev",
			token:   secret,
			retries: 2,
			wantMsg: []string{"503", "gave up after 3 attempts"},
		},
		{
			name: "checksum mismatch",
			setup: func(h *fakeHub) {
				h.addCommit("org/ds", "main", shaNew, map[string][]byte{"data/dev-0.parquet": liteDev})
				h.badSHA256["data/dev-0.parquet"] = strings.Repeat("ab", 32)
			},
			spec:    "hf:org/ds:dev",
			token:   secret,
			retries: 1,
			wantIs:  ErrChecksum,
			wantMsg: []string{"checksum mismatch", "data/dev-0.parquet"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub := newFakeHub(t)
			if tt.setup != nil {
				tt.setup(hub)
			}
			opts := hub.opts(t)
			opts.HFToken = tt.token
			opts.Retries = tt.retries
			var progress strings.Builder
			opts.Progress = &progress
			got, err := Load(context.Background(), tt.spec, opts)
			if err == nil {
				t.Fatalf("got %d instances, want an error", len(got.Instances))
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("got %v, want errors.Is %v", err, tt.wantIs)
			}
			for _, m := range tt.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("got %q, want it to contain %q", err, m)
				}
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(progress.String(), secret) {
				t.Errorf("the token leaked into the error or the progress output")
			}
			// No file that looks complete is left behind.
			matches, _ := filepath.Glob(filepath.Join(opts.CacheDir, "swebench-run", "datasets", "*", "snapshots", "*", "files", "data", "*.parquet"))
			if len(matches) != 0 {
				t.Errorf("got cached files %v after a failed download", matches)
			}
		})
	}
}

func TestHubRetriesTransientErrors(t *testing.T) {
	hub := newFakeHub(t)
	liteDev := fixtureBytes(t, "datasets/SWE-bench_Lite.dev.parquet")
	hub.addCommit("org/ds", "main", shaNew, map[string][]byte{"data/dev-00000-of-00001.parquet": liteDev})
	hub.failures["/api/datasets/org/ds"] = []int{http.StatusTooManyRequests, http.StatusInternalServerError}
	hub.failures["/datasets/org/ds/resolve/"] = []int{http.StatusBadGateway}
	opts := hub.opts(t)
	var progress strings.Builder
	opts.Progress = &progress
	got, err := Load(context.Background(), "hf:org/ds:dev", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Instances) != 23 {
		t.Errorf("got %d instances, want 23", len(got.Instances))
	}
	if n := hub.count("GET /api/datasets/org/ds"); n != 3 {
		t.Errorf("got %d API requests, want 3 (429, 500, then success)", n)
	}
	if n := strings.Count(progress.String(), "retrying"); n != 3 {
		t.Errorf("got %d retry lines in the progress output, want 3:\n%s", n, progress.String())
	}
}

func TestHubResumesBrokenDownload(t *testing.T) {
	verified := fixtureBytes(t, "datasets/SWE-bench_Verified.test.parquet")
	for _, tt := range []struct {
		name      string
		noRange   bool
		wantRange string
	}{
		{name: "range honoured", wantRange: "Range: bytes=1000000-"},
		{name: "range ignored, restart", noRange: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hub := newFakeHub(t)
			hub.addCommit("org/ds", "main", shaNew, map[string][]byte{"data/test-00000-of-00001.parquet": verified})
			hub.cutAfter[sha256hex(verified)] = 1000000
			hub.noRange = tt.noRange
			opts := hub.opts(t)
			got, err := Load(context.Background(), "hf:org/ds", opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Instances) != 500 || got.Source.Files[0].SHA256 != sha256hex(verified) {
				t.Errorf("got %d instances, sha256 %s", len(got.Instances), got.Source.Files[0].SHA256)
			}
			if n := hub.count("/blobs/"); n != 2 {
				t.Errorf("got %d blob requests, want 2: %v", n, hub.requests)
			}
			if tt.wantRange != "" && hub.count("/blobs/", "bytes=1000000-") != 1 {
				t.Errorf("want a resumed request with %s; requests: %v", tt.wantRange, hub.requests)
			}
		})
	}
}

func TestHubInterruptedDownloadLeavesNoCompleteFile(t *testing.T) {
	hub := newFakeHub(t)
	verified := fixtureBytes(t, "datasets/SWE-bench_Verified.test.parquet")
	hub.addCommit("org/ds", "main", shaNew, map[string][]byte{"data/test-00000-of-00001.parquet": verified})
	hub.cutAfter[sha256hex(verified)] = 500000
	opts := hub.opts(t)
	opts.Retries = -1 // no retry: the first broken connection fails the load
	_, err := Load(context.Background(), "hf:org/ds", opts)
	if err == nil || !strings.Contains(err.Error(), "connection") {
		t.Fatalf("got %v, want a broken-connection error", err)
	}
	dest := filepath.Join(opts.CacheDir, "swebench-run", "datasets", "org--ds", "snapshots", shaNew, "files", "data", "test-00000-of-00001.parquet")
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v for %s, want no such file", err, dest)
	}
	st, err := os.Stat(dest + ".incomplete")
	if err != nil || st.Size() != 500000 {
		t.Fatalf("got %v, size %d for the partial file, want 500000 bytes", err, st.Size())
	}
	// The next load resumes where the first stopped.
	opts.Retries = 0
	got, err := Load(context.Background(), "hf:org/ds", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Instances) != 500 || hub.count("/blobs/", "bytes=500000-") != 1 {
		t.Errorf("got %d instances, requests %v; want 500 and a resumed request", len(got.Instances), hub.requests)
	}
}

func TestHubParquetConversionFallback(t *testing.T) {
	hub := newFakeHub(t)
	mm := fixtureBytes(t, "datasets/SWE-bench_Multimodal.dev.parquet")
	hub.addCommit("org/jsononly", "main", shaNew, map[string][]byte{"dev.jsonl": []byte("{}\n")})
	hub.blobs[sha256hex(mm)] = mm
	hub.converted["org/jsononly|default|dev"] = []string{sha256hex(mm)}
	opts := hub.opts(t)
	got, err := Load(context.Background(), "hf:org/jsononly:dev", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Instances) != 102 || !got.Source.Converted || got.Source.Files[0].SHA256 != sha256hex(mm) || got.Source.Files[0].Path != "parquet/default/dev/0.parquet" {
		t.Errorf("got %d instances, source %+v", len(got.Instances), got.Source)
	}
	// Cached like any other split.
	hub.reset()
	opts.Offline = true
	if _, err := Load(context.Background(), "hf:org/jsononly:dev", opts); err != nil {
		t.Fatalf("offline after conversion download: %v", err)
	}
}
