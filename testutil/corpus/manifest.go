// Package corpus is the test corpus: the real SWE-bench files (datasets, trajectories, harness
// logs, reports, predictions) that tests read. None of it is committed: manifest.txt lists every
// file with its size, sha256 and public origin pinned to an immutable revision, and Fill copies
// the files into a cache from a local mirror or downloads them from their origins, verifying
// each one.
package corpus

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ManifestFile is the manifest's path in the repository.
const ManifestFile = "testutil/corpus/manifest.txt"

//go:embed manifest.txt
var embedded []byte

// DerivedPrefix starts the origin of a file that is made from another corpus file:
// "jsonl:INPUT" is INPUT (a parquet file of flat columns) as JSON lines, keys sorted.
const DerivedPrefix = "jsonl:"

// Entry is one file of the corpus.
type Entry struct {
	Path   string // slash-separated, relative to the corpus root
	Size   int64
	SHA256 string // lowercase hex
	Origin string // a URL pinned to a revision, or DerivedPrefix + an input path
}

// Input returns the corpus path a derived entry is made from ("" for a downloaded one).
func (e Entry) Input() string {
	in, ok := strings.CutPrefix(e.Origin, DerivedPrefix)
	if !ok {
		return ""
	}
	return in
}

func (e Entry) String() string {
	return fmt.Sprintf("%s %d %s %s", e.Path, e.Size, e.SHA256, e.Origin)
}

// Manifest is the list of corpus files, sorted by path, with the comment lines that head it.
type Manifest struct {
	Header  []string // the leading comment lines, verbatim
	Entries []Entry
}

