package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// reportPage is what an instance page of a report site holds, as far as the tests look at it.
type reportPage struct {
	Verdict string `json:"verdict"`
	Eval    struct {
		HasTests   bool `json:"has_tests"`
		Tests      map[string]struct{ Success, Failure []string }
		Output     string `json:"test_output"`
		OutputFile string `json:"test_output_file"`
	} `json:"eval"`
}

// readReportPage decodes the page of id in run k of the report site (data/i/<k>/<id>.js: a
// script carrying the gzipped JSON in base64).
func readReportPage(t *testing.T, site string, k int, id string) reportPage {
	t.Helper()
	raw := readFileT(t, filepath.Join(site, "data", "i", strconv.Itoa(k), id+".js"))
	m := regexp.MustCompile(`"([A-Za-z0-9+/=]+)"\);`).FindSubmatch(raw)
	if m == nil {
		t.Fatalf("instance page of %s: %.200s", id, raw)
	}
	z, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	var page reportPage
	if err := json.NewDecoder(zr).Decode(&page); err != nil {
		t.Fatal(err)
	}
	return page
}
