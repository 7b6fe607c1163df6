package smith

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$`)

// ReverseDiff returns the unified diff that undoes patch (what `git apply --reverse` applies):
// SWE-smith rows carry the diff that introduces the bug, and its reverse is the fix, the gold
// patch an evaluation of gold predictions applies. Binary diffs cannot be reversed.
func ReverseDiff(patch string) (string, error) {
	lines := strings.SplitAfter(patch, "\n")
	var b strings.Builder
	oldLeft, newLeft := 0, 0
	swap := func(a, b2, line string) (string, bool) {
		if strings.HasPrefix(line, a) {
			return b2 + strings.TrimPrefix(line, a), true
		}
		return line, false
	}
	// A run of changed lines is written removed lines first, as diffs are: minus and plus hold
	// the reversed run (a "\ No newline" marker stays with its line).
	var minus, plus []string
	last := &minus
	flush := func() {
		for _, l := range append(minus, plus...) {
			b.WriteString(l)
		}
		minus, plus = nil, nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, `\`) { // "\ No newline at end of file", after the line it is about
			if len(minus)+len(plus) > 0 {
				*last = append(*last, line)
			} else {
				b.WriteString(line)
			}
			continue
		}
		if oldLeft > 0 || newLeft > 0 {
			switch line[0] {
			case ' ':
				flush()
				oldLeft--
				newLeft--
				b.WriteString(line)
			case '-':
				oldLeft--
				plus = append(plus, "+"+line[1:])
				last = &plus
			case '+':
				newLeft--
				minus = append(minus, "-"+line[1:])
				last = &minus
			default:
				return "", fmt.Errorf("patch line %d: %q inside a hunk", i+1, strings.TrimRight(line, "\n"))
			}
			continue
		}
		flush()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			f := strings.Fields(strings.TrimSuffix(line, "\n"))
			if len(f) == 4 && strings.HasPrefix(f[2], "a/") && strings.HasPrefix(f[3], "b/") {
				line = "diff --git a/" + f[3][2:] + " b/" + f[2][2:] + "\n"
			}
		case strings.HasPrefix(line, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			src := strings.TrimPrefix(strings.TrimSuffix(line, "\n"), "--- ")
			dst := strings.TrimPrefix(strings.TrimSuffix(lines[i+1], "\n"), "+++ ")
			rename := func(p, from, to string) string {
				if strings.HasPrefix(p, from) {
					return to + p[len(from):]
				}
				return p
			}
			b.WriteString("--- " + rename(dst, "b/", "a/") + "\n")
			b.WriteString("+++ " + rename(src, "a/", "b/") + "\n")
			i++
			continue
		case strings.HasPrefix(line, "index "):
			f := strings.Fields(strings.TrimSuffix(line, "\n"))
			if ids := strings.SplitN(f[1], "..", 2); len(ids) == 2 {
				f[1] = ids[1] + ".." + ids[0]
				line = strings.Join(f, " ") + "\n"
			}
		case strings.HasPrefix(line, "Binary files ") || strings.HasPrefix(line, "GIT binary patch"):
			return "", fmt.Errorf("patch line %d: a binary diff cannot be reversed", i+1)
		case strings.HasPrefix(line, "@@ "):
			g := hunkHeader.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
			if g == nil {
				return "", fmt.Errorf("patch line %d: malformed hunk header %q", i+1, strings.TrimSpace(line))
			}
			count := func(s string) int {
				if s == "" {
					return 1
				}
				n, _ := strconv.Atoi(s)
				return n
			}
			oldLeft, newLeft = count(g[2]), count(g[4])
			rng := func(start, n string) string {
				if n == "" {
					return start
				}
				return start + "," + n
			}
			line = "@@ -" + rng(g[3], g[4]) + " +" + rng(g[1], g[2]) + " @@" + g[5] + "\n"
		default:
			for _, pair := range [][2]string{
				{"new file mode ", "deleted file mode "}, {"deleted file mode ", "new file mode "},
				{"old mode ", "new mode "}, {"new mode ", "old mode "},
				{"rename from ", "rename to "}, {"rename to ", "rename from "},
				{"copy from ", "copy to "}, {"copy to ", "copy from "},
			} {
				if l, ok := swap(pair[0], pair[1], line); ok {
					line = l
					break
				}
			}
		}
		b.WriteString(line)
	}
	if oldLeft > 0 || newLeft > 0 {
		return "", fmt.Errorf("patch ends inside a hunk")
	}
	flush()
	return b.String(), nil
}
