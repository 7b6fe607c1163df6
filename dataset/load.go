package dataset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// NamedDataset is a dataset known by a short name (--split verified). The dataset families
// declare them (a profile of package family lists its own) and Load is given them in
// LoadOptions.Named.
type NamedDataset struct {
	Name        string `json:"name"`
	HFRepo      string `json:"hf_repo"`
	Split       string `json:"split"`
	Rows        int    `json:"rows"` // 0: varies between revisions
	Description string `json:"description"`
	// Family is the dataset family its rows are read as (a profile of package family, given to
	// Load in LoadOptions.Families): a row that lacks one of the family's columns is refused.
	Family string `json:"family,omitempty"`
	// Files, when set, are the repository's data files (path.Match patterns, e.g. "go/*.jsonl"),
	// read instead of the split's parquet files (a dataset that keeps one JSONL per repository).
	Files []string `json:"files,omitempty"`
}

// LookupNamed returns the dataset of named called name.
func LookupNamed(named []NamedDataset, name string) (NamedDataset, bool) {
	for _, d := range named {
		if d.Name == name {
			return d, true
		}
	}
	return NamedDataset{}, false
}

// LoadOptions configure Load. Zero values fall back to the HuggingFace environment variables.
type LoadOptions struct {
	HFEndpoint string       // "" → $HF_ENDPOINT or https://huggingface.co
	HFToken    string       // "" → $HF_TOKEN (sent as Authorization: Bearer; never logged)
	CacheDir   string       // "" → $HF_HUB_CACHE, or $HF_HOME/hub, or ~/.cache/huggingface/hub
	Offline    bool         // cache only; also on when HF_HUB_OFFLINE=1
	HTTPClient *http.Client // nil → a client with connection and header timeouts
	Progress   io.Writer    // download progress and retries (human text); nil = silent

	// Selection, when set, is applied while loading: only the selected rows are decoded, so
	// memory is proportional to the selection; Loaded.Instances is the selection and
	// Loaded.Selection records it. The instance_id of every row is still read, to check that ids
	// are unique and that --instance-ids/--exclude name existing ids.
	Selection *Selection

	// Require validates every loaded (selected) row: RequireRun, RequireEval or both. Errors name
	// the file, row, instance and field.
	Require Requirement

	// Complete, for an evaluation: the families of Families that complete rows (Completer) fill
	// in what grading needs from other datasets, downloaded through the hub cache (e.g. rows
	// without an eval_script take it, with log_parser and eval_type, from the official dataset
	// that has them); Source.Completed records where from and Progress says so. Rows that still
	// cannot be graded make Load fail, naming them.
	Complete bool

	// Named are the datasets a spec may name by their short name, in display order (cmd passes
	// those the families declare); nil: none, a spec is an hf: id or a path.
	Named []NamedDataset

	// Families are the dataset families rows are read as (profiles of package family; cmd passes
	// them all, in detection order). A named dataset's rows are read as its NamedDataset.Family;
	// other rows as the first family whose Match takes them, else as plain SWE-bench-style rows
	// (Instance.Family ""). nil reads every row so.
	Families []Family

	Retries int // attempts after the first on network errors, 429 and 5xx; 0 → 4

	retryDelay time.Duration // first retry delay, doubled each time; 0 → 1s
}

// Requirement says which fields Load checks.
type Requirement int

const (
	RequireRun  Requirement = 1 << iota // ValidateForRun
	RequireEval                         // ValidateForEval
)

// Source describes where a dataset came from, for the run manifest.
type Source struct {
	Spec        string `json:"spec"`                   // what the user typed
	Kind        string `json:"kind"`                   // "named", "hf" or "file"
	Name        string `json:"name,omitempty"`         // named datasets
	HFRepo      string `json:"hf_repo,omitempty"`      // named and hf
	Config      string `json:"config,omitempty"`       // hf config ("default")
	Split       string `json:"split,omitempty"`        // named and hf
	Revision    string `json:"revision,omitempty"`     // the revision asked for ("main" when none)
	ResolvedSHA string `json:"resolved_sha,omitempty"` // the commit it resolved to
	Endpoint    string `json:"hf_endpoint,omitempty"`  // the hub used
	Converted   bool   `json:"parquet_converted,omitempty"`
	Files       []File `json:"files"`
	Rows        int    `json:"rows"` // rows in the dataset, before selection
	// Completed lists the official datasets rows took their eval columns from (LoadOptions.Complete).
	Completed []Completion `json:"completed_from,omitempty"`
}

