package dataset

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Completion records where rows got their eval columns from: an official SWE-bench dataset at
// the commit it resolved to (kept in run.json with the dataset).
type Completion struct {
	HFRepo      string `json:"hf_repo"`
	Split       string `json:"split"`
	Revision    string `json:"revision"`
	ResolvedSHA string `json:"resolved_sha"`
	Files       []File `json:"files"`
	Rows        int    `json:"rows_completed"`
}

// completionSources are the official datasets rows are looked up in, smallest first (Verified
// and Lite are subsets of the full test split, so most rows are found before it is needed).
var completionSources = []struct{ repo, split string }{
	{"SWE-bench/SWE-bench_Verified", "test"},
	{"SWE-bench/SWE-bench_Lite", "test"},
	{"SWE-bench/SWE-bench_Lite", "dev"},
	{"SWE-bench/SWE-bench", "dev"},
	{"SWE-bench/SWE-bench", "test"},
	{"SWE-bench/SWE-bench_Multilingual", "test"},
	{"SWE-bench/SWE-bench_Multimodal", "dev"},
}

// evalColumns are the columns completion copies from an official row.
var evalColumns = []string{"eval_script", "log_parser", "eval_type"}

// NoEvalSourceError names the rows that cannot be graded: they have no eval_script (the
// harness-v5 columns), and no official SWE-bench dataset had a matching row to complete them from.
type NoEvalSourceError struct {
	IDs     []string          // sorted
	Reasons map[string]string // why a row found in an official dataset was not completed from it
	Tried   []string          // the official datasets looked in, with what went wrong
}

func (e *NoEvalSourceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d rows cannot be graded: they have no eval_script (the harness-v5 columns eval_script, log_parser, eval_type), and no official SWE-bench dataset has them", len(e.IDs))
	if len(e.Tried) > 0 {
		fmt.Fprintf(&b, " (looked in %s)", strings.Join(e.Tried, ", "))
	}
	const limit = 10
	b.WriteString(": ")
	for k, id := range e.IDs {
		if k == limit {
			fmt.Fprintf(&b, ", and %d more", len(e.IDs)-limit)
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(id)
		if r := e.Reasons[id]; r != "" {
			b.WriteString(" (" + r + ")")
		}
	}
	b.WriteString(". Grade them with a dataset that has these columns (e.g. --split verified), add eval_script, log_parser and eval_type to the rows, or leave them out (--instance-ids/--exclude)")
	return b.String()
}

// complete fills the eval columns of rows that have no eval source from the official SWE-bench
// datasets (downloaded through the hub cache like any dataset), records where they came from in
// l.Source.Completed, prints one line per source to opts.Progress, and returns a
// *NoEvalSourceError naming the rows that still cannot be graded.
func complete(ctx context.Context, l *Loaded, opts LoadOptions) error {
	missing := map[string]int{} // id → index in l.Instances
	for k := range l.Instances {
		// Rows of other families are graded from their own columns, as their harness grades them.
		if l.Instances[k].FamilyName() == SWEbench && l.Instances[k].EvalScript == "" {
			missing[l.Instances[k].InstanceID] = k
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sub := LoadOptions{HFEndpoint: opts.HFEndpoint, HFToken: opts.HFToken, CacheDir: opts.CacheDir, Offline: opts.Offline,
		HTTPClient: opts.HTTPClient, Progress: opts.Progress, Retries: opts.Retries, retryDelay: opts.retryDelay}
	reasons := map[string]string{}
	var tried []string
	for _, c := range completionOrder(l.Source) {
		if len(missing) == 0 {
			break
		}
		label := c.repo + ":" + c.split
		off, err := Load(ctx, "hf:"+label, sub)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			reason, next := "", true
			switch {
			case errors.Is(err, ErrNotFound):
				reason = "not on the hub"
			case errors.Is(err, ErrNotCached):
				reason = "offline, not in the cache"
			case errors.Is(err, ErrUnauthorized):
				reason = "access refused"
			default:
				// The hub is unreachable or broken: the other datasets would fail the same way.
				reason, next = err.Error(), false
			}
			tried = append(tried, label+" ("+reason+")")
			if next {
				continue
			}
			break
		}
		label += "@" + short(off.Source.ResolvedSHA)
		tried = append(tried, label)
		byID := make(map[string]*Instance, len(off.Instances))
		for k := range off.Instances {
			byID[off.Instances[k].InstanceID] = &off.Instances[k]
		}
		n := 0
		for id, k := range missing {
			o, ok := byID[id]
			if !ok || o.EvalScript == "" {
				continue
			}
			inst := &l.Instances[k]
			if why := differs(inst, o); why != "" {
				reasons[id] = label + " has it with " + why
				continue
			}
			inst.EvalScript, inst.LogParser = o.EvalScript, o.LogParser
			if inst.EvalType == "" {
				inst.EvalType = o.EvalType
			}
			if _, has := inst.Extra[ColImageAssets]; !has {
				if a, ok := o.Extra[ColImageAssets]; ok {
					inst.setExtra(ColImageAssets, a)
				}
			}
			delete(missing, id)
			delete(reasons, id)
			n++
		}
		if n == 0 {
			continue
		}
		l.Source.Completed = append(l.Source.Completed, Completion{
			HFRepo: off.Source.HFRepo, Split: off.Source.Split, Revision: off.Source.Revision,
			ResolvedSHA: off.Source.ResolvedSHA, Files: off.Source.Files, Rows: n,
		})
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "dataset: %d of %d rows had no eval_script; took %s from %s\n",
				n, len(l.Instances), strings.Join(evalColumns, ", "), label)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	ids := make([]string, 0, len(missing))
	for id := range missing {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return &NoEvalSourceError{IDs: ids, Reasons: reasons, Tried: tried}
}

// completionOrder lists the official datasets to look in: the one the source is a copy of first
// (princeton-nlp/X or an older SWE-bench/X → SWE-bench/X, same split), then all of them.
func completionOrder(src Source) []struct{ repo, split string } {
	var out []struct{ repo, split string }
	if src.HFRepo != "" && IsOfficial(src.HFRepo) {
		out = append(out, struct{ repo, split string }{CanonicalRepo(src.HFRepo), src.Split})
	}
	for _, c := range completionSources {
		if len(out) > 0 && out[0] == c {
			continue
		}
		out = append(out, c)
	}
	return out
}

// differs says why an official row does not describe the same task as inst: the eval script
// resets to the official base_commit and applies the official test_patch, so both must agree.
func differs(inst, official *Instance) string {
	switch {
	case inst.BaseCommit != "" && inst.BaseCommit != official.BaseCommit:
		return fmt.Sprintf("another base_commit (%s, the row has %s)", short(official.BaseCommit), short(inst.BaseCommit))
	case inst.TestPatch != "" && inst.TestPatch != official.TestPatch:
		return "another test_patch"
	}
	return ""
}
