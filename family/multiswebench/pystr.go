package multiswebench

import (
	"math/big"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/internal/pyre"
)

// The harness is Python; these helpers give Go the semantics of the string operations and
// regular expressions its parse_log functions use, so test names come out identical.

// pyIsSpace reports whether Python's str.isspace counts r as whitespace (Go's unicode.IsSpace
// plus the information separators U+001C..U+001F).
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// pyStrip is Python's str.strip() with no arguments.
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pyFields is Python's str.split() with no arguments.
func pyFields(s string) []string { return strings.FieldsFunc(s, pyIsSpace) }

// pyLineBreak reports whether Python's str.splitlines breaks a line at r.
func pyLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// pySplitLines is Python's str.splitlines(): lines end at any of Python's line boundaries (\r\n
// counting as one), and a final line break does not start an empty line.
func pySplitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !pyLineBreak(r) {
			i += size
			continue
		}
		out = append(out, s[start:i])
		i += size
		if r == '\r' && i < len(s) && s[i] == '\n' {
			i++
		}
		start = i
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

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

// pyRe compiles a Python (str) regular expression for Go with the Unicode classes Python gives
// \s, \d and \w. Go's regexp chooses, among the leftmost matches, the one a backtracking engine
// would (Python's choice), so lazy and greedy groups capture what they capture in Python.
func pyRe(pattern string) *regexp.Regexp { return regexp.MustCompile(pyre.Translate(pattern)) }

// pyReI is pyRe with re.IGNORECASE.
func pyReI(pattern string) *regexp.Regexp {
	return regexp.MustCompile("(?i)" + pyre.Translate(pattern))
}

// pyMatch is Python's pattern.match(s): a match that starts at the beginning of s (the leftmost
// match, when it starts at 0, is the one Python's anchored search finds), or nil.
func pyMatch(re *regexp.Regexp, s string) []string {
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
		n.Add(n, big.NewInt(int64(digitValue(r))))
	}
	return n
}

// digitValue is the value of a Unicode decimal digit (category Nd). Decimal digits come in
// contiguous runs of whole decades starting at a zero, so the value is the offset in the run
// modulo ten.
func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	start := r
	for unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10
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
