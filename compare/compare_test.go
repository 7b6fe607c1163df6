package compare

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// synth builds a run from a compact plan: ids "o__r-<k>" with the given verdicts.
func synth(label string, verdicts map[string]Verdict) *Run {
	r := &Run{Label: label, Path: "/synthetic/" + label, Kind: KindHarnessReport}
	for id, v := range verdicts {
		r.Instances = append(r.Instances, Instance{ID: id, Verdict: v})
	}
	r.finish()
	return r
}

// plan makes verdict maps for two runs from counts of each (a, b) combination over fresh ids.
type plan struct{ both, neither, newly, regressed, aOnly, bOnly int }

func (p plan) runs() (a, b *Run, newly, regressed []string) {
	va, vb := map[string]Verdict{}, map[string]Verdict{}
	k := 0
	next := func() string { k++; return fmt.Sprintf("o__r-%04d", k) }
	for range p.both {
		id := next()
		va[id], vb[id] = Resolved, Resolved
	}
	for range p.neither {
		id := next()
		va[id], vb[id] = Unresolved, Error
	}
	for range p.newly {
		id := next()
		va[id], vb[id] = EmptyPatch, Resolved
		newly = append(newly, id)
	}
	for range p.regressed {
		id := next()
		va[id], vb[id] = Resolved, Unresolved
		regressed = append(regressed, id)
	}
	for range p.aOnly {
		id := next()
		va[id], vb[id] = Resolved, NotSubmitted
	}
	for range p.bOnly {
		vb[next()] = Unresolved
	}
	return synth("a", va), synth("b", vb), newly, regressed
}

