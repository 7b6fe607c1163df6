package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// fixture returns the path of a file under the shared fixtures, failing the test when missing.
func fixture(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "fixtures", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		abs, _ := filepath.Abs(p)
		t.Fatalf("fixture %s not found at %s (the tests read the shared fixtures at ../shared/fixtures from the repository root): %v", rel, abs, err)
	}
	return p
}
