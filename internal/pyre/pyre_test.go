package pyre

import (
	"strings"
	"testing"
)

func TestCompile(t *testing.T) {
	tests := []struct {
		expr, text string
		want       []string // group 1 of each match
	}{
		{"```bash\\s*\\n(.*?)\\n```", "a\n```bash\nls\n```\nb", []string{"ls"}},
		{"```bash\\s*\\n(.*?)\\n```", "```bash \u00a0\nls\n```", []string{"ls"}}, // Python's \s is Unicode
		{"```bash\\s*\\n(.*?)\\n```", "```bash\nline1\nline2\n```", []string{"line1\nline2"}},
		{"```bash\\n(.*?)\\n```", "```bash \nls\n```", nil},
		{"x(\\d+)", "x١٢", []string{"١٢"}},
		{"[\\s]+(\\w+)\\Z", "a \u2003héllo", []string{"héllo"}},
		{"[]a]+(b)", "]]ab", []string{"b"}},
		{"(\\S+)\\Z", "a\u00a0bc", []string{"bc"}},
	}
	for _, tt := range tests {
		re, err := Compile(tt.expr)
		if err != nil {
			t.Fatalf("%q: %v", tt.expr, err)
		}
		got := FindAll(re, tt.text)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("%q on %q = %q, want %q", tt.expr, tt.text, got, tt.want)
		}
	}
	if _, err := Compile("```bash(?=\\n)"); err == nil || !strings.Contains(err.Error(), "action_regex") {
		t.Errorf("a lookahead compiled: err = %v", err)
	}
}
