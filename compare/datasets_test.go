package compare

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The reference values below come from testdata/reference_stats.py, written for these tests
// with Python's standard library only (exact binomial McNemar with math.comb and fractions,
// Tango's score interval by bisection from its formula, MOVER per Zou & Donner 2008, Holm
// 1979), independently of this package; rerun it to check them.

// stratum makes the verdicts of inputs a and b on one dataset: ids "<ds>__r-<k>", gained
// resolved by b only, lost by a only, the rest of paired resolved by neither.
func stratum(ds string, gained, lost, paired int) (a, b map[string]Verdict) {
	a, b = map[string]Verdict{}, map[string]Verdict{}
	for k := range paired {
		id := fmt.Sprintf("%s__r-%d", ds, k)
		switch {
		case k < gained:
			a[id], b[id] = Unresolved, Resolved
		case k < gained+lost:
			a[id], b[id] = Resolved, Unresolved
		default:
			a[id], b[id] = Unresolved, Unresolved
		}
	}
	return a, b
}

// onDatasets makes the sweep cells of variants a and b, one repeat each, on each dataset of a
// sweep: strata[k] = {gained, lost, paired} on dataset "d<k>".
func onDatasets(sweep string, strata [][3]int) []*Run {
	var as, bs []*Run
	for k, s := range strata {
		name := fmt.Sprintf("d%d", k)
		va, vb := stratum(name, s[0], s[1], s[2])
		for _, x := range []struct {
			variant string
			v       map[string]Verdict
			into    *[]*Run
		}{{"a", va, &as}, {"b", vb, &bs}} {
			r := synth(x.variant+"-"+name, x.v)
			r.Kind, r.Sweep, r.SweepDir, r.Variant, r.Group, r.Repeat = KindSweepCell, sweep, "/sweeps/"+sweep, x.variant, x.variant, 1
			r.Dataset, r.DatasetRevision, r.DatasetName = "file-"+name+".jsonl", "sha256:"+name, name
			*x.into = append(*x.into, r)
		}
	}
	return append(as, bs...)
}

// The figures pooled over datasets, against the reference script's.
func TestPooledAgainstReference(t *testing.T) {
	tests := []struct {
		name             string
		strata           [][3]int // gained, lost, paired
		inst, instLo     float64
		instHi           float64
		macro, macroLo   float64
		macroHi, mcnemar float64
	}{
		{"two datasets", [][3]int{{1, 7, 20}, {3, 1, 10}},
			-0.1333333333333333, -0.3439401621972362, 0.08302108795979385,
			-0.04999999999999999, -0.2899319898954994, 0.1724636462042872, 0.3876953125},
		{"three datasets", [][3]int{{0, 6, 6}, {2, 0, 5}, {4, 9, 40}},
			-0.1764705882352941, -0.3279800252335281, -0.003520825449559395,
			-0.24166666666666664, -0.45288908473491307, 0.052459135294789405, 0.0783538818359375},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(onDatasets("s", tt.strata), Options{Baseline: "a"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Pooled) != 1 {
				t.Fatalf("%d pooled pairs, want 1", len(res.Pooled))
			}
			po := res.Pooled[0]
			if po.A != "a" || po.B != "b" || len(po.Datasets) != len(tt.strata) {
				t.Errorf("pooled %s vs %s over %v", po.B, po.A, po.Datasets)
			}
			bi, bm := po.ByInstance, po.Macro
			if !near(bi.Difference, tt.inst) || !near(bi.CILow, tt.instLo) || !near(bi.CIHigh, tt.instHi) {
				t.Errorf("by instance %v [%v, %v], want %v [%v, %v]", bi.Difference, bi.CILow, bi.CIHigh, tt.inst, tt.instLo, tt.instHi)
			}
			if !near(bm.Difference, tt.macro) || !near(bm.CILow, tt.macroLo) || !near(bm.CIHigh, tt.macroHi) {
				t.Errorf("macro %v [%v, %v], want %v [%v, %v]", bm.Difference, bm.CILow, bm.CIHigh, tt.macro, tt.macroLo, tt.macroHi)
			}
			if !near(po.McNemarP, tt.mcnemar) {
				t.Errorf("pooled McNemar p = %v, want %v", po.McNemarP, tt.mcnemar)
			}
			paired, gained, lost := 0, 0, 0
			for _, s := range tt.strata {
				gained, lost, paired = gained+s[0], lost+s[1], paired+s[2]
			}
			if po.Paired != paired || po.Newly != gained || po.Regressed != lost {
				t.Errorf("pooled counts: %d paired, %d newly, %d regressed; want %d, %d, %d", po.Paired, po.Newly, po.Regressed, paired, gained, lost)
			}
		})
	}
}

