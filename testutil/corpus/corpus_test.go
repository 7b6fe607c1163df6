package corpus_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/corpus"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The corpus's JSON lines file, which has no public origin, is generated from the Lite dev
// parquet byte for byte.
func TestGeneratedLiteDevJSONL(t *testing.T) {
	e, ok := corpus.Default().Lookup("datasets/SWE-bench_Lite.dev.jsonl")
	if !ok || e.Input() != "datasets/SWE-bench_Lite.dev.parquet" {
		t.Fatalf("manifest entry %+v: want it made from the Lite dev parquet", e)
	}
	pq, err := os.ReadFile(testenv.Fixtures(t, "datasets", "SWE-bench_Lite.dev.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(testenv.Fixtures(t, "datasets", "SWE-bench_Lite.dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := corpus.ParquetToJSONL(e.Input(), pq)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("generated JSONL (%d bytes, sha256 %s) differs from the corpus file (%d bytes, sha256 %s)", len(got), corpus.SHA256(got), len(want), corpus.SHA256(want))
	}
	if corpus.SHA256(got) != e.SHA256 {
		t.Errorf("generated JSONL sha256 %s, the manifest says %s", corpus.SHA256(got), e.SHA256)
	}
}
