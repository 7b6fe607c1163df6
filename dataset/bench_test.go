package dataset

import (
	"context"
	"testing"
)

// The 20,000-row synthetic load is measured by bench (make bench).

// BenchmarkLoadVerified loads and validates the 500-row SWE-bench Verified parquet (2.4 MB,
// about 20 MB of text once decoded).
func BenchmarkLoadVerified(b *testing.B) {
	p := fixture(b, "datasets/SWE-bench_Verified.test.parquet")
	b.ReportAllocs()
	for b.Loop() {
		l, err := Load(context.Background(), p, LoadOptions{Require: RequireRun | RequireEval})
		if err != nil || len(l.Instances) != 500 {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadVerifiedSelect10 loads 10 instances of Verified: memory follows the selection.
func BenchmarkLoadVerifiedSelect10(b *testing.B) {
	p := fixture(b, "datasets/SWE-bench_Verified.test.parquet")
	sel := &Selection{Filter: "django__django-1", Slice: ":10"}
	b.ReportAllocs()
	for b.Loop() {
		l, err := Load(context.Background(), p, LoadOptions{Selection: sel, Require: RequireRun})
		if err != nil || len(l.Instances) != 10 {
			b.Fatal(err, len(l.Instances))
		}
	}
}
