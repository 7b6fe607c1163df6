package dataset

import (
	"context"
	"errors"
	"testing"
)

// officialHub serves SWE-bench/SWE-bench_Verified with the harness-v5 columns and
// princeton-nlp/SWE-bench_Verified as its column-less older copy (50 rows).
func officialHub(t *testing.T) *fakeHub {
	hub := newFakeHub(t)
	hub.addCommit("SWE-bench/SWE-bench_Verified", "main", shaNew, map[string][]byte{
		"data/test-00000-of-00001.parquet": fixtureBytes(t, "datasets/SWE-bench_Verified.test.parquet"),
	})
	hub.addCommit("princeton-nlp/SWE-bench_Verified", "main", shaOld, map[string][]byte{
		"data/test-00000-of-00001.parquet": fixtureBytes(t, "datasets/SWE-bench_Verified.first50.hf-layout.parquet"),
	})
	return hub
}

func TestCachedColumns(t *testing.T) {
	hub := officialHub(t)
	opts := hub.opts(t)
	verified, _ := LookupNamed(testNamed, "verified")
	if _, _, err := CachedColumns(verified, opts); !errors.Is(err, ErrNotCached) {
		t.Fatalf("before any download: got %v, want ErrNotCached", err)
	}
	if _, err := Load(context.Background(), "verified", opts); err != nil {
		t.Fatal(err)
	}
	hub.reset()
	cols, sha, err := CachedColumns(verified, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ExtraColumns(cols), []string{"difficulty", "eval_script", "log_parser", "eval_type", "image"}; sha != shaNew || !sameSet(got, want) {
		t.Errorf("got extra columns %v at %s, want %v at %s", got, sha, want, shaNew)
	}
	if len(hub.requests) != 0 {
		t.Errorf("CachedColumns made %d requests; it must not touch the network", len(hub.requests))
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}
