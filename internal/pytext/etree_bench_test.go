package pytext

import (
	"strings"
	"testing"
)

// BenchmarkParseXML parses a 1 MB Surefire report.
func BenchmarkParseXML(b *testing.B) {
	var doc strings.Builder
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuite name="com.acme.CalcTest" tests="9999">` + "\n")
	for doc.Len() < 1<<20 {
		doc.WriteString(`  <testcase name="divides[3, &quot;x&quot;]" classname="com.acme.CalcTest" time="0.002">` + "\n")
		doc.WriteString(`    <failure message="expected: &lt;1&gt; but was: &lt;0&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <1> but was: <0>` + "\n\tat com.acme.CalcTest.divides(CalcTest.java:21)\n]]></failure>\n  </testcase>\n")
	}
	doc.WriteString("</testsuite>\n")
	s := doc.String()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := ParseXML(s); err != nil {
			b.Fatal(err)
		}
	}
}