func ptr(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

func TestComparePairs(t *testing.T) {
	tests := []struct {
		name       string
		p          plan
		wantP      float64
		wantDiff   float64 // NaN: no paired instances
		wantCommon int
	}{
		{"10 newly vs 2 regressed", plan{both: 30, neither: 58, newly: 10, regressed: 2}, 158.0 / 4096, 8.0 / 100, 100},
		{"no discordant pairs", plan{both: 5, neither: 5}, 1, 0, 10},
		{"all discordant", plan{newly: 6, regressed: 0}, 2.0 / 64, 1, 6},
		{"one instance", plan{newly: 1}, 1, 1, 1},
		{"empty overlap", plan{aOnly: 4, bOnly: 3}, 1, math.NaN(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, newly, regressed := tt.p.runs()
			res, err := Compare([]*Run{a, b}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Pairs) != 1 {
				t.Fatalf("got %d pairs, want 1", len(res.Pairs))
			}
			p := res.Pairs[0]
			if p.A != "a" || p.B != "b" {
				t.Errorf("pair = %s vs %s, want b against a", p.B, p.A)
			}
			if p.Common != tt.wantCommon || p.Both != tt.p.both || p.Neither != tt.p.neither || len(p.AOnly) != tt.p.aOnly || len(p.BOnly) != tt.p.bOnly {
				t.Errorf("common %d both %d neither %d aOnly %d bOnly %d, want %d %d %d %d %d", p.Common, p.Both, p.Neither, len(p.AOnly), len(p.BOnly),
					tt.wantCommon, tt.p.both, tt.p.neither, tt.p.aOnly, tt.p.bOnly)
			}
			if !reflect.DeepEqual(p.Newly, nonNil(newly)) || !reflect.DeepEqual(p.Regressed, nonNil(regressed)) {
				t.Errorf("newly %v regressed %v, want %v %v", p.Newly, p.Regressed, newly, regressed)
			}
			if math.Abs(p.McNemarP-tt.wantP) > 1e-12 {
				t.Errorf("McNemar p = %.15g, want %.15g", p.McNemarP, tt.wantP)
			}
			d := ptr(p.Difference)
			if math.IsNaN(tt.wantDiff) != math.IsNaN(d) || (!math.IsNaN(d) && math.Abs(d-tt.wantDiff) > 1e-12) {
				t.Errorf("difference = %v, want %v", d, tt.wantDiff)
			}
			if !math.IsNaN(d) {
				lo, hi := TangoCI(len(newly), len(regressed), p.Paired, 0.95)
				if *p.CILow != lo || *p.CIHigh != hi || lo > d || hi < d {
					t.Errorf("CI [%v, %v], want Tango's [%v, %v] around %v", *p.CILow, *p.CIHigh, lo, hi, d)
				}
			} else if p.CILow != nil || p.CIHigh != nil {
				t.Errorf("CI present without paired instances")
			}
			if tt.p.aOnly+tt.p.bOnly > 0 && len(p.Warnings) == 0 {
				t.Errorf("no warning about instances covered by one side only")
			}
		})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestGate(t *testing.T) {
	tests := []struct {
		name       string
		p          plan
		outcome    string
		regression bool
		line       string
	}{
		{"significant drop", plan{both: 40, neither: 34, newly: 5, regressed: 21}, OutcomeRegression, true,
			// p = 2·(1+26+325+2600+14950+65780)/2^26 = 0.00249; the interval is checked in stats_test.go.
			"regression: −16.0 points, 95% CI [−26.0, −6.5], McNemar p = 0.00249, 21 regressed / 5 newly resolved, 0 flaky ignored"},
		{"significant gain", plan{both: 40, neither: 34, newly: 21, regressed: 5}, OutcomeImprovement, false, "improvement: +16.0 points"},
		{"small drop", plan{both: 40, neither: 54, newly: 2, regressed: 4}, OutcomeNoChange, false, "no significant change: −2.0 points"},
		{"no overlap", plan{aOnly: 3, bOnly: 3}, OutcomeNoOverlap, false, "no common instances"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, _, _ := tt.p.runs()
			res, err := Compare([]*Run{a, b}, Options{Baseline: "a"})
			if err != nil {
				t.Fatal(err)
			}
			g := res.Gate
			if g == nil || len(g.Verdicts) != 1 {
				t.Fatalf("gate = %+v, want one verdict", g)
			}
			v := g.Verdicts[0]
			if v.Outcome != tt.outcome || v.Regression != tt.regression || g.Regression != tt.regression {
				t.Errorf("outcome %q regression %v (gate %v), want %q %v", v.Outcome, v.Regression, g.Regression, tt.outcome, tt.regression)
			}
			if !strings.HasPrefix(v.Line, tt.line) {
				t.Errorf("line = %q, want it to start with %q", v.Line, tt.line)
			}
		})
	}
	t.Run("alpha", func(t *testing.T) {
		a, b, _, _ := plan{both: 40, neither: 34, newly: 5, regressed: 21}.runs()
		res, err := Compare([]*Run{a, b}, Options{Baseline: "a", Alpha: 0.001})
		if err != nil {
			t.Fatal(err)
		}
		if res.Gate.Regression || !strings.Contains(res.Gate.Verdicts[0].Line, "99.9% CI") {
			t.Errorf("at α = 0.001, p = 0.0025 is no regression, and the CI is at 99.9%%: %+v", res.Gate.Verdicts[0])
		}
	})
	t.Run("unknown baseline", func(t *testing.T) {
		a, b, _, _ := plan{both: 1}.runs()
		_, err := Compare([]*Run{a, b}, Options{Baseline: "c"})
		if err == nil || !strings.Contains(err.Error(), `"c"`) || !strings.Contains(err.Error(), `"a"`) {
			t.Errorf("err = %v, want one naming the baseline and the inputs", err)
		}
	})
	if _, err := Compare(nil, Options{}); !errors.Is(err, ErrNoInputs) {
		t.Errorf("Compare(nil) err = %v, want ErrNoInputs", err)
	}
}

// cells makes the repeats of one sweep variant.
func cells(sweep, variant string, repeats ...map[string]Verdict) []*Run {
	var out []*Run
	for k, vs := range repeats {
		r := synth(fmt.Sprintf("%s#%d", variant, k+1), vs)
		r.Kind, r.Sweep, r.SweepDir, r.Variant, r.Group, r.Repeat = KindSweepCell, sweep, "/sweeps/"+sweep, variant, variant, k+1
		r.Model, r.ConfigHash, r.Dataset, r.DatasetRevision = "m-"+variant, "hash-"+variant, "lite:dev", "rev1"
		out = append(out, r)
	}
	return out
}

func TestRepeatsFlakyAndPassK(t *testing.T) {
	R, U, N := Resolved, Unresolved, NotSubmitted
	// Variant x: 3 repeats. i1 resolved 3/3, i2 1/3 (flaky), i3 0/3, i4 covered by 2 repeats only.
	x := cells("s", "x",
		map[string]Verdict{"o__a-1": R, "o__a-2": R, "o__a-3": U, "o__b-4": R},
		map[string]Verdict{"o__a-1": R, "o__a-2": U, "o__a-3": U, "o__b-4": R},
		map[string]Verdict{"o__a-1": R, "o__a-2": U, "o__a-3": U, "o__b-4": N},
	)
	y := cells("s", "y",
		map[string]Verdict{"o__a-1": U, "o__a-2": R, "o__a-3": R, "o__b-4": R},
		map[string]Verdict{"o__a-1": U, "o__a-2": R, "o__a-3": R, "o__b-4": R},
	)
	res, err := Compare(append(x, y...), Options{Baseline: "x", Seed: 42, Resamples: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 2 || res.Inputs[0].Repeats != 3 || res.Inputs[1].Repeats != 2 {
		t.Fatalf("inputs = %+v, want x with 3 repeats and y with 2", res.Inputs)
	}
	in := res.Inputs[0]
	// Mean resolved: 1 + 1/3 + 0 + 1 (2 of 2 covering repeats).
	if want := 1 + 1.0/3 + 1; math.Abs(in.Resolved-want) > 1e-12 || in.Covered != 4 {
		t.Errorf("x resolved %v covered %d, want %v of 4", in.Resolved, in.Covered, want)
	}
	if !reflect.DeepEqual(in.Flaky, []string{"o__a-2"}) {
		t.Errorf("x flaky = %v, want [o__a-2]", in.Flaky)
	}
	// pass@3 / pass^3 over the 3 instances every repeat covers: a-1 (3/3), a-2 (1/3), a-3 (0/3).
	if in.Pass == nil || in.Pass.K != 3 || in.Pass.Instances != 3 || math.Abs(in.Pass.PassAtK-2.0/3) > 1e-12 || math.Abs(in.Pass.PassHatK-1.0/3) > 1e-12 {
		t.Errorf("x pass = %+v, want k=3 over 3 instances, pass@3 2/3, pass^3 1/3", in.Pass)
	}
	p := res.Pairs[0]
	if p.A != "x" || p.B != "y" {
		t.Fatalf("pair %s against %s, want y against x", p.B, p.A)
	}
	if !reflect.DeepEqual(p.Flaky, []string{"o__a-2"}) || p.Paired != 3 {
		t.Errorf("flaky %v paired %d, want [o__a-2] left out of 4", p.Flaky, p.Paired)
	}
	if !reflect.DeepEqual(p.Newly, []string{"o__a-3"}) || !reflect.DeepEqual(p.Regressed, []string{"o__a-1"}) || p.Both != 1 {
		t.Errorf("newly %v regressed %v both %d, want [o__a-3] [o__a-1] 1", p.Newly, p.Regressed, p.Both)
	}
	if p.Bootstrap == nil || p.Bootstrap.Seed != 42 || p.Bootstrap.Resamples != 500 {
		t.Fatalf("bootstrap = %+v, want seed 42, 500 resamples", p.Bootstrap)
	}
	// Per-instance differences y − x: a-1 −1, a-2 +2/3, a-3 +1, b-4 0.
	if want := (-1 + 2.0/3 + 1 + 0) / 4; math.Abs(p.Bootstrap.Difference-want) > 1e-12 {
		t.Errorf("bootstrap difference %v, want %v", p.Bootstrap.Difference, want)
	}
	if res.Gate == nil || res.Gate.Verdicts[0].Outcome != OutcomeNoChange || !strings.Contains(res.Gate.Verdicts[0].Line, "bootstrap, seed 42") {
		t.Errorf("gate = %+v, want no significant change by the bootstrap", res.Gate)
	}
	for _, r := range res.Rows {
		if r.ID == "o__a-2" && !r.Flaky {
			t.Errorf("row o__a-2 not marked flaky")
		}
		if r.ID == "o__b-4" && !reflect.DeepEqual(r.Verdicts[0], []Verdict{R, R, N}) {
			t.Errorf("row o__b-4 verdicts of x = %v", r.Verdicts[0])
		}
	}
}

func TestHistoryFlaky(t *testing.T) {
	R, U := Resolved, Unresolved
	cur := cells("night3", "x", map[string]Verdict{"o__a-1": R, "o__a-2": U, "o__a-3": R, "o__a-4": U})
	base := synth("base", map[string]Verdict{"o__a-1": U, "o__a-2": U, "o__a-3": R, "o__a-4": U})
	history := []HistoryEntry{
		// Same model, config, dataset and revision: a-4 was resolved that night and is not now,
		// so it is flaky; the others agree with tonight.
		{Variant: "x", Model: "m-x", ConfigHash: "hash-x", Dataset: "lite:dev", DatasetRevision: "rev1",
			ResolvedIDs: []string{"o__a-1", "o__a-3", "o__a-4"}, EvaluatedIDs: []string{"o__a-1", "o__a-2", "o__a-3", "o__a-4"}, Counts: HistoryCounts{Resolved: 3}},
		// Another config: its a-2 says nothing.
		{Variant: "x", Model: "m-x", ConfigHash: "hash-other", Dataset: "lite:dev", DatasetRevision: "rev1",
			ResolvedIDs: []string{"o__a-2"}, EvaluatedIDs: []string{"o__a-2"}},
		// Another revision: its a-2 says nothing.
		{Variant: "x", Model: "m-x", ConfigHash: "hash-x", Dataset: "lite:dev", DatasetRevision: "rev0",
			ResolvedIDs: []string{"o__a-2"}, EvaluatedIDs: []string{"o__a-2"}},
	}
	res, err := Compare(append([]*Run{base}, cur...), Options{Baseline: "base", History: history})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Inputs[1].FlakyHistory; !reflect.DeepEqual(got, []string{"o__a-4"}) {
		t.Errorf("flaky from history = %v, want [o__a-4]", got)
	}
	p := res.Pairs[0]
	if !reflect.DeepEqual(p.Flaky, []string{"o__a-4"}) || p.Paired != 3 || !reflect.DeepEqual(p.Newly, []string{"o__a-1"}) {
		t.Errorf("flaky %v paired %d newly %v, want [o__a-4] 3 [o__a-1]", p.Flaky, p.Paired, p.Newly)
	}
	if !strings.HasSuffix(res.Gate.Verdicts[0].Line, "1 flaky ignored") {
		t.Errorf("gate line %q does not count the flaky instance", res.Gate.Verdicts[0].Line)
	}
}

func TestBaselineSweepPairsVariants(t *testing.T) {
	R, U := Resolved, Unresolved
	yesterday := append(cells("n1", "x", map[string]Verdict{"o__a-1": R, "o__a-2": U}), cells("n1", "y", map[string]Verdict{"o__a-1": U, "o__a-2": U})...)
	today := append(cells("n2", "x", map[string]Verdict{"o__a-1": U, "o__a-2": U}), cells("n2", "y", map[string]Verdict{"o__a-1": R, "o__a-2": R})...)
	today = append(today, cells("n2", "z", map[string]Verdict{"o__a-1": R})...)
	res, err := Compare(append(yesterday, today...), Options{Baseline: "/sweeps/n1"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Pairs {
		got = append(got, p.B+" against "+p.A)
	}
	want := []string{"n2/x against n1/x", "n2/y against n1/y"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pairs = %v, want %v", got, want)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), `no variant "z"`) {
		t.Errorf("warnings %v do not mention the variant without a baseline", res.Warnings)
	}
}

func TestThreeInputsMatrixAndBest(t *testing.T) {
	R, U, N := Resolved, Unresolved, NotSubmitted
	a := synth("a", map[string]Verdict{"o__a-1": R, "o__a-2": U, "o__a-3": U})
	b := synth("b", map[string]Verdict{"o__a-1": R, "o__a-2": R, "o__a-3": U})
	c := synth("c", map[string]Verdict{"o__a-1": R, "o__a-2": U, "o__a-3": N})
	res, err := Compare([]*Run{a, b, c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 3 || res.Datasets[0].Best != "b" || len(res.VsBest) != 2 {
		t.Fatalf("pairs %d best %q vs best %d, want 3, b, 2", len(res.Pairs), res.Datasets[0].Best, len(res.VsBest))
	}
	for _, p := range res.VsBest {
		if p.A != "b" {
			t.Errorf("vs best pair has %s as reference", p.A)
		}
	}
	var matrix []string
	differ, _ := differingRows(res, []int{0, 1, 2})
	for _, r := range differ {
		s := r.ID
		for _, vs := range r.Verdicts {
			s += " " + Symbol(vs)
		}
		matrix = append(matrix, s)
	}
	want := []string{"o__a-2 ✗ ✓ ✗", "o__a-3 ✗ ✗ –"}
	if !reflect.DeepEqual(matrix, want) {
		t.Errorf("matrix = %q, want %q", matrix, want)
	}
}

func TestImpliedUnresolved(t *testing.T) {
	exp := synth("exp", map[string]Verdict{"o__a-1": Resolved, "o__a-2": EmptyPatch})
	exp.ImpliedUnresolved, exp.Total = true, 4
	other := synth("other", map[string]Verdict{"o__a-1": Resolved, "o__a-3": Resolved, "o__a-4": Unresolved})
	res, err := Compare([]*Run{exp, other}, Options{Universe: []string{"o__a-5"}})
	if err != nil {
		t.Fatal(err)
	}
	in := res.Inputs[0]
	if in.Covered != 5 || in.Verdicts[Unresolved] != 3 || in.Verdicts[Resolved] != 1 {
		t.Errorf("exp covered %d verdicts %v, want 5 covered, 3 implied unresolved", in.Covered, in.Verdicts)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "its split has 4") {
		t.Errorf("warnings %v do not say the universe is larger than the split", res.Warnings)
	}
	if p := res.Pairs[0]; p.Common != 3 || !reflect.DeepEqual(p.Newly, []string{"o__a-3"}) {
		t.Errorf("pair common %d newly %v, want 3, [o__a-3]", p.Common, p.Newly)
	}
}

func some[T any](v T) *T { return &v }

// Metrics are taken over the instances whose figures are known, never counting an unknown one as
// zero, and say over how many: an instance without any figure (graded, never run here) and one
// whose provider reported no usage are left out of what they lack.
func TestMetricsAndRepos(t *testing.T) {
	r := &Run{Label: "r", Kind: KindRunDir, HasCost: true, HasSteps: true, HasTokens: true, HasDuration: true, Instances: []Instance{
		{ID: "x__one-1", Verdict: Resolved, Cost: some(1.0), Steps: some(10), Tokens: &Tokens{100, 10}, Seconds: some(60.0), ExitStatus: "Submitted"},
		{ID: "x__one-2", Verdict: Unresolved, Cost: some(3.0), Steps: some(30), Tokens: &Tokens{300, 30}, Seconds: some(120.0), ExitStatus: "Submitted"},
		{ID: "y__two-3", Verdict: NotSubmitted, Cost: some(2.0), Steps: some(0), ExitStatus: "EngineDown"},
		{ID: "y__two-4", Verdict: Resolved},
	}}
	r.finish()
	res, err := Compare([]*Run{r}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Inputs[0].Metrics
	if m.Cost.Total != 6 || m.Cost.Median != 2 || m.Cost.N != 3 || m.Cost.Of != 4 || *m.CostPerResolved != 6 ||
		m.Steps.Total != 40 || m.Steps.N != 3 || m.Steps.Mean != 40.0/3 || m.Tokens.Input != 400 || m.Tokens.N != 2 || m.Tokens.Of != 4 ||
		m.Seconds.N != 2 || m.Seconds.Median != 90 {
		t.Errorf("metrics = cost %+v per resolved %v steps %+v tokens %+v seconds %+v", m.Cost, *m.CostPerResolved, m.Steps, m.Tokens, m.Seconds)
	}
	var text, md bytes.Buffer
	if err := WriteText(&text, res); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"$6.00 over 3 of 4", "40 over 3 of 4", "400 over 2 of 4"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text output lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.Contains(md.String(), "| $6.00 over 3 of 4 | $6.00 | 10 over 3 of 4 |") {
		t.Errorf("the Markdown output does not say over how many instances cost and steps were taken:\n%s", md.String())
	}
	if st := res.Inputs[0].ExitStatuses; st["Submitted"] != 2 || st["EngineDown"] != 1 {
		t.Errorf("exit statuses = %v", st)
	}
	want := []RepoStat{{Repo: "x/one", Covered: 2, Resolved: 1}, {Repo: "y/two", Covered: 1, Resolved: 1}}
	if !reflect.DeepEqual(res.Inputs[0].Repos, want) {
		t.Errorf("repos = %+v, want %+v (the unfinished instance is not covered)", res.Inputs[0].Repos, want)
	}
}

func TestRepoOf(t *testing.T) {
	for id, want := range map[string]string{
		"django__django-11099":     "django/django",
		"pylint-dev__astroid-1196": "pylint-dev/astroid",
		"swe-agent__test-repo-1":   "swe-agent/test-repo",
		"owner__name":              "owner/name",
		"plain":                    "plain",
	} {
		if got := RepoOf(id); got != want {
			t.Errorf("RepoOf(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestGateWithRepeatsUsesBootstrap(t *testing.T) {
	x1, x2, y1, y2 := map[string]Verdict{}, map[string]Verdict{}, map[string]Verdict{}, map[string]Verdict{}
	for k := range 40 {
		id := fmt.Sprintf("o__r-%02d", k)
		x1[id], x2[id], y1[id], y2[id] = Resolved, Resolved, Unresolved, Unresolved
		if k < 25 {
			y1[id], y2[id] = Resolved, Resolved
		}
		if k == 30 { // one flaky instance in y
			y1[id] = Resolved
		}
	}
	runs := append(cells("n2", "y", y1, y2), cells("n1", "x", x1, x2)...)
	res, err := Compare(runs, Options{Baseline: "x"})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Gate.Verdicts[0]
	p := res.Pairs[0]
	if v.Outcome != OutcomeRegression || !res.Gate.Regression || p.Bootstrap == nil || p.Bootstrap.CIHigh >= 0 {
		t.Fatalf("gate %+v, bootstrap %+v: want a regression decided by the bootstrap interval", v, p.Bootstrap)
	}
	if len(p.Regressed) != 14 || !reflect.DeepEqual(p.Flaky, []string{"o__r-30"}) || !strings.HasSuffix(v.Line, "14 regressed / 0 newly resolved, 1 flaky ignored") {
		t.Errorf("regressed %d flaky %v line %q", len(p.Regressed), p.Flaky, v.Line)
	}
}
