package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Pooled is one pair of inputs (b against a) over every dataset both are on: the pairs are
// formed within each dataset and pooled, never across datasets.
type Pooled struct {
	A         string   `json:"a"`
	B         string   `json:"b"`
	Datasets  []string `json:"datasets"` // the datasets pooled: where a and b have common instances
	Common    int      `json:"common"`   // over those datasets
	Paired    int      `json:"paired"`
	Flaky     int      `json:"flaky"`
	Both      int      `json:"both"`
	Neither   int      `json:"neither"`
	Newly     int      `json:"newly_resolved"`
	Regressed int      `json:"regressed"`
	// ResolvedA, ResolvedB are on the common instances (means over repeats); RateA, RateB weigh
	// every instance alike (Σ resolved ÷ Σ common), MacroRateA, MacroRateB every dataset alike
	// (the mean of the datasets' rates).
	ResolvedA  float64 `json:"resolved_a"`
	ResolvedB  float64 `json:"resolved_b"`
	RateA      float64 `json:"rate_a"`
	RateB      float64 `json:"rate_b"`
	MacroRateA float64 `json:"macro_rate_a"`
	MacroRateB float64 `json:"macro_rate_b"`
	// ByInstance is Σ (newly − regressed) ÷ Σ paired over the datasets with paired instances,
	// Macro the mean over those datasets of their differences; each with the MOVER interval
	// from the datasets' Tango intervals. Absent when no dataset has paired instances.
	ByInstance *Estimate `json:"by_instance,omitempty"`
	Macro      *Estimate `json:"macro,omitempty"`
	// McNemarP is McNemar's exact test on the discordant pairs of all the datasets together.
	McNemarP float64 `json:"mcnemar_p"`
	// Bootstrap, when a or b has repeats: the mean difference over repeats, instances resampled
	// within each dataset.
	Bootstrap *PooledBootstrap `json:"bootstrap,omitempty"`
	// Line is the pooled verdict printed beside the gate (it does not gate).
	Line string `json:"line,omitempty"`
}

// Estimate is a difference of resolved rates with its interval at the comparison's level.
type Estimate struct {
	Difference float64 `json:"difference"`
	CILow      float64 `json:"ci_low"`
	CIHigh     float64 `json:"ci_high"`
}

// PooledBootstrap is StratifiedBootstrap's two intervals.
type PooledBootstrap struct {
	Seed       uint64    `json:"seed"`
	Resamples  int       `json:"resamples"`
	ByInstance Bootstrap `json:"by_instance"`
	Macro      Bootstrap `json:"macro"`
}

// Variant is one input name's result over the datasets it is on.
type Variant struct {
	Name     string   `json:"name"`
	Datasets []string `json:"datasets"` // where it covers instances
	Covered  int      `json:"covered"`
	Resolved float64  `json:"resolved"`
	// ResolvedRate weighs every instance alike, MacroRate every dataset alike.
	ResolvedRate float64 `json:"resolved_rate"`
	MacroRate    float64 `json:"macro_resolved_rate"`
}

// dsGroup is a dataset of the comparison while it is computed.
type dsGroup struct {
	name    string
	dataset string
	runs    []*Run
	order   []int // the runs' places in Compare's input
	ids     map[string]bool
	sides   []*side
}

func (g *dsGroup) add(r *Run, at int) {
	g.runs = append(g.runs, r)
	g.order = append(g.order, at)
	for k := range r.Instances {
		g.ids[r.Instances[k].ID] = true
	}
}

// overlap counts r's instances that the group's runs know.
func (g *dsGroup) overlap(r *Run) int {
	n := 0
	for k := range r.Instances {
		if g.ids[r.Instances[k].ID] {
			n++
		}
	}
	return n
}

