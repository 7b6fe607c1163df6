package submission

import (
	"fmt"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/validation"
)

// CheckEnvironment is the check of predicted instances whose environment the validation
// (swebench-run validate) found broken.
const CheckEnvironment = "environment"

// checkEnvironment notes the predicted instances whose environment is broken (gold fails, empty
// passes, infrastructure, known bad) and those it found flaky: the leaderboard grades them as
// any other, but no patch can be told right or wrong there. A note, never a failure.
func checkEnvironment(preds map[string]eval.Prediction, recs map[string]validation.Record) Findings {
	if len(recs) == 0 {
		return nil
	}
	var broken, flaky []string
	for id, p := range preds {
		rec, ok := recs[id]
		switch {
		case !ok || p.Empty():
		case rec.Outcome.Broken():
			broken = append(broken, id)
		case rec.Outcome == validation.Flaky:
			flaky = append(flaky, id)
		}
	}
	sort.Strings(broken)
	sort.Strings(flaky)
	var out Findings
	if len(broken) > 0 {
		out = append(out, Finding{Check: CheckEnvironment, Severity: Note, IDs: broken,
			Message: fmt.Sprintf("%d predicted instances have a broken environment (the validation: %s): %s", len(broken), countsOf(broken, recs), reasons(broken, recs))})
	}
	if len(flaky) > 0 {
		out = append(out, Finding{Check: CheckEnvironment, Severity: Note, IDs: flaky,
			Message: fmt.Sprintf("%d predicted instances are flaky by the validation (their verdict may change when graded again): %s", len(flaky), reasons(flaky, recs))})
	}
	return out
}

func countsOf(ids []string, recs map[string]validation.Record) string {
	sub := make(map[string]validation.Record, len(ids))
	for _, id := range ids {
		sub[id] = recs[id]
	}
	return validation.CountsLine(validation.Counts(sub))
}

// reasons lists ids with their validation, the first ten.
func reasons(ids []string, recs map[string]validation.Record) string {
	parts := make([]string, 0, min(len(ids), 10))
	for k, id := range ids {
		if k == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ids)-10))
			break
		}
		parts = append(parts, id+" ("+recs[id].Summary()+")")
	}
	return strings.Join(parts, "; ")
}
