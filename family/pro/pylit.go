package pro

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SWE-bench Pro's rows hold test lists (fail_to_pass, pass_to_pass, selected_test_files_to_run)
// as strings that its harness turns into lists with Python's eval(): Python list literals of
// string literals, single- or double-quoted ("['a', \"b\"]"), of which JSON lists are a case.

// stringList reads a test list column: a list of strings, or a string holding a Python (or
// JSON) list literal of string literals. An empty string is an empty list.
func stringList(v any) ([]string, error) {
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for k, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %d is not a string", k)
			}
			out[k] = s
		}
		return out, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return []string{}, nil
		}
		return parsePyList(x)
	case nil:
		return nil, errors.New("null")
	}
	return nil, fmt.Errorf("want a list of strings or a string holding one, got %T", v)
}

// parsePyList parses a Python list literal whose elements are string literals (with an optional
// trailing comma; adjacent literals concatenate, as in Python).
func parsePyList(s string) ([]string, error) {
	p := &pyParser{s: s}
	p.space()
	if !p.eat('[') {
		return nil, p.errorf("want a list literal starting with '['")
	}
	out := []string{}
	for {
		p.space()
		if p.eat(']') {
			break
		}
		str, err := p.strings()
		if err != nil {
			return nil, err
		}
		out = append(out, str)
		p.space()
		if p.eat(',') {
			continue
		}
		if p.eat(']') {
			break
		}
		return nil, p.errorf("want ',' or ']'")
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.errorf("text after the list")
	}
	return out, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("not a Python list of strings at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// strings reads one or more adjacent string literals and concatenates them.
func (p *pyParser) strings() (string, error) {
	var b strings.Builder
	n := 0
	for {
		p.space()
		start := p.i
		raw := false
		for p.i < len(p.s) && strings.IndexByte("rRuUbB", p.s[p.i]) >= 0 && p.i-start < 2 {
			if p.s[p.i] == 'r' || p.s[p.i] == 'R' {
				raw = true
			}
			p.i++
		}
		if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
			p.i = start
			if n == 0 {
				return "", p.errorf("want a string literal")
			}
			return b.String(), nil
		}
		if err := p.literal(&b, raw); err != nil {
			return "", err
		}
		n++
	}
}

// literal reads one quoted literal (the prefix already read).
func (p *pyParser) literal(b *strings.Builder, raw bool) error {
	q := p.s[p.i]
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))
	if triple {
		p.i += 3
	} else {
		p.i++
	}
	for {
		if p.i >= len(p.s) {
			return p.errorf("unterminated string literal")
		}
		c := p.s[p.i]
		switch {
		case c == q && (!triple || strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))):
			if triple {
				p.i += 3
			} else {
				p.i++
			}
			return nil
		case c == '\n' && !triple:
			return p.errorf("newline in a string literal")
		case c == '\\' && !raw:
			if err := p.escape(b); err != nil {
				return err
			}
		case c == '\\' && raw && p.i+1 < len(p.s):
			b.WriteString(p.s[p.i : p.i+2]) // a raw literal keeps its backslashes
			p.i += 2
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += size
		}
	}
}

// escape reads a backslash escape of a Python str literal.
func (p *pyParser) escape(b *strings.Builder) error {
	p.i++ // the backslash
	if p.i >= len(p.s) {
		return p.errorf("backslash at the end")
	}
	c := p.s[p.i]
	p.i++
	simple := map[byte]string{'\\': "\\", '\'': "'", '"': "\"", 'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v", '\n': ""}
	if s, ok := simple[c]; ok {
		b.WriteString(s)
		return nil
	}
	hex := map[byte]int{'x': 2, 'u': 4, 'U': 8}
	if n, ok := hex[c]; ok {
		if p.i+n > len(p.s) {
			return p.errorf("truncated \\%c escape", c)
		}
		v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
		if err != nil {
			return p.errorf("bad \\%c escape", c)
		}
		p.i += n
		b.WriteRune(rune(v))
		return nil
	}
	if c >= '0' && c <= '7' {
		end := p.i - 1
		for end < len(p.s) && end < p.i+2 && p.s[end] >= '0' && p.s[end] <= '7' {
			end++
		}
		v, _ := strconv.ParseUint(p.s[p.i-1:end], 8, 32)
		p.i = end
		b.WriteRune(rune(v))
		return nil
	}
	// Python keeps an unknown escape as written.
	b.WriteByte('\\')
	b.WriteByte(c)
	return nil
}
