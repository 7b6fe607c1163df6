// Package bench measures the runner against its references and the Docker floor: command round
// trips (our Exec, the raw moby API, `docker exec` subprocesses), the per-instance overhead, the
// scale efficiency and footprint of the real binary, an output flood, dataset loading and resume.
//
// It is benchmark code only. It imports the moby client directly for the raw-API reference (the
// product keeps dockerenv as the only importer). `make bench` (scripts/bench/run.sh) runs the
// full set through cmd/benchrun and writes BENCHMARKS.md; the package's tests run every
// measurement once so that it cannot rot.
package bench

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Sample summarizes repeated timings.
type Sample struct {
	N      int
	Median time.Duration
	P90    time.Duration
	Min    time.Duration
}

// Summarize sorts ds and returns its median, 90th percentile and minimum.
func Summarize(ds []time.Duration) Sample {
	if len(ds) == 0 {
		return Sample{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return Sample{N: len(s), Median: quantile(s, 0.5), P90: quantile(s, 0.9), Min: s[0]}
}

// quantile of sorted s by the nearest-rank method.
func quantile(s []time.Duration, q float64) time.Duration {
	k := int(math.Ceil(q*float64(len(s)))) - 1
	k = max(0, min(k, len(s)-1))
	return s[k]
}

// MedianFloat returns the median of xs.
func MedianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Row is one line of the results table.
type Row struct {
	What     string
	Measured string
	Goal     string
	Pass     bool
	NA       bool // no goal, or not measured
}

// Table renders rows as a Markdown table.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| what | measured | goal | result |\n|---|---|---|---|\n")
	for _, r := range rows {
		res := "pass"
		switch {
		case r.NA:
			res = "–"
		case !r.Pass:
			res = "**miss**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.What, r.Measured, r.Goal, res)
	}
	return b.String()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }
