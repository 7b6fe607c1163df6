package multiswebench

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Python's json module, as far as the harness relies on it: json.dumps (the reports it writes) and
// JSONDecoder.raw_decode (the mocha JSON parsers scan logs with it), plus str() and repr() of the
// values it decodes.

// pyKV is one member of a JSON object, in order.
type pyKV struct {
	key   string
	value any
}

// pyObject is a JSON object with its members in order (a Python dict).
type pyObject []pyKV

// get returns the value of key and whether the object has it.
func (o pyObject) get(key string) (any, bool) {
	for _, kv := range o {
		if kv.key == key {
			return kv.value, true
		}
	}
	return nil, false
}

// pyNumber is a decoded JSON number: an int when it has no fraction or exponent, else a float.
type pyNumber struct {
	text    string
	isFloat bool
}

// pyDumps writes v as Python's json.dumps(v, ensure_ascii=False) does: with indent 0 on one line
// with ", " and ": " separators, otherwise indented by that many spaces with "," and ": ".
// v is built from pyObject, []string, []any, string, int, bool and nil.
func pyDumps(v any, indent int) string {
	var b strings.Builder
	writePy(&b, v, indent, 0)
	return b.String()
}

func writePy(b *strings.Builder, v any, indent, depth int) {
	open := func(c byte, n int) bool {
		b.WriteByte(c)
		return n > 0
	}
	sep := func(i int) {
		if i > 0 {
			if indent == 0 {
				b.WriteString(", ")
			} else {
				b.WriteByte(',')
			}
		}
		if indent > 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent*(depth+1)))
		}
	}
	closeWith := func(c byte) {
		if indent > 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent*depth))
		}
		b.WriteByte(c)
	}
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case string:
		b.WriteString(pytext.QuoteJSON(v, false))
	case []string:
		if !open('[', len(v)) {
			b.WriteByte(']')
			return
		}
		for i, s := range v {
			sep(i)
			b.WriteString(pytext.QuoteJSON(s, false))
		}
		closeWith(']')
	case []any:
		if !open('[', len(v)) {
			b.WriteByte(']')
			return
		}
		for i, e := range v {
			sep(i)
			writePy(b, e, indent, depth+1)
		}
		closeWith(']')
	case pyObject:
		if !open('{', len(v)) {
			b.WriteByte('}')
			return
		}
		for i, kv := range v {
			sep(i)
			b.WriteString(pytext.QuoteJSON(kv.key, false))
			b.WriteString(": ")
			writePy(b, kv.value, indent, depth+1)
		}
		closeWith('}')
	default:
		panic(fmt.Sprintf("pyDumps: unsupported %T", v))
	}
}

// errPyJSON is a text Python's JSON decoder rejects (a JSONDecodeError, a ValueError).
var errPyJSON = errors.New("not JSON")

// pyRawDecode is Python's json.JSONDecoder().raw_decode(s): the JSON value at the start of s and
// the number of bytes it spans. Like Python's (C) scanner it accepts NaN, Infinity and -Infinity,
// rejects control characters in strings, and keeps the last value of a repeated key at the
// key's first position.
func pyRawDecode(s string) (any, int, error) {
	d := pyDecoder{s: s}
	v, err := d.value()
	if err != nil {
		return nil, 0, err
	}
	return v, d.i, nil
}

type pyDecoder struct {
	s string
	i int
}

func (d *pyDecoder) ws() {
	for d.i < len(d.s) && strings.IndexByte(" \t\n\r", d.s[d.i]) >= 0 {
		d.i++
	}
}

func (d *pyDecoder) lit(word string) bool {
	if strings.HasPrefix(d.s[d.i:], word) {
		d.i += len(word)
		return true
	}
	return false
}