// accepts reports whether r, which records g's dataset name, is on g's dataset: a cell of a
// sweep whose cells in g are on the same of the sweep's datasets, or a run on one of g's
// revisions (or recording none), or on a revision that shares instances with g.
func (g *dsGroup) accepts(r *Run) bool {
	if r.Dataset != g.dataset {
		return false
	}
	for _, o := range g.runs {
		if r.SweepDir != "" && o.SweepDir == r.SweepDir && (o.DatasetName != "" || r.DatasetName != "") {
			return o.DatasetName == r.DatasetName
		}
	}
	revs := g.revisions()
	if r.DatasetRevision == "" || len(revs) == 0 {
		return true
	}
	for _, rev := range revs {
		if rev == r.DatasetRevision {
			return true
		}
	}
	return g.overlap(r) > 0
}

// revisions lists the dataset revisions g's runs record, sorted.
func (g *dsGroup) revisions() []string {
	set := map[string]bool{}
	for _, r := range g.runs {
		if r.DatasetRevision != "" {
			set[r.DatasetRevision] = true
		}
	}
	return sortedKeys(set)
}

// groupDatasets puts every run on its dataset (see DatasetGroup), in the order the datasets
// first appear among the runs; within a dataset the runs keep their order.
func groupDatasets(runs []*Run) []*dsGroup {
	var groups []*dsGroup
	for at, r := range runs {
		if r.Dataset == "" {
			continue
		}
		var into *dsGroup
		for _, g := range groups {
			if g.accepts(r) {
				into = g
				break
			}
		}
		if into == nil {
			into = &dsGroup{dataset: r.Dataset, ids: map[string]bool{}}
			groups = append(groups, into)
		}
		into.add(r, at)
	}
	// A run that records no dataset (a harness report, mini-swe-agent output) joins the dataset
	// it shares the most instances with; those sharing none are a dataset of their own.
	var unknown *dsGroup
	for at, r := range runs {
		if r.Dataset != "" {
			continue
		}
		var into *dsGroup
		most := 0
		for _, g := range groups {
			if g == unknown {
				continue
			}
			if n := g.overlap(r); n > most {
				into, most = g, n
			}
		}
		if into == nil {
			if unknown == nil {
				unknown = &dsGroup{ids: map[string]bool{}}
				groups = append(groups, unknown)
			}
			into = unknown
		}
		into.add(r, at)
	}
	for _, g := range groups {
		sort.Sort(byOrder{g})
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].order[0] < groups[j].order[0] })
	return groups
}

type byOrder struct{ g *dsGroup }

func (b byOrder) Len() int           { return len(b.g.runs) }
func (b byOrder) Less(i, j int) bool { return b.g.order[i] < b.g.order[j] }
func (b byOrder) Swap(i, j int) {
	b.g.runs[i], b.g.runs[j] = b.g.runs[j], b.g.runs[i]
	b.g.order[i], b.g.order[j] = b.g.order[j], b.g.order[i]
}

// nameGroups names the datasets: the sweep's name of the dataset when its cells carry one, else
// the dataset's own name; two datasets that would share a name get their revision after it. It
// returns a warning for each dataset name split that way.
func nameGroups(groups []*dsGroup) []string {
	for _, g := range groups {
		g.name = g.dataset
		for _, r := range g.runs {
			if r.DatasetName != "" {
				g.name = r.DatasetName
				break
			}
		}
	}
	count := map[string]int{}
	for _, g := range groups {
		count[g.name]++
	}
	var warnings []string
	split := map[string][]*dsGroup{}
	for _, g := range groups {
		if count[g.name] > 1 {
			split[g.name] = append(split[g.name], g)
		}
	}
	for _, g := range groups {
		gs, ok := split[g.name]
		if !ok || gs[0] != g {
			continue
		}
		var labels, named []string
		for _, x := range gs {
			if revs := x.revisions(); len(revs) > 0 {
				x.name += "@" + shortRevision(revs[0])
			}
			labels = append(labels, x.runs[0].Label)
			named = append(named, x.name)
		}
		warnings = append(warnings, fmt.Sprintf("%s are all on %s, at revisions that share no instance: they are compared as separate datasets, %s",
			strings.Join(labels, ", "), datasetTitle(gs[0].dataset), strings.Join(named, ", ")))
	}
	count = map[string]int{}
	for _, g := range groups {
		count[g.name]++
		if n := count[g.name]; n > 1 {
			g.name = fmt.Sprintf("%s (%d)", g.name, n)
		}
	}
	return warnings
}

