package agent

import (
	"strings"
	"unicode"
)

func stringReader(s string) *strings.Reader { return strings.NewReader(s) }

// isPySpace reports whether Python's str.isspace is true for r (what str.strip removes).
func isPySpace(r rune) bool {
	switch r {
	case 0x1c, 0x1d, 0x1e, 0x1f, 0x85:
		return true
	}
	return unicode.IsSpace(r)
}

// isPyLineBreak reports whether Python's str.splitlines breaks at r.
func isPyLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// splitFirstLine splits s after its first line break as Python's str.splitlines(keepends=True)
// finds it ("\r\n" is one break); first keeps its line break.
func splitFirstLine(s string) (first, rest string) {
	for i, r := range s {
		if !isPyLineBreak(r) {
			continue
		}
		end := i + len(string(r))
		if r == '\r' && end < len(s) && s[end] == '\n' {
			end++
		}
		return s[:end], s[end:]
	}
	return s, ""
}
