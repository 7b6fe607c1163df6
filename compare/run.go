package compare

import (
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/all"
)

// Verdict is what became of one instance in one run, as far as a comparison is concerned.
type Verdict string

// Verdicts. Resolved, Unresolved, Error and EmptyPatch are final outcomes: the instance was
// attempted and graded (or could not be). NotSubmitted means the run has no final outcome for the
// instance — it was never run, its last attempt failed for infrastructure reasons or was cut by a
// budget, or its prediction was never evaluated — and it is never counted as unresolved.
const (
	Resolved     Verdict = "resolved"
	Unresolved   Verdict = "unresolved"
	Error        Verdict = "error"
	EmptyPatch   Verdict = "empty_patch"
	NotSubmitted Verdict = "not_submitted"
)

// Verdicts lists every verdict in display order.
var Verdicts = []Verdict{Resolved, Unresolved, Error, EmptyPatch, NotSubmitted}

// Covered reports whether v is a final outcome, so that the instance takes part in paired
// statistics.
func (v Verdict) Covered() bool { return v != NotSubmitted && v != "" }

// Kind names the form an input was read from.
type Kind string

// Input kinds.
const (
	KindRunDir        Kind = "run_dir"             // a swebench-run output directory
	KindSweepCell     Kind = "sweep_cell"          // a run directory that is a cell of a sweep
	KindMini          Kind = "mini_swe_agent"      // mini-swe-agent output with harness logs
	KindHarnessReport Kind = "harness_report"      // <model>.<run_id>.json, schema_version 2
	KindSBCLIReport   Kind = "sbcli_report"        // sb-cli get-report output
	KindReportDir     Kind = "report_dir"          // <id>/report.json per instance
	KindExperiments   Kind = "experiments_results" // SWE-bench/experiments results/results.json
	KindFamilyReport  Kind = "family_report"       // another dataset family's verdict files (SWE-bench Pro's eval_results.json)
)

// Instance is one instance of one run. Its figures are nil when they are not known — the run's
// form does not record them (Run.HasCost, …), or it does but not for this instance (no
// trajectory, no ledger record, a provider that reported no usage): unknown is never zero.
type Instance struct {
	ID         string
	Repo       string   // owner/name, from the instance id
	Verdict    Verdict  //
	ExitStatus string   // the agent's exit status, when known
	Detail     string   // why: an error reason, "not evaluated", an unfinished status
	Cost       *float64 // dollars over all attempts
	Steps      *int     // model calls of the last attempt
	Tokens     *Tokens  // over all attempts
	Seconds    *float64 // last attempt, queued → end
	Attempts   int      // attempts recorded, retries within a run and resumes included (Run.HasAttempts)
	// Tests are the test lists of another dataset family's verdict file, by its groups, when it
	// lists them (family.InstanceVerdict.Tests); SWE-bench's reports are read by the report itself.
	Tests map[string]family.TestGroup
	Log   string // that verdict file's test output, when its folder holds one (family.InstanceVerdict.Log)
	// FamilyLayout is the layout of another dataset family the verdict was read in
	// (family.FolderVerdicts.Format); empty for SWE-bench's forms.
	FamilyLayout string
}

// Tokens counts model tokens.
type Tokens struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

// Run is one set of per-instance verdicts read from one input (or one cell of a sweep).
type Run struct {
	Label           string // unique among the runs read together
	Path            string
	Kind            Kind
	Model           string
	Dataset         string // e.g. princeton-nlp/SWE-bench_Lite:dev, when known
	DatasetRevision string
	// DatasetName is a sweep cell's name of its dataset (the sweep file's datasets[].name): cells
	// of one sweep under different names are on different datasets, and the comparison names the
	// dataset so.
	DatasetName string
	ConfigHash  string // ConfigHash of the resolved config, when known
	Sweep       string // the sweep's name, for sweep cells
	SweepDir    string // the sweep folder, for sweep cells
	Cell        string // the cell's name, for sweep cells
	Variant     string // cells of one variant are repeats of each other
	Repeat      int    // 1-based, for sweep cells
	// Group names the comparison side the run belongs to: runs of one group are repeats
	// (the cells of one sweep variant). Empty: the run is a side of its own.
	Group string
	// ImpliedUnresolved: the input lists only resolved and failed ids (experiments
	// results.json); any other instance of the dataset is unresolved.
	ImpliedUnresolved bool
	// Total is the size of the dataset the input says it covers, when it says so.
	Total int

	// HasCost, …: the input's form records the figure (its instances may still lack it).
	HasCost, HasSteps, HasTokens, HasDuration, HasAttempts bool
	// ReportLayouts counts the per-instance report.json files read, by their layout
	// (eval.ReportLayout: the harness's, sb-cli's); empty when the form has none.
	ReportLayouts map[string]int

	Instances []Instance // sorted by ID
	Warnings  []string
	// Flags are the trajectories' flags; nil when the form has no trajectories.
	Flags *Flags
	// GradingFlaky are the instances whose verdict changed between the repeated gradings of
	// the run's evaluation (eval --repeat: the run report's flaky_ids).
	GradingFlaky []string

	index map[string]int
}

// Get returns the instance with the given id.
func (r *Run) Get(id string) (*Instance, bool) {
	if r.index == nil {
		r.reindex()
	}
	k, ok := r.index[id]
	if !ok {
		return nil, false
	}
	return &r.Instances[k], true
}

// Count returns the number of instances with verdict v.
func (r *Run) Count(v Verdict) int {
	n := 0
	for k := range r.Instances {
		if r.Instances[k].Verdict == v {
			n++
		}
	}
	return n
}

// finish sorts the instances, fills in their repositories and builds the index.
func (r *Run) finish() {
	sort.Slice(r.Instances, func(i, j int) bool { return r.Instances[i].ID < r.Instances[j].ID })
	for k := range r.Instances {
		if r.Instances[k].Repo == "" {
			r.Instances[k].Repo = RepoOf(r.Instances[k].ID)
		}
	}
	r.reindex()
}

func (r *Run) reindex() {
	r.index = make(map[string]int, len(r.Instances))
	for k := range r.Instances {
		r.index[r.Instances[k].ID] = k
	}
}

// instancesFrom turns a map of instances keyed by id into a run's list.
func instancesFrom(m map[string]*Instance) []Instance {
	out := make([]Instance, 0, len(m))
	for id, in := range m {
		in.ID = id
		out = append(out, *in)
	}
	return out
}

// RepoOf derives the repository of a SWE-bench instance id: "owner__name-1234" → "owner/name",
// or of another dataset family's id shape (family/all.RepoOf: SWE-bench Pro's). An id of another
// shape is its own repository.
func RepoOf(id string) string {
	if repo, ok := all.RepoOf(id); ok {
		return repo
	}
	owner, rest, ok := strings.Cut(id, "__")
	if !ok {
		return id
	}
	if k := strings.LastIndexByte(rest, '-'); k > 0 && isDigits(rest[k+1:]) {
		rest = rest[:k]
	}
	return owner + "/" + rest
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
