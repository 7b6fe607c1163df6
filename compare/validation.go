package compare

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/validation"
)

// SetApart says which instances of the comparison the validation of their environment set
// apart (Options.Validation): broken ones (gold fails, empty passes, infrastructure, known bad)
// left every pair's figures, flaky ones were treated as flaky instances are. With
// Options.IncludeBroken nothing was set apart and Included is set: the figures are those
// without the validation.
type SetApart struct {
	Source    string `json:"source"`    // where the validation was read
	Validated int    `json:"validated"` // instances of the comparison with a validation
	Included  bool   `json:"included"`  // --include-broken
	// Broken lists the instances whose environment is broken, by outcome.
	Broken map[validation.Outcome][]string `json:"broken"`
	// Flaky lists the instances the validation found flaky.
	Flaky []string `json:"flaky"`
	// Reasons gives each listed instance's validation in one line.
	Reasons map[string]string `json:"reasons"`
}

// Count is the number of broken instances.
func (s *SetApart) Count() int {
	n := 0
	for _, ids := range s.Broken {
		n += len(ids)
	}
	return n
}

// Line is the comparison's sentence about the validation: how many were set apart and why.
func (s *SetApart) Line() string {
	var parts []string
	for _, o := range validation.Outcomes {
		if n := len(s.Broken[o]); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o.Title()))
		}
	}
	broken := "no instance whose environment is broken"
	if n := s.Count(); n > 0 {
		broken = fmt.Sprintf("%d instances whose environment is broken (%s)", n, strings.Join(parts, ", "))
	}
	flaky := ""
	if len(s.Flaky) > 0 {
		flaky = fmt.Sprintf(", %d flaky", len(s.Flaky))
	}
	if s.Included {
		return fmt.Sprintf("validation (%d of the instances, %s): %s%s, kept in the figures (--include-broken)", s.Validated, s.Source, broken, flaky)
	}
	how := "left out of the paired figures and the gate"
	if s.Count() == 0 {
		how = "nothing set apart"
	}
	if len(s.Flaky) > 0 {
		how += "; the flaky ones treated as flaky"
	}
	return fmt.Sprintf("validation (%d of the instances, %s): %s%s: %s (--include-broken keeps them)", s.Validated, s.Source, broken, flaky, how)
}

// applyValidation marks, for every side, the instances the validation sets apart (broken) and
// those it finds flaky, and returns the summary; nil without a validation.
func applyValidation(sides []*side, ids []string, opts Options) *SetApart {
	if len(opts.Validation) == 0 {
		return nil
	}
	sa := &SetApart{Source: opts.ValidationSource, Included: opts.IncludeBroken, Broken: map[validation.Outcome][]string{},
		Flaky: []string{}, Reasons: map[string]string{}}
	for i, id := range ids {
		rec, ok := opts.Validation[id]
		if !ok {
			continue
		}
		sa.Validated++
		switch {
		case rec.Outcome.Broken():
			sa.Broken[rec.Outcome] = append(sa.Broken[rec.Outcome], id)
			sa.Reasons[id] = rec.Summary()
			if !opts.IncludeBroken {
				for _, s := range sides {
					s.broken[i] = true
				}
			}
		case rec.Outcome == validation.Flaky:
			sa.Flaky = append(sa.Flaky, id)
			sa.Reasons[id] = rec.Summary()
			if !opts.IncludeBroken {
				for _, s := range sides {
					s.vflaky[i] = true
				}
			}
		}
	}
	for _, l := range sa.Broken {
		sort.Strings(l)
	}
	return sa
}

// markGradingFlaky marks flaky the instances whose verdict changed between the repeated
// gradings of a run's evaluation (eval --repeat: the run report's flaky_ids).
func markGradingFlaky(s *side, index map[string]int) {
	for _, r := range s.runs {
		for _, id := range r.GradingFlaky {
			if i, ok := index[id]; ok {
				s.flaky[i] = true
			}
		}
	}
}

// writeSetApartText writes the validation's line, when there is one.
func writeSetApartText(w io.Writer, res *Result, indent string) {
	if res.SetApart == nil {
		return
	}
	fmt.Fprintf(w, "\n%s%s\n", indent, res.SetApart.Line())
	ids := make([]string, 0, len(res.SetApart.Reasons))
	for id := range res.SetApart.Reasons {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for k, id := range ids {
		if k == maxListed {
			fmt.Fprintf(w, "%s  … and %d more\n", indent, len(ids)-maxListed)
			break
		}
		fmt.Fprintf(w, "%s  %s: %s\n", indent, id, res.SetApart.Reasons[id])
	}
}

// writeSetApartMarkdown writes the validation's line as a Markdown item, with the instances in
// a collapsed list; false when there is no validation.
func writeSetApartMarkdown(w io.Writer, res *Result) bool {
	if res.SetApart == nil {
		return false
	}
	fmt.Fprintf(w, "- %s\n", res.SetApart.Line())
	if len(res.SetApart.Reasons) == 0 {
		return true
	}
	ids := make([]string, 0, len(res.SetApart.Reasons))
	for id := range res.SetApart.Reasons {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fmt.Fprintf(w, "\n<details><summary>%d instances by their validation</summary>\n\n", len(ids))
	for _, id := range ids {
		fmt.Fprintf(w, "- `%s`: %s\n", id, res.SetApart.Reasons[id])
	}
	fmt.Fprintf(w, "\n</details>\n")
	return true
}
