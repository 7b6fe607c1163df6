package family

import "testing"

// The wants are what CPython 3.11's json.dumps printed for the same objects (indent=None and
// indent=2), run while writing this test.
func TestPythonJSON(t *testing.T) {
	cases := []struct {
		in     string
		indent int
		want   string
	}{
		{`{"b":[1,{"x":"é\u2028😀\u0001"}],"a":[],"c":{}}`, -1,
			`{"b": [1, {"x": "\u00e9\u2028\ud83d\ude00\u0001"}], "a": [], "c": {}}`},
		{`[{"instance_id":"a","patch":"p\n","prefix":"m"}]`, 2,
			"[\n  {\n    \"instance_id\": \"a\",\n    \"patch\": \"p\\n\",\n    \"prefix\": \"m\"\n  }\n]"},
		{`{"b":[1,{"x":"é"}],"a":[],"c":{}}`, 2,
			"{\n  \"b\": [\n    1,\n    {\n      \"x\": \"\\u00e9\"\n    }\n  ],\n  \"a\": [],\n  \"c\": {}\n}"},
		{`{"t": true, "f": false, "n": null, "s": "<&>"}`, -1, `{"t": true, "f": false, "n": null, "s": "<&>"}`},
	}
	for _, tc := range cases {
		got, err := PythonJSON([]byte(tc.in), tc.indent)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("PythonJSON(%s, %d):\n got %s\nwant %s", tc.in, tc.indent, got, tc.want)
		}
	}
	if _, err := PythonJSON([]byte(`{"a": 1} {}`), -1); err == nil {
		t.Error("trailing data accepted")
	}
	if _, err := PythonJSON([]byte(`{"a": `), -1); err == nil {
		t.Error("truncated JSON accepted")
	}
}
