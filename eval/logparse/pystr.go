package logparse

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
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

const pySpaceClass = `\t\n\v\f\r \x1c-\x1f\x85\p{Z}`

// pyRe compiles a Python (str) regular expression for Go, translating the classes whose meaning
// differs: \s, \S, \w, \W and \d are Unicode-aware in Python and ASCII-only in Go.
func pyRe(pattern string) *regexp.Regexp {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			n := pattern[i+1]
			i++
			switch {
			case n == 's' && inClass:
				b.WriteString(pySpaceClass)
			case n == 's':
				b.WriteString(`[` + pySpaceClass + `]`)
			case n == 'S' && !inClass:
				b.WriteString(`[^` + pySpaceClass + `]`)
			case n == 'w' && inClass:
				b.WriteString(`\p{L}\p{N}_`)
			case n == 'w':
				b.WriteString(`[\p{L}\p{N}_]`)
			case n == 'W' && !inClass:
				b.WriteString(`[^\p{L}\p{N}_]`)
			case n == 'd':
				b.WriteString(`\p{Nd}`)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal member, not the end of the class.
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return regexp.MustCompile(b.String())
}

// pySplitN is Python's s.split(sep, n) for n >= 1 (at most n splits).
func pySplitN(s, sep string, n int) []string { return strings.SplitN(s, sep, n+1) }