func (d *pyDecoder) value() (any, error) {
	if d.i >= len(d.s) {
		return nil, errPyJSON
	}
	switch c := d.s[d.i]; {
	case c == '"':
		d.i++
		return d.str()
	case c == '{':
		d.i++
		return d.object()
	case c == '[':
		d.i++
		return d.array()
	case d.lit("null"):
		return nil, nil
	case d.lit("true"):
		return true, nil
	case d.lit("false"):
		return false, nil
	case d.lit("NaN"):
		return pyNumber{text: "NaN", isFloat: true}, nil
	case d.lit("Infinity"):
		return pyNumber{text: "Infinity", isFloat: true}, nil
	case d.lit("-Infinity"):
		return pyNumber{text: "-Infinity", isFloat: true}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, errPyJSON
}

func (d *pyDecoder) number() (any, error) {
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.s) && d.s[d.i] == '0':
		d.i++
	case digits() == 0:
		return nil, errPyJSON
	}
	isFloat := false
	if d.i+1 < len(d.s) && d.s[d.i] == '.' && d.s[d.i+1] >= '0' && d.s[d.i+1] <= '9' {
		d.i++
		digits()
		isFloat = true
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		save := d.i
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			d.i = save
		} else {
			isFloat = true
		}
	}
	return pyNumber{text: d.s[start:d.i], isFloat: isFloat}, nil
}

func (d *pyDecoder) str() (string, error) {
	var b strings.Builder
	for {
		if d.i >= len(d.s) {
			return "", errPyJSON
		}
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return b.String(), nil
		case c < 0x20:
			return "", errPyJSON
		case c != '\\':
			b.WriteByte(c)
			d.i++
			continue
		}
		d.i++
		if d.i >= len(d.s) {
			return "", errPyJSON
		}
		e := d.s[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", errPyJSON
			}
			if utf16.IsSurrogate(r) && r < 0xdc00 && strings.HasPrefix(d.s[d.i:], `\u`) {
				save := d.i
				d.i += 2
				if r2, ok := d.hex4(); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
					r = utf16.DecodeRune(r, r2)
				} else {
					d.i = save
				}
			}
			if utf16.IsSurrogate(r) { // a lone surrogate: Python keeps it; Go strings cannot
				r = utf8.RuneError
			}
			b.WriteRune(r)
		default:
			return "", errPyJSON
		}
	}
}

func (d *pyDecoder) hex4() (rune, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(d.s[d.i:d.i+4], 16, 32)
	if err != nil || strings.ContainsAny(d.s[d.i:d.i+4], "+-_") {
		return 0, false
	}
	d.i += 4
	return rune(n), true
}

func (d *pyDecoder) object() (any, error) {
	var o pyObject
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return o, nil
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, errPyJSON
		}
		d.i++
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.ws()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, errPyJSON
		}
		d.i++
		d.ws()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		replaced := false
		for j := range o {
			if o[j].key == k {
				o[j].value, replaced = v, true
				break
			}
		}
		if !replaced {
			o = append(o, pyKV{k, v})
		}
		d.ws()
		if d.i >= len(d.s) {
			return nil, errPyJSON
		}
		switch d.s[d.i] {
		case '}':
			d.i++
			return o, nil
		case ',':
			d.i++
			d.ws()
		default:
			return nil, errPyJSON
		}
	}
}

func (d *pyDecoder) array() (any, error) {
	a := []any{}
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.ws()
		if d.i >= len(d.s) {
			return nil, errPyJSON
		}
		switch d.s[d.i] {
		case ']':
			d.i++
			return a, nil
		case ',':
			d.i++
			d.ws()
		default:
			return nil, errPyJSON
		}
	}
}

// float is the number's value as a Python float.
func (n pyNumber) float() float64 {
	switch n.text {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, _ := strconv.ParseFloat(n.text, 64) // out of range: ±Inf, as Python's float()
	return f
}

// pyStr is Python's str() of a decoded JSON value.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyRepr is Python's repr() of a decoded JSON value.
func pyRepr(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	case string:
		return pytext.StrRepr(v)
	case pyNumber:
		if !v.isFloat {
			n, _ := new(big.Int).SetString(v.text, 10)
			return n.String()
		}
		return pyFloatRepr(v.float())
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case pyObject:
		parts := make([]string, len(v))
		for i, kv := range v {
			parts[i] = pytext.StrRepr(kv.key) + ": " + pyRepr(kv.value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// pyFloatRepr is Python's repr of a float: the shortest round-tripping digits, in positional
// notation for decimal exponents -4 to 15 and in scientific notation (two-digit exponent at least)
// otherwise.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}
