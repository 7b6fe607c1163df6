// Package testenv gives tests a real Docker engine, the project's locally built images and the
// test corpus. Without a daemon or the corpus, such tests skip — except when CI is set, where
// they fail.
package testenv

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/testutil/corpus"
)

// BaseImage is built by scripts/build-base-image.sh (make images).
const BaseImage = "swebench-run/base:bookworm"

// Docker returns a connected engine, closed when the test ends.
func Docker(t testing.TB) *dockerenv.Engine {
	t.Helper()
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("Docker test skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, err := dockerenv.Connect(ctx, "")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and the Docker engine does not answer: %v", err)
		}
		t.Skipf("no Docker engine: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// RequireImage fails the test when image is not present locally.
func RequireImage(t testing.TB, e *dockerenv.Engine, image string) {
	t.Helper()
	if _, err := e.EnsureImage(context.Background(), image, dockerenv.PullNever); err != nil {
		t.Fatalf("test image missing: %v — build it with `make images` (scripts/build-demo-images.sh)", err)
	}
}

// RepoRoot returns the repository root (the directory holding go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Fixtures returns the cache path of a test corpus file or directory (parts joined; no parts for
// the corpus root; see testutil/corpus/manifest.txt). Files missing from the cache are copied
// from the local mirror (../shared/fixtures beside the repository, or
// $SWEBENCH_RUN_TESTDATA_MIRROR) when there is one. When a file (or any file under a directory)
// cannot be had, the test skips with a line that names `make testdata` — except with CI set,
// where it fails. A path not in the manifest always fails.
func Fixtures(t testing.TB, parts ...string) string {
	t.Helper()
	rel := path.Clean(filepath.ToSlash(filepath.Join(parts...)))
	recordCorpusTest(t)
	p, err := corpus.Ensure(context.Background(), RepoRoot(t), rel)
	var missing *corpus.MissingError
	switch {
	case err == nil:
		return p
	case errors.As(err, &missing):
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and %v", err)
		}
		t.Skip(err)
	default:
		t.Fatalf("test corpus: %v", err)
	}
	return ""
}

// EnvKeepEngines, set to 1 (or true, yes), keeps the second Docker engine that tests start
// (scripts/start-second-engine.sh) running after them, for a faster rerun; by default the tests
// (and `make test`) stop what they started.
const EnvKeepEngines = "SWEBENCH_RUN_KEEP_ENGINES"

// KeepEngines reports whether EnvKeepEngines asks to keep test engines running.
func KeepEngines() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvKeepEngines))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// EnvCorpusLog names a file to which every test that asks for the corpus appends one line when
// it ends, "ran|skipped|failed<TAB>package dir<TAB>test name": `make test` counts them.
const EnvCorpusLog = "SWEBENCH_RUN_CORPUS_LOG"

var corpusTests sync.Map // testing.TB → struct{}: tests whose line is registered

func recordCorpusTest(t testing.TB) {
	log := os.Getenv(EnvCorpusLog)
	if log == "" {
		return
	}
	if _, seen := corpusTests.LoadOrStore(t, struct{}{}); seen {
		return
	}
	pkg := "."
	if wd, err := os.Getwd(); err == nil {
		if root, err := filepath.Abs(RepoRoot(t)); err == nil {
			if rel, err := filepath.Rel(root, wd); err == nil {
				pkg = filepath.ToSlash(rel)
			}
		}
	}
	t.Cleanup(func() {
		status := "ran"
		switch {
		case t.Skipped():
			status = "skipped"
		case t.Failed():
			status = "failed"
		}
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Errorf("%s: %v", EnvCorpusLog, err)
			return
		}
		defer f.Close()
		if _, err := f.WriteString(status + "\t" + pkg + "\t" + t.Name() + "\n"); err != nil {
			t.Errorf("%s: %v", EnvCorpusLog, err)
		}
	})
}
