// Package testenv gives tests a real Docker engine and the project's locally built images.
// Without a daemon, Docker tests skip — except when CI is set, where they fail.
package testenv

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dockerenv"
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

// Fixtures returns a path inside ../shared/fixtures next to the repository (the directory itself
// without parts), failing the test when it is missing: fixture tests never skip.
func Fixtures(t testing.TB, parts ...string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join(RepoRoot(t), "..", "shared", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(append([]string{root}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s not found (tests expect ../shared/fixtures beside the repository): %v", p, err)
	}
	return p
}
