package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// MergeReport says what a merge combined and what it found wrong.
type MergeReport struct {
	Sources    []string `json:"sources"`
	Instances  int      `json:"instances"`
	Duplicates []string `json:"duplicates"` // finished in more than one source; the last finished wins
	Unfinished []string `json:"unfinished"` // last attempt was an infrastructure failure
}

// Merge combines the output directories srcs (e.g. the shards of one run) into dst, which must
// not exist or be empty: ledgers (every attempt), trajectories, predictions and evaluation
// folders. For an instance present in several sources, the source whose last attempt is a model
// outcome wins, and among those the one that finished last. manifest is written as dst's run.json.
func Merge(srcs []string, dst string, manifest *Manifest) (*MergeReport, error) {
	if entries, err := os.ReadDir(dst); err == nil && len(entries) > 0 && !(len(entries) == 1 && entries[0].Name() == LockFile) {
		return nil, fmt.Errorf("merge: %s is not empty; merge into a new directory", dst)
	}
	type winner struct {
		src  string
		last Record
	}
	win := map[string]winner{}
	all := map[string][]Record{}
	rep := &MergeReport{Sources: srcs}
	dupes := map[string]bool{}
	preds := map[string]map[string]Prediction{}
	for _, src := range srcs {
		h, _, err := ReadLedger(src)
		if err != nil {
			return nil, err
		}
		if len(h) == 0 {
			return nil, fmt.Errorf("merge: %s has no %s; is it a swebench-run output directory?", src, LedgerFile)
		}
		p, err := readPreds(src)
		if err != nil {
			return nil, err
		}
		preds[src] = p
		for id, recs := range h {
			all[id] = append(all[id], recs...)
			last := recs[len(recs)-1]
			w, seen := win[id]
			if !seen {
				win[id] = winner{src, last}
				continue
			}
			wFinal, nFinal := w.last.Category == CategoryModel, last.Category == CategoryModel
			if wFinal && nFinal {
				dupes[id] = true
			}
			if nFinal && !wFinal || nFinal == wFinal && last.End > w.last.End {
				win[id] = winner{src, last}
			}
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	ids := make([]string, 0, len(win))
	for id := range win {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var ledger []byte
	outPreds := map[string]Prediction{}
	history := map[string][]Record{}
	for _, id := range ids {
		w := win[id]
		recs := all[id]
		sort.SliceStable(recs, func(i, j int) bool { return recs[i].End < recs[j].End })
		// The winner's last attempt closes the merged history, so resume sees its verdict.
		for i, r := range recs {
			if r == w.last {
				recs = append(append(recs[:i:i], recs[i+1:]...), r)
				break
			}
		}
		history[id] = recs
		for _, r := range recs {
			line, err := json.Marshal(r)
			if err != nil {
				return nil, err
			}
			ledger = append(append(ledger, line...), '\n')
		}
		if w.last.Category == CategoryModel {
			if p, ok := preds[w.src][id]; ok {
				outPreds[id] = p
			}
		} else {
			rep.Unfinished = append(rep.Unfinished, id)
		}
		if err := copyTree(filepath.Join(w.src, id), filepath.Join(dst, id)); err != nil {
			return nil, err
		}
		if err := copyTree(filepath.Join(w.src, "eval", id), filepath.Join(dst, "eval", id)); err != nil {
			return nil, err
		}
	}
	for id := range dupes {
		rep.Duplicates = append(rep.Duplicates, id)
	}
	sort.Strings(rep.Duplicates)
	rep.Instances = len(ids)

	if err := WriteFileAtomic(filepath.Join(dst, LedgerFile), ledger, 0o644); err != nil {
		return nil, err
	}
	data, err := marshalIndent(outPreds)
	if err != nil {
		return nil, err
	}
	if err := WriteFileAtomic(filepath.Join(dst, PredsFile), data, 0o644); err != nil {
		return nil, err
	}
	d := &Dir{path: dst, history: history,
		exitFile: exitStatusesPath(dst)}
	if err := d.writeExitStatuses(); err != nil {
		return nil, err
	}
	if manifest != nil {
		if err := d.WriteJSON(ManifestFile, manifest); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func readPreds(dir string) (map[string]Prediction, error) {
	p := filepath.Join(dir, PredsFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Prediction{}, nil
	}
	if err != nil {
		return nil, err
	}
	var preds map[string]Prediction
	if err := json.Unmarshal(data, &preds); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return preds, nil
}

// copyTree copies the regular files under src to dst; a missing src copies nothing.
func copyTree(src, dst string) error {
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !e.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		data, err := io.ReadAll(in)
		if err != nil {
			return err
		}
		return WriteFileAtomic(target, data, 0o644)
	})
}
