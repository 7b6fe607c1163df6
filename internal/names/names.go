// Package names holds the helpers for names that users type and the tool makes: Safe turns free
// text into a file or folder name, Distance measures how far a mistyped name (a flag, a key) is
// from a known one, for "did you mean" suggestions.
package names

import "strings"

// Safe makes a file or folder name of s: every character other than ASCII letters, digits, '-',
// '.' and '_' replaced by '_'. Dots stay: model names have them (gpt-4.1).
func Safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// Distance is the Levenshtein distance between a and b, ignoring case: the number of runes to
// insert, delete or replace to turn one into the other.
func Distance(a, b string) int {
	s, t := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(t)]
}

// dataExts are the extensions of dataset files, dropped by Stem.
var dataExts = []string{".parquet", ".jsonl", ".json"}

// Stem is the name of a dataset file without its extension (tasks.jsonl.gz → tasks); other
// names are returned as they are.
func Stem(s string) string {
	base := strings.TrimSuffix(s, ".gz")
	for _, ext := range dataExts {
		if strings.HasSuffix(base, ext) {
			return strings.TrimSuffix(base, ext)
		}
	}
	return s
}