// File is one file a dataset was read from.
type File struct {
	Path   string `json:"path"` // local path, or path in the HF repo
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Rows   int    `json:"rows"`
}

// Loaded is the result of Load.
type Loaded struct {
	Instances []Instance
	Source    Source
	Selection *Selection // the selection applied while loading, if any
}

// Manifest is what the run manifest records about its dataset: enough to tell whether two runs
// worked on the same instances of the same data.
type Manifest struct {
	Source    Source     `json:"source"`
	Selection *Selection `json:"selection,omitempty"`
	Instances int        `json:"instances"`
	// IDsSHA256 is the sha256 of the selected instance ids, sorted, one per line.
	IDsSHA256 string `json:"instance_ids_sha256"`
}

// Manifest returns the manifest record of what was loaded.
func (l *Loaded) Manifest() Manifest {
	ids := make([]string, len(l.Instances))
	for k := range l.Instances {
		ids[k] = l.Instances[k].InstanceID
	}
	sort.Strings(ids)
	h := sha256.New()
	for _, id := range ids {
		io.WriteString(h, id+"\n")
	}
	return Manifest{Source: l.Source, Selection: l.Selection, Instances: len(ids), IDsSHA256: hex.EncodeToString(h.Sum(nil))}
}

// Comparable returns nil when two manifests describe the same instances of the same data (same
// file contents and the same selected ids, and the same version of every official dataset both
// completed rows from), else an error listing the differences.
func (m Manifest) Comparable(o Manifest) error {
	var diffs []string
	fileSums := func(s Source) string {
		sums := make([]string, len(s.Files))
		for k, f := range s.Files {
			sums[k] = f.SHA256
		}
		sort.Strings(sums)
		return strings.Join(sums, ",")
	}
	if a, b := fileSums(m.Source), fileSums(o.Source); a != b {
		diffs = append(diffs, fmt.Sprintf("dataset files differ (%s@%s vs %s@%s)", m.Source.Spec, short(m.Source.ResolvedSHA), o.Source.Spec, short(o.Source.ResolvedSHA)))
	}
	if m.IDsSHA256 != o.IDsSHA256 {
		diffs = append(diffs, fmt.Sprintf("selected instances differ (%d vs %d instances)", m.Instances, o.Instances))
	}
	// Rows completed from an official dataset must have been completed from the same version of
	// it (which datasets were needed depends on the selection, so only common ones are compared).
	for _, a := range m.Source.Completed {
		for _, b := range o.Source.Completed {
			if a.HFRepo == b.HFRepo && a.Split == b.Split && fileSums(Source{Files: a.Files}) != fileSums(Source{Files: b.Files}) {
				diffs = append(diffs, fmt.Sprintf("eval columns completed from different versions of %s:%s (%s vs %s)", a.HFRepo, a.Split, short(a.ResolvedSHA), short(b.ResolvedSHA)))
			}
		}
	}
	if diffs == nil {
		return nil
	}
	return fmt.Errorf("runs are not comparable: %s", strings.Join(diffs, "; "))
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	if sha == "" {
		return "local"
	}
	return sha
}

// ParseHFSpec parses "hf:ORG/NAME[:SPLIT][@REVISION]" (SPLIT may be CONFIG/SPLIT; the default
// split is "test", the default config "default").
func ParseHFSpec(spec string) (repo, config, split, revision string, err error) {
	rest, ok := strings.CutPrefix(spec, "hf:")
	if !ok {
		return "", "", "", "", fmt.Errorf("%q: a HuggingFace dataset is written hf:ORG/NAME[:SPLIT][@REVISION]", spec)
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest, revision = rest[:i], rest[i+1:]
		if revision == "" {
			return "", "", "", "", fmt.Errorf("%q: empty revision after '@'", spec)
		}
	}
	repo, split, _ = strings.Cut(rest, ":")
	config = "default"
	if c, s, ok := strings.Cut(split, "/"); ok {
		config, split = c, s
	}
	if split == "" {
		split = "test"
	}
	org, name, ok := strings.Cut(repo, "/")
	if !ok || org == "" || name == "" || strings.ContainsAny(name, "/ ") || strings.ContainsAny(org, " ") {
		return "", "", "", "", fmt.Errorf("%q: want hf:ORG/NAME[:SPLIT][@REVISION], e.g. hf:SWE-bench/SWE-bench_Verified:test", spec)
	}
	if config == "" {
		return "", "", "", "", fmt.Errorf("%q: empty config before '/'", spec)
	}
	return repo, config, split, revision, nil
}

