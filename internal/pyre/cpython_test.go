package pyre

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"unicode/utf8"
)

// cpythonCase is a case of testdata/cpython.json, written by testdata/cpython.py from what
// CPython 3.11's re returns (spans in code points).
type cpythonCase struct {
	Text     string   `json:"text"`
	Search   [][2]int `json:"search"`   // re.search: the span of each group, nil for no match
	FindIter [][2]int `json:"finditer"` // re.finditer's spans; nil where Go's empty-match rule differs
}

// codePoints turns byte offsets in s into code point offsets, as Python's spans count them.
func codePoints(s string, loc []int) [][2]int {
	if loc == nil {
		return nil
	}
	at := func(b int) int {
		if b < 0 {
			return -1
		}
		return utf8.RuneCountInString(s[:b])
	}
	out := make([][2]int, len(loc)/2)
	for i := range out {
		out[i] = [2]int{at(loc[2*i]), at(loc[2*i+1])}
	}
	return out
}

// TestAgainstCPython holds Pattern to what CPython 3.11's re finds (testdata/cpython.json, from
// testdata/cpython.py): patterns with \b and \B, among them every pattern of the ports that
// holds one, and \S and \W inside classes, on texts with word characters in and out of ASCII.
func TestAgainstCPython(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cpython.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Origin   string `json:"origin"`
		Patterns []struct {
			Pattern string        `json:"pattern"`
			Cases   []cpythonCase `json:"cases"`
		} `json:"patterns"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	n := 0
	goDiffers := 0 // cases where Go's own regexp gets Python's answer wrong: the cases that test us
	for _, p := range file.Patterns {
		re, err := Pattern(p.Pattern)
		if err != nil {
			t.Fatalf("%q: %v", p.Pattern, err)
		}
		std := regexp.MustCompile(Translate(p.Pattern))
		for _, c := range p.Cases {
			n++
			checkCPython(t, re, p.Pattern, c, file.Origin)
			if !reflect.DeepEqual(codePoints(c.Text, std.FindStringSubmatchIndex(c.Text)), c.Search) {
				goDiffers++
			}
		}
	}
	if n < 2000 {
		t.Fatalf("%d cases in testdata/cpython.json, want the generator's 2,000", n)
	}
	if goDiffers < 100 {
		t.Errorf("Go's regexp answers all but %d of the searches as Python does: the cases no longer exercise the boundaries", goDiffers)
	}
	t.Logf("%d cases, %d of whose searches Go's regexp answers otherwise", n, goDiffers)
}

func checkCPython(t *testing.T, re *Regexp, pattern string, c cpythonCase, origin string) {
	t.Helper()
	if got := codePoints(c.Text, re.FindStringSubmatchIndex(c.Text)); !reflect.DeepEqual(got, c.Search) {
		t.Errorf("search(%q, %q): got %v, want %v (%s)", pattern, c.Text, got, c.Search, origin)
	}
	if got := re.MatchString(c.Text); got != (c.Search != nil) {
		t.Errorf("MatchString(%q, %q) = %v, want %v", pattern, c.Text, got, c.Search != nil)
	}
	if c.FindIter != nil {
		all := [][2]int{}
		for _, loc := range re.FindAllStringIndex(c.Text, -1) {
			all = append(all, codePoints(c.Text, loc)[0])
		}
		if !reflect.DeepEqual(all, c.FindIter) {
			t.Errorf("finditer(%q, %q): got %v, want %v (%s)", pattern, c.Text, all, c.FindIter, origin)
		}
	}
}
