package pytext

import (
	"reflect"
	"testing"
)

func TestLiteralStrings(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"[]", []string{}},
		{"['a']", []string{"a"}},
		// What Python's repr() writes for these strings.
		{`["it's", 'say "hi"', 'both \' and "', 'nl\nx', 'tab\t', 'uni é ✓ 𝟐', '\x01\x7f', 'back\\slash', 'tests/a.py::test_x[1-2]']`,
			[]string{"it's", `say "hi"`, `both ' and "`, "nl\nx", "tab\t", "uni é ✓ 𝟐", "\x01\x7f", `back\slash`, "tests/a.py::test_x[1-2]"}},
		{"('t1', 't2')", []string{"t1", "t2"}},
		{`['a' 'b', "c"]`, []string{"ab", "c"}},
		{"['a',]", []string{"a"}},
		{`['\u00e9\101']`, []string{"éA"}},
	}
	for _, tt := range tests {
		got, err := LiteralStrings(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("LiteralStrings(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "'a'", "[1]", "['a' 'b'", "['a'] x", "[[]]", "['a\nb']", "[,]"} {
		if got, err := LiteralStrings(bad); err == nil {
			t.Errorf("LiteralStrings(%q) = %q, want an error", bad, got)
		}
	}
}

func TestJSONDumps(t *testing.T) {
	v := struct {
		A string   `json:"a"`
		B []string `json:"b"`
	}{"é<\"x\"> 𝟐", []string{}}
	for _, tt := range []struct {
		indent int
		ascii  bool
		want   string
	}{
		{4, true, "{\n    \"a\": \"\\u00e9<\\\"x\\\"> \\ud835\\udfd0\",\n    \"b\": []\n}"},
		{2, false, "{\n  \"a\": \"é<\\\"x\\\"> 𝟐\",\n  \"b\": []\n}"},
	} {
		got, err := JSONDumps(v, tt.indent, tt.ascii)
		if err != nil || string(got) != tt.want {
			t.Errorf("JSONDumps(indent %d, ascii %v) = %s, %v; want %s", tt.indent, tt.ascii, got, err, tt.want)
		}
	}
}
