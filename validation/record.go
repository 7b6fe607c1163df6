package validation

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Outcome is what the validation of one instance found.
type Outcome string

// Outcomes, see the package documentation.
const (
	OK             Outcome = "ok"
	GoldFails      Outcome = "gold_fails"
	EmptyPasses    Outcome = "empty_passes"
	Flaky          Outcome = "flaky"
	Infrastructure Outcome = "infrastructure"
	KnownBad       Outcome = "known_bad"
)

// Outcomes lists every outcome in display order.
var Outcomes = []Outcome{OK, GoldFails, EmptyPasses, Flaky, Infrastructure, KnownBad}

// Broken reports whether an instance with this outcome leaves the paired statistics: its
// environment cannot tell a good patch from a bad one (gold fails, empty passes, the
// infrastructure failed, or a maintainers' list says so). Flaky instances are not broken: they
// are treated as flaky instances are.
func (o Outcome) Broken() bool {
	return o == GoldFails || o == EmptyPasses || o == Infrastructure || o == KnownBad
}

// Title is the outcome for humans: "gold fails".
func (o Outcome) Title() string { return strings.ReplaceAll(string(o), "_", " ") }

// ParseOutcome reads an outcome written as its name ("gold_fails"), with dashes or spaces
// ("gold-fails", "gold fails"), in any case.
func ParseOutcome(s string) (Outcome, error) {
	norm := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	for _, o := range Outcomes {
		if string(o) == norm {
			return o, nil
		}
	}
	names := make([]string, len(Outcomes))
	for i, o := range Outcomes {
		names[i] = string(o)
	}
	return "", fmt.Errorf("unknown outcome %q: want one of %s", s, strings.Join(names, ", "))
}

// Patches an instance is validated with.
const (
	PatchGold  = "gold"
	PatchEmpty = "empty"
)

// Groups of expected tests.
const (
	GroupFailToPass = "FAIL_TO_PASS"
	GroupPassToPass = "PASS_TO_PASS"
)

// Statuses of a test in a grading, as its family's parser read the log. StatusMissing is a test
// the log does not name: it was not collected (or not run).
const (
	StatusPassed  = "passed"
	StatusFailed  = "failed"
	StatusError   = "error"
	StatusSkipped = "skipped"
	StatusXFail   = "xfail"
	StatusMissing = "missing"
)

// Passing reports whether a status counts as a pass (passed, xfail).
func Passing(status string) bool { return status == StatusPassed || status == StatusXFail }

// Verdicts of one grading.
const (
	VerdictResolved   = "resolved"
	VerdictUnresolved = "unresolved"
	VerdictError      = "error"
)

// Grading is one grading of an instance with one patch: its verdict and, when the family's
// grader can say, the status of each expected test.
type Grading struct {
	Patch   string `json:"patch"`  // PatchGold or PatchEmpty
	Repeat  int    `json:"repeat"` // 1-based
	Verdict string `json:"verdict"`
	// ErrorKind and Reason say why a grading is an error (the kinds of family.ErrorKind);
	// Infrastructure is set for the environment's failures (image, container, timeout, assets).
	ErrorKind      string `json:"error_kind,omitempty"`
	Infrastructure bool   `json:"infrastructure,omitempty"`
	Reason         string `json:"reason,omitempty"`
	// Tests is the status of every FAIL_TO_PASS and PASS_TO_PASS test (Status* constants); nil
	// when the grading left no usable log or the family's grader cannot say.
	Tests map[string]string `json:"tests,omitempty"`
	// Collected is how many tests the log names at all (nil: unknown); 0 means the runner
	// collected none.
	Collected *int `json:"collected,omitempty"`
	// ExitCode is the test command's exit status, when the log records it.
	ExitCode *int `json:"exit_code,omitempty"`
	// Dir is the folder of the grading's files (eval's layout of one instance).
	Dir string `json:"dir,omitempty"`
}

