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

// testNamed are the named datasets the tests load by name (the families declare the real ones).
var testNamed = []NamedDataset{
	{Name: "verified", HFRepo: "SWE-bench/SWE-bench_Verified", Split: "test", Rows: 500},
	{Name: "lite", HFRepo: "SWE-bench/SWE-bench_Lite", Split: "test", Rows: 300},
}
