// Package pytext gives Go the semantics of the Python string operations that harness log
// parsers use (str.split, str.strip, str.splitlines, re.match), so that parsers ported from a
// harness's Python read a log exactly as the harness does: the same lines, the same words, the
// same test names.
package pytext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/internal/pyre"
)

// IsSpace reports whether Python's str.isspace counts r as whitespace (Go's unicode.IsSpace plus
// the information separators U+001C..U+001F).
func IsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// Fields is Python's str.split() with no arguments.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }

// Strip is Python's str.strip() with no arguments.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// LStrip is Python's str.lstrip() with no arguments.
func LStrip(s string) string { return strings.TrimLeftFunc(s, IsSpace) }

// RStrip is Python's str.rstrip() with no arguments.
func RStrip(s string) string { return strings.TrimRightFunc(s, IsSpace) }

// Indent is len(s) - len(s.lstrip()) in Python: the leading whitespace, counted in characters.
func Indent(s string) int { return utf8.RuneCountInString(s) - utf8.RuneCountInString(LStrip(s)) }

// Lines is Python's s.split("\n").
func Lines(s string) []string { return strings.Split(s, "\n") }

// lineBoundary reports whether r ends a line for str.splitlines.
func lineBoundary(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// SplitLines is Python's str.splitlines(): lines end at \n, \r\n, \r, \v, \f, the file, group and
// record separators, NEL and the Unicode line and paragraph separators; the breaks are dropped and
// a final break starts no empty line.
func SplitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !lineBoundary(r) {
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

// IsDigit is Python's str.isdigit for the decimal digits a test log holds: true for a non-empty
// string of Unicode decimal digits.
func IsDigit(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// Re compiles a Python (str) pattern, with the Unicode classes Python gives \s \S \d \D \w \W
// and its Unicode word boundaries \b \B (internal/pyre). Flags go in the pattern: (?m) for
// re.MULTILINE, (?s) for re.DOTALL, (?i) for re.IGNORECASE. Use it with FindStringSubmatch for
// re.search.
func Re(pattern string) *pyre.Regexp { return pyre.MustPattern(pattern) }

// Int is Python's int(s) for the digits a `\d+` group matched (Unicode decimal digits, which
// Python's int accepts too); it saturates instead of growing without bound.
func Int(s string) int {
	n := 0
	for _, r := range s {
		v := DigitValue(r)
		if v < 0 {
			return n
		}
		if n > (1<<62)/10 {
			return 1 << 62
		}
		n = n*10 + v
	}
	return n
}

// DigitValue is the value of a Unicode decimal digit, or -1. Unicode lays out decimal digits in
// runs of whole sets of ten, each from its zero.
func DigitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if !unicode.Is(unicode.Nd, r) {
		return -1
	}
	z := r
	for unicode.Is(unicode.Nd, z-1) {
		z--
	}
	return int(r-z) % 10
}
