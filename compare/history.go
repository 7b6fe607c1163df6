package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"time"
)

// HistoryFile is the usual name of the history file, kept beside the sweep folders.
const HistoryFile = "history.jsonl"

// HistorySchemaVersion is the version of the history lines this package writes and reads.
const HistorySchemaVersion = 1

// HistoryEntry is one line of the history file: one run (a sweep cell) of one night. The
// resolved and evaluated ids let later nights find instances whose verdict changed between runs
// of identical model, config, dataset and revision (flaky instances).
type HistoryEntry struct {
	SchemaVersion   int           `json:"schema_version"`
	Date            string        `json:"date"` // the night, YYYY-MM-DD (local time of the sweep)
	Time            time.Time     `json:"time"` // when the line was made
	Sweep           string        `json:"sweep,omitempty"`
	Cell            string        `json:"cell,omitempty"`
	Variant         string        `json:"variant"`
	DatasetName     string        `json:"dataset_name,omitempty"` // the sweep's name of the dataset
	Repeat          int           `json:"repeat,omitempty"`
	Model           string        `json:"model"`
	Dataset         string        `json:"dataset"`
	DatasetRevision string        `json:"dataset_revision"`
	ConfigHash      string        `json:"config_hash"`
	Counts          HistoryCounts `json:"counts"`
	Cost            float64       `json:"cost"`
	ResolvedIDs     []string      `json:"resolved_ids"`
	EvaluatedIDs    []string      `json:"evaluated_ids"` // every instance with a final outcome
}

// HistoryCounts count a run's verdicts.
type HistoryCounts struct {
	Instances    int `json:"instances"`
	Resolved     int `json:"resolved"`
	Unresolved   int `json:"unresolved"`
	Error        int `json:"error"`
	EmptyPatch   int `json:"empty_patch"`
	NotSubmitted int `json:"not_submitted"`
}

// NewHistoryEntry summarises a run read by Read as a history line of the night of when. The
// variant is the run's (its label when it is not a sweep cell); with the dataset, it says which
// model × dataset the line is.
func NewHistoryEntry(r *Run, when time.Time) HistoryEntry {
	e := HistoryEntry{SchemaVersion: HistorySchemaVersion, Date: when.Format(time.DateOnly), Time: when,
		Sweep: r.Sweep, Cell: r.Cell, Variant: firstNonEmpty(r.Variant, r.Label), DatasetName: r.DatasetName, Repeat: r.Repeat,
		Model: r.Model, Dataset: r.Dataset, DatasetRevision: r.DatasetRevision, ConfigHash: r.ConfigHash,
		ResolvedIDs: []string{}, EvaluatedIDs: []string{}}
	for k := range r.Instances {
		in := &r.Instances[k]
		e.Counts.Instances++
		if in.Cost != nil {
			e.Cost += *in.Cost
		}
		switch in.Verdict {
		case Resolved:
			e.Counts.Resolved++
			e.ResolvedIDs = append(e.ResolvedIDs, in.ID)
		case Unresolved:
			e.Counts.Unresolved++
		case Error:
			e.Counts.Error++
		case EmptyPatch:
			e.Counts.EmptyPatch++
		default:
			e.Counts.NotSubmitted++
		}
		if in.Verdict.Covered() {
			e.EvaluatedIDs = append(e.EvaluatedIDs, in.ID)
		}
	}
	return e
}

// Rate is the entry's resolved rate over its evaluated instances.
func (e HistoryEntry) Rate() float64 {
	if n := len(e.EvaluatedIDs); n > 0 {
		return float64(e.Counts.Resolved) / float64(n)
	}
	return 0
}

