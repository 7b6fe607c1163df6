package corpus

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestDefaultManifest(t *testing.T) {
	m := Default()
	if len(m.Entries) == 0 {
		t.Fatal("the committed manifest lists no file")
	}
	for k, e := range m.Entries {
		if k > 0 && m.Entries[k-1].Path >= e.Path {
			t.Errorf("entries not sorted: %s before %s", m.Entries[k-1].Path, e.Path)
		}
		if in := e.Input(); in != "" {
			if _, ok := m.Lookup(in); !ok {
				t.Errorf("%s: input %s not listed", e.Path, in)
			}
		}
	}
	// The file on disk is what Format writes: `testdata add` keeps it byte for byte.
	var b bytes.Buffer
	if err := m.Format(&b); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), string(embedded); got != want {
		t.Errorf("Format of the committed manifest differs from manifest.txt; keep its lines sorted, one space between fields")
	}
}

const (
	someSHA = "0000000000000000000000000000000000000000000000000000000000000001"
	commit  = "0123456789abcdef0123456789abcdef01234567"
	origin  = "https://raw.githubusercontent.com/o/r/" + commit + "/a.json"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"fields", "a.json 3 " + someSHA, "want 4 fields"},
		{"size", "a.json x " + someSHA + " " + origin, `size "x"`},
		{"negative size", "a.json -1 " + someSHA + " " + origin, `size "-1"`},
		{"sha256", "a.json 3 ABC " + origin, "not 64 lowercase hex"},
		{"branch", "a.json 3 " + someSHA + " https://raw.githubusercontent.com/o/r/main/a.json", "not pinned"},
		{"http", "a.json 3 " + someSHA + " http://raw.githubusercontent.com/o/r/" + commit + "/a.json", "want an https URL"},
		{"dotdot", "../a.json 3 " + someSHA + " " + origin, "clean relative path"},
		{"absolute", "/a.json 3 " + someSHA + " " + origin, "clean relative path"},
		{"twice", "a.json 3 " + someSHA + " " + origin + "\na.json 3 " + someSHA + " " + origin, "m.txt:3: a.json is listed twice (first on line 2)"},
		{"no input", "b.jsonl 3 " + someSHA + " jsonl:a.parquet", "not in the manifest"},
		{"derived input", "a.jsonl 3 " + someSHA + " jsonl:b.jsonl\nb.jsonl 3 " + someSHA + " jsonl:c.parquet\nc.parquet 3 " + someSHA + " " + origin, "itself derived"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader("# header\n"+tt.text+"\n"), "m.txt")
			if err == nil {
				t.Fatalf("Parse accepted %q", tt.text)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "m.txt") {
				t.Errorf("error = %q, want it to start with the file name and contain %q", err, tt.want)
			}
		})
	}
}

func TestUnder(t *testing.T) {
	m, err := Parse(strings.NewReader(strings.Join([]string{
		"runs/x/a.json 1 " + someSHA + " " + origin,
		"runs/x/b/c.json 1 " + someSHA + " " + origin,
		"runs/xy.json 1 " + someSHA + " " + origin,
		"top.json 1 " + someSHA + " " + origin,
	}, "\n")), "m.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		p    string
		want []string
	}{
		{".", []string{"runs/x/a.json", "runs/x/b/c.json", "runs/xy.json", "top.json"}},
		{"runs/x", []string{"runs/x/a.json", "runs/x/b/c.json"}},
		{"runs/xy.json", []string{"runs/xy.json"}},
	}
	for _, tt := range tests {
		got, err := m.Under(tt.p)
		if err != nil {
			t.Fatalf("Under(%q): %v", tt.p, err)
		}
		var paths []string
		for _, e := range got {
			paths = append(paths, e.Path)
		}
		if strings.Join(paths, " ") != strings.Join(tt.want, " ") {
			t.Errorf("Under(%q) = %v, want %v", tt.p, paths, tt.want)
		}
	}
	if _, err := m.Under("run"); !errors.Is(err, ErrNotListed) {
		t.Errorf("Under(a prefix that is no directory) = %v, want ErrNotListed", err)
	}
}

func TestAddKeepsOrder(t *testing.T) {
	m, err := Parse(strings.NewReader("# h\n\nb.json 1 "+someSHA+" "+origin+"\n"), "m.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Entry{
		{Path: "c.json", Size: 2, SHA256: someSHA, Origin: origin},
		{Path: "a.json", Size: 3, SHA256: someSHA, Origin: origin},
		{Path: "a.json", Size: 3, SHA256: someSHA, Origin: origin}, // the same line again: no-op
	} {
		if err := m.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Add(Entry{Path: "a.json", Size: 4, SHA256: someSHA, Origin: origin}); err == nil || !strings.Contains(err.Error(), "already in the manifest") {
		t.Errorf("Add of a listed path with another size = %v, want an error", err)
	}
	if err := m.Add(Entry{Path: "d.json", Size: 4, SHA256: someSHA, Origin: "https://example.com/d.json"}); err == nil {
		t.Error("Add accepted an unpinned origin")
	}
	var b bytes.Buffer
	if err := m.Format(&b); err != nil {
		t.Fatal(err)
	}
	want := "# h\n\na.json 3 " + someSHA + " " + origin + "\nb.json 1 " + someSHA + " " + origin + "\nc.json 2 " + someSHA + " " + origin + "\n"
	if got := b.String(); got != want {
		t.Errorf("Format =\n%s\nwant\n%s", got, want)
	}
}
