package dataset

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// standardColumns are the columns every SWE-bench-style dataset on the hub has.
var standardColumns = []string{"repo", "instance_id", "base_commit", "patch", "test_patch", "problem_statement",
	"hints_text", "created_at", "version", "FAIL_TO_PASS", "PASS_TO_PASS", "environment_setup_commit"}

// CachedColumns returns the columns of a named dataset as it was last downloaded (the commit
// main last resolved to in the hub cache), and that commit, without touching the network. The
// error wraps ErrNotCached when it was never downloaded.
func CachedColumns(d NamedDataset, opts LoadOptions) ([]string, string, error) {
	h := opts.hub()
	ref, err := os.ReadFile(h.refPath(d.HFRepo, "main"))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", d.HFRepo, ErrNotCached)
	}
	sha := strings.TrimSpace(string(ref))
	config, split, read := "default", d.Split, parquetColumns
	if d.Files != nil {
		config, split, read = "files", strings.Join(d.Files, ";"), jsonlColumns
	}
	snap, err := h.cached(d.HFRepo, sha, config, split)
	if err != nil {
		return nil, "", fmt.Errorf("%s:%s: %w", d.HFRepo, split, err)
	}
	var cols []string
	for _, f := range snap.Files {
		names, err := read(f.local)
		if err != nil {
			return nil, sha, err
		}
		for _, n := range names {
			if !slices.Contains(cols, n) {
				cols = append(cols, n)
			}
		}
	}
	return cols, sha, nil
}

// jsonlColumns returns the keys of the first row of a JSON lines file, in order.
func jsonlColumns(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%s: the first row is not a JSON object", path)
	}
	var cols []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		cols = append(cols, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return cols, nil
}

// ExtraColumns returns the columns of cols beyond the standard SWE-bench ones, in order.
func ExtraColumns(cols []string) []string {
	var out []string
	for _, c := range cols {
		if !slices.Contains(standardColumns, c) && !strings.HasPrefix(c, "__index_level") {
			out = append(out, c)
		}
	}
	return out
}

// parquetColumns reads the top-level column names of a parquet file from its footer.
func parquetColumns(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var names []string
	err = catchPanic(func() error {
		pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			return err
		}
		for _, c := range pf.Root().Columns() {
			names = append(names, c.Name())
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable parquet file: %w", path, err)
	}
	return names, nil
}
