package rebench

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file reads a test_patch the way the Python library unidiff (0.7) does, which SWE-rebench's
// harness fork uses to choose the files to reset and the test files to run. Only what those
// choices need is kept: each file's source and target names and its hunk ranges.

const devNull = "/dev/null"

var (
	udGitHeader         = regexp.MustCompile(`^diff --git (a/[^\t\n]+) (b/[^\t\n]+)`)
	udGitHeaderURI      = regexp.MustCompile(`^diff --git (.*://[^\t\n]+) (.*://[^\t\n]+)`)
	udGitHeaderNoPrefix = regexp.MustCompile(`^diff --git ([^\t\n]+) ([^\t\n]+)`)
	udNewFile           = regexp.MustCompile(`^new file mode \d+$`)
	udDeletedFile       = regexp.MustCompile(`^deleted file mode \d+$`)
	udSource            = regexp.MustCompile(`^--- ([^\t\n]+)`)
	udTarget            = regexp.MustCompile(`^\+\+\+ ([^\t\n]+)`)
	udHunk              = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)
	udNoNewline         = regexp.MustCompile(`^\\ No newline at end of file`)
	udBinary            = regexp.MustCompile(`^Binary files? ([^\t]+?)(?:\t[\s0-9:+-]+)?(?: and ([^\t]+?)(?:\t[\s0-9:+-]+)?)? (?:differ|has changed)`)
)

type udHunkRange struct{ srcStart, srcLen, tgtStart, tgtLen int }

// udFile is one file of a patch, as unidiff's PatchedFile.
type udFile struct {
	source, target string
	hunks          []udHunkRange
}

func (f *udFile) isRename() bool {
	return f.source != devNull && f.target != devNull && len(f.source) >= 2 && len(f.target) >= 2 && f.source[2:] != f.target[2:]
}

// isRemoved is unidiff's is_removed_file.
func (f *udFile) isRemoved() bool {
	if f.target == devNull {
		return true
	}
	return len(f.hunks) == 1 && f.hunks[0].tgtStart == 0 && f.hunks[0].tgtLen == 0
}

// path is unidiff's path: the source name without its a/ or b/ prefix, or the target's for new
// and renamed files.
func (f *udFile) path() string {
	p := f.source
	if p == "" || p == devNull || (f.isRename() && f.target != "" && f.target != devNull) {
		p = f.target
	}
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		p = p[2:]
	}
	return p
}

// parseUnidiff reads patch into its files, failing where unidiff raises UnidiffParseError.
func parseUnidiff(patch string) ([]*udFile, error) {
	lines := strings.SplitAfter(patch, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	var files []*udFile
	var cur *udFile
	patchInfo := false // unidiff's patch_info is not None
	var sourceName string
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		line := strings.TrimSuffix(raw, "\n")
		if m := firstMatch(line, udGitHeader, udGitHeaderURI, udGitHeaderNoPrefix); m != nil {
			cur = &udFile{source: m[1], target: m[2]}
			files = append(files, cur)
			patchInfo = true
			continue
		}
		if udNewFile.MatchString(line) {
			if cur == nil || !patchInfo {
				return nil, fmt.Errorf("line %d: unexpected new file: %q", i+1, line)
			}
			cur.source = devNull
			continue
		}
		if udDeletedFile.MatchString(line) {
			if cur == nil || !patchInfo {
				return nil, fmt.Errorf("line %d: unexpected deleted file: %q", i+1, line)
			}
			cur.target = devNull
			continue
		}
		if m := udSource.FindStringSubmatch(line); m != nil {
			sourceName = m[1]
			if cur != nil && cur.source != sourceName {
				cur = nil
			}
			continue
		}
		if m := udTarget.FindStringSubmatch(line); m != nil {
			if cur != nil && cur.target != m[1] {
				return nil, fmt.Errorf("line %d: target without source: %q", i+1, line)
			}
			if cur == nil {
				cur = &udFile{source: sourceName, target: m[1]}
				files = append(files, cur)
				patchInfo = false
			}
			continue
		}
		if m := udHunk.FindStringSubmatch(line); m != nil {
			patchInfo = false
			if cur == nil {
				return nil, fmt.Errorf("line %d: unexpected hunk: %q", i+1, line)
			}
			h := udHunkRange{srcStart: atoi(m[1]), srcLen: atoiOr(m[2], 1), tgtStart: atoi(m[3]), tgtLen: atoiOr(m[4], 1)}
			next, err := skipHunk(lines, i+1, h)
			if err != nil {
				return nil, err
			}
			cur.hunks = append(cur.hunks, h)
			i = next - 1
			continue
		}
		if udNoNewline.MatchString(line) {
			if cur == nil {
				return nil, fmt.Errorf("line %d: unexpected marker: %q", i+1, line)
			}
			continue
		}
		if raw == "\n" && cur != nil {
			continue
		}
		if !patchInfo {
			cur = nil
			patchInfo = true
		}
		if m := udBinary.FindStringSubmatch(line); m != nil {
			if cur == nil {
				files = append(files, &udFile{source: m[1], target: m[2]})
			}
			patchInfo, cur = false, nil
			continue
		}
		if raw == "GIT binary patch\n" {
			if cur == nil {
				return nil, fmt.Errorf("line %d: binary patch outside a file", i+1)
			}
			patchInfo, cur = false, nil
		}
	}
	return files, nil
}

// skipHunk consumes the body of a hunk that starts at lines[i], and returns the index after it.
func skipHunk(lines []string, i int, h udHunkRange) (int, error) {
	src, tgt := h.srcStart, h.tgtStart
	srcEnd, tgtEnd := src+h.srcLen, tgt+h.tgtLen
	for ; i < len(lines); i++ {
		raw := lines[i]
		switch {
		case raw[0] == ' ' || raw[0] == '\n' || raw[0] == '\r': // context, or an empty line taken as one
			src++
			tgt++
		case raw[0] == '+':
			tgt++
		case raw[0] == '-':
			src++
		case raw[0] == '\\':
		default:
			return 0, fmt.Errorf("line %d: hunk diff line expected: %q", i+1, strings.TrimSuffix(raw, "\n"))
		}
		if src > srcEnd || tgt > tgtEnd {
			return 0, fmt.Errorf("line %d: hunk is longer than its header says", i+1)
		}
		if src == srcEnd && tgt == tgtEnd {
			return i + 1, nil
		}
	}
	return 0, fmt.Errorf("hunk at line %d is shorter than its header says", i)
}

func firstMatch(line string, res ...*regexp.Regexp) []string {
	for _, re := range res {
		if m := re.FindStringSubmatch(line); m != nil {
			return m
		}
	}
	return nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func atoiOr(s string, def int) int {
	if s == "" {
		return def
	}
	return atoi(s)
}

// modifiedFiles is the harness's get_modified_files: the files the patch changes or deletes
// (not the ones it creates), without their a/ prefix — the test files the eval script resets.
func modifiedFiles(files []*udFile) []string {
	var out []string
	for _, f := range files {
		if f.source != devNull && strings.HasPrefix(f.source, "a/") {
			out = append(out, f.source[2:])
		}
	}
	return out
}

// changedFiles is the fork's get_changed_files: the paths of the files the patch does not delete.
func changedFiles(files []*udFile) []string {
	var out []string
	for _, f := range files {
		if !f.isRemoved() {
			out = append(out, f.path())
		}
	}
	return out
}
