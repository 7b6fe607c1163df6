// Package family is the contract between the family-neutral parts of the program (dataset,
// runner, eval's engine, compare, report) and the dataset families: SWE-bench's harness is one
// family among several (SWE-bench Pro, Multi-SWE-bench, SWE-rebench v1 and V2, …). A family is a
// Profile, implemented in a package of its own under family/ and listed by the registry
// (family/all); nothing outside those packages knows a family's details.
//
// A Profile says:
//
//   - which named datasets are the family's (Datasets: verified, lite, … for SWE-bench; pro for
//     SWE-bench Pro), which the registry hands to dataset.Load (LoadOptions.Named);
//   - how a row becomes an Instance (dataset.Family: Match detects the family's rows by their
//     columns, Prepare fills the instance's task text, working directory, image and commands
//     before the agent starts, and refuses a row that lacks one of the family's columns, naming
//     it);
//   - how predictions are exported in the family's harness's input format (ExportPredictions);
//   - how a prediction is graded (Grader: the commands run in a fresh sandbox of the instance's
//     image, the log parser, the resolved rule, the files kept per instance in the harness's
//     names and the harness's run-level files), and how its harness's verdict files are read
//     back (ReportReader, for compare, report and stats).
//
// This package holds the interfaces and what every family shares: the Sandbox a grader runs
// commands in, the Verdict it returns, predictions, the patch application with fallbacks
// (ApplyPatch), and a checksummed cache of grading assets a harness keeps outside its rows
// (AssetStore). It imports no profile.
package family

import (
	"github.com/swebench-run/swebench-run/dataset"
)

// Profile is one dataset family.
type Profile interface {
	// dataset.Family: Name (recorded in Instance.Family; "" is the SWE-bench harness's family),
	// Match (is a decoded row one of the family's, by its columns) and Prepare (rows → instances;
	// a missing column is a *dataset.FieldError naming it).
	dataset.Family
	// Title is the family's display name, e.g. "SWE-bench Pro".
	Title() string
	// Datasets are the family's named datasets (--split pro), in display order; their Family is
	// the registry's to fill in with the profile's Name.
	Datasets() []dataset.NamedDataset
	// Grader grades the family's predictions. nil means eval's built-in grading: the SWE-bench
	// harness (eval_script, harness v5).
	Grader() Grader
	// ExportPredictions returns the predictions in the input format of the family's harness:
	// the file's name in the run's output directory and its content. An empty name means the
	// harness takes the run's own preds.json (SWE-bench), so there is nothing to add.
	ExportPredictions(preds []Prediction) (name string, data []byte, err error)
	// Reports reads the verdict files the family's harness writes; nil when the family's
	// verdicts are SWE-bench's report.json and run report, which compare reads itself.
	Reports() ReportReader
}

// PredictionReader is implemented by profiles whose harness takes predictions in a shape of its
// own (SWE-bench Pro's [{instance_id, patch, prefix}]), so that `eval` grades the harness's own
// prediction files too.
type PredictionReader interface {
	// ReadPredictions decodes data (the file at path) when it has the harness's shape; ok is
	// false when it has not, so that another reader is tried. Errors name the file and entry.
	ReadPredictions(path string, data []byte) (preds map[string]Prediction, ok bool, err error)
}

// RepoNamer is implemented by profiles whose instance ids name their repository in a shape of
// their own, so that compare groups instances by repository without the dataset.
type RepoNamer interface {
	// RepoOf returns the repository ("owner/name") an instance id of the family names; ok is
	// false when id is not of the family's shape.
	RepoOf(id string) (repo string, ok bool)
}
