package eval

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// fixture returns the path of a test corpus file (skips without the corpus, fails with CI set).
func fixture(t *testing.T, rel string) string {
	t.Helper()
	return testenv.Fixtures(t, filepath.FromSlash(rel))
}

// stringList decodes FAIL_TO_PASS / PASS_TO_PASS, which JSONL datasets store as JSON-encoded strings
// and some store as real lists.
func stringList(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return list
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("test list %s is neither a list nor a string: %v", raw, err)
	}
	if err := json.Unmarshal([]byte(s), &list); err != nil {
		t.Fatalf("test list %q is not JSON: %v", s, err)
	}
	return list
}

// loadJSONLInstances reads a harness-v5 dataset saved as JSON lines.
func loadJSONLInstances(t *testing.T, path string) []dataset.Instance {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []dataset.Instance
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<28)
	for sc.Scan() {
		var row struct {
			dataset.Instance
			F2P json.RawMessage `json:"FAIL_TO_PASS"`
			P2P json.RawMessage `json:"PASS_TO_PASS"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		inst := row.Instance
		inst.FailToPass = stringList(t, row.F2P)
		inst.PassToPass = stringList(t, row.P2P)
		out = append(out, inst)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
