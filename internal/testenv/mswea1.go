package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// MiniSWEAgent1 returns a file of mini-swe-agent's public repository at a 1.x tag that the 1.x
// tests read (its test trajectories and configs; origins and checksums in
// ../mswea1-testdata/manifest-lines.txt).
//
// TODO(testdata): these files belong in the corpus manifest, as mini-swe-agent-1/NAME; until it
// lands they are read from ../mswea1-testdata/mini-swe-agent-1/NAME beside the repository, and
// the test skips without them — except with CI set, where it fails.
func MiniSWEAgent1(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(RepoRoot(t), "..", "mswea1-testdata", "mini-swe-agent-1", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and test data mini-swe-agent-1/%s is missing: %v", name, err)
		}
		t.Skipf("test data mini-swe-agent-1/%s is not here (%s); see ../mswea1-testdata/manifest-lines.txt", name, p)
	}
	return p
}
