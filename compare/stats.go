package compare

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// Methods, as printed beside their figures.
const (
	MethodCI        = "Tango's score interval for paired proportions"
	MethodTest      = "McNemar's exact test (two-sided binomial on the discordant pairs)"
	MethodBootstrap = "percentile bootstrap over instances (clustered by instance)"
	// MethodPooled is how a pair is pooled over datasets: pairs are formed within each dataset,
	// so every instance is its own stratum and the discordant pairs of all datasets together are
	// the stratified (Mantel–Haenszel) test for matched pairs.
	MethodPooled = "over datasets: McNemar's exact test on the discordant pairs pooled over the datasets (pairs formed within each dataset); " +
		"differences weighted by instance and macro-averaged over datasets, each with the MOVER interval (Zou & Donner 2008) " +
		"combining the datasets' Tango intervals; with repeats, a percentile bootstrap resampling instances within each dataset"
	// MethodCorrection is how the gate corrects for several datasets.
	MethodCorrection = "Holm's step-down over each input's datasets"
)

// McNemarExact returns the two-sided p-value of McNemar's exact test for b and c discordant
// pairs: twice the binomial(b+c, ½) probability of a count at most min(b, c), capped at 1.
// With no discordant pairs it is 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	if 2*k == n {
		return 1
	}
	if n <= 62 {
		// Exact: the binomial coefficients fit in 64 bits and 2^n divides exactly.
		var sum, coef uint64 = 0, 1
		for i := 0; i <= k; i++ {
			sum += coef
			coef = coef * uint64(n-i) / uint64(i+1)
		}
		return math.Min(1, math.Ldexp(float64(sum), 1-n))
	}
	lgN := lgamma(float64(n + 1))
	sum := 0.0
	for i := 0; i <= k; i++ {
		sum += math.Exp(lgN - lgamma(float64(i+1)) - lgamma(float64(n-i+1)) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*sum)
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// zFor returns the two-sided standard normal quantile of a confidence level (1.96 for 0.95).
func zFor(level float64) float64 { return math.Sqrt2 * math.Erfinv(level) }

// TangoCI returns the score confidence interval of Tango (1998) for the difference of two paired
// proportions, δ = (gained − lost)/n, where gained counts pairs positive on the second member
// only, lost on the first only, and n all pairs. It inverts the score test of δ = δ₀ with the
// cell probabilities re-estimated under that constraint, which keeps its coverage close to the
// nominal level at small n and at the edges (no discordant pairs, all discordant). With n = 0 it
// returns NaN, NaN.
func TangoCI(gained, lost, n int, level float64) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	z := zFor(level)
	est := float64(gained-lost) / float64(n)
	score := func(d float64) float64 { return tangoScore(gained, lost, n, d) }
	// The score falls as δ₀ rises: lo solves score = z below est, hi solves score = −z above.
	lo = -1
	if score(-1) > z {
		lo = bisect(score, z, -1, est)
	}
	hi = 1
	if score(1) < -z {
		hi = bisect(score, -z, est, 1)
	}
	return lo, hi
}

