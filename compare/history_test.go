package compare

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func entry(variant, date, hash string, resolved, evaluated int) HistoryEntry {
	e := HistoryEntry{SchemaVersion: 1, Date: date, Time: mustDate(date), Sweep: "nightly-" + date, Variant: variant, Model: "m",
		Dataset: "lite:dev", DatasetRevision: "r", ConfigHash: hash, ResolvedIDs: []string{}, EvaluatedIDs: []string{}}
	for k := range evaluated {
		id := fmt.Sprintf("o__r-%d", k)
		e.EvaluatedIDs = append(e.EvaluatedIDs, id)
		if k < resolved {
			e.ResolvedIDs = append(e.ResolvedIDs, id)
		}
	}
	e.Counts = HistoryCounts{Instances: evaluated, Resolved: resolved, Unresolved: evaluated - resolved}
	e.Cost = float64(evaluated) / 10
	return e
}

func mustDate(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t.Add(2 * time.Hour)
}

func TestNewHistoryEntry(t *testing.T) {
	r := &Run{Label: "x#2", Sweep: "nightly", Cell: "x-r2", Variant: "x", Repeat: 2, Model: "m", ConfigHash: "h", Dataset: "d", DatasetRevision: "rev"}
	r.Instances = []Instance{{ID: "o__r-1", Verdict: Resolved, Cost: some(1.0)}, {ID: "o__r-2", Verdict: Unresolved, Cost: some(2.0)}, {ID: "o__r-3", Verdict: Error},
		{ID: "o__r-4", Verdict: EmptyPatch}, {ID: "o__r-5", Verdict: NotSubmitted, Cost: some(0.5)}}
	when := time.Date(2026, 8, 12, 3, 4, 5, 0, time.UTC)
	e := NewHistoryEntry(r, when)
	want := HistoryEntry{SchemaVersion: 1, Date: "2026-08-12", Time: when, Sweep: "nightly", Cell: "x-r2", Variant: "x", Repeat: 2, Model: "m",
		Dataset: "d", DatasetRevision: "rev", ConfigHash: "h", Cost: 3.5,
		Counts:      HistoryCounts{Instances: 5, Resolved: 1, Unresolved: 1, Error: 1, EmptyPatch: 1, NotSubmitted: 1},
		ResolvedIDs: []string{"o__r-1"}, EvaluatedIDs: []string{"o__r-1", "o__r-2", "o__r-3", "o__r-4"}}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("entry = %+v\nwant    %+v", e, want)
	}
	if e.Rate() != 0.25 {
		t.Errorf("rate = %v, want 1/4 of the evaluated", e.Rate())
	}
}

func TestHistoryAppendRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), HistoryFile)
	if got, torn, err := ReadHistory(path); err != nil || torn || got != nil {
		t.Fatalf("missing file: %v %v %v, want empty", got, torn, err)
	}
	first := []HistoryEntry{entry("x", "2026-08-10", "h", 3, 5), entry("y", "2026-08-10", "h", 1, 5)}
	if err := AppendHistory(path, first); err != nil {
		t.Fatal(err)
	}
	if err := AppendHistory(path, []HistoryEntry{entry("x", "2026-08-11", "h", 4, 5)}); err != nil {
		t.Fatal(err)
	}
	got, torn, err := ReadHistory(path)
	if err != nil || torn || len(got) != 3 {
		t.Fatalf("read: %d entries, torn %v, %v", len(got), torn, err)
	}
	if !reflect.DeepEqual(got[0].ResolvedIDs, first[0].ResolvedIDs) || got[2].Date != "2026-08-11" || !got[0].Time.Equal(first[0].Time) {
		t.Errorf("round trip lost data: %+v", got[0])
	}

	// A crash in the middle of an append leaves a torn last line: reading ignores it.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"schema_version":1,"date":"2026-08-12","var`)
	f.Close()
	got, torn, err = ReadHistory(path)
	if err != nil || !torn || len(got) != 3 {
		t.Fatalf("torn file: %d entries, torn %v, %v; want 3, true", len(got), torn, err)
	}
	// The next append cuts the torn line off before writing, so it cannot merge with it.
	if err := AppendHistory(path, []HistoryEntry{entry("x", "2026-08-12", "h", 5, 5)}); err != nil {
		t.Fatal(err)
	}
	got, torn, err = ReadHistory(path)
	if err != nil || torn || len(got) != 4 || got[3].Date != "2026-08-12" {
		t.Fatalf("after append: %d entries, torn %v, %v", len(got), torn, err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), `"var{`) || strings.Count(string(data), "\n") != 4 {
		t.Errorf("file holds a fragment or extra lines:\n%s", data)
	}

	if err := AppendHistory(path, []HistoryEntry{{Date: "2026-08-12"}}); err == nil {
		t.Errorf("an entry without a variant was appended")
	}
}

func TestHistoryBadLines(t *testing.T) {
	dir := t.TempDir()
	good := `{"schema_version":1,"date":"2026-08-10","variant":"x"}`
	tests := []struct {
		name, content, want string
	}{
		{"corrupt middle line", good + "\nnot json\n" + good + "\n", "line 2 is not a history entry"},
		{"newer schema", `{"schema_version":2,"date":"2026-08-10","variant":"x"}` + "\n", "line 1 has schema_version 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(dir, tt.name+".jsonl"), tt.content)
			_, _, err := ReadHistory(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("err = %v, want %q naming the file", err, tt.want)
			}
		})
	}
}

