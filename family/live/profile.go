package live

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

// Name is the family's name (dataset.NamedDataset.Family, dataset.Instance.Family).
const Name = "live"

// DefaultPythonImage is the image a row's Python log parser runs in (Options.PythonImage).
const DefaultPythonImage = "docker.io/library/python:3.12-slim"

// Options configure the profile; they are the family's options a user sets in the run config
// (families.live.<key>).
type Options struct {
	// PythonImage is an image with Python 3.10 or newer: a row's Python log parser runs in a
	// fresh container of it (the instance's container has run the prediction's code, and many
	// MultiLang images have no Python). "" is DefaultPythonImage. When that container cannot be
	// started, the parser runs in the instance's container, if its Python will do.
	PythonImage string `yaml:"python_image"`
}

// Profile is SWE-bench-Live's family.
type Profile struct{ opts Options }

var (
	_ family.Profile        = (*Profile)(nil)
	_ dataset.EvalValidator = (*Profile)(nil)
)

// New returns the profile.
func New(o Options) *Profile {
	if o.PythonImage == "" {
		o.PythonImage = DefaultPythonImage
	}
	return &Profile{opts: o}
}

// Name implements dataset.Family.
func (*Profile) Name() string { return Name }

// Title implements family.Profile.
func (*Profile) Title() string { return "SWE-bench-Live" }

// Match implements dataset.Family: a row with test_cmds and a log_parser that is "pytest" or
// Python source is SWE-bench-Live's.
func (*Profile) Match(inst *dataset.Instance) bool { return HasLiveColumns(inst) }

// Prepare implements dataset.Family: the row's commands and parser are checked (a missing or bad
// column is a *dataset.FieldError), the image is the row's docker_image or the harness's default,
// and the agent works in /testbed on the problem statement. What grading needs besides is the
// grader's to check (Gradable): a task before validation, without FAIL_TO_PASS and PASS_TO_PASS,
// loads, and a Windows task too, whose logs can be regraded.
func (*Profile) Prepare(inst *dataset.Instance) error {
	if _, err := RowOf(inst); err != nil {
		return err
	}
	if inst.Image == "" {
		inst.Image = DefaultImage(inst.InstanceID)
	}
	inst.WorkDir = WorkDir
	return nil
}

// ValidateForEval implements dataset.EvalValidator: a row needs an instance_id; whether the
// harness can grade it (its test lists, its platform) the grader says, in the harness's terms,
// when it is evaluated (Check before any container starts, Regrade once its log is found).
func (*Profile) ValidateForEval(inst *dataset.Instance) error {
	if inst.InstanceID == "" {
		return &dataset.FieldError{Field: "instance_id", Reason: "missing or empty"}
	}
	return nil
}

// Grader implements family.Profile.
func (p *Profile) Grader() family.Grader { return &grader{pythonImage: p.opts.PythonImage} }

// ExportPredictions implements family.Profile: the harness takes the run's preds.json ({id:
// {model_patch, …}}) as it is.
func (*Profile) ExportPredictions([]family.Prediction) (string, []byte, error) { return "", nil, nil }

// Reports implements family.Profile: the harness's report.json and results.json.
func (*Profile) Reports() family.ReportReader { return reports{} }

// checkRows returns an error naming the rows that cannot be graded in a container.
func checkRows(insts []dataset.Instance) error {
	var bad []string
	for k := range insts {
		_, err := RowOf(&insts[k])
		if err == nil {
			err = Gradable(&insts[k], true)
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("instance %s: %v", insts[k].InstanceID, err))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	if len(bad) > 10 {
		bad = append(bad[:10], fmt.Sprintf("and %d more", len(bad)-10))
	}
	return errors.New("SWE-bench-Live rows that cannot be graded: " + strings.Join(bad, "; "))
}
