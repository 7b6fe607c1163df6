package compare

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		name string
		b, c int
		want float64
	}{
		{"10 vs 2 (hand: 2·(1+12+66)/4096)", 10, 2, 158.0 / 4096},
		{"2 vs 10, symmetric", 2, 10, 158.0 / 4096},
		{"no discordant pairs", 0, 0, 1},
		{"balanced", 5, 5, 1},
		{"one discordant pair", 1, 0, 1},
		{"3 vs 0 (hand: 2/8)", 3, 0, 0.25},
		{"all 12 one way (hand: 2/4096)", 0, 12, 2.0 / 4096},
		{"6 vs 5 (capped at 1)", 6, 5, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := McNemarExact(tt.b, tt.c)
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("McNemarExact(%d, %d) = %.15g, want %.15g", tt.b, tt.c, got, tt.want)
			}
		})
	}
}

// exactMcNemar computes the p-value with exact rational arithmetic.
func exactMcNemar(b, c int) float64 {
	n := int64(b + c)
	k := int64(min(b, c))
	sum := new(big.Int)
	for i := int64(0); i <= k; i++ {
		sum.Add(sum, new(big.Int).Binomial(n, i))
	}
	p := new(big.Rat).SetFrac(new(big.Int).Mul(sum, big.NewInt(2)), new(big.Int).Lsh(big.NewInt(1), uint(n)))
	f, _ := p.Float64()
	return math.Min(1, f)
}

func TestMcNemarExactAgreesWithRationalArithmetic(t *testing.T) {
	for _, bc := range [][2]int{{21, 5}, {40, 25}, {100, 70}, {300, 250}, {7, 0}, {1000, 950}} {
		got, want := McNemarExact(bc[0], bc[1]), exactMcNemar(bc[0], bc[1])
		if math.Abs(got-want) > 1e-9*math.Max(want, 1e-300) && math.Abs(got-want) > 1e-15 {
			t.Errorf("McNemarExact(%d, %d) = %.15g, want %.15g", bc[0], bc[1], got, want)
		}
	}
}

func TestTangoCIHandComputed(t *testing.T) {
	z2 := math.Pow(zFor(0.95), 2)
	tests := []struct {
		name            string
		gained, lost, n int
		wantLo, wantHi  float64
	}{
		// One concordant pair: the score equation reduces to −δ/(1+δ) = z² (and its mirror).
		{"one instance, concordant", 0, 0, 1, -z2 / (1 + z2), z2 / (1 + z2)},
		// All n pairs gained: T(δ) = sqrt(n(1−δ)/(1+δ)), so lo = (n − z²)/(n + z²), hi = 1.
		{"all discordant, 5 gained", 5, 0, 5, (5 - z2) / (5 + z2), 1},
		{"all discordant, 5 lost", 0, 5, 5, -1, -(5 - z2) / (5 + z2)},
		// No discordant pair among n: lo = −z²/(n+z²), hi = z²/(n+z²).
		{"no discordant pairs, n=20", 0, 0, 20, -z2 / (20 + z2), z2 / (20 + z2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := TangoCI(tt.gained, tt.lost, tt.n, 0.95)
			if math.Abs(lo-tt.wantLo) > 1e-9 || math.Abs(hi-tt.wantHi) > 1e-9 {
				t.Errorf("TangoCI(%d, %d, %d) = [%.10f, %.10f], want [%.10f, %.10f]", tt.gained, tt.lost, tt.n, lo, hi, tt.wantLo, tt.wantHi)
			}
		})
	}
	if lo, hi := TangoCI(0, 0, 0, 0.95); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("TangoCI on no pairs = [%v, %v], want NaN", lo, hi)
	}
}

// bruteTango inverts Tango's score test with the constrained MLE found by maximising the
// likelihood numerically (golden-section search) instead of by the closed form.
func bruteTango(gained, lost, n int, level float64) (float64, float64) {
	x12, x21, rest := float64(gained), float64(lost), float64(n-gained-lost)
	nn := float64(n)
	score := func(d float64) float64 {
		// p21 = q, p12 = q + d, p11 + p22 = 1 − 2q − d; q ranges over [max(0, −d), (1−d)/2].
		loglik := func(q float64) float64 {
			l := 0.0
			if x12 > 0 {
				l += x12 * math.Log(q+d)
			}
			if x21 > 0 {
				l += x21 * math.Log(q)
			}
			if rest > 0 {
				l += rest * math.Log(1-2*q-d)
			}
			return l
		}
		a, b := math.Max(0, -d), (1-d)/2
		phi := (math.Sqrt(5) - 1) / 2
		for range 300 {
			c1, c2 := b-phi*(b-a), a+phi*(b-a)
			if loglik(c1) < loglik(c2) {
				a = c1
			} else {
				b = c2
			}
		}
		q := (a + b) / 2
		return (x12 - x21 - nn*d) / math.Sqrt(nn*(2*q+d*(1-d)))
	}
	z := zFor(level)
	est := (x12 - x21) / nn
	lo, hi := -1.0, 1.0
	if score(-1+1e-12) > z {
		lo = bisect(score, z, -1+1e-12, est)
	}
	if score(1-1e-12) < -z {
		hi = bisect(score, -z, est, 1-1e-12)
	}
	return lo, hi
}

