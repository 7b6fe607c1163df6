package multiswebench

import (
	"math/big"
	"strings"
	"unicode"

	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// The harness is Python; these helpers, with internal/pytext's, give Go the semantics of the
// string operations and regular expressions its parse_log functions use, so test names come out
// identical.

// pyLower is Python's str.lower(): Go's per-rune lowering except for the two context rules
// Python applies (U+0130 becomes "i̇"; a capital sigma ending a word becomes final sigma).
func pyLower(s string) string {
	if !strings.ContainsAny(s, "İΣ") {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == 'İ':
			b.WriteString("i\u0307")
		case r == 'Σ' && i > 0 && unicode.IsLetter(rs[i-1]) && (i+1 == len(rs) || !unicode.IsLetter(rs[i+1])):
			b.WriteRune('ς')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// pyReI is pytext.Re with re.IGNORECASE.
func pyReI(pattern string) *pyre.Regexp {
	return pytext.Re("(?i)" + pattern)
}

// pyMatch is Python's pattern.match(s): a match that starts at the beginning of s (the leftmost
// match, when it starts at 0, is the one Python's anchored search finds), or nil.
func pyMatch(re *pyre.Regexp, s string) []string {
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil || loc[0] != 0 {
		return nil
	}
	g := make([]string, len(loc)/2)
	for i := range g {
		if loc[2*i] >= 0 {
			g[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return g
}

// pyInt is Python's int() of a string of \d characters (any Unicode decimal digits), exact for
// any length.
func pyInt(digits string) *big.Int {
	n := new(big.Int)
	ten := big.NewInt(10)
	for _, r := range digits {
		n.Mul(n, ten)
		n.Add(n, big.NewInt(int64(pytext.DigitValue(r))))
	}
	return n
}

// pyRuneOffset is the byte offset of Python string index i (a count of code points) in s, or
// len(s) when s is shorter.
func pyRuneOffset(s string, i int) int {
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}
