package rebench

import (
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family"
)

// Name is the family's name (dataset.NamedDataset.Family, dataset.Instance.Family).
const Name = "rebench"

// Profile is SWE-rebench's family.
type Profile struct{}

var _ family.Profile = Profile{}

// Name implements dataset.Family.
func (Profile) Name() string { return Name }

// Title implements family.Profile.
func (Profile) Title() string { return "SWE-rebench" }

// Match implements dataset.Family: a row with an install_config and no eval_script (a row with
// an eval_script is graded from it, as the SWE-bench harness does). SWE-rebench-V2's rows, which
// have an install_config too, are matched by that family first.
func (Profile) Match(inst *dataset.Instance) bool {
	if strings.TrimSpace(inst.EvalScript) != "" {
		return false
	}
	_, ok, _ := InstallConfig(inst)
	return ok
}

// Prepare implements dataset.Family: the row must carry a readable install_config (else a
// *dataset.FieldError naming it); the rest of the row is used as it is (its docker_image, /testbed,
// the problem statement).
func (Profile) Prepare(inst *dataset.Instance) error {
	_, ok, err := InstallConfig(inst)
	switch {
	case err != nil:
		return &dataset.FieldError{Field: Column, Reason: err.Error()}
	case !ok:
		return &dataset.FieldError{Field: Column, Reason: "missing or empty: a SWE-rebench row carries its install recipe (test_cmd, log_parser)"}
	}
	return nil
}

// Grader implements family.Profile: the SWE-bench harness's grading with the fork's script and
// rules.
func (Profile) Grader() family.Grader { return eval.HarnessGrader(harness) }

// ExportPredictions implements family.Profile: the fork takes the run's preds.json.
func (Profile) ExportPredictions([]family.Prediction) (string, []byte, error) { return "", nil, nil }

// Reports implements family.Profile: report.json and the run report are compare's own forms.
func (Profile) Reports() family.ReportReader { return nil }