// The gate decides per dataset, with Holm's step-down over the candidate's datasets; the
// pooled figures are shown but do not gate.
func TestGatePerDatasetHolm(t *testing.T) {
	t.Run("step-down keeps three regressions", func(t *testing.T) {
		// McNemar p: 2/2^8, 2/2^7, 2/2^6 (all lost); Holm: 0.0234375, 0.03125, 0.03125.
		res, err := Compare(onDatasets("s", [][3]int{{0, 8, 10}, {0, 7, 10}, {0, 6, 10}}), Options{Baseline: "a"})
		if err != nil {
			t.Fatal(err)
		}
		wantP, wantAdj := []float64{0.0078125, 0.015625, 0.03125}, []float64{0.0234375, 0.03125, 0.03125}
		if len(res.Gate.Verdicts) != 3 || !res.Gate.Regression {
			t.Fatalf("gate %+v, want 3 verdicts and a regression", res.Gate)
		}
		for k, v := range res.Gate.Verdicts {
			if v.Dataset != fmt.Sprintf("d%d", k) || v.Test != "mcnemar" || !near(*v.P, wantP[k]) || !near(*v.PAdjusted, wantAdj[k]) || v.Tests != 3 || !v.Regression {
				t.Errorf("verdict %d: %+v (p %v, adjusted %v); want d%d, p %v, adjusted %v over 3, a regression", k, v, *v.P, *v.PAdjusted, k, wantP[k], wantAdj[k])
			}
		}
		if l := res.Gate.Verdicts[2].Line; !strings.Contains(l, "McNemar p = 0.0312, Holm-adjusted p = 0.0312 over 3 datasets") {
			t.Errorf("line %q does not give the adjusted p", l)
		}
	})
	t.Run("one dataset of two regresses, corrected away at 0.05, kept at 0.1", func(t *testing.T) {
		strata := [][3]int{{0, 6, 6}, {1, 0, 2}}
		res, err := Compare(onDatasets("s", strata), Options{Baseline: "a"})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Gate.Verdicts[0]
		if res.Gate.Regression || v.Outcome != OutcomeNoChange || !near(*v.P, 0.03125) || !near(*v.PAdjusted, 0.0625) {
			t.Errorf("α 0.05: %+v (p %v, adjusted %v), want no significant change, 0.03125 adjusted to 0.0625", v, *v.P, *v.PAdjusted)
		}
		res, err = Compare(onDatasets("s", strata), Options{Baseline: "a", Alpha: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		v0, v1 := res.Gate.Verdicts[0], res.Gate.Verdicts[1]
		if !res.Gate.Regression || !v0.Regression || v0.Dataset != "d0" || v1.Regression || v1.Outcome != OutcomeNoChange {
			t.Errorf("α 0.1: %+v / %+v, want a regression on d0 only", v0, v1)
		}
		if got := res.GateSubject(v0); got != "b vs a on d0" {
			t.Errorf("subject %q, want b vs a on d0", got)
		}
		if !strings.HasPrefix(v0.Line, "regression: −100.0 points") {
			t.Errorf("line %q does not say by how much", v0.Line)
		}
		if len(res.Pooled) != 1 || !strings.Contains(res.Pooled[0].Line, "over 2 datasets (d0, d1)") {
			t.Errorf("pooled %+v, want one line over d0 and d1", res.Pooled)
		}
	})
	t.Run("a dataset without common instances is not in the family", func(t *testing.T) {
		runs := onDatasets("s", [][3]int{{0, 6, 6}, {1, 0, 2}})
		for _, r := range runs {
			if r.Variant == "b" && r.DatasetName == "d1" {
				r.Instances = nil
				r.reindex()
			}
		}
		res, err := Compare(runs, Options{Baseline: "a"})
		if err != nil {
			t.Fatal(err)
		}
		v0, v1 := res.Gate.Verdicts[0], res.Gate.Verdicts[1]
		if v1.Outcome != OutcomeNoOverlap || v0.Tests != 1 || !near(*v0.PAdjusted, 0.03125) || !v0.Regression {
			t.Errorf("%+v / %+v, want d0 tested alone (a regression) and d1 without overlap", v0, v1)
		}
	})
}

// A sweep over two datasets: inputs are paired within each dataset, never across, and the
// baseline names a model.
func TestCompareDatasetsNeverPairAcross(t *testing.T) {
	runs := onDatasets("s", [][3]int{{0, 3, 4}, {2, 0, 3}})
	for _, opts := range []Options{{}, {Baseline: "a"}} {
		res, err := Compare(runs, opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range res.Pairs {
			got = append(got, p.Dataset+": "+p.B+" vs "+p.A)
			for _, id := range append(append([]string{}, p.Newly...), p.Regressed...) {
				if !strings.HasPrefix(id, p.Dataset+"__") {
					t.Errorf("pair on %s flips %s of another dataset", p.Dataset, id)
				}
			}
			if p.Common != 4 && p.Common != 3 {
				t.Errorf("pair on %s: %d common", p.Dataset, p.Common)
			}
		}
		if want := []string{"d0: b vs a", "d1: b vs a"}; !reflect.DeepEqual(got, want) {
			t.Errorf("baseline %q: pairs %v, want %v", opts.Baseline, got, want)
		}
		var ds []string
		for _, d := range res.Datasets {
			ds = append(ds, fmt.Sprintf("%s %s %d %v", d.Name, d.Dataset, d.Instances, d.Inputs))
		}
		if want := []string{"d0 file-d0.jsonl 4 [a b]", "d1 file-d1.jsonl 3 [a b]"}; !reflect.DeepEqual(ds, want) {
			t.Errorf("datasets %v, want %v", ds, want)
		}
		if len(res.Variants) != 2 || res.Variants[0].Name != "a" || res.Variants[0].Covered != 7 || !near(res.Variants[1].ResolvedRate, 2.0/7) ||
			!near(res.Variants[1].MacroRate, (0+2.0/3)/2) {
			t.Errorf("variants %+v", res.Variants)
		}
		for _, w := range res.Warnings {
			if strings.Contains(w, "revision") || strings.Contains(w, "only input") {
				t.Errorf("warning %q: the sweep's two datasets are no revisions of one", w)
			}
		}
	}
}

// Runs given by hand are grouped by dataset name and revision.
func TestGroupDatasetsByHand(t *testing.T) {
	R, U := Resolved, Unresolved
	run := func(label, ds, rev string, v map[string]Verdict) *Run {
		r := synth(label, v)
		r.Kind, r.Dataset, r.DatasetRevision = KindRunDir, ds, rev
		return r
	}
	tests := []struct {
		name     string
		runs     []*Run
		datasets []string // name: inputs
		pairs    []string
		warning  string
	}{
		{"two revisions of one dataset stay one, with a warning",
			[]*Run{run("x", "lite", "r1", map[string]Verdict{"o__a-1": R, "o__a-2": U}), run("y", "lite", "r2", map[string]Verdict{"o__a-1": U, "o__a-2": U})},
			[]string{"lite: [x y]"}, []string{"lite: y vs x"}, "y is on revision r2 of lite but x on r1: the instances' tests may differ"},
		{"two files of one name sharing no instance are two datasets",
			[]*Run{run("x", "dataset.jsonl", "sha256:aaaaaaaaaaaa", map[string]Verdict{"demo__a-1": R}), run("y", "dataset.jsonl", "sha256:bbbbbbbbbbbb", map[string]Verdict{"smith__b-1": U})},
			[]string{"dataset.jsonl@aaaaaaaa: [x]", "dataset.jsonl@bbbbbbbb: [y]"}, nil, "compared as separate datasets, dataset.jsonl@aaaaaaaa, dataset.jsonl@bbbbbbbb"},
		{"different datasets are never paired",
			[]*Run{run("v", "verified", "r", map[string]Verdict{"o__a-1": R}), run("l", "lite", "r", map[string]Verdict{"o__a-1": U})},
			[]string{"verified: [v]", "lite: [l]"}, nil, "v is the only input on verified: inputs on other datasets are never compared with it"},
		{"a report without a dataset joins the one it shares instances with",
			[]*Run{run("v", "verified", "r", map[string]Verdict{"o__v-1": R, "o__v-2": U}), run("l", "lite", "r", map[string]Verdict{"o__l-1": U}),
				synth("report", map[string]Verdict{"o__l-1": R})},
			[]string{"verified: [v]", "lite: [l report]"}, []string{"lite: report vs l"}, ""},
		{"reports without a dataset and without overlap are one of their own",
			[]*Run{synth("p", map[string]Verdict{"o__a-1": R}), synth("q", map[string]Verdict{"o__a-1": U})},
			[]string{": [p q]"}, []string{": q vs p"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(tt.runs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var ds, pairs []string
			for _, d := range res.Datasets {
				ds = append(ds, fmt.Sprintf("%s: %v", d.Name, d.Inputs))
			}
			for _, p := range res.Pairs {
				pairs = append(pairs, p.Dataset+": "+p.B+" vs "+p.A)
			}
			if !reflect.DeepEqual(ds, tt.datasets) || !reflect.DeepEqual(pairs, tt.pairs) {
				t.Errorf("datasets %q pairs %q, want %q %q", ds, pairs, tt.datasets, tt.pairs)
			}
			if w := strings.Join(res.Warnings, "\n"); tt.warning != "" && !strings.Contains(w, tt.warning) {
				t.Errorf("warnings %q lack %q", w, tt.warning)
			}
		})
	}
}

// Tonight's sweep against last night's, on two datasets, also when last night's sweep.json
// named its variants MODEL-DATASET (schema 1): both models lost the 6 instances of d0.
func TestBaselineSweepOverDatasets(t *testing.T) {
	night := func(sweep string, d0 Verdict) []*Run {
		var out []*Run
		for _, variant := range []string{"a", "b"} {
			for _, ds := range []string{"d0", "d1"} {
				v := map[string]Verdict{ds + "__r-0": Resolved, ds + "__r-1": Unresolved}
				if ds == "d0" {
					v = map[string]Verdict{}
					for k := range 6 {
						v[fmt.Sprintf("d0__r-%d", k)] = d0
					}
				}
				r := synth(variant+"-"+ds, v)
				r.Kind, r.Sweep, r.SweepDir, r.Variant, r.Group, r.Repeat = KindSweepCell, sweep, "/sweeps/"+sweep, variant, variant, 1
				r.Dataset, r.DatasetRevision, r.DatasetName = "file-"+ds+".jsonl", "sha256:"+ds, ds
				out = append(out, r)
			}
		}
		return out
	}
	for _, old := range []bool{false, true} {
		t.Run(fmt.Sprintf("old baseline %v", old), func(t *testing.T) {
			yesterday, today := night("n1", Resolved), night("n2", Unresolved)
			if old {
				for _, r := range yesterday {
					r.Variant, r.Group, r.DatasetName = r.Variant+"-"+r.DatasetName, r.Variant+"-"+r.DatasetName, ""
				}
			}
			res, err := Compare(append(yesterday, today...), Options{Baseline: "/sweeps/n1", Alpha: 0.1})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range res.Gate.Verdicts {
				got = append(got, res.GateSubject(v)+": "+v.Outcome)
			}
			want := []string{"n2/a vs n1/a on d0: regression", "n2/b vs n1/b on d0: regression", "n2/a vs n1/a on d1: no significant change", "n2/b vs n1/b on d1: no significant change"}
			if old {
				want = []string{"a vs a-d0 on d0: regression", "b vs b-d0 on d0: regression", "a vs a-d1 on d1: no significant change", "b vs b-d1 on d1: no significant change"}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("gate %q, want %q", got, want)
			}
		})
	}
}
