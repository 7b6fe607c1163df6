package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/testutil/corpus"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// originServer stands in for every origin of the real manifest: it answers
// /HOST/PATH with the corpus file whose origin is https://HOST/PATH, read from corpusDir, and
// alters the bytes of the corpus path corrupt (if any).
func originServer(t *testing.T, corpusDir, corrupt string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	byOrigin := map[string]string{}
	for _, e := range corpus.Default().Entries {
		if e.Input() == "" {
			u, err := url.Parse(e.Origin)
			if err != nil {
				t.Fatal(err)
			}
			byOrigin["/"+u.Host+u.Path] = e.Path
		}
	}
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		p, ok := byOrigin[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(p)))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if p == corrupt {
			data[len(data)/2] ^= 1
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, &gets
}

// manifestCounts returns how many files the real manifest lists and how many of them are
// downloaded (the others are generated).
func manifestCounts() (files, downloaded int) {
	for _, e := range corpus.Default().Entries {
		files++
		if e.Input() == "" {
			downloaded++
		}
	}
	return files, downloaded
}

func runTool(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// `make testdata` with no mirror, against a server standing in for the origins: downloads and
// verifies every file, generates the JSON lines file, and does nothing the second time.
func TestFillFromOrigins(t *testing.T) {
	src := testenv.Fixtures(t)
	srv, gets := originServer(t, src, "")
	dir := t.TempDir()
	code, _, stderr := runTool(t, "-dir", dir, "-no-mirror", "-origin", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := corpus.Default()
	files, downloaded := manifestCounts()
	if want := fmt.Sprintf("%d downloaded, %d generated", downloaded, files-downloaded); !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	for _, e := range m.Entries {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if corpus.SHA256(got) != e.SHA256 {
			t.Errorf("%s in the cache does not match the manifest", e.Path)
		}
	}
	n := gets.Load()
	code, _, stderr = runTool(t, "-dir", dir, "-no-mirror", "-origin", srv.URL)
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("%d already there, 0 copied from the mirror, 0 downloaded, 0 generated", files)) {
		t.Errorf("second run: exit %d, %s; want a no-op", code, stderr)
	}
	if gets.Load() != n {
		t.Errorf("the second run made %d requests", gets.Load()-n)
	}
}

func TestFillRejectsACorruptDownload(t *testing.T) {
	src := testenv.Fixtures(t)
	const bad = "runs/deepseek-chat-lite-dev/output/preds.json"
	srv, _ := originServer(t, src, bad)
	dir := t.TempDir()
	code, _, stderr := runTool(t, "-dir", dir, "-no-mirror", "-origin", srv.URL)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	e, _ := corpus.Default().Lookup(bad)
	files, _ := manifestCounts()
	for _, want := range []string{"FAILED " + bad, e.Origin, "sha256", fmt.Sprintf("1 of %d files could not be had or verified", files)} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(bad))); !os.IsNotExist(err) {
		t.Errorf("the corrupt file is in the cache (stat: %v)", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "runs", "deepseek-chat-lite-dev", "output", ".*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestFillFromMirrorMakesNoRequest(t *testing.T) {
	src := testenv.Fixtures(t)
	srv, gets := originServer(t, src, "")
	dir := t.TempDir()
	code, _, stderr := runTool(t, "-dir", dir, "-mirror", src, "-origin", srv.URL)
	files, downloaded := manifestCounts()
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("%d copied from the mirror, 0 downloaded, %d generated", downloaded, files-downloaded)) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if gets.Load() != 0 {
		t.Errorf("%d requests with a complete mirror", gets.Load())
	}
}

func TestUnreachableOriginsFail(t *testing.T) {
	retryDelay = time.Millisecond
	t.Cleanup(func() { retryDelay = 0 })
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	dir := t.TempDir()
	code, _, stderr := runTool(t, "-dir", dir, "-no-mirror", "-origin", srv.URL)
	files, _ := manifestCounts()
	if code != 1 || !strings.Contains(stderr, fmt.Sprintf("%d of %d files could not be had", files, files)) {
		t.Errorf("exit %d, want 1: %s", code, stderr)
	}
	if lines := strings.Count(stderr, "\n"); lines > 12 {
		t.Errorf("%d lines for one unreachable host; want the untried files on one line:\n%s", lines, stderr)
	}
}

func TestAddAndCheck(t *testing.T) {
	mirror := t.TempDir()
	manifest := filepath.Join(t.TempDir(), "manifest.txt")
	head := "# test manifest\n\n"
	old := "a/old.json 2 44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a https://raw.githubusercontent.com/o/r/0123456789abcdef0123456789abcdef01234567/old.json\n"
	if err := os.WriteFile(manifest, []byte(head+old), 0o644); err != nil {
		t.Fatal(err)
	}
	for p, data := range map[string]string{"a/old.json": "{}", "b/new.json": `{"new": true}`} {
		os.MkdirAll(filepath.Join(mirror, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(mirror, filepath.FromSlash(p)), []byte(data), 0o644)
	}
	origin := "https://raw.githubusercontent.com/o/r/0123456789abcdef0123456789abcdef01234567/new.json"
	code, stdout, stderr := runTool(t, "add", "-manifest", manifest, "-mirror", mirror, "b/new.json", origin)
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, stderr)
	}
	line := "b/new.json 13 " + corpus.SHA256([]byte(`{"new": true}`)) + " " + origin + "\n"
	if stdout != line {
		t.Errorf("add printed %q, want %q", stdout, line)
	}
	got, _ := os.ReadFile(manifest)
	if want := head + old + line; string(got) != want {
		t.Errorf("manifest after add:\n%s\nwant\n%s", got, want)
	}
	if code, _, stderr := runTool(t, "check", "-manifest", manifest, "-mirror", mirror); code != 0 {
		t.Errorf("check of a matching manifest: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runTool(t, "add", "-manifest", manifest, "-mirror", mirror, "b/other.json", "https://example.com/main/other.json"); code != 1 || !strings.Contains(stderr, "not pinned") {
		t.Errorf("add with an unpinned origin: exit %d: %s", code, stderr)
	}

	os.WriteFile(filepath.Join(mirror, "a", "old.json"), []byte("[]"), 0o644)
	code, stdout, _ = runTool(t, "check", "-manifest", manifest, "-mirror", mirror)
	if code != 1 || !strings.Contains(stdout, "a/old.json: the mirror has 2 bytes") {
		t.Errorf("check of a changed file: exit %d, %q", code, stdout)
	}
}
