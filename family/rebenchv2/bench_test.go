package rebenchv2

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// boundaryParsers are the parsers whose patterns hold \b, with a log of their format.
var boundaryParsers = []struct{ parser, log string }{
	{"parse_log_cpp_v3", "cpp_v3"},
	{"parse_log_cpp_v4", "ctest"},
	{"parse_log_haskell", "tasty"},
	{"parse_log_haskell_v2", "hspec_tree"},
	{"parse_log_ruby_v1", "minitest_reporters"},
	{"parse_log_php_v1", "pest"},
	{"parse_log_junit", "junit_reports"},
	{"parse_java_mvn", "surefire"},
}

// unicodeNames puts back the JUnit element names that spelling "test" "testGröße" changed.
var unicodeNames = strings.NewReplacer("testGrößecase", "testcase", "testGrößesuite", "testsuite")

// BenchmarkBoundaryParsers runs the parsers whose patterns hold \b over about 2 MB of their
// logs: as written (ASCII test names) and with every "test" spelled "testGröße"
// (outside JUnit element names).
func BenchmarkBoundaryParsers(b *testing.B) {
	for _, bp := range boundaryParsers {
		data, err := os.ReadFile(filepath.Join("testdata", "logs", bp.log+".log"))
		if err != nil {
			b.Fatal(err)
		}
		p, err := Parser(bp.parser)
		if err != nil {
			b.Fatal(err)
		}
		big := strings.Repeat(string(data), 2<<20/len(data)+1)
		for _, v := range []struct{ name, log string }{
			{"ascii", big},
			{"unicode", unicodeNames.Replace(strings.ReplaceAll(big, "test", "testGröße"))},
		} {
			b.Run(bp.parser+"/"+v.name, func(b *testing.B) {
				b.SetBytes(int64(len(v.log)))
				for b.Loop() {
					if _, err := p(v.log, "acme__acme-1"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
