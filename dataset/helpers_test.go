package dataset

import (
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/internal/testenv"
)

// fixture returns the path of a file under the shared fixtures, failing the test when missing.
func fixture(t testing.TB, rel string) string {
	t.Helper()
	return testenv.Fixtures(t, filepath.FromSlash(rel))
}
