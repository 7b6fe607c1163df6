package pytext

import (
	"errors"
	"testing"
)

func TestParseXML(t *testing.T) {
	bad := []string{
		"",
		"  <?xml version=\"1.0\"?><a/>",
		"<a/><b/>",
		"<a/>junk",
		"junk<a/>",
		"<a><b></a>",
		"<a>&nbsp;</a>",
		"<a>",
		"<?xml version=\"1.0\"?><a/><?xml version=\"1.0\"?>",
	}
	for _, s := range bad {
		if _, err := ParseXML(s); !errors.Is(err, ErrXML) {
			t.Errorf("ParseXML(%q) = %v, want an ErrXML", s, err)
		}
	}
	root, err := ParseXML("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<!-- c --><s><tc name=\"x\"><failure/></tc><g><tc name=\"y\" classname=\"C\"/></g></s>\n")
	if err != nil {
		t.Fatal(err)
	}
	tcs := root.Iter("tc")
	if len(tcs) != 2 || !tcs[0].Has("failure") || tcs[1].Has("failure") || tcs[1].GetStr("classname") != "C" || tcs[0].GetStr("classname") != "None" {
		t.Errorf("got %+v", tcs)
	}
	if n := len(root.FindAll("tc")); n != 1 {
		t.Errorf("FindAll found %d, want 1 (children only)", n)
	}
}

// TestParseXMLAsExpat: the cases where ParseXML once answered otherwise than ElementTree; each
// want is what xml.etree.ElementTree.fromstring of CPython 3.11 (expat 2.5.0) returns.
func TestParseXMLAsExpat(t *testing.T) {
	tests := []struct {
		in         string
		wantErr    string // the ParseError's words; "" when ElementTree accepts the input
		attr, text string // then root.get("x") and root.text
	}{
		{`<a x="1" x="2"/>`, "duplicate attribute", "", ""},
		{`<a x="1"y="2"/>`, "not well-formed (invalid token)", "", ""},
		{`<?xml version="1.0" encodin="x"?><a/>`, "XML declaration not well-formed", "", ""},
		{`<?xml version=1.0?><a/>`, "XML declaration not well-formed", "", ""},
		{`<?xml?><a/>`, "XML declaration not well-formed", "", ""},
		{"<a x=\"a\tb\nc\r\nd\re\"/>", "", "a b c d e", ""},
		{`<a x="a&#9;b&#10;c&#13;d"/>`, "", "a\tb\nc\rd", ""},
		{`<!DOCTYPE a [<!ENTITY e "v">]><a x="&e;">&e;</a>`, "", "v", "v"},
		{`<!DOCTYPE a [<!ATTLIST a x CDATA "1">]><a/>`, "", "1", ""},
		{"\ufeff<a x=\"1\"/>", "", "1", ""},
		{"<a>a\r\nb\rc</a>", "", "", "a\nb\nc"},
		{`<a>&nbsp;</a>`, "undefined entity", "", ""},
		{`<a:b/>`, "unbound prefix", "", ""},
		{`<a>x</a><b/>`, "junk after document element", "", ""},
	}
	for _, tt := range tests {
		root, err := ParseXML(tt.in)
		var xe *XMLError
		switch {
		case tt.wantErr != "":
			if !errors.As(err, &xe) || xe.Msg != tt.wantErr || !errors.Is(err, ErrXML) {
				t.Errorf("ParseXML(%q) = %v, want the error %q", tt.in, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("ParseXML(%q): %v, want it accepted", tt.in, err)
		case root.GetOr("x", "") != tt.attr || root.Text != tt.text:
			t.Errorf("ParseXML(%q): x=%q text=%q, want %q %q", tt.in, root.GetOr("x", ""), root.Text, tt.attr, tt.text)
		}
	}
}

// TestParseXMLErrorsPlaceTheFault: a refusal says where and, for the faults a truncated or mixed
// up report has, what.
func TestParseXMLErrorsPlaceTheFault(t *testing.T) {
	_, err := ParseXML("<testsuite>\n  <testcase name=\"a\">\n</testsuite>")
	var xe *XMLError
	if !errors.As(err, &xe) || xe.Line != 3 || xe.Column != 2 || xe.Detail != "</testsuite> closes <testcase> of line 2" {
		t.Errorf("got %#v", err)
	}
	_, err = ParseXML("<testsuite>\n  <testcase name=\"a\" message=\"boo")
	if !errors.As(err, &xe) || xe.Msg != "unclosed token" || xe.Line != 2 || xe.Column != 2 {
		t.Errorf("got %#v", err)
	}
}

func TestInt(t *testing.T) {
	for s, want := range map[string]int{"0": 0, "42": 42, "١٢": 12, "𝟐𝟑": 23, "": 0} {
		if got := Int(s); got != want {
			t.Errorf("Int(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestSplitLines(t *testing.T) {
	got := SplitLines("a\r\nb\rc\n\nd\x0be\u2028f\n")
	want := []string{"a", "b", "c", "", "d", "e", "f"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}
