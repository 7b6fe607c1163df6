package swebench

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

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

const (
	shaOld = "1111111111111111111111111111111111111111"
	shaNew = "2222222222222222222222222222222222222222"
)

// officialHub serves SWE-bench/SWE-bench_Verified with the harness-v5 columns and
// princeton-nlp/SWE-bench_Verified as its column-less older copy (50 rows).
func officialHub(t *testing.T) *fakeHub {
	hub := newFakeHub(t)
	hub.publish("SWE-bench/SWE-bench_Verified", shaNew, map[string][]byte{
		"data/test-00000-of-00001.parquet": fixtureBytes(t, "datasets/SWE-bench_Verified.test.parquet"),
	})
	hub.publish("princeton-nlp/SWE-bench_Verified", shaOld, map[string][]byte{
		"data/test-00000-of-00001.parquet": fixtureBytes(t, "datasets/SWE-bench_Verified.first50.hf-layout.parquet"),
	})
	return hub
}

// loadOpts reads datasets from hub into a fresh cache as cmd does: this family, its named datasets.
func loadOpts(t *testing.T, hub *fakeHub) dataset.LoadOptions {
	named := Profile{}.Datasets()
	for k := range named {
		named[k].Family = Name
	}
	return dataset.LoadOptions{HFEndpoint: hub.srv.URL, CacheDir: t.TempDir(), Named: named, Families: []dataset.Family{Profile{}}}
}

