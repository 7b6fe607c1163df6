package model

import (
	"reflect"
	"strings"
	"testing"
)

// TestRegexActionsArePython: a text-mode action regex is read as mini-swe-agent's
// parse_regex_actions reads it, re.findall(action_regex, content, re.DOTALL) in Python; the
// wants are what CPython 3.11 returns for these contents.
func TestRegexActionsArePython(t *testing.T) {
	tests := []struct {
		expr, content string
		want          []string
	}{
		{"", "```mswea_bash_command\u00a0\nls\n```", []string{"ls"}}, // \s is Unicode: U+00A0
		{`\bCMD<(.*?)>`, "éCMD<a> CMD<b>", []string{"b"}},            // é is a word character
		{`<c>(.*?)</c>`, "<c>a\nb</c>", []string{"a\nb"}},            // re.DOTALL
	}
	for _, tt := range tests {
		re, err := compileActionRegex(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		actions, ferr := parseRegexActions(re, tt.content, "stop")
		got := []string{}
		if ferr != nil {
			got, _ = ferr.Vars["actions"].([]string)
		} else {
			for _, a := range actions {
				got = append(got, a.Command)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q on %q: got %q, want %q (Python's re.findall)", tt.expr, tt.content, got, tt.want)
		}
	}
	if _, err := compileActionRegex("(?<=x)y"); err == nil || !strings.HasPrefix(err.Error(), "model.action_regex ") {
		t.Errorf("a lookbehind: err = %v, want one naming model.action_regex", err)
	}
}
