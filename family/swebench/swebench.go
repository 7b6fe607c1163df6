// Package swebench is the profile of the SWE-bench harness's family: the SWE-bench datasets
// (Verified, Lite, full, Multilingual, Multimodal) and any row with their columns. Its rows are
// used as they are (their image, /testbed, problem_statement), they are graded by eval's built-in
// engine exactly as the SWE-bench harness grades them (a row's eval_script), predictions are the
// run's own preds.json, and verdicts are report.json and the run report, which compare reads
// itself. It is also the family of every row no other profile recognises (Instance.Family "").
//
// The profile knows the official SWE-bench datasets: it declares them as named datasets
// (Datasets), maps their older princeton-nlp/* ids to them (CanonicalRepo, IsOfficial), and, for
// an evaluation, completes its rows that lack the harness-v5 columns from them (Complete, a
// dataset.Completer).
package swebench

import (
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

// Name is the family's name (dataset.NamedDataset.Family, dataset.Instance.Family); a row no
// family takes (Instance.Family "") is this family's too.
const Name = "swebench"

// Profile is the SWE-bench harness's family.
type Profile struct{}

var (
	_ family.Profile    = Profile{}
	_ dataset.Completer = Profile{}
)

// Name implements dataset.Family.
func (Profile) Name() string { return Name }

// Title implements family.Profile.
func (Profile) Title() string { return "SWE-bench" }

// Match implements dataset.Family: no row is recognised as SWE-bench's by its columns; a row that
// no other family takes is SWE-bench's (the default).
func (Profile) Match(*dataset.Instance) bool { return false }

// Prepare implements dataset.Family: SWE-bench rows are used as they are (validated by
// dataset.LoadOptions.Require).
func (Profile) Prepare(*dataset.Instance) error { return nil }

// Grader implements family.Profile: nil, eval's built-in grading (the harness v5).
func (Profile) Grader() family.Grader { return nil }

// ExportPredictions implements family.Profile: the harness and sb-cli take the run's preds.json.
func (Profile) ExportPredictions([]family.Prediction) (string, []byte, error) { return "", nil, nil }

// Reports implements family.Profile: report.json and the run report are compare's own forms.
func (Profile) Reports() family.ReportReader { return nil }
