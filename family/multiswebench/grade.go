package multiswebench

import (
	"cmp"
	"fmt"
	"slices"
)

// Evaluation is the grade of one prediction, as the harness's evaluation mode (gen_report.py,
// gen_eval_reports) reaches it.
type Evaluation struct {
	// Report is the instance's report.json: the row's run_result and test_patch_result against
	// the parsed fix run.
	Report *Report
	// Resolved: the report is valid and keeps every test of the row's p2p, f2p, s2p and n2p sets
	// in the same set.
	Resolved bool
	// Reason says why an instance is not resolved, as the harness logs it.
	Reason string
}

// Evaluate grades the log of a fix run (the image's fix-run.sh with the prediction as
// /home/fix.patch) for row: the log is read with the repository's parse_log, compared with the
// row's reference runs by report.py's checks, and the instance is resolved when the report is
// valid and every test of the row's p2p_tests, f2p_tests, s2p_tests and n2p_tests is in the
// report's set of the same name. An error is what makes the harness count the instance as an
// error (its repository has no parser, or the parser raises on the log).
func Evaluate(row *Row, fixLog string) (*Evaluation, error) {
	fix, err := ParseLog(row.Org, row.Repo, row.Number, fixLog)
	if err != nil {
		return nil, err
	}
	return Judge(row, fix), nil
}

// Judge grades an already parsed fix run against row (see Evaluate).
func Judge(row *Row, fix *TestResult) *Evaluation {
	rep := NewReport(row.Org, row.Repo, row.Number, row.RunResult, row.TestPatchResult, fix)
	ev := &Evaluation{Report: rep}
	if !rep.Valid {
		ev.Reason = fmt.Sprintf("Invalid report for %s, %s, %s", row.ID(), rep.ShortReport(), rep.ErrorMsg)
		return ev
	}
	for _, set := range []struct {
		name     string
		want, in map[string]Test
	}{
		{"p2p_tests", row.P2PTests, rep.P2P},
		{"f2p_tests", row.F2PTests, rep.F2P},
		{"s2p_tests", row.S2PTests, rep.S2P},
		{"n2p_tests", row.N2PTests, rep.N2P},
	} {
		for _, n := range sortedKeys(set.want) {
			if _, ok := set.in[n]; !ok {
				ev.Reason = fmt.Sprintf("Invalid %s for %s: missing %s", set.name, row.ID(), n)
				return ev
			}
		}
	}
	ev.Resolved = true
	return ev
}

// Instance identifies a graded instance in a final report.
type Instance struct {
	Org    string
	Repo   string
	Number int
}

// FinalReport is the run's final_report.json in the harness's format (report.py's FinalReport, as
// its evaluation mode fills it): every graded instance is completed (resolved or not) or an
// error; empty_patch stays empty, as in the harness (an empty patch is graded like any other and
// ends unresolved).
type FinalReport struct {
	Resolved, Unresolved, Errors []Instance
}

// MarshalJSON writes final_report.json as the harness does (indented by four spaces). Ids are in
// the order the harness sorts its tasks (descending org, repo, number); the harness itself lists
// them in the order its workers finish.
func (f *FinalReport) MarshalJSON() ([]byte, error) {
	ids := func(in []Instance) []string {
		s := slices.Clone(in)
		slices.SortFunc(s, func(a, b Instance) int {
			return -cmp.Or(cmp.Compare(a.Org, b.Org), cmp.Compare(a.Repo, b.Repo), cmp.Compare(a.Number, b.Number))
		})
		out := make([]string, len(s))
		for i, in := range s {
			out[i] = ID(in.Org, in.Repo, in.Number)
		}
		return out
	}
	resolved, unresolved, errs := ids(f.Resolved), ids(f.Unresolved), ids(f.Errors)
	completed := append(slices.Clone(resolved), unresolved...)
	submitted := append(slices.Clone(completed), errs...)
	return []byte(pyDumps(pyObject{
		{"total_instances", len(submitted)},
		{"submitted_instances", len(submitted)},
		{"completed_instances", len(completed)},
		{"incomplete_instances", len(errs)},
		{"resolved_instances", len(resolved)},
		{"unresolved_instances", len(unresolved)},
		{"empty_patch_instances", 0},
		{"error_instances", len(errs)},
		{"submitted_ids", submitted},
		{"completed_ids", completed},
		{"incomplete_ids", errs},
		{"resolved_ids", resolved},
		{"unresolved_ids", unresolved},
		{"empty_patch_ids", []string{}},
		{"error_ids", errs},
	}, 4)), nil
}
