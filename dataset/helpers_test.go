package dataset

import (
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// fixture returns the path of a test corpus file (skips without the corpus, fails with CI set).
func fixture(t testing.TB, rel string) string {
	t.Helper()
	return testenv.Fixtures(t, filepath.FromSlash(rel))
}
