package pyre

import (
	"regexp"
	"strings"
	"testing"
)

// BenchmarkBoundary searches 1 MB of log lines with a pattern holding \b (SWE-rebench-V2's
// failed_re), line by line as the parsers do: Go's regexp alone (ASCII \b), and Pattern on ASCII
// lines (which Go's regexp answers) and on lines with word characters outside ASCII (which the
// VM answers).
func BenchmarkBoundary(b *testing.B) {
	const expr = `(?i)\bFAILED\b|\bFAIL\b|\bFailure\b`
	ascii := strings.Repeat("[12/414] image_function::GetThreshold (form 1)... OK\n[13/414] x::y... FAILED\n", 1<<20/80)
	lines := map[string][]string{
		"ascii":   strings.Split(ascii, "\n"),
		"unicode": strings.Split(strings.ReplaceAll(ascii, "function", "größe"), "\n"),
	}
	std := regexp.MustCompile(Translate(expr))
	py := MustPattern(expr)
	for _, text := range []string{"ascii", "unicode"} {
		b.Run("go/"+text, func(b *testing.B) {
			b.SetBytes(int64(len(ascii)))
			for b.Loop() {
				for _, l := range lines[text] {
					std.MatchString(l)
				}
			}
		})
		b.Run("pyre/"+text, func(b *testing.B) {
			b.SetBytes(int64(len(ascii)))
			for b.Loop() {
				for _, l := range lines[text] {
					py.MatchString(l)
				}
			}
		})
	}
	b.Run("pyre/unicode/submatch", func(b *testing.B) {
		b.SetBytes(int64(len(ascii)))
		for b.Loop() {
			for _, l := range lines["unicode"] {
				py.FindStringSubmatchIndex(l)
			}
		}
	})
}

// BenchmarkBoundaryLongText finds every <testcase tag of 1 MB of JUnit XML by searching the rest
// of the text from after each match, as SWE-rebench-V2's parse_log_junit does: Go's regexp, and
// Pattern (which runs the VM on texts longer than scanLimit).
func BenchmarkBoundaryLongText(b *testing.B) {
	const expr = `(?s)<testcase\b([^>]*)>`
	doc := strings.Repeat(`<testcase classname="com.acme.CalcTest" name="adds" time="0.01"/>`+"\n", 1<<20/67)
	type finder interface{ FindStringSubmatchIndex(string) []int }
	run := func(b *testing.B, re finder) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			for pos := 0; ; {
				loc := re.FindStringSubmatchIndex(doc[pos:])
				if loc == nil {
					break
				}
				pos += loc[1]
			}
		}
	}
	b.Run("go", func(b *testing.B) { run(b, regexp.MustCompile(Translate(expr))) })
	b.Run("pyre", func(b *testing.B) { run(b, MustPattern(expr)) })
}