func TestTangoCIAgreesWithNumericalMaximumLikelihood(t *testing.T) {
	for _, c := range [][3]int{{1, 7, 21}, {5, 1, 10}, {10, 2, 50}, {21, 5, 300}, {3, 0, 9}, {0, 4, 4}, {1, 1, 2}, {40, 35, 500}} {
		lo, hi := TangoCI(c[0], c[1], c[2], 0.95)
		blo, bhi := bruteTango(c[0], c[1], c[2], 0.95)
		if math.Abs(lo-blo) > 1e-6 || math.Abs(hi-bhi) > 1e-6 {
			t.Errorf("TangoCI%v = [%.8f, %.8f], numerical MLE gives [%.8f, %.8f]", c, lo, hi, blo, bhi)
		}
		est := float64(c[0]-c[1]) / float64(c[2])
		if lo > est || hi < est {
			t.Errorf("TangoCI%v = [%f, %f] does not contain the estimate %f", c, lo, hi, est)
		}
	}
}

func TestTangoCIMirror(t *testing.T) {
	lo, hi := TangoCI(7, 2, 30, 0.95)
	mlo, mhi := TangoCI(2, 7, 30, 0.95)
	if math.Abs(lo+mhi) > 1e-9 || math.Abs(hi+mlo) > 1e-9 {
		t.Errorf("swapping gained and lost: [%f, %f] vs [%f, %f], want mirror images", lo, hi, mlo, mhi)
	}
}

// TestTangoCICoverage simulates paired samples and checks that the 95% interval covers the true
// difference about 95% of the time. Where discordant pairs are few (a handful expected), the
// score interval is conservative, as the method is known to be; there it must not fall below
// nominal by more than the tolerance. The Wald interval, simulated alongside, shows the
// simulation does catch an interval that fails at small counts.
func TestTangoCICoverage(t *testing.T) {
	scenarios := []struct {
		n        int
		p12, p21 float64 // P(gained), P(lost); the rest concordant
		small    bool    // few discordant pairs expected: conservative is acceptable
	}{
		{50, 0.15, 0.05, false},
		{100, 0.08, 0.12, false},
		{300, 0.10, 0.07, false},
		{500, 0.03, 0.05, false},
		{20, 0.10, 0.05, true},
		{30, 0.02, 0.02, true},
	}
	const sims = 2000
	const tol = 0.02
	rng := rand.New(rand.NewPCG(20260812, 14))
	for _, sc := range scenarios {
		truth := sc.p12 - sc.p21
		covered, wald := 0, 0
		for range sims {
			g, l := 0, 0
			for range sc.n {
				u := rng.Float64()
				switch {
				case u < sc.p12:
					g++
				case u < sc.p12+sc.p21:
					l++
				}
			}
			lo, hi := TangoCI(g, l, sc.n, 0.95)
			if lo <= truth && truth <= hi {
				covered++
			}
			n := float64(sc.n)
			d := float64(g-l) / n
			se := math.Sqrt((float64(g+l)/n - d*d) / n)
			if d-1.96*se <= truth && truth <= d+1.96*se {
				wald++
			}
		}
		cov, wcov := float64(covered)/sims, float64(wald)/sims
		t.Logf("n=%d p12=%.2f p21=%.2f: coverage %.4f (Wald %.4f)", sc.n, sc.p12, sc.p21, cov, wcov)
		switch {
		case !sc.small && math.Abs(cov-0.95) > tol:
			t.Errorf("n=%d p12=%.2f p21=%.2f: coverage %.4f, want 0.95 ± %.2f", sc.n, sc.p12, sc.p21, cov, tol)
		case sc.small && cov < 0.95-tol:
			t.Errorf("n=%d p12=%.2f p21=%.2f: coverage %.4f, want at least %.2f", sc.n, sc.p12, sc.p21, cov, 0.95-tol)
		}
		if sc.small && sc.p12 != sc.p21 && wcov >= 0.95-tol {
			t.Errorf("n=%d: the Wald interval covers %.4f; the simulation should show it failing at small counts", sc.n, wcov)
		}
	}
}

