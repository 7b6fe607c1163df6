package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

func TestCompleteFromOfficialDataset(t *testing.T) {
	hub := officialHub(t)
	opts := hub.opts(t)
	var progress strings.Builder
	opts.Progress, opts.Require, opts.Complete = &progress, RequireRun|RequireEval, true
	fixtureRows := map[string]Instance{}
	for _, inst := range loadFixture(t, "datasets/SWE-bench_Verified.test.parquet").Instances {
		fixtureRows[inst.InstanceID] = inst
	}

	named, err := Load(context.Background(), "verified", opts)
	if err != nil {
		t.Fatal(err)
	}
	if named.Source.HFRepo != "SWE-bench/SWE-bench_Verified" || len(named.Instances) != 500 || named.Source.Completed != nil {
		t.Fatalf("verified: got %s with %d rows, completed %+v; want SWE-bench/SWE-bench_Verified, 500 rows, nothing completed",
			named.Source.HFRepo, len(named.Instances), named.Source.Completed)
	}
	if progress.Len() > 0 && strings.Contains(progress.String(), "no eval_script") {
		t.Errorf("verified has every column, yet progress says %q", progress.String())
	}

	progress.Reset()
	old, err := Load(context.Background(), "hf:princeton-nlp/SWE-bench_Verified", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(old.Instances) != 50 {
		t.Fatalf("got %d rows, want 50", len(old.Instances))
	}
	wantLine := "dataset: 50 of 50 rows had no eval_script; took eval_script, log_parser, eval_type from SWE-bench/SWE-bench_Verified:test@" + shaNew[:12] + "\n"
	if got := progress.String(); !strings.Contains(got, wantLine) || strings.Count(got, "no eval_script") != 1 {
		t.Errorf("got progress %q, want the one line %q", got, wantLine)
	}
	wantCompleted := []Completion{{HFRepo: "SWE-bench/SWE-bench_Verified", Split: "test", Revision: "main", ResolvedSHA: shaNew, Rows: 50,
		Files: named.Source.Files}}
	if !reflect.DeepEqual(old.Source.Completed, wantCompleted) {
		t.Errorf("got completed %+v, want %+v", old.Source.Completed, wantCompleted)
	}
	byID := map[string]Instance{}
	for _, inst := range named.Instances {
		byID[inst.InstanceID] = inst
	}
	for _, got := range old.Instances {
		want := fixtureRows[got.InstanceID]
		if got.EvalScript != want.EvalScript || got.EvalScript != byID[got.InstanceID].EvalScript {
			t.Errorf("%s: the completed eval_script differs from the fixture's", got.InstanceID)
		}
		if got.LogParser != want.LogParser || got.EvalType != want.EvalType || got.LogParser == "" {
			t.Errorf("%s: got log_parser %q, eval_type %q; want %q, %q", got.InstanceID, got.LogParser, got.EvalType, want.LogParser, want.EvalType)
		}
		if got.Image != "" {
			t.Errorf("%s: completion set image %q; the image template must still apply to this row", got.InstanceID, got.Image)
		}
	}

	// run.json pins the completion source.
	man, err := json.Marshal(old.Manifest())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(man), `"completed_from":[{"hf_repo":"SWE-bench/SWE-bench_Verified","split":"test","revision":"main","resolved_sha":"`+shaNew+`"`) {
		t.Errorf("manifest does not record the completion source: %s", man)
	}

	// Offline, everything comes from the cache.
	hub.reset()
	opts.Offline = true
	again, err := Load(context.Background(), "hf:princeton-nlp/SWE-bench_Verified", opts)
	if err != nil {
		t.Fatalf("offline: %v", err)
	}
	if len(hub.requests) != 0 || again.Instances[0].EvalScript != old.Instances[0].EvalScript {
		t.Errorf("offline: %d requests, eval_script equal %t", len(hub.requests), again.Instances[0].EvalScript == old.Instances[0].EvalScript)
	}

	// A resume that completes from another version of the official dataset is not comparable.
	if err := again.Manifest().Comparable(old.Manifest()); err != nil {
		t.Errorf("same completion source: %v", err)
	}
	const shaNewer = "3333333333333333333333333333333333333333"
	hub.addCommit("SWE-bench/SWE-bench_Verified", "main", shaNewer, map[string][]byte{
		"data/test-00000-of-00001.parquet": fixtureBytes(t, "datasets/SWE-bench_Verified.test.2026-02-16.parquet"),
	})
	opts.Offline = false
	newer, err := Load(context.Background(), "hf:princeton-nlp/SWE-bench_Verified", opts)
	if err != nil {
		t.Fatal(err)
	}
	err = newer.Manifest().Comparable(old.Manifest())
	if want := "eval columns completed from different versions of SWE-bench/SWE-bench_Verified:test (333333333333 vs 222222222222)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}

	// Without Complete, nothing is downloaded for the rows.
	hub.reset()
	opts.Offline, opts.Complete = false, false
	plain, err := Load(context.Background(), "hf:princeton-nlp/SWE-bench_Verified", opts)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Instances[0].EvalScript != "" || hub.count("SWE-bench/SWE-bench_Verified") != 0 {
		t.Errorf("without Complete: eval_script %d bytes, %d requests for the official dataset", len(plain.Instances[0].EvalScript), hub.count("SWE-bench/SWE-bench_Verified"))
	}
}

