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
