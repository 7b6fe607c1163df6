package swebench

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// fakeHub serves dataset repositories as the HuggingFace hub does (the info API listing a
// commit's files, resolve URLs with their bytes; 404 for anything else) and logs the paths asked.
type fakeHub struct {
	srv *httptest.Server

	mu       sync.Mutex
	refs     map[string]string                       // repo → commit main points at
	commits  map[string]map[string]map[string][]byte // repo → commit → path → content
	requests []string
}

func newFakeHub(t *testing.T) *fakeHub {
	h := &fakeHub{refs: map[string]string{}, commits: map[string]map[string]map[string][]byte{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/datasets/{org}/{name}", h.info)
	mux.HandleFunc("GET /api/datasets/{org}/{name}/revision/{rev}", h.info)
	mux.HandleFunc("GET /datasets/{org}/{name}/resolve/{rev}/{path...}", h.resolve)
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.requests = append(h.requests, r.URL.Path)
		h.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// publish stores files as commit sha of repo and points main at it.
func (h *fakeHub) publish(repo, sha string, files map[string][]byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.commits[repo] == nil {
		h.commits[repo] = map[string]map[string][]byte{}
	}
	h.commits[repo][sha] = files
	h.refs[repo] = sha
}

// files returns the commit rev names and its files, or false when there is none.
func (h *fakeHub) files(r *http.Request) (string, map[string][]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	repo := r.PathValue("org") + "/" + r.PathValue("name")
	sha := r.PathValue("rev")
	if sha == "" || sha == "main" {
		sha = h.refs[repo]
	}
	files, ok := h.commits[repo][sha]
	return sha, files, ok
}

func (h *fakeHub) info(w http.ResponseWriter, r *http.Request) {
	sha, files, ok := h.files(r)
	if !ok {
		http.Error(w, `{"error":"Repository not found"}`, http.StatusNotFound)
		return
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
		Size      int    `json:"size"`
	}
	info := struct {
		SHA      string    `json:"sha"`
		Siblings []sibling `json:"siblings"`
	}{SHA: sha}
	for p, b := range files {
		info.Siblings = append(info.Siblings, sibling{p, len(b)})
	}
	json.NewEncoder(w).Encode(info)
}

func (h *fakeHub) resolve(w http.ResponseWriter, r *http.Request) {
	_, files, ok := h.files(r)
	b, found := files[r.PathValue("path")]
	if !ok || !found {
		http.Error(w, `{"error":"Entry not found"}`, http.StatusNotFound)
		return
	}
	w.Write(b)
}

// count returns how many requests asked for a path containing s.
func (h *fakeHub) count(s string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.requests {
		if strings.Contains(r, s) {
			n++
		}
	}
	return n
}

func (h *fakeHub) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests = nil
}

func fixtureBytes(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(testenv.Fixtures(t, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