func TestCompleteNamesRowsThatCannotBeGraded(t *testing.T) {
	hub := officialHub(t)
	verified := loadFixture(t, "datasets/SWE-bench_Verified.test.parquet").Instances
	row := func(id, base string, extra string) string {
		return `{"instance_id":"` + id + `","repo":"o/r","base_commit":"` + base + `","problem_statement":"p","FAIL_TO_PASS":["t1"],"PASS_TO_PASS":[]` + extra + "}\n"
	}
	data := row(verified[0].InstanceID, "0000000000000000000000000000000000000000", "") +
		row(verified[1].InstanceID, verified[1].BaseCommit, "") +
		row("acme__widget-42", "abc", "") +
		row("acme__widget-43", "abc", `,"x_tag":"v1","notes":""`)
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := hub.opts(t)
	opts.Require, opts.Complete, opts.Families = RequireEval, true, []Family{tagFamily{}}
	_, err := Load(context.Background(), path, opts)
	var ne *NoEvalSourceError
	if !errors.As(err, &ne) {
		t.Fatalf("got %v, want a *NoEvalSourceError", err)
	}
	if want := []string{"acme__widget-42", verified[0].InstanceID}; !reflect.DeepEqual(ne.IDs, want) {
		t.Errorf("got ids %v, want %v (the row of another family is graded from its own columns, the one with the right base_commit was completed)", ne.IDs, want)
	}
	for _, want := range []string{
		verified[0].InstanceID + " (SWE-bench/SWE-bench_Verified:test@" + shaNew[:12] + " has it with another base_commit",
		"SWE-bench/SWE-bench_Lite:test (not on the hub)", "SWE-bench/SWE-bench_Multimodal:dev (not on the hub)",
		"--split verified",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}

	// A hub that does not answer is asked once, not once per official dataset.
	dead := httptest.NewServer(nil)
	dead.Close()
	opts = LoadOptions{HFEndpoint: dead.URL, CacheDir: t.TempDir(), Retries: 1, retryDelay: 1, Complete: true}
	_, err = Load(context.Background(), path, opts)
	if !errors.As(err, &ne) || len(ne.Tried) != 1 || !strings.Contains(ne.Tried[0], "SWE-bench/SWE-bench_Verified:test") {
		t.Errorf("unreachable hub: got %v", err)
	}

	// Offline with an empty cache: every official dataset is looked up in the cache only.
	opts = LoadOptions{HFEndpoint: dead.URL, CacheDir: t.TempDir(), Offline: true, Complete: true}
	_, err = Load(context.Background(), path, opts)
	if !errors.As(err, &ne) || len(ne.Tried) != len(completionSources) {
		t.Fatalf("offline: got %v", err)
	}
	for _, tr := range ne.Tried {
		if !strings.Contains(tr, "(offline, not in the cache)") {
			t.Errorf("offline: %q does not say the lookup was offline", tr)
		}
	}
}

func TestCanonicalRepo(t *testing.T) {
	tests := []struct{ in, want string }{
		{"princeton-nlp/SWE-bench_Verified", "SWE-bench/SWE-bench_Verified"},
		{"princeton-nlp/SWE-bench", "SWE-bench/SWE-bench"},
		{"princeton-nlp/swe-bench_lite", "SWE-bench/SWE-bench_Lite"},
		{"SWE-bench/SWE-bench_Multimodal", "SWE-bench/SWE-bench_Multimodal"},
		{"swe-bench/SWE-bench_Multilingual", "SWE-bench/SWE-bench_Multilingual"},
		{"princeton-nlp/SWE-bench_oracle", "princeton-nlp/SWE-bench_oracle"},
		{"nebius/SWE-rebench", "nebius/SWE-rebench"},
		{"SWE-bench/SWE-smith", "SWE-bench/SWE-smith"},
	}
	for _, tt := range tests {
		if got := CanonicalRepo(tt.in); got != tt.want {
			t.Errorf("CanonicalRepo(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
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
