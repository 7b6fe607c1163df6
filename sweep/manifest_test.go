package sweep

import (
	"reflect"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
)

// sweep.json records every cell with its variant, repeat, model, config hash and dataset, and
// validates.
func TestManifest(t *testing.T) {
	p, err := planFile(t, writeFile(t, "name: nightly\ndatasets: [verified]\nmodels: [{name: a, model: scripted}, openai/gpt-5]\nrepeats: 2\n"), testOptions)
	if err != nil {
		t.Fatal(err)
	}
	verified := &dataset.Loaded{
		Instances: []dataset.Instance{{InstanceID: "x__y-1"}, {InstanceID: "x__y-2"}},
		Source:    dataset.Source{Spec: "verified", Kind: "named", Name: "verified", HFRepo: "princeton-nlp/SWE-bench_Verified", Split: "test", ResolvedSHA: "c0ffee"},
	}
	configA := map[string]any{"agent": map[string]any{"step_limit": float64(5)}}
	configB := map[string]any{"agent": map[string]any{"step_limit": float64(6)}}
	resolved := []Resolved{
		{Model: "scripted", Config: configA, Dataset: verified}, {Model: "scripted", Config: configA, Dataset: verified},
		{Model: "openai/gpt-5", Config: configB, Dataset: verified}, {Model: "openai/gpt-5", Config: configB, Dataset: verified},
	}
	now := time.Date(2026, 8, 12, 2, 3, 4, 500, time.FixedZone("CEST", 2*3600))
	got, err := p.Manifest(resolved, now)
	if err != nil {
		t.Fatal(err)
	}
	hashA, hashB := compare.ConfigHash(configA), compare.ConfigHash(configB)
	want := &compare.Sweep{SchemaVersion: compare.SweepSchemaVersion, Name: "nightly", Created: time.Date(2026, 8, 12, 0, 3, 4, 0, time.UTC), Cells: []compare.Cell{
		{Name: "a-r1", Variant: "a", DatasetName: "verified", Dir: "a-r1", Model: "scripted", ConfigHash: hashA, Dataset: "princeton-nlp/SWE-bench_Verified:test", DatasetRevision: "c0ffee", Repeat: 1},
		{Name: "a-r2", Variant: "a", DatasetName: "verified", Dir: "a-r2", Model: "scripted", ConfigHash: hashA, Dataset: "princeton-nlp/SWE-bench_Verified:test", DatasetRevision: "c0ffee", Repeat: 2},
		{Name: "gpt-5-r1", Variant: "gpt-5", DatasetName: "verified", Dir: "gpt-5-r1", Model: "openai/gpt-5", ConfigHash: hashB, Dataset: "princeton-nlp/SWE-bench_Verified:test", DatasetRevision: "c0ffee", Repeat: 1},
		{Name: "gpt-5-r2", Variant: "gpt-5", DatasetName: "verified", Dir: "gpt-5-r2", Model: "openai/gpt-5", ConfigHash: hashB, Dataset: "princeton-nlp/SWE-bench_Verified:test", DatasetRevision: "c0ffee", Repeat: 2},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("manifest:\n%+v\nwant:\n%+v", got, want)
	}
	if hashA == "" || hashA == hashB {
		t.Errorf("config hashes %q, %q", hashA, hashB)
	}
	if _, err := p.Manifest(resolved[:3], now); err == nil {
		t.Errorf("a manifest of 3 resolved cells for 4 planned: no error")
	}
}

func TestMatrixChanges(t *testing.T) {
	cell := func(name string, edit func(*compare.Cell)) compare.Cell {
		c := compare.Cell{Name: name, Variant: name, Dir: name, Model: "openai/gpt-5", ConfigHash: "3f2a9c0d41b7", Dataset: "lite", DatasetRevision: "abc", Repeat: 1}
		if edit != nil {
			edit(&c)
		}
		return c
	}
	sweepOf := func(cells ...compare.Cell) *compare.Sweep {
		return &compare.Sweep{SchemaVersion: compare.SweepSchemaVersion, Cells: cells}
	}
	schema1 := func(cells ...compare.Cell) *compare.Sweep { return &compare.Sweep{SchemaVersion: 1, Cells: cells} }
	tests := []struct {
		name      string
		prev, cur *compare.Sweep
		want      []string
	}{
		{"the same", sweepOf(cell("a", nil), cell("b", nil)), sweepOf(cell("b", nil), cell("a", nil)), nil},
		{"a cell added and one removed", sweepOf(cell("a", nil), cell("b", nil)), sweepOf(cell("a", nil), cell("c", nil)),
			[]string{"cell c added", "cell b removed"}},
		{"fields changed", sweepOf(cell("a", nil)), sweepOf(cell("a", func(c *compare.Cell) {
			c.Model, c.ConfigHash, c.Repeat = "openai/gpt-5-mini", "000000000000", 2
		})), []string{"cell a: model openai/gpt-5 → openai/gpt-5-mini", "cell a: config_hash 3f2a9c0d41b7 → 000000000000", "cell a: repeat 1 → 2"}},
		{"long and empty values", sweepOf(cell("a", func(c *compare.Cell) { c.DatasetRevision = "" })),
			sweepOf(cell("a", func(c *compare.Cell) { c.DatasetRevision = "0123456789abcdef0123456789abcdef" })),
			[]string{`cell a: dataset_revision "" → 0123456789abcdef01234…`}},
		// A sweep folder of an earlier version (schema 1: variant MODEL-DATASET, no dataset_name)
		// resumes as the same matrix.
		{"schema 1 variants", schema1(cell("m-x", nil), cell("m", func(c *compare.Cell) { c.Name, c.Dir = "m-y", "m-y" })),
			sweepOf(cell("m-x", func(c *compare.Cell) { c.Variant, c.DatasetName = "m", "x" }), cell("m-y", func(c *compare.Cell) { c.Variant, c.DatasetName = "m", "y" })), nil},
		{"a dataset renamed", sweepOf(cell("m", func(c *compare.Cell) { c.DatasetName = "x" })), sweepOf(cell("m", func(c *compare.Cell) { c.DatasetName = "y" })),
			[]string{"cell m: dataset_name x → y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatrixChanges(tt.prev, tt.cur); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("changes:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

// A cell gets a history line unless its latest line already holds the same result.
func TestNewHistoryEntries(t *testing.T) {
	now := time.Date(2026, 8, 12, 2, 0, 0, 0, time.UTC)
	run := func(cell string, cost float64, verdicts ...compare.Verdict) *compare.Run {
		r := &compare.Run{Sweep: "nightly", Cell: cell, Variant: cell, Model: "m", ConfigHash: "h", DatasetRevision: "rev"}
		for k, v := range verdicts {
			r.Instances = append(r.Instances, compare.Instance{ID: string(rune('a' + k)), Verdict: v, Cost: &cost})
		}
		return r
	}
	earlier := now.Add(-time.Hour)
	history := []compare.HistoryEntry{
		compare.NewHistoryEntry(run("same", 0.1, compare.Resolved, compare.Unresolved), earlier),
		compare.NewHistoryEntry(run("changed", 0.1, compare.Resolved, compare.NotSubmitted), earlier),
		compare.NewHistoryEntry(run("cost", 0.1, compare.Resolved), earlier),
		compare.NewHistoryEntry(run("rounding", 0.1, compare.Resolved), earlier),
		// An older line of "changed" that matches today's result: only the latest counts.
		compare.NewHistoryEntry(run("changed", 0.1, compare.Resolved, compare.Resolved), earlier.Add(-24*time.Hour)),
		compare.NewHistoryEntry(run("changed", 0.1, compare.Resolved, compare.NotSubmitted), earlier),
	}
	runs := []*compare.Run{
		run("same", 0.1, compare.Resolved, compare.Unresolved),
		run("changed", 0.1, compare.Resolved, compare.Resolved),
		run("cost", 0.2, compare.Resolved),
		run("rounding", 0.1+1e-9, compare.Resolved),
		run("new", 0, compare.Error),
	}
	got := NewHistoryEntries(runs, history, now)
	var cells []string
	for _, e := range got {
		cells = append(cells, e.Cell)
		if !e.Time.Equal(now) {
			t.Errorf("%s: time %v, want %v", e.Cell, e.Time, now)
		}
	}
	if want := []string{"changed", "cost", "new"}; !reflect.DeepEqual(cells, want) {
		t.Errorf("new lines for %q, want %q", cells, want)
	}
	if got := NewHistoryEntries(runs, nil, now); len(got) != len(runs) {
		t.Errorf("without history: %d lines, want %d", len(got), len(runs))
	}
}