func loadFixture(t *testing.T, rel string) *dataset.Loaded {
	t.Helper()
	l, err := dataset.Load(context.Background(), testenv.Fixtures(t, filepath.FromSlash(rel)), dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestCompleteFromOfficialDataset(t *testing.T) {
	hub := officialHub(t)
	opts := loadOpts(t, hub)
	var progress strings.Builder
	opts.Progress, opts.Require, opts.Complete = &progress, dataset.RequireRun|dataset.RequireEval, true
	fixtureRows := map[string]dataset.Instance{}
	for _, inst := range loadFixture(t, "datasets/SWE-bench_Verified.test.parquet").Instances {
		fixtureRows[inst.InstanceID] = inst
	}

	named, err := dataset.Load(context.Background(), "verified", opts)
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
	old, err := dataset.Load(context.Background(), "hf:princeton-nlp/SWE-bench_Verified", opts)
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
	wantCompleted := []dataset.Completion{{HFRepo: "SWE-bench/SWE-bench_Verified", Split: "test", Revision: "main", ResolvedSHA: shaNew, Rows: 50,
		Files: named.Source.Files}}
	if !reflect.DeepEqual(old.Source.Completed, wantCompleted) {
		t.Errorf("got completed %+v, want %+v", old.Source.Completed, wantCompleted)
	}
	byID := map[string]dataset.Instance{}
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
	again, err := dataset.Load(context.Background(), "hf:princeton-nlp/SWE-bench_Verified", opts)
	if err != nil {
		t.Fatalf("offline: %v", err)
	}
	if n := hub.count("/"); n != 0 || again.Instances[0].EvalScript != old.Instances[0].EvalScript {
		t.Errorf("offline: %d requests, eval_script equal %t", n, again.Instances[0].EvalScript == old.Instances[0].EvalScript)
	}

	// A resume that completes from another version of the official dataset is not comparable.
	if err := again.Manifest().Comparable(old.Manifest()); err != nil {
		t.Errorf("same completion source: %v", err)
	}
	const shaNewer = "3333333333333333333333333333333333333333"
	hub.publish("SWE-bench/SWE-bench_Verified", shaNewer, map[string][]byte{
		"data/test-00000-of-00001.parquet": fixtureBytes(t, "datasets/SWE-bench_Verified.test.2026-02-16.parquet"),
	})
	opts.Offline = false
	newer, err := dataset.Load(context.Background(), "hf:princeton-nlp/SWE-bench_Verified", opts)
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
	plain, err := dataset.Load(context.Background(), "hf:princeton-nlp/SWE-bench_Verified", opts)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Instances[0].EvalScript != "" || hub.count("SWE-bench/SWE-bench_Verified") != 0 {
		t.Errorf("without Complete: eval_script %d bytes, %d requests for the official dataset", len(plain.Instances[0].EvalScript), hub.count("SWE-bench/SWE-bench_Verified"))
	}
}

// otherFamily takes the rows with an x_other column: rows of another family are graded from
// their own columns and never completed.
type otherFamily struct{}

func (otherFamily) Name() string                         { return "other" }
func (otherFamily) Match(inst *dataset.Instance) bool    { _, ok := inst.Extra["x_other"]; return ok }
func (otherFamily) Prepare(inst *dataset.Instance) error { return nil }

func TestCompleteNamesRowsThatCannotBeGraded(t *testing.T) {
	hub := officialHub(t)
	verified := loadFixture(t, "datasets/SWE-bench_Verified.test.parquet").Instances
	row := func(id, base string, extra string) string {
		return `{"instance_id":"` + id + `","repo":"o/r","base_commit":"` + base + `","problem_statement":"p","FAIL_TO_PASS":["t1"],"PASS_TO_PASS":[]` + extra + "}\n"
	}
	data := row(verified[0].InstanceID, "0000000000000000000000000000000000000000", "") +
		row(verified[1].InstanceID, verified[1].BaseCommit, "") +
		row("acme__widget-42", "abc", "") +
		row("acme__widget-43", "abc", `,"x_other":true`)
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := loadOpts(t, hub)
	opts.Require, opts.Complete, opts.Families = dataset.RequireEval, true, []dataset.Family{otherFamily{}, Profile{}}
	_, err := dataset.Load(context.Background(), path, opts)
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
	opts = dataset.LoadOptions{HFEndpoint: dead.URL, CacheDir: t.TempDir(), Retries: 1, Complete: true, Families: []dataset.Family{Profile{}}}
	_, err = dataset.Load(context.Background(), path, opts)
	if !errors.As(err, &ne) || len(ne.Tried) != 1 || !strings.Contains(ne.Tried[0], "SWE-bench/SWE-bench_Verified:test") {
		t.Errorf("unreachable hub: got %v", err)
	}

	// Offline with an empty cache: every official dataset is looked up in the cache only.
	opts = dataset.LoadOptions{HFEndpoint: dead.URL, CacheDir: t.TempDir(), Offline: true, Complete: true, Families: []dataset.Family{Profile{}}}
	_, err = dataset.Load(context.Background(), path, opts)
	if !errors.As(err, &ne) || len(ne.Tried) != len(completionSources) {
		t.Fatalf("offline: got %v", err)
	}
	for _, tr := range ne.Tried {
		if !strings.Contains(tr, "(offline, not in the cache)") {
			t.Errorf("offline: %q does not say the lookup was offline", tr)
		}
	}

	// Without the family, nothing completes the rows.
	if l, err := dataset.Load(context.Background(), path, dataset.LoadOptions{Complete: true, Offline: true, CacheDir: t.TempDir()}); err != nil || l.Source.Completed != nil {
		t.Errorf("without the family: %v, completed %+v", err, l)
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
	// The named datasets are the official ones, under their SWE-bench/* ids, as harness 5.x
	// resolves them; completion looks in each of them.
	for _, d := range (Profile{}).Datasets() {
		if !IsOfficial(d.HFRepo) || CanonicalRepo(d.HFRepo) != d.HFRepo {
			t.Errorf("named dataset %s points at %s; harness 5.x resolves names to the official SWE-bench/* ids", d.Name, d.HFRepo)
		}
		found := false
		for _, c := range completionSources {
			found = found || (c.repo == d.HFRepo && c.split == d.Split)
		}
		if !found {
			t.Errorf("named dataset %s (%s:%s) is not a completion source", d.Name, d.HFRepo, d.Split)
		}
	}
}
