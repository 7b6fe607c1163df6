package pytext

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
)

var expatCases = flag.String("expat-cases", "testdata/etree.jsonl", "JSON lines of XML inputs and what ElementTree made of them (testdata/etree.py)")

// expatCase is a line of testdata/etree.jsonl: an input and what Python's
// xml.etree.ElementTree.fromstring (CPython 3.11, expat 2.5.0) returned for it, written by
// testdata/etree.py: the tree as [tag, attrib, text, tail, children…] (null text or tail:
// None), or the ParseError's message.
type expatCase struct {
	XML   string          `json:"xml"`
	Tree  json.RawMessage `json:"tree"`
	Error *string         `json:"error"`
}

// treeJSON is e in the generator's form, for comparison.
func treeJSON(e *Element) any {
	str := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	attrs := map[string]any{}
	for k, v := range e.Attrs {
		attrs[k] = v
	}
	out := []any{e.Tag, attrs, str(e.Text), str(e.Tail)}
	for _, c := range e.Children {
		out = append(out, treeJSON(c))
	}
	return out
}

// TestParseXMLAgainstExpat runs ParseXML on inputs whose fate under Python's ElementTree is known
// (hand-written ones and JUnit reports mangled as logs mangle them: testdata/etree.py) and wants
// the same: refused where ElementTree raises ParseError, else the same tags, attributes, text and
// tails. -expat-cases runs it on another file of the generator's.
func TestParseXMLAgainstExpat(t *testing.T) {
	f, err := os.Open(*expatCases)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	n, accepted, diffs, refused, sameWords := 0, 0, 0, 0, 0
	for sc.Scan() {
		var c expatCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s line %d: %v", *expatCases, n+1, err)
		}
		n++
		root, err := ParseXML(c.XML)
		if err != nil && !errors.Is(err, ErrXML) {
			t.Fatalf("ParseXML(%q): %v does not wrap ErrXML", c.XML, err)
		}
		diff := ""
		var xe *XMLError
		if c.Error != nil && errors.As(err, &xe) {
			refused++
			if words, _, _ := strings.Cut(*c.Error, ": line "); words == xe.Msg {
				sameWords++
			}
		}
		switch {
		case c.Error != nil && err == nil:
			diff = "accepted; ElementTree: " + *c.Error
		case c.Error == nil && err != nil:
			diff = "refused (" + err.Error() + "); ElementTree accepts it"
		case c.Error == nil:
			accepted++
			var want any
			if err := json.Unmarshal(c.Tree, &want); err != nil {
				t.Fatal(err)
			}
			got := roundTrip(t, treeJSON(root))
			if !reflect.DeepEqual(got, want) {
				diff = "tree " + string(mustJSON(t, got)) + "; ElementTree: " + string(c.Tree)
			}
		}
		if diff != "" {
			diffs++
			if diffs <= 40 {
				t.Errorf("ParseXML(%q): %s", c.XML, diff)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d inputs (%d accepted by ElementTree), %d differences; of the %d refused, %d in expat's words", n, accepted, diffs, refused, sameWords)
	if n < 1000 {
		t.Errorf("%d inputs in %s, want the generator's", n, *expatCases)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func roundTrip(t *testing.T, v any) any {
	var out any
	if err := json.Unmarshal(mustJSON(t, v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
