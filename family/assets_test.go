package family

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

const testCommit = "0123456789abcdef0123456789abcdef01234567"

func manifestOf(t *testing.T, files map[string]string) *AssetManifest {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "# test\nrepo owner/harness\ncommit %s\n", testCommit)
	for p, c := range files {
		sum := sha256.Sum256([]byte(c))
		fmt.Fprintf(&b, "%s %d %s\n", p, len(c), hex.EncodeToString(sum[:]))
	}
	m, err := ParseAssetManifest(strings.NewReader(b.String()), "test manifest")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAssetStore(t *testing.T) {
	files := map[string]string{"run_scripts/a/run_script.sh": "#!/bin/bash\necho a\n", "run_scripts/a/parser.py": "print(1)\n"}
	m := manifestOf(t, files)
	var hits, fail500 atomic.Int32
	serve := map[string]string{}
	for p, c := range files {
		serve["/owner/harness/"+testCommit+"/"+p] = c
	}
	serve["/owner/harness/"+testCommit+"/run_scripts/a/parser.py"] = "tampered\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if fail500.Load() > 0 {
			fail500.Add(-1)
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		c, ok := serve[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, c)
	}))
	defer srv.Close()
	s := &AssetStore{Dir: t.TempDir(), BaseURL: srv.URL, RetryDelay: 1}
	ctx := context.Background()

	// Downloaded once (after a 503), then read from the cache.
	fail500.Store(1)
	for range 2 {
		data, err := s.Read(ctx, m, "run_scripts/a/run_script.sh")
		if err != nil || string(data) != files["run_scripts/a/run_script.sh"] {
			t.Fatalf("read: %q, %v", data, err)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d requests, want 2 (one 503, one download)", n)
	}
	// A cached file that changed is downloaded again.
	os.WriteFile(s.Path(m, "run_scripts/a/run_script.sh"), []byte("changed"), 0o644)
	if data, err := s.Read(ctx, m, "run_scripts/a/run_script.sh"); err != nil || !bytes.Equal(data, []byte(files["run_scripts/a/run_script.sh"])) {
		t.Errorf("after a change in the cache: %q, %v", data, err)
	}
	// Content that is not the manifest's is refused, and not cached.
	if _, err := s.Read(ctx, m, "run_scripts/a/parser.py"); err == nil || !strings.Contains(err.Error(), "not the manifest's") {
		t.Errorf("tampered download: %v", err)
	}
	if _, err := os.Stat(s.Path(m, "run_scripts/a/parser.py")); err == nil {
		t.Error("a tampered download was cached")
	}
	// Files outside the manifest, and missing files offline, are errors naming them.
	if _, err := s.Read(ctx, m, "run_scripts/b/parser.py"); err == nil || !strings.Contains(err.Error(), "run_scripts/b/parser.py") {
		t.Errorf("unknown file: %v", err)
	}
	off := &AssetStore{Dir: s.Dir, BaseURL: srv.URL, Offline: true}
	if _, err := off.Read(ctx, m, "run_scripts/a/run_script.sh"); err != nil {
		t.Errorf("offline, cached: %v", err)
	}
	if _, err := off.Read(ctx, m, "run_scripts/a/parser.py"); !errors.Is(err, ErrAssetNotCached) {
		t.Errorf("offline, not cached: %v", err)
	}
	// A 404 is not retried.
	delete(serve, "/owner/harness/"+testCommit+"/run_scripts/a/parser.py")
	before := hits.Load()
	if _, err := s.Read(ctx, m, "run_scripts/a/parser.py"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("404: %v", err)
	}
	if hits.Load()-before != 1 {
		t.Errorf("a 404 was retried")
	}
}

func TestParseAssetManifest(t *testing.T) {
	m := manifestOf(t, map[string]string{"x/y": "z"})
	var b bytes.Buffer
	if err := m.Write(&b, []string{"header"}); err != nil {
		t.Fatal(err)
	}
	back, err := ParseAssetManifest(&b, "round trip")
	if err != nil || back.Repo != m.Repo || back.Commit != m.Commit || back.Files["x/y"] != m.Files["x/y"] {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	for _, bad := range []string{
		"repo a/b\ncommit " + testCommit + "\n../x 1 " + strings.Repeat("a", 64),
		"repo a/b\ncommit 123\n",
		"repo a/b\n",
		"repo a/b\ncommit " + testCommit + "\nx y " + strings.Repeat("a", 64),
	} {
		if _, err := ParseAssetManifest(strings.NewReader(bad), "bad"); err == nil || !strings.HasPrefix(err.Error(), "bad") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
