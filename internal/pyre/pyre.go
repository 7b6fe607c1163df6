// Package pyre gives Go's regexp the meaning of Python re patterns: the action regexes of
// mini-swe-agent configs (matched with re.DOTALL) and the harnesses' log parsers.
package pyre

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Python's str patterns give \s, \d and \w their Unicode meaning; RE2's are ASCII. These sets
// are the Unicode ones (\s: the characters str.isspace accepts; \w: str.isalnum or "_").
const (
	pySpaceSet = `\t-\r\x{1c}-\x{20}\x{85}\p{Z}`
	pyWordSet  = `\p{L}\p{N}_`
)

// Compile compiles a mini-swe-agent action regex, written for Python's re module and
// matched with re.DOTALL: "." matches newlines, \s \S \d \D \w \W are Unicode classes and \b
// \B Unicode word boundaries as in Python, \Z is the end of the text. Python features RE2 lacks
// (lookarounds, backreferences) are an error naming the pattern.
func Compile(expr string) (*Regexp, error) {
	re, err := compile("(?s)" + Translate(expr))
	if err != nil {
		return nil, fmt.Errorf("action_regex %q: %w (Go's RE2 has no lookarounds or backreferences)", expr, err)
	}
	return re, nil
}

// Pattern compiles a Python (str) pattern with the flags written in it ((?m) for re.MULTILINE,
// (?s) for re.DOTALL, (?i) for re.IGNORECASE): Translate's classes, with \b and \B Python's
// Unicode word boundaries.
func Pattern(expr string) (*Regexp, error) {
	re, err := compile(Translate(expr))
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", expr, err)
	}
	return re, nil
}

// MustPattern is Pattern for the patterns of a program's own source: it panics on an error.
func MustPattern(expr string) *Regexp {
	re, err := Pattern(expr)
	if err != nil {
		panic(err)
	}
	return re
}

// Translate rewrites a Python (str) pattern for Go's regexp: \s \S \d \D \w \W become the
// Unicode classes Python gives them (RE2's are ASCII), also inside a class, \Z the end of the text, \b in a class
// the backspace, and a ']' right after '[' or '[^' a literal member. Flags are the caller's.
// \b and \B keep RE2's ASCII meaning in the result: compile with Pattern for Python's.
func Translate(expr string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			i++
			switch n := expr[i]; n {
			case 's':
				if inClass {
					b.WriteString(pySpaceSet)
				} else {
					b.WriteString("[" + pySpaceSet + "]")
				}
			case 'S':
				if inClass {
					b.WriteString(notPySpace()) // RE2 has no negated set inside a class
				} else {
					b.WriteString("[^" + pySpaceSet + "]")
				}
			case 'd':
				b.WriteString(`\p{Nd}`)
			case 'D':
				b.WriteString(`\P{Nd}`)
			case 'w':
				if inClass {
					b.WriteString(pyWordSet)
				} else {
					b.WriteString("[" + pyWordSet + "]")
				}
			case 'W':
				if inClass {
					b.WriteString(notPyWord())
				} else {
					b.WriteString("[^" + pyWordSet + "]")
				}
			case 'Z':
				b.WriteString(`\z`)
			case 'b':
				if inClass {
					b.WriteString(`\x08`)
				} else {
					b.WriteString(`\b`)
				}
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			if i+1 < len(expr) && expr[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(expr) && expr[i+1] == ']' { // a leading ] is literal in Python
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
	return b.String()
}

// notPySpace and notPyWord are the members of a class that \S and \W stand for inside a class
// ([^\S\r\n]: the spaces but \r and \n), spelt as the ranges of code points outside \s and \w.
var (
	notPySpace = sync.OnceValue(func() string {
		return complementRanges(&unicode.RangeTable{R16: []unicode.Range16{{Lo: '\t', Hi: '\r', Stride: 1}, {Lo: 0x1c, Hi: 0x20, Stride: 1}, {Lo: 0x85, Hi: 0x85, Stride: 1}}}, unicode.Z)
	})
	notPyWord = sync.OnceValue(func() string {
		return complementRanges(&unicode.RangeTable{R16: []unicode.Range16{{Lo: '_', Hi: '_', Stride: 1}}}, unicode.L, unicode.N)
	})
)

// complementRanges spells the code points in none of the tables as class members.
func complementRanges(tables ...*unicode.RangeTable) string {
	var in [][2]rune
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			in = append(in, [2]rune{lo, hi})
			return
		}
		for r := lo; r <= hi; r += stride {
			in = append(in, [2]rune{r, r})
		}
	}
	for _, t := range tables {
		for _, r := range t.R16 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	sort.Slice(in, func(i, j int) bool { return in[i][0] < in[j][0] })
	var b strings.Builder
	next := rune(0) // the first code point not yet known to be in a table
	for _, r := range in {
		if r[0] > next {
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, next, r[0]-1)
		}
		next = max(next, r[1]+1)
	}
	if next <= unicode.MaxRune {
		fmt.Fprintf(&b, `\x{%x}-\x{%x}`, next, unicode.MaxRune)
	}
	return b.String()
}

// FindAll returns what Python's re.findall returns for a pattern with at most one group: the
// group of every match (the whole match without a group), unstripped.
func FindAll(re *Regexp, s string) []string {
	found := []string{}
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		if len(m) > 1 {
			found = append(found, m[1])
		} else {
			found = append(found, m[0])
		}
	}
	return found
}