var (
	hexSHA256 = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// pinned matches a URL path segment that names an immutable revision: a full git commit id
	// (raw.githubusercontent.com/OWNER/REPO/COMMIT/…, huggingface.co/…/resolve/COMMIT/…).
	pinned = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// Default returns the manifest committed with the program (manifest.txt, embedded).
func Default() *Manifest {
	m, err := Parse(bytes.NewReader(embedded), ManifestFile)
	if err != nil {
		panic(err) // a broken committed manifest fails every test of this package
	}
	return m
}

// Parse reads a manifest: comment lines (#) and blank lines, then one line per file,
// "PATH SIZE SHA256 ORIGIN". Errors name the file and line.
func Parse(r io.Reader, name string) (*Manifest, error) {
	m := &Manifest{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			if len(m.Entries) == 0 {
				m.Header = append(m.Header, sc.Text())
			}
			continue
		}
		e, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if prev, ok := seen[e.Path]; ok {
			return nil, fmt.Errorf("%s:%d: %s is listed twice (first on line %d); keep one line per file", name, line, e.Path, prev)
		}
		seen[e.Path] = line
		m.Entries = append(m.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	for len(m.Header) > 0 && strings.TrimSpace(m.Header[len(m.Header)-1]) == "" {
		m.Header = m.Header[:len(m.Header)-1]
	}
	slices.SortFunc(m.Entries, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	for _, e := range m.Entries {
		in := e.Input()
		if in == "" {
			continue
		}
		k := m.index(in)
		if k < 0 {
			return nil, fmt.Errorf("%s: %s is made from %s, which is not in the manifest", name, e.Path, in)
		}
		if m.Entries[k].Input() != "" {
			return nil, fmt.Errorf("%s: %s is made from %s, which is itself derived; derive from a downloaded file", name, e.Path, in)
		}
	}
	return m, nil
}

func parseLine(text string) (Entry, error) {
	f := strings.Fields(text)
	if len(f) != 4 {
		return Entry{}, fmt.Errorf("want 4 fields (PATH SIZE SHA256 ORIGIN), got %d in %q", len(f), text)
	}
	e := Entry{Path: f[0], SHA256: f[2], Origin: f[3]}
	if err := CheckPath(e.Path); err != nil {
		return Entry{}, err
	}
	size, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || size < 0 {
		return Entry{}, fmt.Errorf("%s: size %q is not a byte count", e.Path, f[1])
	}
	e.Size = size
	if !hexSHA256.MatchString(e.SHA256) {
		return Entry{}, fmt.Errorf("%s: sha256 %q is not 64 lowercase hex digits", e.Path, e.SHA256)
	}
	if err := CheckOrigin(e.Origin); err != nil {
		return Entry{}, fmt.Errorf("%s: %w", e.Path, err)
	}
	return e, nil
}

// CheckPath reports whether p is a clean, relative, slash-separated corpus path.
func CheckPath(p string) error {
	if p == "" || p != path.Clean(p) || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, `\`) {
		return fmt.Errorf("path %q: want a clean relative path with forward slashes", p)
	}
	return nil
}

// CheckOrigin reports whether origin is an https URL pinned to an immutable revision (one path
// segment of 40 hex digits: a git commit or a HuggingFace revision), or a derivation.
func CheckOrigin(origin string) error {
	if in, ok := strings.CutPrefix(origin, DerivedPrefix); ok {
		return CheckPath(in)
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("origin %q: want an https URL or %sINPUT", origin, DerivedPrefix)
	}
	if !slices.ContainsFunc(strings.Split(u.Path, "/"), pinned.MatchString) {
		return fmt.Errorf("origin %q is not pinned: its path needs a full 40-hex commit or revision id (not a branch or tag)", origin)
	}
	return nil
}

func (m *Manifest) index(p string) int {
	k, ok := slices.BinarySearchFunc(m.Entries, p, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
	if !ok {
		return -1
	}
	return k
}

// Lookup returns the entry of a corpus path.
func (m *Manifest) Lookup(p string) (Entry, bool) {
	if k := m.index(p); k >= 0 {
		return m.Entries[k], true
	}
	return Entry{}, false
}

// ErrNotListed is returned by Under for a path that names no file or directory of the corpus.
var ErrNotListed = errors.New("not in the test corpus manifest")

// Under returns the entries at p: the file p, or every file under the directory p ("" or "."
// for the whole corpus).
func (m *Manifest) Under(p string) ([]Entry, error) {
	if p == "" || p == "." {
		return slices.Clone(m.Entries), nil
	}
	if err := CheckPath(p); err != nil {
		return nil, err
	}
	if e, ok := m.Lookup(p); ok {
		return []Entry{e}, nil
	}
	var out []Entry
	for _, e := range m.Entries {
		if strings.HasPrefix(e.Path, p+"/") {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w (%s)", p, ErrNotListed, ManifestFile)
	}
	return out, nil
}

// WithInputs adds to entries the files that its derived entries are made from, inputs first.
func (m *Manifest) WithInputs(entries []Entry) []Entry {
	var inputs, rest []Entry
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Path] = true
	}
	for _, e := range entries {
		if in := e.Input(); in != "" && !have[in] {
			if ie, ok := m.Lookup(in); ok {
				inputs = append(inputs, ie)
				have[in] = true
			}
		}
		rest = append(rest, e)
	}
	return append(inputs, rest...)
}

// Add inserts e (kept sorted); a path already listed is an error unless the line is identical.
func (m *Manifest) Add(e Entry) error {
	if err := CheckPath(e.Path); err != nil {
		return err
	}
	if err := CheckOrigin(e.Origin); err != nil {
		return err
	}
	if old, ok := m.Lookup(e.Path); ok {
		if old == e {
			return nil
		}
		return fmt.Errorf("%s is already in the manifest as %q; edit or delete that line by hand", e.Path, old.String())
	}
	if in := e.Input(); in != "" {
		if _, ok := m.Lookup(in); !ok {
			return fmt.Errorf("%s is made from %s, which is not in the manifest; add it first", e.Path, in)
		}
	}
	k, _ := slices.BinarySearchFunc(m.Entries, e.Path, func(x Entry, p string) int { return strings.Compare(x.Path, p) })
	m.Entries = slices.Insert(m.Entries, k, e)
	return nil
}

// Format writes the manifest back: its header, a blank line, one line per entry.
func (m *Manifest) Format(w io.Writer) error {
	var b bytes.Buffer
	for _, h := range m.Header {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	if len(m.Header) > 0 {
		b.WriteByte('\n')
	}
	for _, e := range m.Entries {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}
