package pyre

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Regexp is a compiled Python pattern. Its methods are those of Go's regexp.Regexp of the same
// names and give the same results, except that \b and \B are Python's: a word boundary lies
// between a word character (str.isalnum, or '_') and a non-word character or an end of the text,
// also where those characters are not ASCII (Go's are ASCII only: it finds one inside "Größe").
//
// Go's regexp runs a pattern without \b or \B, and a text with no word character outside ASCII,
// where both agree; the other searches run on the same compiled program with Python's word
// characters (internal/pyre/exec.go).
type Regexp struct {
	std    *regexp.Regexp
	py     *vm  // nil when the pattern has no \b or \B
	vmOnly bool // tests: every search runs on py
}

// compile compiles a Go pattern (the output of Translate).
func compile(expr string) (*Regexp, error) {
	std, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	re := &Regexp{std: std}
	// regexp.Compile parses with syntax.Perl and compiles the simplified tree: the same program.
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if hasBoundary(tree) {
		prog, err := syntax.Compile(tree.Simplify())
		if err != nil {
			return nil, err
		}
		re.py = newVM(prog, true, isWord)
	}
	return re, nil
}

func hasBoundary(re *syntax.Regexp) bool {
	if re.Op == syntax.OpWordBoundary || re.Op == syntax.OpNoWordBoundary {
		return true
	}
	for _, sub := range re.Sub {
		if hasBoundary(sub) {
			return true
		}
	}
	return false
}

// scanLimit is the longest text that is scanned for word characters outside ASCII before a
// search: a longer one is searched by the VM, which reads only as far as the search goes (the
// parsers search the rest of a log again and again, from after each match).
const scanLimit = 4 << 10

// goRuns reports whether Go's regexp runs the search of s: the pattern has no \b or \B, or s
// is a short text Go's ASCII boundaries decide as Python's do.
func (re *Regexp) goRuns(s string) bool {
	return re.py == nil || (!re.vmOnly && len(s) <= scanLimit && asciiBoundariesHold(s))
}

// String is the Go pattern the Python one was translated to.
func (re *Regexp) String() string { return re.std.String() }

// NumSubexp is the number of groups.
func (re *Regexp) NumSubexp() int { return re.std.NumSubexp() }

// SubexpNames are the names of the groups ("" for the whole match and unnamed groups).
func (re *Regexp) SubexpNames() []string { return re.std.SubexpNames() }

// SubexpIndex is the index of the group of that name, or -1.
func (re *Regexp) SubexpIndex(name string) int { return re.std.SubexpIndex(name) }

// exec is the first match at or after pos with ncap slots, padded to all groups when ncap asks
// for groups; nil when there is none.
func (re *Regexp) exec(s string, pos, ncap int) []int {
	if ncap > re.py.prog.NumCap {
		ncap = re.py.prog.NumCap
	}
	m := re.py.exec(s, pos, ncap)
	if m == nil || ncap <= 2 {
		return m
	}
	for n := 2 * (re.std.NumSubexp() + 1); len(m) < n; {
		m = append(m, -1)
	}
	return m
}

func (re *Regexp) groupSlots() int { return 2 * (re.std.NumSubexp() + 1) }

// MatchString reports whether s holds a match.
func (re *Regexp) MatchString(s string) bool {
	if re.goRuns(s) {
		return re.std.MatchString(s)
	}
	return re.exec(s, 0, 0) != nil
}

// FindString is the leftmost match ("" when none).
func (re *Regexp) FindString(s string) string {
	if re.goRuns(s) {
		return re.std.FindString(s)
	}
	if m := re.exec(s, 0, 2); m != nil {
		return s[m[0]:m[1]]
	}
	return ""
}

// FindStringIndex is the position of the leftmost match, or nil.
func (re *Regexp) FindStringIndex(s string) []int {
	if re.goRuns(s) {
		return re.std.FindStringIndex(s)
	}
	return re.exec(s, 0, 2)
}

// FindStringSubmatch is the leftmost match and its groups ("" for a group that took no part),
// or nil: re.search's m.group(0), m.group(1), ….
func (re *Regexp) FindStringSubmatch(s string) []string {
	if re.goRuns(s) {
		return re.std.FindStringSubmatch(s)
	}
	return submatches(s, re.exec(s, 0, re.groupSlots()))
}

// FindStringSubmatchIndex is the positions of the leftmost match and its groups (-1 for a group
// that took no part), or nil.
func (re *Regexp) FindStringSubmatchIndex(s string) []int {
	if re.goRuns(s) {
		return re.std.FindStringSubmatchIndex(s)
	}
	return re.exec(s, 0, re.groupSlots())
}

func submatches(s string, m []int) []string {
	if m == nil {
		return nil
	}
	out := make([]string, len(m)/2)
	for i := range out {
		if m[2*i] >= 0 {
			out[i] = s[m[2*i]:m[2*i+1]]
		}
	}
	return out
}