func (o LoadOptions) hub() *hubClient {
	h := &hubClient{
		endpoint:   strings.TrimRight(firstNonEmpty(o.HFEndpoint, os.Getenv("HF_ENDPOINT"), "https://huggingface.co"), "/"),
		token:      firstNonEmpty(o.HFToken, os.Getenv("HF_TOKEN")),
		root:       filepath.Join(o.cacheDir(), "swebench-run", "datasets"),
		offline:    o.Offline || envTrue("HF_HUB_OFFLINE"),
		http:       o.HTTPClient,
		progress:   o.Progress,
		retries:    o.Retries,
		retryDelay: o.retryDelay,
	}
	if h.http == nil {
		h.http = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   30 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
		}}
	}
	if h.retries == 0 {
		h.retries = 4
	}
	if h.retryDelay == 0 {
		h.retryDelay = time.Second
	}
	return h
}

// HubCacheDir returns the HuggingFace hub cache directory Load uses with these options (its own
// files go under swebench-run/ there).
func (o LoadOptions) HubCacheDir() string { return o.cacheDir() }

// IsOffline reports whether Load uses the cache only: Offline, or HF_HUB_OFFLINE set.
func (o LoadOptions) IsOffline() bool { return o.Offline || envTrue("HF_HUB_OFFLINE") }

// cacheDir returns the HuggingFace hub cache directory Load uses with these options.
func (o LoadOptions) cacheDir() string {
	if o.CacheDir != "" {
		return o.CacheDir
	}
	if d := os.Getenv("HF_HUB_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("HF_HOME"); d != "" {
		return filepath.Join(d, "hub")
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "huggingface", "hub")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "huggingface", "hub")
	}
	return filepath.Join(home, ".cache", "huggingface", "hub")
}

