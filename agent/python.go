package agent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// Python-compatible pieces of mini-swe-agent 1.x's loop: its action regex is a Python `re`
// pattern matched with re.DOTALL, and its default observation template prints the output dict
// with Python's str().

// Python's str patterns give \s, \d and \w their Unicode meaning; RE2's are ASCII. These sets
// are the Unicode ones (\s: the characters str.isspace accepts; \w: str.isalnum or "_").
const (
	pySpaceSet = `\t-\r\x{1c}-\x{20}\x{85}\p{Z}`
	pyWordSet  = `\p{L}\p{N}_`
)

// CompilePyRegex compiles a mini-swe-agent action regex, written for Python's re module and
// matched with re.DOTALL, into an equivalent Go regexp: "." matches newlines, \s \S \d \D \w \W
// are Unicode classes as in Python, \Z is the end of the text. Python features RE2 lacks
// (lookarounds, backreferences) are an error naming the pattern.
func CompilePyRegex(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("(?s)" + translatePyRegex(expr))
	if err != nil {
		return nil, fmt.Errorf("action_regex %q: %w (Go's RE2 has no lookarounds or backreferences)", expr, err)
	}
	return re, nil
}

func translatePyRegex(expr string) string {
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
					b.WriteString(`\S`) // a negated set inside a class has no RE2 spelling
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
					b.WriteString(`\W`)
				} else {
					b.WriteString("[^" + pyWordSet + "]")
				}
			case 'Z':
				b.WriteString(`\z`)
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

// findAllPy returns what Python's re.findall returns for a pattern with at most one group: the
// group of every match (the whole match without a group), unstripped.
func findAllPy(re *regexp.Regexp, s string) []string {
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

// pyDict is a dict for templates: its keys read as attributes and items, and it prints as
// Python's str() of a dict with these keys in this order.
type pyDict struct {
	keys []string
	vals map[string]any
}

func newPyDict(kv ...any) pyDict {
	d := pyDict{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		d.keys = append(d.keys, k)
		d.vals[k] = kv[i+1]
	}
	return d
}

var (
	_ exec.AttributeGetter = pyDict{}
	_ exec.ItemGetter      = pyDict{}
	_ fmt.Stringer         = pyDict{}
)

// GetAttribute implements exec.AttributeGetter.
func (d pyDict) GetAttribute(name string) (*exec.Value, bool) {
	v, ok := d.vals[name]
	if !ok {
		return exec.AsValue(nil), false
	}
	return exec.AsValue(v), true
}

// GetItem implements exec.ItemGetter.
func (d pyDict) GetItem(key any) (*exec.Value, bool) {
	k, ok := key.(string)
	if !ok {
		if v, isValue := key.(*exec.Value); isValue && v.IsString() {
			k, ok = v.String(), true
		}
	}
	if !ok {
		return exec.AsValue(nil), false
	}
	return d.GetAttribute(k)
}

// String is Python's str() of the dict.
func (d pyDict) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range d.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyRepr(k))
		b.WriteString(": ")
		b.WriteString(pyRepr(d.vals[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// pyRepr is Python's repr() of a string, number, bool or None.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return pyStrRepr(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(x)
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatFloat(x, 'f', 1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// pyStrRepr quotes s as Python's repr does: single quotes unless s holds a single quote and no
// double quote; backslash escapes for the quote, backslash, \t \n \r and unprintable characters.
func pyStrRepr(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i]) // not reachable for text decoded from JSON
			i++
			continue
		}
		i += size
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f || pyPrintable(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// pyPrintable approximates Python's str.isprintable for non-ASCII runes: letters, marks,
// numbers, punctuation, symbols and the plain space are printable; other separators, controls,
// format characters and unassigned code points are not.
func pyPrintable(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}