// all calls deliver with the successive matches Go's FindAll methods return: non-overlapping,
// an empty match right after a match left out, at most n (n < 0: all).
func (re *Regexp) all(s string, n, ncap int, deliver func([]int)) {
	if n < 0 {
		n = len(s) + 1
	}
	for pos, i, prevEnd := 0, 0, -1; i < n && pos <= len(s); {
		m := re.exec(s, pos, ncap)
		if m == nil {
			return
		}
		accept := true
		if m[1] == pos { // an empty match: the next search starts a character on
			accept = m[0] != prevEnd
			if pos < len(s) {
				_, w := utf8.DecodeRuneInString(s[pos:])
				pos += w
			} else {
				pos++
			}
		} else {
			pos = m[1]
		}
		prevEnd = m[1]
		if accept {
			deliver(m)
			i++
		}
	}
}

// FindAllString is the successive matches (at most n; n < 0: all), or nil.
func (re *Regexp) FindAllString(s string, n int) []string {
	if re.goRuns(s) {
		return re.std.FindAllString(s, n)
	}
	var out []string
	re.all(s, n, 2, func(m []int) { out = append(out, s[m[0]:m[1]]) })
	return out
}

// FindAllStringIndex is the positions of the successive matches, or nil.
func (re *Regexp) FindAllStringIndex(s string, n int) [][]int {
	if re.goRuns(s) {
		return re.std.FindAllStringIndex(s, n)
	}
	var out [][]int
	re.all(s, n, 2, func(m []int) { out = append(out, m) })
	return out
}

// FindAllStringSubmatch is the successive matches with their groups, or nil.
func (re *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	if re.goRuns(s) {
		return re.std.FindAllStringSubmatch(s, n)
	}
	var out [][]string
	re.all(s, n, re.groupSlots(), func(m []int) { out = append(out, submatches(s, m)) })
	return out
}

// FindAllStringSubmatchIndex is the positions of the successive matches and their groups, or
// nil.
func (re *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if re.goRuns(s) {
		return re.std.FindAllStringSubmatchIndex(s, n)
	}
	var out [][]int
	re.all(s, n, re.groupSlots(), func(m []int) { out = append(out, m) })
	return out
}

// replace is Go's ReplaceAll loop: every match replaced by what repl appends, except an empty
// match right after a match.
func (re *Regexp) replace(s string, ncap int, repl func(dst []byte, m []int) []byte) string {
	var buf []byte
	lastEnd, pos := 0, 0
	for pos <= len(s) {
		m := re.exec(s, pos, ncap)
		if m == nil {
			break
		}
		buf = append(buf, s[lastEnd:m[0]]...)
		if m[1] > lastEnd || m[0] == 0 {
			buf = repl(buf, m)
		}
		lastEnd = m[1]
		w := 0
		if pos < len(s) {
			_, w = utf8.DecodeRuneInString(s[pos:])
		}
		switch {
		case pos+w > m[1]:
			pos += w
		case pos+1 > m[1]:
			pos++
		default:
			pos = m[1]
		}
	}
	return string(append(buf, s[lastEnd:]...))
}

// ReplaceAllString replaces every match with repl, in which $1, ${name} are the groups (Go's
// template syntax, not Python's \1).
func (re *Regexp) ReplaceAllString(s, repl string) string {
	if re.goRuns(s) {
		return re.std.ReplaceAllString(s, repl)
	}
	ncap := 2
	if strings.Contains(repl, "$") {
		ncap = re.groupSlots()
	}
	return re.replace(s, ncap, func(dst []byte, m []int) []byte { return re.std.ExpandString(dst, repl, s, m) })
}

// ReplaceAllLiteralString replaces every match with repl, taken as it is.
func (re *Regexp) ReplaceAllLiteralString(s, repl string) string {
	if re.goRuns(s) {
		return re.std.ReplaceAllLiteralString(s, repl)
	}
	return re.replace(s, 2, func(dst []byte, _ []int) []byte { return append(dst, repl...) })
}

// ReplaceAllStringFunc replaces every match with what repl returns for it.
func (re *Regexp) ReplaceAllStringFunc(s string, repl func(string) string) string {
	if re.goRuns(s) {
		return re.std.ReplaceAllStringFunc(s, repl)
	}
	return re.replace(s, 2, func(dst []byte, m []int) []byte { return append(dst, repl(s[m[0]:m[1]])...) })
}

// Split is Go's regexp Split: the text between the matches (at most n pieces; n < 0: all).
func (re *Regexp) Split(s string, n int) []string {
	if re.goRuns(s) {
		return re.std.Split(s, n)
	}
	if n == 0 {
		return nil
	}
	if re.std.String() != "" && s == "" {
		return []string{""}
	}
	var out []string
	begin, end := 0, 0
	for _, m := range re.FindAllStringIndex(s, n) {
		if n > 0 && len(out) == n-1 {
			break
		}
		end = m[0]
		if m[1] != 0 {
			out = append(out, s[begin:end])
		}
		begin = m[1]
	}
	if end != len(s) {
		out = append(out, s[begin:])
	}
	return out
}