// Test is one test concerned by an outcome: a test failing under the gold patch, passing under
// the empty patch, or whose status varies between repeats.
type Test struct {
	Name   string `json:"name"`
	Group  string `json:"group"`  // GroupFailToPass or GroupPassToPass
	Patch  string `json:"patch"`  // the patch it was seen under
	Status string `json:"status"` // how it ended; for a flaky test the first repeat's status
	// Statuses is its status in each repeat, for a flaky test.
	Statuses []string `json:"statuses,omitempty"`
}

// String is "name (status)" or, for a flaky test, "name (passed, failed, …)".
func (t Test) String() string {
	if len(t.Statuses) > 0 {
		return t.Name + " (" + strings.Join(t.Statuses, ", ") + ")"
	}
	return t.Name + " (" + t.Status + ")"
}

// Record is the validation of one instance.
type Record struct {
	InstanceID string  `json:"instance_id"`
	Outcome    Outcome `json:"outcome"`
	// Reason is one line for humans: what was found.
	Reason string `json:"reason"`
	Tests  []Test `json:"tests"`
	// Image is the image graded, ImageDigest the digest of its content then ("" when the
	// backend could not say): a record holds only while the image keeps that digest.
	Image       string `json:"image"`
	ImageDigest string `json:"image_digest"`
	// Dataset and DatasetRevision name the data the row was read from (a revision, or the
	// sha256 of a local file).
	Dataset         string `json:"dataset"`
	DatasetRevision string `json:"dataset_revision"`
	// Repeats is how many times each patch was graded (0 for a KnownBad entry).
	Repeats  int       `json:"repeats"`
	Gradings []Grading `json:"gradings"`
	// Source is "validate", or "known-bad:<file>" for an entry of a maintainers' list.
	Source      string    `json:"source"`
	Note        string    `json:"note,omitempty"`
	ToolVersion string    `json:"tool_version"`
	Date        time.Time `json:"date"`
}

// Sources of records.
const (
	SourceValidate = "validate"
	sourceKnownBad = "known-bad:"
)

// FromKnownBad reports whether the record comes from a maintainers' list.
func (r Record) FromKnownBad() bool { return strings.HasPrefix(r.Source, sourceKnownBad) }

// Summary is the record in one line: "gold fails: 2 tests fail under the gold patch: …".
func (r Record) Summary() string {
	s := r.Outcome.Title()
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	if r.Note != "" && !strings.Contains(r.Reason, r.Note) {
		s += " (" + r.Note + ")"
	}
	return s
}

// Fresh reports whether r still answers for an instance whose image now has digest and that is
// to be graded repeats times: the same digest (when both are known), at least as many repeats,
// and a record of validate's. A known-bad entry is always fresh.
func (r Record) Fresh(digest string, repeats int) bool {
	if r.FromKnownBad() {
		return true
	}
	if r.ImageDigest != digest {
		return false
	}
	return r.Repeats >= repeats
}

// GoldFailures returns the tests that did not pass under the gold patch in the record's first
// gold grading that says, by name: the tests an environment fails whatever the patch.
func (r Record) GoldFailures() map[string]string {
	for _, g := range r.Gradings {
		if g.Patch == PatchGold && g.Tests != nil {
			out := map[string]string{}
			for name, st := range g.Tests {
				if !Passing(st) {
					out[name] = st
				}
			}
			return out
		}
	}
	return nil
}

// GoldCollectedNone reports whether every gold grading that says found no test at all.
func (r Record) GoldCollectedNone() bool {
	seen := false
	for _, g := range r.Gradings {
		if g.Patch != PatchGold || g.Collected == nil {
			continue
		}
		if *g.Collected > 0 {
			return false
		}
		seen = true
	}
	return seen
}

// Counts counts records by outcome.
func Counts(recs map[string]Record) map[Outcome]int {
	out := map[Outcome]int{}
	for _, r := range recs {
		out[r.Outcome]++
	}
	return out
}

// CountsLine is "3 ok, 1 gold fails, 1 flaky" (outcomes in display order, absent ones left out).
func CountsLine(counts map[Outcome]int) string {
	var parts []string
	for _, o := range Outcomes {
		if n := counts[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o.Title()))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// BrokenIDs returns the ids of the broken records, sorted.
func BrokenIDs(recs map[string]Record) []string {
	var ids []string
	for id, r := range recs {
		if r.Outcome.Broken() {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
