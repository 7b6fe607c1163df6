package logparse

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/internal/pyre"
)

// The harness is written in Python; these helpers give Go the semantics of the Python string
// operations and regular-expression classes its parsers use, so test names come out identical.

// pyIsSpace reports whether Python's str.isspace would count r as whitespace (Go's unicode.IsSpace
// plus the information separators U+001C..U+001F).
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyFields is Python's str.split() with no arguments.
func pyFields(s string) []string { return strings.FieldsFunc(s, pyIsSpace) }

// pyStrip is Python's str.strip() with no arguments.
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pyLStrip is Python's str.lstrip() with no arguments.
func pyLStrip(s string) string { return strings.TrimLeftFunc(s, pyIsSpace) }

// pyRStrip is Python's str.rstrip() with no arguments.
func pyRStrip(s string) string { return strings.TrimRightFunc(s, pyIsSpace) }

// pyIndent is len(line) - len(line.lstrip()) in Python: leading whitespace counted in characters.
func pyIndent(line string) int {
	return utf8.RuneCountInString(line) - utf8.RuneCountInString(pyLStrip(line))
}

// pyRe compiles a Python (str) regular expression for Go, with the Unicode classes Python's
// \s, \S, \w, \W and \d have (internal/pyre).
func pyRe(pattern string) *regexp.Regexp { return regexp.MustCompile(pyre.Translate(pattern)) }

// pySplitN is Python's s.split(sep, n) for n >= 1 (at most n splits).
func pySplitN(s, sep string, n int) []string { return strings.SplitN(s, sep, n+1) }