// tangoScore is Tango's statistic for H0: δ = d, with x12 = gained, x21 = lost.
func tangoScore(gained, lost, n int, d float64) float64 {
	x12, x21, nn := float64(gained), float64(lost), float64(n)
	w := -x12 - x21 + (2*nn-x12+x21)*d
	disc := math.Max(0, w*w+8*nn*x21*d*(1-d))
	q := (-w + math.Sqrt(disc)) / (4 * nn) // constrained MLE of p21
	v := nn * (2*q + d*(1-d))
	num := x12 - x21 - nn*d
	if v <= 0 {
		switch {
		case num > 0:
			return math.Inf(1)
		case num < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return num / math.Sqrt(v)
}

// bisect finds x in [a, b] where the decreasing f crosses target.
func bisect(f func(float64) float64, target, a, b float64) float64 {
	for range 200 {
		mid := (a + b) / 2
		if f(mid) > target {
			a = mid
		} else {
			b = mid
		}
		if b-a < 1e-12 {
			break
		}
	}
	return (a + b) / 2
}

// Bootstrap is a clustered bootstrap of a paired difference.
type Bootstrap struct {
	Seed       uint64  `json:"seed"`
	Resamples  int     `json:"resamples"`
	Difference float64 `json:"difference"`
	CILow      float64 `json:"ci_low"`
	CIHigh     float64 `json:"ci_high"`
	// P is the two-sided p-value that matches the interval: the smallest α at which the
	// percentile interval at level 1 − α leaves out 0 (1 when none does). The interval at the
	// comparison's level excludes 0 exactly when P < α.
	P float64 `json:"p"`
	// below: the side of 0 that P is taken on is below it (the difference is negative).
	below bool
}

// BootstrapMeanCI resamples the per-instance differences d (one value per instance, e.g. the
// difference of the mean resolved over repeats) with replacement and returns the mean and the
// percentile interval of the resampled means at level. The same seed gives the same interval.
func BootstrapMeanCI(d []float64, resamples int, seed uint64, level float64) Bootstrap {
	b := Bootstrap{Seed: seed, Resamples: resamples, Difference: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(), P: 1}
	n := len(d)
	if n == 0 || resamples <= 0 {
		return b
	}
	sum := 0.0
	for _, x := range d {
		sum += x
	}
	b.Difference = sum / float64(n)
	rng := newBootstrapRand(seed)
	means := make([]float64, resamples)
	for r := range means {
		means[r] = resampleMean(rng, d)
	}
	b.percentiles(means, level)
	return b
}

func newBootstrapRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// resampleMean draws len(d) values of d with replacement and returns their mean. Two indices
// per 64-bit draw, each by Lemire's multiply-shift (a bias below n/2³², far under the
// bootstrap's own noise): the inner loop is what a sweep's comparison spends.
func resampleMean(rng *rand.Rand, d []float64) float64 {
	n := len(d)
	nn := uint64(n)
	s := 0.0
	k := 0
	for ; k+1 < n; k += 2 {
		x := rng.Uint64()
		s += d[(x&0xffffffff*nn)>>32] + d[(x>>32*nn)>>32]
	}
	if k < n {
		s += d[(rng.Uint64()&0xffffffff*nn)>>32]
	}
	return s / float64(n)
}

// percentiles sets the interval and the p-value of b from the resampled means (sorted here).
func (b *Bootstrap) percentiles(means []float64, level float64) {
	sort.Float64s(means)
	alpha := (1 - level) / 2
	b.CILow = quantile(means, alpha)
	b.CIHigh = quantile(means, 1-alpha)
	b.P, b.below = bootstrapP(means)
}

// bootstrapP is the p-value that inverts the percentile interval of quantile over the sorted
// resampled means s: the interval at level 1 − a lies below 0 when quantile(1 − a/2) < 0, that
// is when a > 2(1 − q*) with q* where the interpolated quantile reaches 0; above 0 when a > 2q₀
// with q₀ where it leaves 0. It returns the smaller of the two (capped at 1) and whether it is
// the side below 0.
func bootstrapP(s []float64) (p float64, below bool) {
	n := len(s)
	if n == 0 {
		return 1, false
	}
	// pos converts an interpolated position to a quantile level.
	level := func(pos float64) float64 {
		if n == 1 {
			return 0
		}
		return pos / float64(n-1)
	}
	pBelow, pAbove := 1.0, 1.0
	switch {
	case s[n-1] < 0:
		pBelow = 0
	case s[0] < 0:
		j := sort.SearchFloat64s(s, 0) // first s[j] ≥ 0, j ≥ 1
		pos := float64(j-1) + (0-s[j-1])/(s[j]-s[j-1])
		pBelow = 2 * (1 - level(pos))
	}
	switch {
	case s[0] > 0:
		pAbove = 0
	case s[n-1] > 0:
		k := sort.Search(n, func(i int) bool { return s[i] > 0 }) - 1 // last s[k] ≤ 0, k ≤ n−2
		pos := float64(k) + (0-s[k])/(s[k+1]-s[k])
		pAbove = 2 * level(pos)
	}
	if pBelow < pAbove {
		return math.Min(1, pBelow), true
	}
	return math.Min(1, pAbove), false
}

// BootstrapPValue formats a bootstrap p-value, which cannot resolve below one resample: "< 0.0005"
// for 2000 resamples when no resampled difference lies on the other side of 0.
func BootstrapPValue(p float64, resamples int) string {
	if resamples > 0 && p < 1/float64(resamples) {
		return "< " + strconv.FormatFloat(1/float64(resamples), 'g', 3, 64)
	}
	return PValue(p)
}

// StratifiedBootstrap resamples the instances of each stratum (a dataset) within it, with
// replacement, and returns two percentile intervals of the stratified mean difference: weighted
// by instance (each stratum by its size, Σ n_d·mean_d ÷ Σ n_d) and macro (the mean over strata of
// their means). Empty strata are left out. With one stratum both equal BootstrapMeanCI with the
// same seed.
func StratifiedBootstrap(strata [][]float64, resamples int, seed uint64, level float64) (byInstance, macro Bootstrap) {
	byInstance = Bootstrap{Seed: seed, Resamples: resamples, Difference: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(), P: 1}
	macro = byInstance
	var use [][]float64
	total := 0
	for _, d := range strata {
		if len(d) > 0 {
			use = append(use, d)
			total += len(d)
		}
	}
	if len(use) == 0 || resamples <= 0 {
		return byInstance, macro
	}
	weighted := func(means []float64) (inst, mac float64) {
		for k, m := range means {
			inst += m * float64(len(use[k]))
			mac += m
		}
		return inst / float64(total), mac / float64(len(use))
	}
	point := make([]float64, len(use))
	for k, d := range use {
		s := 0.0
		for _, x := range d {
			s += x
		}
		point[k] = s / float64(len(d))
	}
	byInstance.Difference, macro.Difference = weighted(point)
	rng := newBootstrapRand(seed)
	instMeans, macroMeans := make([]float64, resamples), make([]float64, resamples)
	m := make([]float64, len(use))
	for r := range resamples {
		for k, d := range use {
			m[k] = resampleMean(rng, d)
		}
		instMeans[r], macroMeans[r] = weighted(m)
	}
	byInstance.percentiles(instMeans, level)
	macro.percentiles(macroMeans, level)
	return byInstance, macro
}

// MOVER combines independent estimates est[d] with their confidence intervals [lo[d], hi[d]]
// into the interval of the weighted sum Σ w[d]·est[d] (w ≥ 0) by the method of variance
// estimates recovery (Zou & Donner 2008): L = S − √Σ w²(est − lo)², U = S + √Σ w²(hi − est)². It
// keeps each part's asymmetry (Tango's intervals at the edges) instead of a normal
// approximation of the whole.
func MOVER(w, est, lo, hi []float64) (sum, low, high float64) {
	var dl, dh float64
	for d := range w {
		sum += w[d] * est[d]
		dl += w[d] * w[d] * (est[d] - lo[d]) * (est[d] - lo[d])
		dh += w[d] * w[d] * (hi[d] - est[d]) * (hi[d] - est[d])
	}
	return sum, sum - math.Sqrt(dl), sum + math.Sqrt(dh)
}

// HolmAdjust returns the p-values adjusted by Holm's step-down procedure (Holm 1979), in the
// order given: with the m values sorted ascending, the k-th becomes
// max over j ≤ k of min(1, (m − j + 1)·p₍ⱼ₎). Rejecting where the adjusted value is below α
// controls the family-wise error rate at α.
func HolmAdjust(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(i, j int) bool { return p[order[i]] < p[order[j]] })
	out := make([]float64, m)
	running := 0.0
	for j, k := range order {
		running = math.Max(running, math.Min(1, float64(m-j)*p[k]))
		out[k] = running
	}
	return out
}

// quantile interpolates linearly between closest ranks of sorted values.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// median of values (unsorted; not modified).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return quantile(s, 0.5)
}

// WilsonCI returns Wilson's score interval for a proportion of k successes in n trials at the
// given confidence level (0.95): the resolved rate of a single run. With n = 0 it returns NaN, NaN.
func WilsonCI(k, n int, level float64) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	z := zFor(level)
	p := float64(k) / float64(n)
	nn := float64(n)
	den := 1 + z*z/nn
	mid := (p + z*z/(2*nn)) / den
	half := z / den * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn))
	return math.Max(0, mid-half), math.Min(1, mid+half)
}
