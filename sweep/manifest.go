package sweep

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
)

// Resolved is what a planned cell runs with, once the caller loaded its config, model and
// dataset.
type Resolved struct {
	// Model is the model's name as the provider reports it (run.json's model).
	Model string
	// Config is the cell's resolved config as its run.json records it: JSON values (numbers as
	// float64), secrets removed.
	Config map[string]any
	// Dataset is the cell's dataset, loaded and selected.
	Dataset *dataset.Loaded
}

// Manifest is the sweep.json of the planned matrix: resolved[k] is what Cells[k] runs with; now
// is its creation time (kept from the sweep.json of a resumed sweep by the caller).
func (p *Plan) Manifest(resolved []Resolved, now time.Time) (*compare.Sweep, error) {
	if len(resolved) != len(p.Cells) {
		return nil, fmt.Errorf("%d cells resolved, %d planned", len(resolved), len(p.Cells))
	}
	s := &compare.Sweep{SchemaVersion: compare.SweepSchemaVersion, Name: p.Name, Created: now.UTC().Truncate(time.Second)}
	for k, c := range p.Cells {
		r := resolved[k]
		ds, err := json.Marshal(r.Dataset.Manifest())
		if err != nil {
			return nil, err
		}
		name, rev := compare.DatasetOf(ds)
		s.Cells = append(s.Cells, compare.Cell{Name: c.Name, Variant: c.Variant, DatasetName: c.Dataset.Name, Dir: c.Dir, Model: r.Model,
			ConfigHash: compare.ConfigHash(r.Config), Dataset: name, DatasetRevision: rev, Repeat: c.Repeat, History: results.HistoryMode(r.Config)})
	}
	return s, s.Validate()
}

// MatrixChanges names what differs between the matrix of a sweep folder (prev, its sweep.json)
// and the planned one (cur): cells added or removed, and per cell each field that changed, as
// "cell NAME: FIELD OLD → NEW". None: resuming keeps the results comparable. A sweep.json of
// schema 1 named a cell's variant MODEL-DATASET where schema 2 has the model and the dataset's
// name: the same cell, not a change.
func MatrixChanges(prev, cur *compare.Sweep) []string {
	var out []string
	old := map[string]compare.Cell{}
	for _, c := range prev.Cells {
		old[c.Name] = c
	}
	seen := map[string]bool{}
	for _, c := range cur.Cells {
		seen[c.Name] = true
		o, ok := old[c.Name]
		if !ok {
			out = append(out, fmt.Sprintf("cell %s added", c.Name))
			continue
		}
		if prev.SchemaVersion == 1 && o.DatasetName == "" && (o.Variant == c.Variant || o.Variant == c.Variant+"-"+c.DatasetName) {
			o.Variant, o.DatasetName = c.Variant, c.DatasetName
		}
		for _, d := range []struct{ what, a, b string }{
			{"variant", o.Variant, c.Variant}, {"dataset_name", o.DatasetName, c.DatasetName}, {"dir", o.Dir, c.Dir}, {"model", o.Model, c.Model},
			{"config_hash", o.ConfigHash, c.ConfigHash}, {"dataset", o.Dataset, c.Dataset},
			{"dataset_revision", o.DatasetRevision, c.DatasetRevision}, {"repeat", fmt.Sprint(o.Repeat), fmt.Sprint(c.Repeat)},
		} {
			if d.a != d.b {
				out = append(out, fmt.Sprintf("cell %s: %s %s → %s", c.Name, d.what, short(d.a), short(d.b)))
			}
		}
	}
	for _, c := range prev.Cells {
		if !seen[c.Name] {
			out = append(out, fmt.Sprintf("cell %s removed", c.Name))
		}
	}
	return out
}

// short shortens a value for MatrixChanges: at most 24 bytes, `""` for nothing.
func short(s string) string {
	if len(s) > 24 {
		return s[:21] + "…"
	}
	if s == "" {
		return `""`
	}
	return s
}

// NewHistoryEntries makes a history line per cell (runs: the sweep folder read by compare.Read),
// leaving out the cells whose latest line in history already says the same: a resumed sweep that
// had nothing left to do appends nothing.
func NewHistoryEntries(runs []*compare.Run, history []compare.HistoryEntry, now time.Time) []compare.HistoryEntry {
	latest := map[string]compare.HistoryEntry{}
	for _, e := range history {
		latest[e.Sweep+"\x00"+e.Cell] = e
	}
	var out []compare.HistoryEntry
	for _, r := range runs {
		e := compare.NewHistoryEntry(r, now)
		if prev, ok := latest[e.Sweep+"\x00"+e.Cell]; ok && sameResult(prev, e) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// sameResult reports whether two history lines of a cell hold the same result.
func sameResult(a, b compare.HistoryEntry) bool {
	return a.Counts == b.Counts && a.ConfigHash == b.ConfigHash && a.DatasetRevision == b.DatasetRevision &&
		reflect.DeepEqual(a.ResolvedIDs, b.ResolvedIDs) && reflect.DeepEqual(a.EvaluatedIDs, b.EvaluatedIDs) &&
		fmt.Sprintf("%.6f", a.Cost) == fmt.Sprintf("%.6f", b.Cost)
}
