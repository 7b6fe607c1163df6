package compare

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Methods, as printed beside their figures.
const (
	MethodCI        = "Tango's score interval for paired proportions"
	MethodTest      = "McNemar's exact test (two-sided binomial on the discordant pairs)"
	MethodBootstrap = "percentile bootstrap over instances (clustered by instance)"
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
}

// BootstrapMeanCI resamples the per-instance differences d (one value per instance, e.g. the
// difference of the mean resolved over repeats) with replacement and returns the mean and the
// percentile interval of the resampled means at level. The same seed gives the same interval.
func BootstrapMeanCI(d []float64, resamples int, seed uint64, level float64) Bootstrap {
	b := Bootstrap{Seed: seed, Resamples: resamples, Difference: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN()}
	n := len(d)
	if n == 0 || resamples <= 0 {
		return b
	}
	sum := 0.0
	for _, x := range d {
		sum += x
	}
	b.Difference = sum / float64(n)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	means := make([]float64, resamples)
	// Two indices per 64-bit draw, each by Lemire's multiply-shift (a bias below n/2³², far
	// under the bootstrap's own noise): the inner loop is what a sweep's comparison spends.
	nn := uint64(n)
	for r := range means {
		s := 0.0
		k := 0
		for ; k+1 < n; k += 2 {
			x := rng.Uint64()
			s += d[(x&0xffffffff*nn)>>32] + d[(x>>32*nn)>>32]
		}
		if k < n {
			s += d[(rng.Uint64()&0xffffffff*nn)>>32]
		}
		means[r] = s / float64(n)
	}
	sort.Float64s(means)
	alpha := (1 - level) / 2
	b.CILow = quantile(means, alpha)
	b.CIHigh = quantile(means, 1-alpha)
	return b
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
