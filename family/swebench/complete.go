package swebench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
)

// officialRepos are the SWE-bench datasets published with the harness-v5 columns (eval_script,
// log_parser, eval_type, image), the source of truth of SWE-bench harness 5.x.
var officialRepos = []string{
	"SWE-bench/SWE-bench_Verified", "SWE-bench/SWE-bench_Lite", "SWE-bench/SWE-bench",
	"SWE-bench/SWE-bench_Multilingual", "SWE-bench/SWE-bench_Multimodal",
}

// CanonicalRepo returns the SWE-bench/* id of an official SWE-bench dataset named by its older
// princeton-nlp/* id (princeton-nlp/SWE-bench_Verified → SWE-bench/SWE-bench_Verified), and
// any other id unchanged. The org part is matched case-insensitively, as the hub does.
func CanonicalRepo(repo string) string {
	org, name, ok := strings.Cut(repo, "/")
	if !ok {
		return repo
	}
	for _, o := range officialRepos {
		_, oname, _ := strings.Cut(o, "/")
		if strings.EqualFold(name, oname) && (strings.EqualFold(org, "princeton-nlp") || strings.EqualFold(org, "SWE-bench")) {
			return o
		}
	}
	return repo
}

// IsOfficial reports whether repo (either id form) is one of the official SWE-bench datasets
// that carry the harness-v5 columns.
func IsOfficial(repo string) bool { return slices.Contains(officialRepos, CanonicalRepo(repo)) }

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

// Complete implements dataset.Completer: the rows of the family (Family "" or Name) that have no
// eval_script get eval_script, log_parser and eval_type (and image_assets when they have none)
// from the official SWE-bench dataset that has a row with the same instance_id, base_commit and
// test_patch (completionOrder), downloaded through load like any dataset. One line per source
// goes to progress; the rows that still cannot be graded are a *NoEvalSourceError.
func (Profile) Complete(ctx context.Context, src dataset.Source, insts []dataset.Instance, load func(context.Context, string) (*dataset.Loaded, error), progress io.Writer) ([]dataset.Completion, error) {
	missing := map[string]int{} // id → index in insts
	for k := range insts {
		// Rows of other families are graded from their own columns, as their harness grades them.
		if (insts[k].Family == "" || insts[k].Family == Name) && insts[k].EvalScript == "" {
			missing[insts[k].InstanceID] = k
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	var completed []dataset.Completion
	reasons := map[string]string{}
	var tried []string
	for _, c := range completionOrder(src) {
		if len(missing) == 0 {
			break
		}
		label := c.repo + ":" + c.split
		off, err := load(ctx, "hf:"+label)
		if err != nil {
			if ctx.Err() != nil {
				return completed, ctx.Err()
			}
			reason, next := "", true
			switch {
			case errors.Is(err, dataset.ErrNotFound):
				reason = "not on the hub"
			case errors.Is(err, dataset.ErrNotCached):
				reason = "offline, not in the cache"
			case errors.Is(err, dataset.ErrUnauthorized):
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
		byID := make(map[string]*dataset.Instance, len(off.Instances))
		for k := range off.Instances {
			byID[off.Instances[k].InstanceID] = &off.Instances[k]
		}
		n := 0
		for id, k := range missing {
			o, ok := byID[id]
			if !ok || o.EvalScript == "" {
				continue
			}
			inst := &insts[k]
			if why := differs(inst, o); why != "" {
				reasons[id] = label + " has it with " + why
				continue
			}
			inst.EvalScript, inst.LogParser = o.EvalScript, o.LogParser
			if inst.EvalType == "" {
				inst.EvalType = o.EvalType
			}
			if _, has := inst.Extra[dataset.ColImageAssets]; !has {
				if a, ok := o.Extra[dataset.ColImageAssets]; ok {
					if inst.Extra == nil {
						inst.Extra = map[string]any{}
					}
					inst.Extra[dataset.ColImageAssets] = a
				}
			}
			delete(missing, id)
			delete(reasons, id)
			n++
		}
		if n == 0 {
			continue
		}
		completed = append(completed, dataset.Completion{
			HFRepo: off.Source.HFRepo, Split: off.Source.Split, Revision: off.Source.Revision,
			ResolvedSHA: off.Source.ResolvedSHA, Files: off.Source.Files, Rows: n,
		})
		if progress != nil {
			fmt.Fprintf(progress, "dataset: %d of %d rows had no eval_script; took %s from %s\n",
				n, len(insts), strings.Join(evalColumns, ", "), label)
		}
	}
	if len(missing) == 0 {
		return completed, nil
	}
	ids := make([]string, 0, len(missing))
	for id := range missing {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return completed, &NoEvalSourceError{IDs: ids, Reasons: reasons, Tried: tried}
}

// completionOrder lists the official datasets to look in: the one the source is a copy of first
// (princeton-nlp/X or an older SWE-bench/X → SWE-bench/X, same split), then all of them.
func completionOrder(src dataset.Source) []struct{ repo, split string } {
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
func differs(inst, official *dataset.Instance) string {
	switch {
	case inst.BaseCommit != "" && inst.BaseCommit != official.BaseCommit:
		return fmt.Sprintf("another base_commit (%s, the row has %s)", short(official.BaseCommit), short(inst.BaseCommit))
	case inst.TestPatch != "" && inst.TestPatch != official.TestPatch:
		return "another test_patch"
	}
	return ""
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
