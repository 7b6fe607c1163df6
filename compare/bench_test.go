package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/eval"
)

// syntheticReports writes n harness run reports over the same instances (SWE-bench's 2,294 by
// default), each resolving about 30% with run-to-run variation, a few errors and empty patches.
func syntheticReports(b *testing.B, n, instances int) []Source {
	b.Helper()
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]string, instances)
	for k := range ids {
		ids[k] = fmt.Sprintf("owner%d__repo%d-%d", k%12, k%12, 1000+k)
	}
	var srcs []Source
	for r := range n {
		rep := eval.RunReport{SchemaVersion: 2, TotalInstances: instances, SubmittedInstances: instances}
		for k, id := range ids {
			base := float64(k%10) / 10 // instance difficulty
			switch u := rng.Float64(); {
			case u < 0.01:
				rep.ErrorIDs = append(rep.ErrorIDs, id)
			case u < 0.03:
				rep.EmptyPatchIDs = append(rep.EmptyPatchIDs, id)
			case rng.Float64() < 0.6*(1-base):
				rep.ResolvedIDs = append(rep.ResolvedIDs, id)
				rep.CompletedIDs = append(rep.CompletedIDs, id)
			default:
				rep.UnresolvedIDs = append(rep.UnresolvedIDs, id)
				rep.CompletedIDs = append(rep.CompletedIDs, id)
			}
			rep.SubmittedIDs = append(rep.SubmittedIDs, id)
		}
		rep.ResolvedInstances = len(rep.ResolvedIDs)
		data, err := json.MarshalIndent(rep, "", "    ")
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("model%02d.run.json", r))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, Source{Path: p})
	}
	return srcs
}

// BenchmarkCompare20x2294 reads 20 run reports of 2,294 instances and compares them: every pair
// (190), each against the best, the matrix. Goal: under 1 s.
func BenchmarkCompare20x2294(b *testing.B) {
	srcs := syntheticReports(b, 20, 2294)
	b.ResetTimer()
	for b.Loop() {
		runs, err := ReadAll(srcs, ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := Compare(runs, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Pairs) != 190 {
			b.Fatalf("%d pairs", len(res.Pairs))
		}
	}
}

// BenchmarkCompare20x2294Render adds writing the terminal, JSON and CSV forms.
func BenchmarkCompare20x2294Render(b *testing.B) {
	srcs := syntheticReports(b, 20, 2294)
	b.ResetTimer()
	for b.Loop() {
		runs, err := ReadAll(srcs, ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := Compare(runs, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, w := range []func(io.Writer, *Result) error{WriteText, WriteJSON, WriteCSV, WriteMarkdown} {
			if err := w(io.Discard, res); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCompareSweep10x3 compares a sweep of 10 variants × 3 repeats over 2,294 instances:
// 45 pairs and 9 against the best, each with a 2,000-resample bootstrap.
func BenchmarkCompareSweep10x3(b *testing.B) {
	srcs := syntheticReports(b, 30, 2294)
	runs, err := ReadAll(srcs, ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for k, r := range runs {
		r.Group, r.Variant, r.Repeat, r.SweepDir = fmt.Sprintf("v%d", k/3), fmt.Sprintf("v%d", k/3), k%3+1, "/sweep"
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := Compare(runs, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Pairs) != 45 || res.Pairs[0].Bootstrap == nil {
			b.Fatalf("%d pairs", len(res.Pairs))
		}
	}
}
