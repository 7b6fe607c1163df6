package logparse

import "strings"

// Python's string helpers are internal/pytext's; this one is logparse's own.

// pySplitN is Python's s.split(sep, n) for n >= 1 (at most n splits).
func pySplitN(s, sep string, n int) []string { return strings.SplitN(s, sep, n+1) }