func envTrue(k string) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(k))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// Load reads a dataset. spec is a named dataset (LoadOptions.Named), "hf:ORG/NAME[:SPLIT][@REVISION]",
// or a local path: a .parquet file, a directory of .parquet shards, a .jsonl file or a .json file
// (a list of rows or an object of rows keyed by instance_id), optionally gzip-compressed.
func Load(ctx context.Context, spec string, opts LoadOptions) (*Loaded, error) {
	src := Source{Spec: spec}
	var paths []string // local files to read, in order
	var display []string
	var files []string // a named dataset's data files (NamedDataset.Files)
	switch {
	case strings.HasPrefix(spec, "hf:"):
		repo, config, split, rev, err := ParseHFSpec(spec)
		if err != nil {
			return nil, err
		}
		src.Kind, src.HFRepo, src.Config, src.Split, src.Revision = "hf", repo, config, split, rev
	default:
		if d, ok := LookupNamed(opts.Named, spec); ok {
			src.Kind, src.Name, src.HFRepo, src.Config, src.Split = "named", d.Name, d.HFRepo, "default", d.Split
			files = d.Files
			break
		}
		src.Kind = "file"
		p, err := localFiles(spec, opts.Named)
		if err != nil {
			return nil, err
		}
		paths, display = p, p
	}
	var sums []hubFile
	if src.Kind != "file" {
		h := opts.hub()
		src.Endpoint = h.endpoint
		if src.Revision == "" {
			src.Revision = "main"
		}
		snap, err := h.fetchFiles(ctx, src.HFRepo, src.Config, src.Split, src.Revision, files)
		if err != nil {
			return nil, err
		}
		src.ResolvedSHA, src.Converted = snap.SHA, snap.Converted
		for _, f := range snap.Files {
			paths = append(paths, f.local)
			display = append(display, src.HFRepo+"@"+short(snap.SHA)+":"+f.Path)
			sums = append(sums, f)
		}
	}
	tables := make([]table, len(paths))
	defer func() {
		for _, t := range tables {
			if c, ok := t.(io.Closer); ok && c != nil {
				c.Close()
			}
		}
	}()
	forced, err := forcedFamily(src, opts.Named, opts.Families)
	if err != nil {
		return nil, err
	}
	namers := idNamers(forced, opts.Families)
	for k, p := range paths {
		t, sum, size, err := openTable(p, display[k], sums, k, namers)
		if err != nil {
			return nil, err
		}
		tables[k] = t
		f := File{Path: p, SHA256: sum, Size: size, Rows: t.numRows()}
		if src.Kind != "file" {
			f.Path = sums[k].Path
		}
		src.Files = append(src.Files, f)
		src.Rows += t.numRows()
	}
	insts, err := decode(ctx, tables, display, forced, opts)
	if err != nil {
		return nil, err
	}
	l := &Loaded{Instances: insts, Source: src}
	if opts.Selection != nil {
		sel := *opts.Selection
		l.Selection = &sel
	}
	if opts.Complete {
		if err := complete(ctx, l, opts); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// table is one readable dataset file.
type table interface {
	numRows() int
	ids() ([]string, error)
	// values returns the values of cols (those the row has, decoded as setColumn takes them)
	// of each row of rows.
	values(rows []int, cols []string) ([]map[string]any, error)
	rows(ctx context.Context, slot []int, insts []Instance, set func(row int, col string, err error)) error
}

// localFiles resolves a local spec to the files to read; named are the named datasets, for the
// error of a spec that is none.
func localFiles(spec string, named []NamedDataset) ([]string, error) {
	st, err := os.Stat(spec)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if len(named) == 0 {
				return nil, fmt.Errorf("dataset %q: no such file or directory, and not hf:ORG/NAME[:SPLIT][@REVISION]", spec)
			}
			names := make([]string, len(named))
			for k, d := range named {
				names[k] = d.Name
			}
			return nil, fmt.Errorf("dataset %q: no such file or directory, and not a named dataset (%s) or hf:ORG/NAME[:SPLIT][@REVISION]",
				spec, strings.Join(names, ", "))
		}
		return nil, fmt.Errorf("dataset: %w", err)
	}
	if !st.IsDir() {
		return []string{spec}, nil
	}
	entries, err := os.ReadDir(spec)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(strings.ToLower(e.Name()), ".parquet") {
			out = append(out, filepath.Join(spec, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dataset directory %s: no .parquet files in it (a directory is read as parquet shards; give a .jsonl or .json file by its path)", spec)
	}
	sort.Strings(out)
	return out, nil
}

// openTable opens one file, recognising parquet by its magic bytes and JSON otherwise. For hub
// files the sha256 is already known (verified by the cache); local files are hashed here.
func openTable(p, name string, hub []hubFile, k int, namers []IDNamer) (table, string, int64, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, "", 0, fmt.Errorf("read dataset: %w", err)
	}
	var sum string
	if hub != nil {
		sum = hub[k].SHA256
	} else {
		s := sha256.Sum256(data)
		sum = hex.EncodeToString(s[:])
	}
	size := int64(len(data))
	if bytes.HasPrefix(data, []byte("PAR1")) || strings.HasSuffix(strings.ToLower(p), ".parquet") {
		t, err := openParquetBytes(name, data)
		return t, sum, size, err
	}
	t, err := openJSON(name, data, namers)
	return t, sum, size, err
}

// decode reads the ids of every table, checks them, selects, then decodes the selected rows.
func decode(ctx context.Context, tables []table, names []string, forced Family, opts LoadOptions) ([]Instance, error) {
	type origin struct{ table, row int }
	var ids []string
	var where []origin
	tableIDs := make([][]string, len(tables))
	for k, t := range tables {
		tids, err := t.ids()
		tableIDs[k] = tids
		if err != nil {
			return nil, err
		}
		if tids, err = nameRows(t, tids, idNamers(forced, opts.Families)); err != nil {
			return nil, err
		}
		tableIDs[k] = tids
		if tids == nil {
			return nil, fmt.Errorf("%s: no instance_id column; every row needs an instance_id", names[k])
		}
		for r, id := range tids {
			if id == "" {
				return nil, rowErrorAt(t, names[k], r, "", "instance_id", errors.New("missing or empty"))
			}
			ids = append(ids, id)
			where = append(where, origin{k, r})
		}
	}
	if err := checkDuplicates(strings.Join(names, ", "), ids); err != nil {
		var de *DuplicateIDsError
		if errors.As(err, &de) && len(tables) > 1 {
			de.File = "dataset " + strings.Join(names, ", ") + " (rows counted across files)"
		}
		return nil, err
	}
	var idx []int
	if opts.Selection != nil {
		var err error
		if idx, err = opts.Selection.indices(ids); err != nil {
			return nil, err
		}
	} else {
		idx = make([]int, len(ids))
		for k := range idx {
			idx[k] = k
		}
	}
	insts := make([]Instance, len(idx))
	slots := make([][]int, len(tables))
	for k, t := range tables {
		slots[k] = make([]int, t.numRows())
		for r := range slots[k] {
			slots[k][r] = -1
		}
	}
	for s, i := range idx {
		slots[where[i].table][where[i].row] = s
	}
	var errs []error
	const maxErrs = 20
	for k, t := range tables {
		err := t.rows(ctx, slots[k], insts, func(row int, col string, err error) {
			if len(errs) < maxErrs {
				errs = append(errs, rowErrorAt(t, names[k], row, tableIDs[k][row], col, err))
			}
		})
		if err != nil {
			return nil, err
		}
		for r, s := range slots[k] {
			if s < 0 {
				continue
			}
			inst := &insts[s]
			if inst.InstanceID == "" {
				inst.InstanceID = tableIDs[k][r]
			}
			inst.finish()
			var verr []error
			if err := prepare(inst, forced, opts.Families); err != nil {
				verr = append(verr, err)
			}
			if opts.Require&RequireRun != 0 {
				verr = append(verr, inst.ValidateForRun())
			}
			if opts.Require&RequireEval != 0 {
				verr = append(verr, validateForEval(inst, opts.Families))
			}
			if err := errors.Join(verr...); err != nil && len(errs) < maxErrs {
				row, line := rowNumber(t, r)
				errs = append(errs, rowContext(err, names[k], row, line, inst.InstanceID))
			}
		}
	}
	if len(errs) > 0 {
		if len(errs) == maxErrs {
			errs = append(errs, fmt.Errorf("(stopped after %d errors)", maxErrs))
		}
		return nil, errors.Join(errs...)
	}
	return insts, nil
}

// nameRows fills the ids of the rows that have none (no instance_id column, or an empty value)
// from the columns a family names its instances by (IDNamer), the first that names the row.
func nameRows(t table, ids []string, namers []IDNamer) ([]string, error) {
	if len(namers) == 0 {
		return ids, nil
	}
	var missing []int
	for r := 0; r < t.numRows(); r++ {
		if ids == nil || ids[r] == "" {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return ids, nil
	}
	var cols []string
	for _, n := range namers {
		for _, c := range n.IDColumns() {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	vals, err := t.values(missing, cols)
	if err != nil {
		return nil, err
	}
	named := ids
	if named == nil {
		named = make([]string, t.numRows())
	}
	found := false
	for k, r := range missing {
		for _, n := range namers {
			if id := n.InstanceIDOf(vals[k]); id != "" {
				named[r], found = id, true
				break
			}
		}
	}
	if ids == nil && !found {
		return nil, nil
	}
	return named, nil
}

func rowNumber(t table, r int) (int, bool) {
	if jt, ok := t.(*jsonTable); ok {
		return jt.rowNumber(r)
	}
	return r + 1, false
}

func rowErrorAt(t table, name string, r int, id, field string, err error) error {
	var re *RowError
	if errors.As(err, &re) {
		return err
	}
	row, line := rowNumber(t, r)
	return &RowError{File: name, Row: row, Line: line, InstanceID: id, Field: field, Err: err}
}
