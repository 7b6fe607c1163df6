package submission

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Severity grades a finding.
type Severity int

const (
	// Note is information for the README (how a checklist box was decided, what was assumed).
	Note Severity = iota
	// Warn is a soft failure: the folder is built only with --force, and the finding is written
	// into the README.
	Warn
	// Fail is a hard failure: the folder is not built (and --check fails).
	Fail
)

func (s Severity) String() string {
	switch s {
	case Fail:
		return "fail"
	case Warn:
		return "warning"
	}
	return "note"
}

// Checks, by the id findings carry (stable: the README and --check refer to them).
const (
	CheckSplit          = "split"            // the split and folder name
	CheckPredictions    = "predictions"      // entries that are not predictions
	CheckDuplicates     = "duplicate-ids"    // an instance predicted twice
	CheckModelName      = "model-name"       // more than one model_name_or_path
	CheckUnknown        = "unknown-instance" // predictions for instances not in the split
	CheckMissing        = "missing"          // instances of the split without a prediction
	CheckTrajectories   = "trajectories"     // predicted instances without a trajectory
	CheckTrajSubmission = "trajectory-patch" // a trajectory whose submission is not the prediction
	CheckLogs           = "logs"             // predicted instances without an evaluation log
	CheckStaleLogs      = "stale-logs"       // a log made for another patch than the prediction
	CheckRegrade        = "regrade"          // report.json and the regraded log disagree
	CheckTemplates      = "templates"        // templates using test knowledge, hints or gold patches
	CheckAttempts       = "attempts"         // pass@1 versus several attempts
	CheckTestFiles      = "test-files"       // patches that edit test files
	CheckDataset        = "dataset"          // the run's dataset and revision
	CheckMetadata       = "metadata"         // metadata.yaml
	CheckResults        = "results"          // results/ against its recomputation
	CheckFiles          = "files"            // files get_results would delete
	CheckFlags          = "flags"            // resolved instances whose trajectory reached beyond the task's start
)

// Finding is one result of a check.
type Finding struct {
	Check    string
	Severity Severity
	Message  string
	IDs      []string // the instances concerned, when there are any
}

func (f Finding) String() string {
	return fmt.Sprintf("%s [%s]: %s", f.Severity, f.Check, f.Message)
}

// Findings is a list of findings.
type Findings []Finding

// Worst is the highest severity among them (Note when empty).
func (fs Findings) Worst() Severity {
	w := Note
	for _, f := range fs {
		w = max(w, f.Severity)
	}
	return w
}

// Of returns the findings of one severity.
func (fs Findings) Of(s Severity) Findings {
	var out Findings
	for _, f := range fs {
		if f.Severity == s {
			out = append(out, f)
		}
	}
	return out
}

// Sorted orders the findings: failures first, then warnings, then notes, each by check.
func (fs Findings) Sorted() Findings {
	out := append(Findings(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Severity != out[j].Severity {
			return out[i].Severity > out[j].Severity
		}
		return out[i].Check < out[j].Check
	})
	return out
}

// ErrChecksFailed is wrapped by the error of a build or a check that found hard failures, or
// soft ones without --force.
var ErrChecksFailed = errors.New("submission checks failed")

// ChecksError carries the findings that stopped a build or failed a check.
type ChecksError struct {
	Findings Findings
	Force    bool // the soft findings were accepted
}

func (e *ChecksError) Error() string {
	fails, warns := len(e.Findings.Of(Fail)), len(e.Findings.Of(Warn))
	switch {
	case fails > 0:
		return fmt.Sprintf("%v: %d failures, %d warnings", ErrChecksFailed, fails, warns)
	default:
		return fmt.Sprintf("%v: %d warnings (look at them; pass --force to accept them, and they are written into the README)", ErrChecksFailed, warns)
	}
}

func (e *ChecksError) Unwrap() error { return ErrChecksFailed }

// decide returns a *ChecksError when the findings stop the build: any failure, or a warning
// without force.
func decide(fs Findings, force bool) error {
	w := fs.Worst()
	if w == Fail || (w == Warn && !force) {
		return &ChecksError{Findings: fs.Sorted(), Force: force}
	}
	return nil
}

// idList names at most n ids, then how many more there are.
func idList(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}

// acceptedMarker is the README line recording the soft findings accepted with --force, which
// --check honours.
const acceptedMarker = "<!-- swebench-run accepted:"

var acceptedRe = regexp.MustCompile(`<!-- swebench-run accepted: ([a-z0-9 ,_-]*) -->`)

// acceptedChecks reads the checks a README records as accepted.
func acceptedChecks(readme string) map[string]bool {
	out := map[string]bool{}
	for _, m := range acceptedRe.FindAllStringSubmatch(readme, -1) {
		for _, c := range strings.Split(m[1], ",") {
			if c = strings.TrimSpace(c); c != "" {
				out[c] = true
			}
		}
	}
	return out
}
