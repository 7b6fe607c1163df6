package pytext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// LiteralStrings is ast.literal_eval of a Python list (or tuple) of string literals, as datasets
// that store test lists with Python's repr write them: "['a', \"b's\", 'c\\n']". Single and
// double quotes, the escapes of Python string literals (\\ \' \" \n \t \r \a \b \f \v \ooo \xhh
// \uXXXX \UXXXXXXXX), string prefixes (r and R keep backslashes; u and b change nothing here) and
// adjacent literals (concatenated) are understood; anything else (numbers, nested lists) is an
// error.
func LiteralStrings(s string) ([]string, error) {
	p := &litParser{s: s}
	p.space()
	open := p.next()
	var close byte
	switch open {
	case '[':
		close = ']'
	case '(':
		close = ')'
	default:
		return nil, fmt.Errorf("not a Python list of strings: starts with %q", p.s[:min(len(p.s), 20)])
	}
	out := []string{}
	for done := false; !done; {
		p.space()
		if p.peek() == close {
			p.i++
			break
		}
		str, err := p.strings()
		if err != nil {
			return nil, err
		}
		out = append(out, str)
		p.space()
		switch p.next() {
		case ',':
		case close:
			done = true
		default:
			return nil, fmt.Errorf("not a Python list of strings: expected ',' or %q at offset %d", close, p.i-1)
		}
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("not a Python list of strings: extra text at offset %d", p.i)
	}
	return out, nil
}

type litParser struct {
	s string
	i int
}

func (p *litParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *litParser) next() byte {
	c := p.peek()
	p.i++
	return c
}

func (p *litParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r\f\v", p.s[p.i]) >= 0 {
		p.i++
	}
}

// strings reads one or more adjacent string literals.
func (p *litParser) strings() (string, error) {
	var b strings.Builder
	n := 0
	for {
		p.space()
		start := p.i
		raw := false
		for p.i < len(p.s) && strings.IndexByte("rRuUbB", p.s[p.i]) >= 0 && p.i-start < 2 {
			raw = raw || p.s[p.i] == 'r' || p.s[p.i] == 'R'
			p.i++
		}
		if q := p.peek(); q != '\'' && q != '"' {
			p.i = start
			if n == 0 {
				return "", fmt.Errorf("not a Python list of strings: expected a string literal at offset %d", p.i)
			}
			return b.String(), nil
		}
		if err := p.literal(&b, raw); err != nil {
			return "", err
		}
		n++
	}
}

func (p *litParser) literal(b *strings.Builder, raw bool) error {
	q := p.next()
	triple := strings.HasPrefix(p.s[p.i:], string([]byte{q, q}))
	if triple {
		p.i += 2
	}
	for {
		if p.i >= len(p.s) {
			return fmt.Errorf("not a Python list of strings: unterminated string literal")
		}
		c := p.s[p.i]
		switch {
		case c == q && (!triple || strings.HasPrefix(p.s[p.i:], string([]byte{q, q, q}))):
			p.i++
			if triple {
				p.i += 2
			}
			return nil
		case c == '\n' && !triple:
			return fmt.Errorf("not a Python list of strings: line break inside a string literal")
		case c == '\\' && !raw:
			if err := p.escape(b); err != nil {
				return err
			}
		case c == '\\' && p.i+1 < len(p.s):
			b.WriteString(p.s[p.i : p.i+2]) // a raw literal keeps its backslashes
			p.i += 2
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += size
		}
	}
}

func (p *litParser) escape(b *strings.Builder) error {
	p.i++ // the backslash
	if p.i >= len(p.s) {
		return fmt.Errorf("not a Python list of strings: unterminated string literal")
	}
	c := p.s[p.i]
	p.i++
	simple := map[byte]string{'\\': "\\", '\'': "'", '"': "\"", 'n': "\n", 't': "\t", 'r': "\r",
		'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '\n': ""}
	if s, ok := simple[c]; ok {
		b.WriteString(s)
		return nil
	}
	hex := map[byte]int{'x': 2, 'u': 4, 'U': 8}
	if n, ok := hex[c]; ok {
		if p.i+n > len(p.s) {
			return fmt.Errorf("not a Python list of strings: truncated \\%c escape", c)
		}
		v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
		if err != nil {
			return fmt.Errorf("not a Python list of strings: bad \\%c escape %q", c, p.s[p.i:p.i+n])
		}
		p.i += n
		b.WriteRune(rune(v))
		return nil
	}
	if c >= '0' && c <= '7' {
		end := p.i
		for end < len(p.s) && end < p.i+2 && p.s[end] >= '0' && p.s[end] <= '7' {
			end++
		}
		v, _ := strconv.ParseUint(p.s[p.i-1:end], 8, 32)
		p.i = end
		b.WriteRune(rune(v))
		return nil
	}
	// Python keeps an unknown escape as it is.
	b.WriteByte('\\')
	b.WriteByte(c)
	return nil
}
