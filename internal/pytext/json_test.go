package pytext

import "testing"

// QuoteJSON writes strings as Python's json.dumps does, with and without ensure_ascii.
func TestQuoteJSON(t *testing.T) {
	for _, tc := range []struct {
		in          string
		ascii, utf8 string
	}{
		{"a\"b\\c", `"a\"b\\c"`, `"a\"b\\c"`},
		{"\n\r\t\b\f\x01", `"\n\r\t\b\f\u0001"`, `"\n\r\t\b\f\u0001"`},
		{"é😀<>&", `"\u00e9\ud83d\ude00<>&"`, `"é😀<>&"`},
	} {
		if got := QuoteJSON(tc.in, true); got != tc.ascii {
			t.Errorf("QuoteJSON(%q, true) = %s, want %s", tc.in, got, tc.ascii)
		}
		if got := QuoteJSON(tc.in, false); got != tc.utf8 {
			t.Errorf("QuoteJSON(%q, false) = %s, want %s", tc.in, got, tc.utf8)
		}
	}
}