// AppendHistory appends entries to the history file at path (created if needed), one JSON line
// each, in a single write under an exclusive lock, and fsyncs it. Earlier lines are never
// rewritten; a torn last line left by a crash during an earlier append is cut off first, so it
// cannot merge with the new lines.
func AppendHistory(path string, entries []HistoryEntry) error {
	if len(entries) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for k, e := range entries {
		if e.SchemaVersion == 0 {
			e.SchemaVersion = HistorySchemaVersion
		}
		if e.Variant == "" || e.Date == "" {
			return fmt.Errorf("history %s: entry %d has no variant or date", path, k)
		}
		line, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("history %s: %w", path, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	unlock, err := lock(f)
	if err != nil {
		return fmt.Errorf("history %s: lock: %w", path, err)
	}
	defer unlock()
	if err := cutTornLine(f); err != nil {
		return fmt.Errorf("history %s: %w", path, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("history %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("history %s: %w", path, err)
	}
	return nil
}

// cutTornLine truncates f after its last newline when it does not end with one.
func cutTornLine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	if size == 0 {
		return nil
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	const chunk = 64 << 10
	end := size
	for end > 0 {
		start := max(0, end-chunk)
		b := make([]byte, end-start)
		if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if k := bytes.LastIndexByte(b, '\n'); k >= 0 {
			return f.Truncate(start + int64(k) + 1)
		}
		end = start
	}
	return f.Truncate(0)
}

// ReadHistory reads the history file at path, oldest line first. A last line without its
// newline that does not parse (a crash during an append) is ignored and reported by torn; any
// other bad line is an error naming it. A missing file is an empty history.
func ReadHistory(path string) (entries []HistoryEntry, torn bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("history: %w", err)
	}
	lines := bytes.Split(data, []byte("\n"))
	for i, b := range lines {
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var e HistoryEntry
		if err := json.Unmarshal(b, &e); err != nil {
			if i == len(lines)-1 {
				return entries, true, nil
			}
			return nil, false, fmt.Errorf("history %s line %d is not a history entry (%v); fix or remove that line", path, i+1, err)
		}
		if e.SchemaVersion != HistorySchemaVersion {
			return nil, false, fmt.Errorf("history %s line %d has schema_version %d; this version reads %d", path, i+1, e.SchemaVersion, HistorySchemaVersion)
		}
		entries = append(entries, e)
	}
	return entries, false, nil
}

// VariantTrend is the last nights of one variant on one dataset.
type VariantTrend struct {
	Variant string `json:"variant"`
	// Dataset names the dataset: the sweep's name for it, else the dataset's recorded name.
	Dataset string  `json:"dataset"`
	Nights  []Night `json:"nights"` // oldest first
	// Change is the last night's resolved rate minus the first's (a fraction), with two or more
	// nights.
	Change *float64 `json:"change,omitempty"`
	// Changes lists the nights where the model, config hash, dataset or revision changed: their
	// rates are not comparable with the nights before.
	Changes []string `json:"changes"`
}

// Night is one sweep's result for a variant: its repeats together.
type Night struct {
	Date            string  `json:"date"`
	Sweep           string  `json:"sweep,omitempty"`
	Repeats         int     `json:"repeats"`
	Evaluated       int     `json:"evaluated"` // over all repeats
	Resolved        int     `json:"resolved"`  // over all repeats
	Rate            float64 `json:"resolved_rate"`
	Cost            float64 `json:"cost"`
	Model           string  `json:"model"`
	ConfigHash      string  `json:"config_hash"`
	Dataset         string  `json:"dataset"`
	DatasetRevision string  `json:"dataset_revision"`
}

// Latest drops the lines that a later line of the same sweep and cell supersedes (a sweep
// resumed after a cut appends its cells again, with more instances finished), keeping the order
// of the rest. Lines without a sweep or cell are all kept.
func Latest(entries []HistoryEntry) []HistoryEntry {
	type key struct{ sweep, cell string }
	last := map[key]int{}
	for k, e := range entries {
		if e.Sweep != "" && e.Cell != "" {
			last[key{e.Sweep, e.Cell}] = k
		}
	}
	out := make([]HistoryEntry, 0, len(entries))
	for k, e := range entries {
		if i, ok := last[key{e.Sweep, e.Cell}]; ok && i != k {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Trend returns, per variant and dataset (sorted by dataset, then variant), its last n nights
// (all when n ≤ 0) with the change of the resolved rate from the first to the last of them. A
// cell's superseded lines count once (see Latest). Lines from before sweeps named their datasets
// (no dataset_name) join the dataset name that later lines of the same variant and dataset give.
func Trend(entries []HistoryEntry, n int) []VariantTrend {
	entries = Latest(entries)
	type vd struct{ variant, dataset string }
	named := map[vd]map[string]bool{}
	for _, e := range entries {
		if e.DatasetName != "" {
			k := vd{e.Variant, e.Dataset}
			if named[k] == nil {
				named[k] = map[string]bool{}
			}
			named[k][e.DatasetName] = true
		}
	}
	datasetOf := func(e HistoryEntry) string {
		if e.DatasetName != "" {
			return e.DatasetName
		}
		if names := named[vd{e.Variant, e.Dataset}]; len(names) == 1 {
			for name := range names {
				return name
			}
		}
		return e.Dataset
	}
	type key struct{ variant, dataset, date, sweep string }
	nights := map[key]*Night{}
	first := map[key]time.Time{}
	for _, e := range entries {
		k := key{e.Variant, datasetOf(e), e.Date, e.Sweep}
		nt, ok := nights[k]
		if !ok {
			nt = &Night{Date: e.Date, Sweep: e.Sweep, Model: e.Model, ConfigHash: e.ConfigHash, Dataset: e.Dataset, DatasetRevision: e.DatasetRevision}
			nights[k] = nt
			first[k] = e.Time
		}
		nt.Repeats++
		nt.Evaluated += len(e.EvaluatedIDs)
		nt.Resolved += e.Counts.Resolved
		nt.Cost += e.Cost
	}
	byVariant := map[vd][]key{}
	for k, nt := range nights {
		if nt.Evaluated > 0 {
			nt.Rate = float64(nt.Resolved) / float64(nt.Evaluated)
		}
		byVariant[vd{k.variant, k.dataset}] = append(byVariant[vd{k.variant, k.dataset}], k)
	}
	var out []VariantTrend
	for v, keys := range byVariant {
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].date != keys[j].date {
				return keys[i].date < keys[j].date
			}
			return first[keys[i]].Before(first[keys[j]])
		})
		if n > 0 && len(keys) > n {
			keys = keys[len(keys)-n:]
		}
		t := VariantTrend{Variant: v.variant, Dataset: v.dataset, Changes: []string{}}
		for i, k := range keys {
			nt := *nights[k]
			if i > 0 {
				prev := t.Nights[i-1]
				for _, c := range []struct{ what, a, b string }{
					{"model", prev.Model, nt.Model}, {"config", prev.ConfigHash, nt.ConfigHash},
					{"dataset", prev.Dataset, nt.Dataset}, {"dataset revision", prev.DatasetRevision, nt.DatasetRevision},
				} {
					if c.a != c.b {
						t.Changes = append(t.Changes, fmt.Sprintf("%s: %s changed (%s → %s)", nt.Date, c.what, short(c.a), short(c.b)))
					}
				}
			}
			t.Nights = append(t.Nights, nt)
		}
		if len(t.Nights) >= 2 {
			d := t.Nights[len(t.Nights)-1].Rate - t.Nights[0].Rate
			t.Change = &d
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Dataset != out[j].Dataset {
			return out[i].Dataset < out[j].Dataset
		}
		return out[i].Variant < out[j].Variant
	})
	return out
}