func TestBootstrapMeanCI(t *testing.T) {
	d := []float64{1, 0, 0, -1, 0.5, 0, 1, 0, 0, 0, -0.5, 1}
	a := BootstrapMeanCI(d, 2000, 7, 0.95)
	b := BootstrapMeanCI(d, 2000, 7, 0.95)
	if a != b {
		t.Errorf("same seed, different results: %+v vs %+v", a, b)
	}
	if want := 2.0 / 12; math.Abs(a.Difference-want) > 1e-12 {
		t.Errorf("difference = %f, want the mean %f", a.Difference, want)
	}
	if !(a.CILow < a.Difference && a.Difference < a.CIHigh) {
		t.Errorf("interval [%f, %f] does not contain the mean %f", a.CILow, a.CIHigh, a.Difference)
	}
	cont := make([]float64, 60)
	for k := range cont {
		cont[k] = math.Sin(float64(k)) // many distinct values
	}
	if x, y := BootstrapMeanCI(cont, 2000, 7, 0.95), BootstrapMeanCI(cont, 2000, 8, 0.95); x.CILow == y.CILow && x.CIHigh == y.CIHigh {
		t.Errorf("another seed gave the identical interval %+v", y)
	}
	// The interval of a mean of 60 values is about ±1.96·sd/√60 around it.
	wide := BootstrapMeanCI(cont, 4000, 3, 0.95)
	sd := 0.0
	for _, x := range cont {
		sd += (x - wide.Difference) * (x - wide.Difference)
	}
	sd = math.Sqrt(sd / float64(len(cont)))
	if half := (wide.CIHigh - wide.CILow) / 2; math.Abs(half-1.96*sd/math.Sqrt(60)) > 0.15*half {
		t.Errorf("half width %f, want about %f", half, 1.96*sd/math.Sqrt(60))
	}
	constant := BootstrapMeanCI([]float64{0.25, 0.25, 0.25}, 500, 1, 0.95)
	if constant.CILow != 0.25 || constant.CIHigh != 0.25 {
		t.Errorf("constant differences: interval [%f, %f], want [0.25, 0.25]", constant.CILow, constant.CIHigh)
	}
	if e := BootstrapMeanCI(nil, 500, 1, 0.95); !math.IsNaN(e.Difference) {
		t.Errorf("no instances: difference %f, want NaN", e.Difference)
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{Points(-0.032), "−3.2"},
		{Points(0.4), "+40.0"},
		{Points(0), "0.0"},
		{Points(-0.00001), "0.0"},
		{PValue(158.0 / 4096), "0.0386"},
		{PValue(1), "1"},
		{PValue(1e-7), "< 0.0001"},
		{Percent(0.95), "95%"},
		{Percent1(6.0 / 23), "26.1%"},
		{Duration(42), "42s"},
		{Duration(185), "3m05s"},
		{Duration(7260), "2h01m"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// Wilson's interval against values computed by hand from the closed form (0 of 10 is the
// textbook [0, 0.2775]).
func TestWilsonCI(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{6, 23, 0.125486, 0.464700},
		{0, 10, 0, 0.277533},
		{10, 10, 0.722467, 1},
		{250, 500, 0.456341, 0.543659},
	}
	for _, tt := range tests {
		lo, hi := WilsonCI(tt.k, tt.n, 0.95)
		if math.Abs(lo-tt.lo) > 1e-6 || math.Abs(hi-tt.hi) > 1e-6 {
			t.Errorf("WilsonCI(%d, %d) = [%.6f, %.6f], want [%.6f, %.6f]", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
	if lo, hi := WilsonCI(0, 0, 0.95); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("WilsonCI(0, 0) = [%g, %g], want NaN", lo, hi)
	}
}

// The reference values of the tests below come from testdata/reference_stats.py (see
// datasets_test.go).

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestHolmAdjust(t *testing.T) {
	tests := []struct {
		name string
		p    []float64
		want []float64
	}{
		// By hand: sorted 0.01·3 = 0.03, 0.03·2 = 0.06, max(0.06, 0.04·1) = 0.06.
		{"three, unsorted", []float64{0.01, 0.04, 0.03}, []float64{0.03, 0.06, 0.06}},
		// Step-down: Bonferroni would give 0.0234, 0.0469, 0.0938; Holm keeps all below 0.05.
		{"step-down", []float64{0.0078125, 0.015625, 0.03125}, []float64{0.0234375, 0.03125, 0.03125}},
		{"capped at 1", []float64{0.03125, 1}, []float64{0.0625, 1}},
		{"one test", []float64{0.5}, []float64{0.5}},
		{"none", nil, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HolmAdjust(tt.p)
			if len(got) != len(tt.want) {
				t.Fatalf("HolmAdjust(%v) = %v, want %v", tt.p, got, tt.want)
			}
			for k := range got {
				if !near(got[k], tt.want[k]) {
					t.Errorf("HolmAdjust(%v) = %v, want %v", tt.p, got, tt.want)
				}
			}
		})
	}
}

func TestMOVERHandComputed(t *testing.T) {
	// One estimate with weight 1 keeps its interval.
	if s, l, u := MOVER([]float64{1}, []float64{0.2}, []float64{-0.1}, []float64{0.4}); !near(s, 0.2) || !near(l, -0.1) || !near(u, 0.4) {
		t.Errorf("one part: %v [%v, %v], want 0.2 [-0.1, 0.4]", s, l, u)
	}
	// Two halves: S = 0.5·0.3 + 0.5·(−0.1) = 0.1; L = 0.1 − √(0.25·0.04 + 0.25·0.09) = 0.1 − √0.0325;
	// U = 0.1 + √(0.25·0.01 + 0.25·0.16) = 0.1 + √0.0425.
	s, l, u := MOVER([]float64{0.5, 0.5}, []float64{0.3, -0.1}, []float64{0.1, -0.4}, []float64{0.4, 0.3})
	if !near(s, 0.1) || !near(l, 0.1-math.Sqrt(0.0325)) || !near(u, 0.1+math.Sqrt(0.0425)) {
		t.Errorf("two halves: %v [%v, %v]", s, l, u)
	}
}

// The bootstrap's p-value inverts its percentile interval: at every level the interval leaves
// out 0 exactly when p < α, on the side it says.
func TestBootstrapPInvertsInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 40 {
		n := 3 + rng.IntN(30)
		shift := rng.Float64() - 0.5
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Round((rng.NormFloat64()*0.4+shift)*4) / 4
		}
		seed := uint64(trial + 1)
		ref := BootstrapMeanCI(d, 400, seed, 0.95)
		for _, alpha := range []float64{0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.001} {
			b := BootstrapMeanCI(d, 400, seed, 1-alpha)
			if b.P != ref.P || b.below != ref.below {
				t.Fatalf("trial %d: p depends on the level (%v vs %v)", trial, b.P, ref.P)
			}
			below, above := b.CIHigh < 0, b.CILow > 0
			if (below || above) != (b.P < alpha) || (below && !b.below) || (above && b.below) {
				t.Errorf("trial %d, α %g: interval [%v, %v], p %v (below %v)", trial, alpha, b.CILow, b.CIHigh, b.P, b.below)
			}
		}
	}
	if b := BootstrapMeanCI([]float64{-1, -1, -1}, 100, 1, 0.95); b.P != 0 || !b.below || BootstrapPValue(b.P, 100) != "< 0.01" {
		t.Errorf("all below 0: p %v below %v", b.P, b.below)
	}
	if b := BootstrapMeanCI([]float64{0, 0}, 100, 1, 0.95); b.P != 1 {
		t.Errorf("all 0: p %v, want 1", b.P)
	}
}

func TestStratifiedBootstrap(t *testing.T) {
	d := []float64{-1, 0, 0, 0.5, 1, -0.5, 0, 0}
	bi, bm := StratifiedBootstrap([][]float64{d}, 500, 3, 0.95)
	ref := BootstrapMeanCI(d, 500, 3, 0.95)
	if bi != ref || bm != ref {
		t.Errorf("one stratum: %+v / %+v, want BootstrapMeanCI's %+v", bi, bm, ref)
	}
	// Constant strata: every resample gives the point estimates. By instance (4·(−1) + 2·1)/6;
	// macro (−1 + 1)/2.
	bi, bm = StratifiedBootstrap([][]float64{{-1, -1, -1, -1}, {}, {1, 1}}, 200, 1, 0.95)
	if !near(bi.Difference, -1.0/3) || !near(bi.CILow, -1.0/3) || !near(bi.CIHigh, -1.0/3) || bi.P != 0 || !bi.below {
		t.Errorf("by instance %+v, want −1/3 exactly", bi)
	}
	if bm.Difference != 0 || bm.CILow != 0 || bm.CIHigh != 0 || bm.P != 1 {
		t.Errorf("macro %+v, want 0 exactly", bm)
	}
}