// shortRevision shortens a revision for a dataset's name: a commit's or a file's sha256's first
// 8 hex digits.
func shortRevision(rev string) string {
	rev = strings.TrimPrefix(rev, "sha256:")
	if len(rev) > 8 {
		return rev[:8]
	}
	return rev
}

// revisionText shortens a revision for text: a commit's first 12 hex digits, a file's sha256
// likewise after its "sha256:".
func revisionText(rev string) string {
	if rest, ok := strings.CutPrefix(rev, "sha256:"); ok {
		return "sha256:" + short(rest)
	}
	return short(rev)
}

// datasetTitle is how text names a dataset: its name, or words for a dataset no run records.
func datasetTitle(name string) string {
	if name == "" {
		return "the dataset no run records"
	}
	return name
}

// datasetWarnings warns when the runs of one dataset are on different revisions of it.
func datasetWarnings(g *dsGroup) []string {
	var out []string
	var first *Run
	for _, r := range g.runs {
		if r.DatasetRevision == "" {
			continue
		}
		if first == nil {
			first = r
			continue
		}
		if r.DatasetRevision != first.DatasetRevision {
			out = append(out, fmt.Sprintf("%s is on revision %s of %s but %s on %s: the instances' tests may differ", r.Label, revisionText(r.DatasetRevision), r.Dataset, first.Label, revisionText(first.DatasetRevision)))
		}
	}
	return out
}

// pool pools every pair of input names (b against a) found on two or more datasets.
func pool(pairs []Pair, level float64, opts Options) []Pooled {
	type key struct{ a, b string }
	var order []key
	by := map[key][]Pair{}
	for _, p := range pairs {
		k := key{p.A, p.B}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], p)
	}
	var out []Pooled
	for _, k := range order {
		if ps := by[k]; len(ps) > 1 {
			out = append(out, poolPair(ps, level, opts))
		}
	}
	return out
}

// poolPair pools one pair of inputs over its datasets (one Pair each).
func poolPair(ps []Pair, level float64, opts Options) Pooled {
	po := Pooled{A: ps[0].A, B: ps[0].B, Datasets: []string{}}
	var w, est, lo, hi []float64
	var strata [][]float64
	repeats := false
	for _, p := range ps {
		if p.Common == 0 {
			continue
		}
		po.Datasets = append(po.Datasets, p.Dataset)
		po.Common += p.Common
		po.Paired += p.Paired
		po.Flaky += len(p.Flaky)
		po.Both += p.Both
		po.Neither += p.Neither
		po.Newly += len(p.Newly)
		po.Regressed += len(p.Regressed)
		po.ResolvedA += p.ResolvedA
		po.ResolvedB += p.ResolvedB
		po.MacroRateA += p.RateA
		po.MacroRateB += p.RateB
		strata = append(strata, p.diffs)
		repeats = repeats || p.Bootstrap != nil
		if p.Difference != nil {
			w = append(w, float64(p.Paired))
			est, lo, hi = append(est, *p.Difference), append(lo, *p.CILow), append(hi, *p.CIHigh)
		}
	}
	if n := len(po.Datasets); n > 0 {
		po.RateA, po.RateB = po.ResolvedA/float64(po.Common), po.ResolvedB/float64(po.Common)
		po.MacroRateA, po.MacroRateB = po.MacroRateA/float64(n), po.MacroRateB/float64(n)
	}
	po.McNemarP = McNemarExact(po.Newly, po.Regressed)
	if len(w) > 0 {
		inst, macro := make([]float64, len(w)), make([]float64, len(w))
		for d := range w {
			inst[d], macro[d] = w[d]/float64(po.Paired), 1/float64(len(w))
		}
		po.ByInstance = mover(inst, est, lo, hi)
		po.Macro = mover(macro, est, lo, hi)
	}
	if repeats {
		bi, bm := StratifiedBootstrap(strata, opts.Resamples, opts.Seed, level)
		po.Bootstrap = &PooledBootstrap{Seed: opts.Seed, Resamples: opts.Resamples, ByInstance: bi, Macro: bm}
	}
	return po
}

