package dataset

import (
	"context"
	"io"
)

// Completion records where rows got what grading needs from: another dataset at the commit it
// resolved to (kept in run.json with the dataset).
type Completion struct {
	HFRepo      string `json:"hf_repo"`
	Split       string `json:"split"`
	Revision    string `json:"revision"`
	ResolvedSHA string `json:"resolved_sha"`
	Files       []File `json:"files"`
	Rows        int    `json:"rows_completed"`
}

// Completer is implemented by families whose rows may lack what grading needs and can take it
// from other datasets (SWE-bench's rows without the harness-v5 columns, from the official
// SWE-bench datasets). With LoadOptions.Complete, Load hands each such family of
// LoadOptions.Families the loaded rows.
type Completer interface {
	// Complete fills in what grading needs in those of insts (the rows loaded from src) that are
	// the family's and lack it, loading the datasets it takes it from with load (the same hub,
	// cache and progress as the dataset's; no families, no selection), and says so on progress
	// (nil: silent). It returns where rows were completed from (Source.Completed); an error names
	// the rows that still cannot be graded.
	Complete(ctx context.Context, src Source, insts []Instance, load func(ctx context.Context, spec string) (*Loaded, error), progress io.Writer) ([]Completion, error)
}

// complete lets every family that completes rows (Completer) complete the loaded ones, and
// records where they came from in l.Source.Completed.
func complete(ctx context.Context, l *Loaded, opts LoadOptions) error {
	sub := LoadOptions{HFEndpoint: opts.HFEndpoint, HFToken: opts.HFToken, CacheDir: opts.CacheDir, Offline: opts.Offline,
		HTTPClient: opts.HTTPClient, Progress: opts.Progress, Retries: opts.Retries, retryDelay: opts.retryDelay}
	load := func(ctx context.Context, spec string) (*Loaded, error) { return Load(ctx, spec, sub) }
	for _, f := range opts.Families {
		c, ok := f.(Completer)
		if !ok {
			continue
		}
		done, err := c.Complete(ctx, l.Source, l.Instances, load, opts.Progress)
		l.Source.Completed = append(l.Source.Completed, done...)
		if err != nil {
			return err
		}
	}
	return nil
}