// TestHistoryConcurrentAppends appends from many goroutines at once (as two sweeps finishing
// together would from two processes): every line stays whole.
func TestHistoryConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), HistoryFile)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 10 {
				// Large lines (2,294 ids), so that an unlocked writer would interleave.
				e := entry(fmt.Sprintf("v%d", g), fmt.Sprintf("2026-08-%02d", k+1), "h", 1000, 2294)
				if err := AppendHistory(path, []HistoryEntry{e, e}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got, torn, err := ReadHistory(path)
	if err != nil || torn || len(got) != 160 {
		t.Fatalf("%d entries, torn %v, %v; want 160 whole lines", len(got), torn, err)
	}
}

func TestTrend(t *testing.T) {
	var es []HistoryEntry
	for k, d := range []string{"2026-08-09", "2026-08-10", "2026-08-11", "2026-08-12"} {
		// x: two repeats a night, 2+k and 3+k of 10 resolved.
		es = append(es, entry("x", d, "h", 2+k, 10), entry("x", d, "h", 3+k, 10))
	}
	es = append(es, entry("y", "2026-08-11", "h1", 5, 10), entry("y", "2026-08-12", "h2", 4, 10))
	tr := Trend(es, 3)
	if len(tr) != 2 || tr[0].Variant != "x" || tr[1].Variant != "y" {
		t.Fatalf("trend = %+v", tr)
	}
	x := tr[0]
	var dates []string
	for _, n := range x.Nights {
		dates = append(dates, n.Date)
	}
	if !reflect.DeepEqual(dates, []string{"2026-08-10", "2026-08-11", "2026-08-12"}) {
		t.Errorf("x nights = %v, want the last 3", dates)
	}
	// 2026-08-10: (3+4)/20; 2026-08-12: (5+6)/20.
	if n := x.Nights[0]; n.Repeats != 2 || n.Evaluated != 20 || n.Resolved != 7 || n.Rate != 0.35 || math.Abs(n.Cost-2) > 1e-12 {
		t.Errorf("first night = %+v", n)
	}
	if x.Change == nil || math.Abs(*x.Change-0.2) > 1e-12 || len(x.Changes) != 0 {
		t.Errorf("x change = %v, changes %v; want +0.2 and none", x.Change, x.Changes)
	}
	y := tr[1]
	if y.Change == nil || math.Abs(*y.Change+0.1) > 1e-12 || len(y.Changes) != 1 || !strings.Contains(y.Changes[0], "config changed (h1 → h2)") {
		t.Errorf("y change %v, changes %v", y.Change, y.Changes)
	}
	if all := Trend(es, 0); len(all[0].Nights) != 4 {
		t.Errorf("Trend(…, 0) gave %d nights of x, want all 4", len(all[0].Nights))
	}
}

// A sweep resumed after a cut appends its cells again: the later line of a sweep and cell
// supersedes the earlier one, so the night counts each cell once.
func TestTrendCountsACellOnce(t *testing.T) {
	cut := entry("x", "2026-08-12", "h", 3, 5)
	cut.Cell = "x-r1"
	done := entry("x", "2026-08-12", "h", 6, 10)
	done.Cell = "x-r1"
	other := entry("x", "2026-08-12", "h", 4, 10)
	other.Cell = "x-r2"
	if got := Latest([]HistoryEntry{cut, other, done}); len(got) != 2 || got[0].Cell != "x-r2" || got[1].Counts.Resolved != 6 {
		t.Fatalf("Latest = %+v, want x-r2 then the later x-r1", got)
	}
	tr := Trend([]HistoryEntry{cut, other, done}, 0)
	if len(tr) != 1 || len(tr[0].Nights) != 1 {
		t.Fatalf("trend = %+v", tr)
	}
	if n := tr[0].Nights[0]; n.Repeats != 2 || n.Resolved != 10 || n.Evaluated != 20 {
		t.Errorf("night = %+v, want 2 repeats, 10 of 20 resolved", n)
	}
}

// A sweep over two datasets keeps one trend per model and dataset, even when both datasets are
// files of one name (the demo's and SWE-smith's dataset.jsonl); a line from before sweeps named
// their datasets joins the named ones of its dataset.
func TestTrendPerDataset(t *testing.T) {
	line := func(variant, date, dsName, ds, rev string, resolved int) HistoryEntry {
		e := entry(variant, date, "h", resolved, 4)
		e.DatasetName, e.Dataset, e.DatasetRevision = dsName, ds, rev
		e.Cell = variant + "-" + dsName
		return e
	}
	es := []HistoryEntry{
		line("good", "2026-08-10", "", "verified", "v", 1), // before dataset names
		line("good", "2026-08-11", "verified", "verified", "v", 2),
		line("good", "2026-08-11", "demo", "dataset.jsonl", "sha256:a", 4),
		line("good", "2026-08-11", "smith", "dataset.jsonl", "sha256:b", 1),
		line("good", "2026-08-12", "demo", "dataset.jsonl", "sha256:a", 3),
		line("good", "2026-08-12", "smith", "dataset.jsonl", "sha256:b", 2),
	}
	var got []string
	for _, tr := range Trend(es, 0) {
		got = append(got, fmt.Sprintf("%s on %s: %d nights, %d changes", tr.Variant, tr.Dataset, len(tr.Nights), len(tr.Changes)))
	}
	want := []string{"good on demo: 2 nights, 0 changes", "good on smith: 2 nights, 0 changes", "good on verified: 2 nights, 0 changes"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("trend %q, want %q", got, want)
	}
	var buf strings.Builder
	WriteTrendText(&buf, Trend(es, 0))
	if !strings.Contains(buf.String(), "good on smith     2 ") {
		t.Errorf("the trend table does not name the datasets:\n%s", buf.String())
	}
}
