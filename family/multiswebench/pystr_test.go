package multiswebench

import (
	"reflect"
	"testing"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Expected values are what CPython 3.11 returns for the same calls.

func TestPySplitLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"a\nb\r\nc\rd\x0be\x0cf\x1cg\u2028h\n", []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{"", nil},
		{"\n\nx", []string{"", "", "x"}},
		{"no break", []string{"no break"}},
	} {
		if got := pytext.SplitLines(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("pytext.SplitLines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPyStripAndLower(t *testing.T) {
	if got := pytext.Strip("\x1c\u00a0 x \t\x1f"); got != "x" {
		t.Errorf("pyStrip = %q", got)
	}
	if got := pyLower("İSTANBUL ΟΔΟΣ"); got != "i̇stanbul οδος" {
		t.Errorf("pyLower = %q", got)
	}
}

func TestPyInt(t *testing.T) {
	if got := pyInt("٤٢").String(); got != "42" {
		t.Errorf("Arabic-Indic digits: %s", got)
	}
	if got := pyInt("𝟗𝟘").String(); got != "90" { // mathematical digits, runs of decades side by side
		t.Errorf("mathematical digits: %s", got)
	}
	for s, ok := range map[string]bool{" 12 ": true, "-1_000": true, "1__0": false, "_1": false, "1.5": false, "": false, "+٣": true} {
		if _, got := pyIntString(s); got != ok {
			t.Errorf("int(%q) ok = %v, want %v", s, got, ok)
		}
	}
}

func TestPyRawDecode(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		repr string
	}{
		{`{"a": [1, 2.0, -0, 1e2, true, null], "a": "x"} tail`, 46, `{'a': 'x'}`},
		{`{"n": NaN, "i": -Infinity}`, 26, `{'n': nan, 'i': -inf}`},
		{`{"s": "\ud83d\ude00 \u00e9 \/"}`, 31, `{'s': '😀 é /'}`},
		{`{"k":{"x":[]}}`, 14, `{'k': {'x': []}}`},
		{`{"f": 1E400}`, 12, `{'f': inf}`},
	} {
		v, n, err := pyRawDecode(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if n != c.n || pyRepr(v) != c.repr {
			t.Errorf("%s: got %d %s, want %d %s", c.in, n, pyRepr(v), c.n, c.repr)
		}
	}
	for _, bad := range []string{`{a: 1}`, `{"a": 1,}`, "{\"a\": \"\x01\"}", `{"a": 01}`, `{"a": -}`, `{"a": "\x"}`, `{"a"`} {
		if _, _, err := pyRawDecode(bad); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

func TestPyRepr(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{pyNumber{text: "1e16", isFloat: true}, "1e+16"},
		{pyNumber{text: "1e15", isFloat: true}, "1000000000000000.0"},
		{pyNumber{text: "1.5e-7", isFloat: true}, "1.5e-07"},
		{pyNumber{text: "0.0001", isFloat: true}, "0.0001"},
		{pyNumber{text: "-0.0", isFloat: true}, "-0.0"},
		{pyNumber{text: "-0"}, "0"},
		{pyNumber{text: "123456789012345678901234567890"}, "123456789012345678901234567890"},
		{"it's", `"it's"`},
		{`a"b'c`, `'a"b\'c'`},
		{"\x1b\u2028\t", `'\x1b\u2028\t'`},
		{"😀\x7f", `'😀\x7f'`},
		{[]any{true, nil, "x"}, "[True, None, 'x']"},
	} {
		if got := pyRepr(c.v); got != c.want {
			t.Errorf("repr(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}