// mover is MOVER's interval, kept within the range of a difference of rates.
func mover(w, est, lo, hi []float64) *Estimate {
	d, l, u := MOVER(w, est, lo, hi)
	return &Estimate{Difference: d, CILow: math.Max(-1, l), CIHigh: math.Min(1, u)}
}

// pooledLine is a pooled pair's one-line summary, printed beside the gate.
func pooledLine(po Pooled, level float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "over %d datasets (%s): ", len(po.Datasets), strings.Join(po.Datasets, ", "))
	switch {
	case po.Bootstrap != nil:
		bi, bm := po.Bootstrap.ByInstance, po.Bootstrap.Macro
		fmt.Fprintf(&b, "%s points by instance, %s CI [%s, %s]; %s points macro, %s CI [%s, %s] (mean over repeats, bootstrap within datasets, seed %d)",
			Points(bi.Difference), Percent(level), Points(bi.CILow), Points(bi.CIHigh), Points(bm.Difference), Percent(level), Points(bm.CILow), Points(bm.CIHigh), po.Bootstrap.Seed)
	case po.ByInstance != nil:
		bi, bm := po.ByInstance, po.Macro
		fmt.Fprintf(&b, "%s points by instance, %s CI [%s, %s]; %s points macro, %s CI [%s, %s]",
			Points(bi.Difference), Percent(level), Points(bi.CILow), Points(bi.CIHigh), Points(bm.Difference), Percent(level), Points(bm.CILow), Points(bm.CIHigh))
	default:
		b.WriteString("no paired instances")
	}
	fmt.Fprintf(&b, ", McNemar p = %s on the pooled pairs, %d regressed / %d newly resolved, %d flaky ignored", PValue(po.McNemarP), po.Regressed, po.Newly, po.Flaky)
	return b.String()
}

// variants sums each input name found on two or more datasets over them.
func variants(inputs []Input) []Variant {
	var order []string
	by := map[string][]Input{}
	for _, in := range inputs {
		if _, ok := by[in.Name]; !ok {
			order = append(order, in.Name)
		}
		by[in.Name] = append(by[in.Name], in)
	}
	var out []Variant
	for _, name := range order {
		ins := by[name]
		if len(ins) < 2 {
			continue
		}
		v := Variant{Name: name, Datasets: []string{}}
		for _, in := range ins {
			if in.Covered == 0 {
				continue
			}
			v.Datasets = append(v.Datasets, in.Dataset)
			v.Covered += in.Covered
			v.Resolved += in.Resolved
			v.MacroRate += in.ResolvedRate
		}
		if n := len(v.Datasets); n > 0 {
			v.ResolvedRate = v.Resolved / float64(v.Covered)
			v.MacroRate /= float64(n)
		}
		out = append(out, v)
	}
	return out
}

// datasetInputs returns the indices of the inputs on dataset name.
func (res *Result) datasetInputs(name string) []int {
	var out []int
	for k, in := range res.Inputs {
		if in.Dataset == name {
			out = append(out, k)
		}
	}
	return out
}

// GateSubject names a gate verdict's comparison: "cand vs base", and " on DATASET" when the
// comparison has several datasets.
func (res *Result) GateSubject(v GateVerdict) string {
	s := v.Candidate + " vs " + v.Baseline
	if len(res.Datasets) > 1 {
		s += " on " + datasetTitle(v.Dataset)
	}
	return s
}
