package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// `run --eval` on rows that cannot be graded (no eval_script, no install_config, not in any
// official SWE-bench dataset) stops before any model call or container, naming the rows.
func TestRunEvalRefusesUngradableRowsFirst(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", testAPIKey)
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	t.Setenv("HF_HUB_OFFLINE", "1") // the official datasets are looked up in the (empty) cache only

	split := filepath.Join(t.TempDir(), "tasks.jsonl")
	rows := `{"instance_id":"acme__widget-1","repo":"acme/widget","base_commit":"abc","problem_statement":"p","test_patch":"","FAIL_TO_PASS":["t::a"],"PASS_TO_PASS":[]}` + "\n"
	if err := os.WriteFile(split, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "run", "--split", split, "--model", "openai/gpt-4o-mini", "--eval", "-o", filepath.Join(t.TempDir(), "out"))
	if code != exitFailure {
		t.Errorf("exit %d, want %d\n%s", code, exitFailure, stderr)
	}
	for _, want := range []string{"1 rows cannot be graded", "acme__widget-1", "SWE-bench/SWE-bench_Verified:test (offline, not in the cache)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if calls.Load() != 0 {
		t.Errorf("%d model calls were made before the refusal", calls.Load())
	}
}
