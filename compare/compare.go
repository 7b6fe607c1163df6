package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/validation"
)

// SchemaVersion is the version of the JSON form of Result (see JSON.md). Version 2 groups the
// inputs by dataset (Result.Datasets, Input.Dataset, Pair.Dataset), moves best into the
// dataset, adds the pooled figures over datasets and the gate's correction for several datasets.
const SchemaVersion = 2

// Options of a comparison.
type Options struct {
	// Baseline names the reference input: an input's name, a run's label or path, or a sweep
	// folder or sweep name. When it names a sweep with several variants, each other input is
	// compared with the baseline variant of the same name. Empty: no gate.
	Baseline string
	// Alpha is the significance level of the regression gate; the confidence intervals are at
	// 1 − Alpha. Default 0.05.
	Alpha float64
	// Seed and Resamples drive the bootstrap used when an input has repeats (defaults 1, 2000).
	Seed      uint64
	Resamples int
	// History holds earlier nights (ReadHistory): an instance whose verdict differed between
	// entries of the same model, config hash, dataset and dataset revision as an input is flaky.
	History []HistoryEntry
	// Universe lists the dataset's instance ids, when known: inputs that imply unresolved
	// instances (experiments results.json) are completed from it as well as from the others.
	Universe []string
	// Validation holds the validation of the instances' environments (package validation), by
	// instance id: broken instances (gold fails, empty passes, infrastructure, known bad) leave
	// every pair's figures and the gate, flaky ones are flaky (Result.SetApart says which).
	// ValidationSource names where it was read. IncludeBroken keeps them all: the figures are
	// those without a validation.
	Validation       map[string]validation.Record
	ValidationSource string
	IncludeBroken    bool
}

func (o *Options) defaults() {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = 0.05
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Resamples <= 0 {
		o.Resamples = 2000
	}
}

// Result is a comparison: the datasets, one Input per compared side (each on one dataset), the
// pairs within each dataset, the figures pooled over datasets, the gate, and the verdicts of
// every instance. Its JSON form is stable (SchemaVersion, JSON.md).
type Result struct {
	SchemaVersion   int            `json:"schema_version"`
	Alpha           float64        `json:"alpha"`
	ConfidenceLevel float64        `json:"confidence_level"`
	Methods         Methods        `json:"methods"`
	Instances       int            `json:"instances"` // ids known to any input
	Datasets        []DatasetGroup `json:"datasets"`
	Inputs          []Input        `json:"inputs"` // grouped by dataset, in the order of Datasets
	Pairs           []Pair         `json:"pairs"`  // within a dataset only
	VsBest          []Pair         `json:"vs_best,omitempty"`
	Pooled          []Pooled       `json:"pooled,omitempty"`   // pairs found on several datasets
	Variants        []Variant      `json:"variants,omitempty"` // inputs found on several datasets
	Gate            *Gate          `json:"gate,omitempty"`
	Trend           []VariantTrend `json:"trend,omitempty"` // set by the caller from the history
	Warnings        []string       `json:"warnings"`
	SetApart        *SetApart      `json:"set_apart,omitempty"` // what the validation set apart; absent without one
	Rows            []Row          `json:"instance_verdicts"`
	runs            [][]*Run       // per input, its runs
	verdicts        [][][]Verdict
}

// Methods names the statistical methods used.
type Methods struct {
	CI         string `json:"ci"`
	Test       string `json:"test"`
	Bootstrap  string `json:"bootstrap"`
	Pooled     string `json:"pooled"`
	Correction string `json:"correction"`
}

// DatasetGroup is one dataset of the comparison: its inputs are compared with each other only.
// Runs are on one dataset when they record the same dataset name and either the same revision or
// revisions that share instances (two revisions of one dataset: compared, with a warning); a
// sweep's cells follow the sweep's datasets; a run that records no dataset joins the one it
// shares the most instances with.
type DatasetGroup struct {
	// Name is how the output names the dataset: the sweep's name for it, else the dataset's own
	// (with @revision when two groups would share it); "" for runs that record none.
	Name      string   `json:"name"`
	Dataset   string   `json:"dataset"`   // as the runs record it (run.json, sweep.json); "" unknown
	Revisions []string `json:"revisions"` // recorded by its runs, sorted
	Instances int      `json:"instances"` // ids known to its inputs
	Inputs    []string `json:"inputs"`    // the names of its inputs, in Result.Inputs order
	// Best is, with 3 or more inputs, the one with the highest resolved rate (VsBest).
	Best string `json:"best,omitempty"`
}

// Input is one side of the comparison: a run, or the repeats of one sweep variant, on one
// dataset.
type Input struct {
	Name         string          `json:"name"`
	Dataset      string          `json:"dataset"` // DatasetGroup.Name
	Runs         []RunInfo       `json:"runs"`
	Repeats      int             `json:"repeats"`
	Instances    int             `json:"instances"` // known to any repeat
	Covered      int             `json:"covered"`   // with a final outcome in at least one repeat
	Resolved     float64         `json:"resolved"`  // sum over instances of the mean resolved over repeats
	ResolvedRate float64         `json:"resolved_rate"`
	Verdicts     map[Verdict]int `json:"verdicts"` // over all repeats
	ExitStatuses map[string]int  `json:"exit_statuses"`
	Pass         *PassK          `json:"pass_k,omitempty"`
	Flaky        []string        `json:"flaky"`         // verdicts differ between repeats
	FlakyHistory []string        `json:"flaky_history"` // verdicts differ in the history
	Metrics      Metrics         `json:"metrics"`
	Repos        []RepoStat      `json:"repos"`
	// Attempts: absent when no run of the input records its attempts.
	Attempts *Attempts `json:"attempts,omitempty"`
}

// Attempts are an input's attempts per instance, over the runs that record them.
type Attempts struct {
	Total   int      `json:"total"`   // attempts of every instance, retries and resumes included
	Retried []string `json:"retried"` // instances attempted more than once (in any run)
}

// RunInfo describes one run of an input.
type RunInfo struct {
	Label           string          `json:"label"`
	Path            string          `json:"path"`
	Kind            Kind            `json:"kind"`
	Model           string          `json:"model,omitempty"`
	Dataset         string          `json:"dataset,omitempty"`
	DatasetRevision string          `json:"dataset_revision,omitempty"`
	ConfigHash      string          `json:"config_hash,omitempty"`
	Sweep           string          `json:"sweep,omitempty"`
	Cell            string          `json:"cell,omitempty"`
	Variant         string          `json:"variant,omitempty"`
	Repeat          int             `json:"repeat,omitempty"`
	Total           int             `json:"total,omitempty"`
	ReportLayouts   map[string]int  `json:"report_layouts,omitempty"` // per-instance report.json files read, by layout
	Verdicts        map[Verdict]int `json:"verdicts"`
	Resolved        int             `json:"resolved"`
	Covered         int             `json:"covered"`
	Flags           *Flags          `json:"flags,omitempty"` // the trajectories' flags, when the form has trajectories
}

// PassK is pass@k (resolved in at least one of k repeats) and pass^k (resolved in all k), over
// the instances every repeat covers.
type PassK struct {
	K         int     `json:"k"`
	Instances int     `json:"instances"`
	PassAtK   float64 `json:"pass_at_k"`
	PassHatK  float64 `json:"pass_hat_k"`
}

// Metrics are an input's costs over all its repeats; a field is absent when the input's form
// does not record it. Each is taken over the instances whose figure is known (N of Of): an
// unknown figure (no trajectory, no usage reported) is left out, never counted as zero.
type Metrics struct {
	Cost    *Dist        `json:"cost,omitempty"`
	Steps   *Dist        `json:"steps,omitempty"`
	Seconds *Dist        `json:"duration_seconds,omitempty"`
	Tokens  *TokenTotals `json:"tokens,omitempty"`
	// CostPerResolved is the cost of the instances whose cost is known ÷ how many of them were
	// resolved; nil when none of them was.
	CostPerResolved *float64 `json:"cost_per_resolved,omitempty"`
}

// Dist summarises per-instance values: N known of Of instances. Without a known value (N 0),
// Total, Mean and Median are null in JSON.
type Dist struct {
	N      int     `json:"n"`
	Of     int     `json:"of"`
	Total  float64 `json:"total"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
}

// MarshalJSON writes null for the figures of a Dist without values.
func (d Dist) MarshalJSON() ([]byte, error) {
	type plain Dist
	if d.N > 0 {
		return json.Marshal(plain(d))
	}
	return json.Marshal(struct {
		N      int      `json:"n"`
		Of     int      `json:"of"`
		Total  *float64 `json:"total"`
		Mean   *float64 `json:"mean"`
		Median *float64 `json:"median"`
	}{N: d.N, Of: d.Of})
}

// TokenTotals are the tokens of the N of Of instances whose counts are known.
type TokenTotals struct {
	Input  int `json:"input"`
	Output int `json:"output"`
	N      int `json:"n"`
	Of     int `json:"of"`
}

// RepoStat is an input's result on one repository.
type RepoStat struct {
	Repo     string  `json:"repo"`
	Covered  int     `json:"covered"`
	Resolved float64 `json:"resolved"`
}

// Pair compares input B with input A (the reference: the baseline, or the earlier input) on the
// instances both cover.
type Pair struct {
	Dataset    string     `json:"dataset"` // DatasetGroup.Name: both inputs are on it
	A          string     `json:"a"`
	B          string     `json:"b"`
	Common     int        `json:"common"`
	AOnly      []string   `json:"a_only"`
	BOnly      []string   `json:"b_only"`
	ResolvedA  float64    `json:"resolved_a"` // on the common instances (mean over repeats)
	ResolvedB  float64    `json:"resolved_b"`
	RateA      float64    `json:"rate_a"`
	RateB      float64    `json:"rate_b"`
	Flaky      []string   `json:"flaky"`               // common instances left out of the paired figures
	SetApart   []string   `json:"set_apart,omitempty"` // instances both cover whose environment is broken: left out of every figure
	Paired     int        `json:"paired"`
	Both       int        `json:"both"`
	Neither    int        `json:"neither"`
	Newly      []string   `json:"newly_resolved"`       // resolved by B, not by A
	Regressed  []string   `json:"regressed"`            // resolved by A, not by B
	Difference *float64   `json:"difference,omitempty"` // B − A on the paired instances, a fraction
	CILow      *float64   `json:"ci_low,omitempty"`
	CIHigh     *float64   `json:"ci_high,omitempty"`
	McNemarP   float64    `json:"mcnemar_p"`
	Bootstrap  *Bootstrap `json:"bootstrap,omitempty"` // with repeats: mean resolved, clustered by instance
	Repos      []RepoPair `json:"repos"`
	Warnings   []string   `json:"warnings"`
	diffs      []float64  // per common instance, b's mean resolved minus a's
}

// RepoPair is a pair's result on one repository.
type RepoPair struct {
	Repo      string  `json:"repo"`
	Common    int     `json:"common"`
	ResolvedA float64 `json:"resolved_a"`
	ResolvedB float64 `json:"resolved_b"`
	Newly     int     `json:"newly_resolved"`
	Regressed int     `json:"regressed"`
}

// Gate is the regression verdict of every input against the baseline, dataset by dataset.
type Gate struct {
	Baseline string  `json:"baseline"`
	Alpha    float64 `json:"alpha"`
	// Correction names how the p-values of an input's datasets are adjusted (MethodCorrection).
	Correction string        `json:"correction"`
	Regression bool          `json:"regression"` // some input regressed significantly on some dataset
	Verdicts   []GateVerdict `json:"verdicts"`
}

// Gate outcomes.
const (
	OutcomeRegression  = "regression"
	OutcomeImprovement = "improvement"
	OutcomeNoChange    = "no significant change"
	OutcomeNoOverlap   = "no common instances"
)

// GateVerdict is one input's verdict against the baseline on one dataset.
type GateVerdict struct {
	Dataset    string `json:"dataset"`
	Candidate  string `json:"candidate"`
	Baseline   string `json:"baseline"`
	Outcome    string `json:"outcome"`
	Regression bool   `json:"regression"`
	// Test is "mcnemar" (single runs) or "bootstrap" (repeats); absent without a test (no
	// common instances, all of them flaky).
	Test string `json:"test,omitempty"`
	// P is the test's p-value on this dataset; PAdjusted that p-value adjusted by Holm's
	// step-down over the Tests datasets the candidate was tested on (equal to P on one).
	P         *float64 `json:"p,omitempty"`
	PAdjusted *float64 `json:"p_adjusted,omitempty"`
	Tests     int      `json:"tests,omitempty"`
	Line      string   `json:"line"`
}

// Row holds the verdicts of one instance: Verdicts[i][r] is input i's verdict in its repeat r
// ("" when that run does not know the instance).
type Row struct {
	ID       string      `json:"id"`
	Repo     string      `json:"repo"`
	Flaky    bool        `json:"flaky"`
	Verdicts [][]Verdict `json:"verdicts"`
	// Environment is the instance's validation outcome, when the comparison has one.
	Environment validation.Outcome `json:"environment,omitempty"`
}

// ErrNoInputs is returned by Compare without runs.
var ErrNoInputs = errors.New("nothing to compare")

// side is an input's verdicts per instance during the computation.
type side struct {
	name   string
	runs   []*Run
	group  int         // index of its dataset
	known  []bool      // per instance: known to a run of its dataset
	v      [][]Verdict // per run, aligned to the ids
	n, c   []int32     // per instance: repeats covering it, repeats resolving it
	flaky  map[int]bool
	hflaky map[int]bool
	// broken and vflaky: instances the validation sets apart, or finds flaky.
	broken, vflaky map[int]bool
}

func (s *side) stable(i int) bool  { return !s.flaky[i] && !s.hflaky[i] && !s.vflaky[i] }
func (s *side) mean(i int) float64 { return float64(s.c[i]) / float64(s.n[i]) }

// Compare compares runs: it groups them by dataset (DatasetGroup), and within each dataset runs
// of one Group are repeats of one input, every other run is an input of its own. Inputs are
// compared only with inputs of their own dataset; inputs of one name on several datasets are
// pooled over them (Pooled, Variants), and the gate corrects their p-values for the number of
// datasets.
func Compare(runs []*Run, opts Options) (*Result, error) {
	if len(runs) == 0 {
		return nil, ErrNoInputs
	}
	opts.defaults()
	level := 1 - opts.Alpha
	res := &Result{SchemaVersion: SchemaVersion, Alpha: opts.Alpha, ConfidenceLevel: level,
		Methods:  Methods{CI: MethodCI, Test: MethodTest, Bootstrap: MethodBootstrap, Pooled: MethodPooled, Correction: MethodCorrection},
		Warnings: []string{}, Pairs: []Pair{}}

	// The instance universe: every id any run knows, plus the given dataset.
	seen := map[string]int{}
	var ids []string
	add := func(id string) {
		if _, ok := seen[id]; !ok {
			seen[id] = 0
			ids = append(ids, id)
		}
	}
	for _, r := range runs {
		for k := range r.Instances {
			add(r.Instances[k].ID)
		}
	}
	for _, id := range opts.Universe {
		add(id)
	}
	sort.Strings(ids)
	for k, id := range ids {
		seen[id] = k
	}
	res.Instances = len(ids)
	repos := make([]string, len(ids))
	for k, id := range ids {
		repos[k] = RepoOf(id)
	}

	groups := groupDatasets(runs)
	res.Warnings = append(res.Warnings, nameGroups(groups)...)
	var sides []*side
	for gi, g := range groups {
		g.sides = groupSides(g.runs)
		// The ids of the dataset: what its runs know, and the given universe.
		known := make([]bool, len(ids))
		for _, r := range g.runs {
			for k := range r.Instances {
				known[seen[r.Instances[k].ID]] = true
			}
		}
		for _, id := range opts.Universe {
			known[seen[id]] = true
		}
		for _, s := range g.sides {
			s.group = gi
			s.known = known
			sides = append(sides, s)
		}
	}
	for _, s := range sides {
		for _, r := range s.runs {
			for _, w := range r.Warnings {
				res.Warnings = append(res.Warnings, r.Label+": "+w)
			}
			v := make([]Verdict, len(ids))
			for k := range r.Instances {
				v[seen[r.Instances[k].ID]] = r.Instances[k].Verdict
			}
			if r.ImpliedUnresolved {
				n := 0
				for k := range v {
					if !s.known[k] {
						continue
					}
					n++
					if v[k] == "" {
						v[k] = Unresolved
					}
				}
				if r.Total > 0 && n > r.Total {
					res.Warnings = append(res.Warnings, fmt.Sprintf("%s: the comparison knows %d instances of its dataset but its split has %d; %d instances of other splits count as unresolved in it", r.Label, n, r.Total, n-r.Total))
				}
			}
			s.v = append(s.v, v)
		}
		s.n, s.c = make([]int32, len(ids)), make([]int32, len(ids))
		s.flaky, s.hflaky, s.broken, s.vflaky = map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}
		for _, v := range s.v {
			for i, x := range v {
				if x.Covered() {
					s.n[i]++
					if x == Resolved {
						s.c[i]++
					}
				}
			}
		}
		for i := range ids {
			if s.c[i] > 0 && s.c[i] < s.n[i] {
				s.flaky[i] = true
			}
		}
		markGradingFlaky(s, seen)
		historyFlaky(s, ids, seen, opts.History)
	}
	res.SetApart = applyValidation(sides, ids, opts)

	for _, s := range sides {
		in := summarise(s, ids, repos)
		in.Dataset = groups[s.group].name
		res.Inputs = append(res.Inputs, in)
		res.runs = append(res.runs, s.runs)
		res.verdicts = append(res.verdicts, s.v)
	}
	for _, g := range groups {
		dg := DatasetGroup{Name: g.name, Dataset: g.dataset, Revisions: g.revisions(), Inputs: []string{}}
		for _, s := range g.sides {
			dg.Inputs = append(dg.Inputs, s.name)
		}
		for _, k := range g.sides[0].known {
			if k {
				dg.Instances++
			}
		}
		res.Datasets = append(res.Datasets, dg)
		res.Warnings = append(res.Warnings, datasetWarnings(g)...)
	}
	if len(groups) > 1 {
		for _, g := range groups {
			if len(g.sides) == 1 && g.sides[0].runs[0].Kind != KindSweepCell {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s is the only input on %s: inputs on other datasets are never compared with it", g.sides[0].name, datasetTitle(g.name)))
			}
		}
	}
	res.Rows = rows(sides, ids, repos)
	for k := range res.Rows {
		if rec, ok := opts.Validation[res.Rows[k].ID]; ok {
			res.Rows[k].Environment = rec.Outcome
		}
	}

	pair := func(a, b *side) Pair {
		p := comparePair(a, b, ids, repos, level, opts)
		p.Dataset = groups[a.group].name
		return p
	}
	if opts.Baseline != "" {
		matched := false
		var gatePairs []Pair
		for _, g := range groups {
			base := matchBaseline(g.sides, opts.Baseline)
			if len(base) == 0 {
				continue
			}
			matched = true
			isBase := map[int]bool{}
			for _, b := range base {
				isBase[b] = true
			}
			for x, sx := range g.sides {
				if isBase[x] {
					continue
				}
				b := base[0]
				if len(base) > 1 {
					b = baselineVariant(g.sides, base, sx)
					if b < 0 {
						why := fmt.Sprintf("the baseline %q has no variant %q", opts.Baseline, sx.runs[0].Variant)
						if sx.runs[0].Variant == "" {
							why = fmt.Sprintf("the baseline %q is a sweep of several variants and this input is no sweep variant", opts.Baseline)
						}
						res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s; not compared", sx.name+onDataset(groups, g), why))
						continue
					}
				}
				gatePairs = append(gatePairs, pair(g.sides[b], sx))
			}
		}
		if !matched {
			return nil, fmt.Errorf("baseline %q names no input; inputs are %s", opts.Baseline, names(sides))
		}
		for _, g := range groups {
			if len(matchBaseline(g.sides, opts.Baseline)) == 0 {
				res.Warnings = append(res.Warnings, fmt.Sprintf("the baseline %q has no input on %s: %s not compared", opts.Baseline, datasetTitle(g.name), names(g.sides)))
			}
		}
		res.Pairs = gatePairs
		res.Gate = gate(gatePairs, opts.Baseline, opts.Alpha)
	} else {
		for _, g := range groups {
			for a := range g.sides {
				for b := a + 1; b < len(g.sides); b++ {
					res.Pairs = append(res.Pairs, pair(g.sides[a], g.sides[b]))
				}
			}
		}
	}
	first := 0
	for gi, g := range groups {
		if len(g.sides) >= 3 {
			best := 0
			for k := range g.sides {
				if res.Inputs[first+k].ResolvedRate > res.Inputs[first+best].ResolvedRate {
					best = k
				}
			}
			res.Datasets[gi].Best = g.sides[best].name
			for x := range g.sides {
				if x != best {
					res.VsBest = append(res.VsBest, pair(g.sides[best], g.sides[x]))
				}
			}
		}
		first += len(g.sides)
	}
	if len(groups) > 1 {
		res.Pooled = pool(res.Pairs, level, opts)
		res.Variants = variants(res.Inputs)
		if res.Gate != nil {
			for k := range res.Pooled {
				res.Pooled[k].Line = pooledLine(res.Pooled[k], level)
			}
		}
	}
	return res, nil
}

// baselineVariant returns the baseline input (of base, indices into sides) that is the same
// variant as x — a sweep's model compared night by night — or −1. A variant of a sweep from
// before datasets were a dimension of their own ("MODEL-DATASET") matches the model on that
// dataset.
func baselineVariant(sides []*side, base []int, x *side) int {
	xr := x.runs[0]
	if xr.Variant == "" {
		return -1
	}
	for _, c := range base {
		br := sides[c].runs[0]
		switch {
		case br.Variant == xr.Variant,
			xr.DatasetName != "" && br.Variant == xr.Variant+"-"+xr.DatasetName,
			br.DatasetName != "" && xr.Variant == br.Variant+"-"+br.DatasetName:
			return c
		}
	}
	return -1
}

// onDataset is " on NAME" when the comparison has several datasets.
func onDataset(groups []*dsGroup, g *dsGroup) string {
	if len(groups) < 2 {
		return ""
	}
	return " on " + datasetTitle(g.name)
}

// groupSides makes the inputs: one per Group (in order of first appearance), one per other run.
// Names are the group or the label, made unique with the sweep's name.
func groupSides(runs []*Run) []*side {
	var sides []*side
	byGroup := map[string]*side{}
	for _, r := range runs {
		if r.Group == "" {
			sides = append(sides, &side{name: r.Label, runs: []*Run{r}})
			continue
		}
		key := r.SweepDir + "\x00" + r.Group
		if s, ok := byGroup[key]; ok {
			s.runs = append(s.runs, r)
			continue
		}
		s := &side{name: r.Group, runs: []*Run{r}}
		byGroup[key] = s
		sides = append(sides, s)
	}
	for _, s := range sides {
		sort.SliceStable(s.runs, func(i, j int) bool { return s.runs[i].Repeat < s.runs[j].Repeat })
	}
	count := map[string]int{}
	for _, s := range sides {
		count[s.name]++
	}
	for _, s := range sides {
		if count[s.name] > 1 && s.runs[0].Sweep != "" {
			s.name = s.runs[0].Sweep + "/" + s.name
		}
	}
	count = map[string]int{}
	for _, s := range sides {
		count[s.name]++
		if n := count[s.name]; n > 1 {
			s.name = fmt.Sprintf("%s (%d)", s.name, n)
		}
	}
	return sides
}

// names lists the sides' names, each once.
func names(sides []*side) string {
	var n []string
	done := map[string]bool{}
	for _, s := range sides {
		if !done[s.name] {
			done[s.name] = true
			n = append(n, fmt.Sprintf("%q", s.name))
		}
	}
	return strings.Join(n, ", ")
}

// matchBaseline returns the inputs the baseline names.
func matchBaseline(sides []*side, baseline string) []int {
	clean := filepath.Clean(baseline)
	var out []int
	for k, s := range sides {
		match := s.name == baseline
		for _, r := range s.runs {
			match = match || r.Label == baseline || filepath.Clean(r.Path) == clean ||
				(r.SweepDir != "" && filepath.Clean(r.SweepDir) == clean) || (r.Sweep != "" && r.Sweep == baseline)
		}
		if match {
			out = append(out, k)
		}
	}
	return out
}

// historyFlaky marks the instances whose verdict differed between history entries (and this
// comparison's runs) of the same model, config hash, dataset and revision as one of s's runs.
func historyFlaky(s *side, ids []string, index map[string]int, history []HistoryEntry) {
	if len(history) == 0 {
		return
	}
	for ri, r := range s.runs {
		if r.ConfigHash == "" {
			continue
		}
		key := historyKey(r.Model, r.ConfigHash, r.Dataset, r.DatasetRevision)
		// Per instance: bit 1 seen resolved, bit 2 seen evaluated and not resolved.
		seen := make([]uint8, len(ids))
		matched := false
		for _, h := range history {
			if historyKey(h.Model, h.ConfigHash, h.Dataset, h.DatasetRevision) != key {
				continue
			}
			matched = true
			resolved := map[string]bool{}
			for _, id := range h.ResolvedIDs {
				resolved[id] = true
			}
			for _, id := range h.EvaluatedIDs {
				i, ok := index[id]
				if !ok {
					continue
				}
				if resolved[id] {
					seen[i] |= 1
				} else {
					seen[i] |= 2
				}
			}
		}
		if !matched {
			continue
		}
		for i, x := range s.v[ri] {
			switch {
			case x == Resolved:
				seen[i] |= 1
			case x.Covered():
				seen[i] |= 2
			}
		}
		for i, b := range seen {
			if b == 3 {
				s.hflaky[i] = true
			}
		}
	}
}

func historyKey(model, hash, ds, rev string) string {
	return model + "\x00" + hash + "\x00" + ds + "\x00" + rev
}

// summarise computes an input's own figures.
func summarise(s *side, ids, repos []string) Input {
	in := Input{Name: s.name, Repeats: len(s.runs), Verdicts: map[Verdict]int{}, ExitStatuses: map[string]int{},
		Flaky: []string{}, FlakyHistory: []string{}}
	for ri, r := range s.runs {
		info := RunInfo{Label: r.Label, Path: r.Path, Kind: r.Kind, Model: r.Model, Dataset: r.Dataset,
			DatasetRevision: r.DatasetRevision, ConfigHash: r.ConfigHash, Sweep: r.Sweep, Cell: r.Cell,
			Variant: r.Variant, Repeat: r.Repeat, Total: r.Total, Verdicts: map[Verdict]int{}, Flags: r.Flags}
		if len(r.ReportLayouts) > 0 {
			info.ReportLayouts = r.ReportLayouts
		}
		for _, x := range s.v[ri] {
			if x == "" {
				continue
			}
			info.Verdicts[x]++
			in.Verdicts[x]++
			if x.Covered() {
				info.Covered++
			}
			if x == Resolved {
				info.Resolved++
			}
		}
		for k := range r.Instances {
			if st := r.Instances[k].ExitStatus; st != "" {
				in.ExitStatuses[st]++
			}
		}
		if r.HasAttempts {
			if in.Attempts == nil {
				in.Attempts = &Attempts{Retried: []string{}}
			}
			for k := range r.Instances {
				inst := &r.Instances[k]
				in.Attempts.Total += inst.Attempts
				if inst.Attempts > 1 {
					in.Attempts.Retried = append(in.Attempts.Retried, inst.ID)
				}
			}
		}
		in.Runs = append(in.Runs, info)
	}
	if in.Attempts != nil { // sorted, each id once over the repeats
		sort.Strings(in.Attempts.Retried)
		in.Attempts.Retried = compactStrings(in.Attempts.Retried)
	}
	repoIdx := map[string]int{}
	full, atK, hatK := 0, 0, 0
	k := int32(len(s.runs))
	for i := range ids {
		known := false
		for _, v := range s.v {
			known = known || v[i] != ""
		}
		if known {
			in.Instances++
		}
		if s.n[i] == 0 {
			continue
		}
		in.Covered++
		m := s.mean(i)
		in.Resolved += m
		j, ok := repoIdx[repos[i]]
		if !ok {
			j = len(in.Repos)
			repoIdx[repos[i]] = j
			in.Repos = append(in.Repos, RepoStat{Repo: repos[i]})
		}
		in.Repos[j].Covered++
		in.Repos[j].Resolved += m
		if s.flaky[i] {
			in.Flaky = append(in.Flaky, ids[i])
		}
		if s.hflaky[i] {
			in.FlakyHistory = append(in.FlakyHistory, ids[i])
		}
		if s.n[i] == k {
			full++
			if s.c[i] > 0 {
				atK++
			}
			if s.c[i] == k {
				hatK++
			}
		}
	}
	sort.Slice(in.Repos, func(a, b int) bool { return in.Repos[a].Repo < in.Repos[b].Repo })
	if in.Covered > 0 {
		in.ResolvedRate = in.Resolved / float64(in.Covered)
	}
	if k > 1 && full > 0 {
		in.Pass = &PassK{K: int(k), Instances: full, PassAtK: float64(atK) / float64(full), PassHatK: float64(hatK) / float64(full)}
	}
	in.Metrics = metrics(s.runs)
	return in
}

// metrics sums an input's per-instance costs over all its runs, over the instances whose figures
// are known.
func metrics(runs []*Run) Metrics {
	var m Metrics
	var cost, steps, secs []float64
	var tok TokenTotals
	hasCost, hasSteps, hasSecs, hasTok := false, false, false, false
	of, resolved := 0, 0
	for _, r := range runs {
		hasCost, hasSteps, hasSecs, hasTok = hasCost || r.HasCost, hasSteps || r.HasSteps, hasSecs || r.HasDuration, hasTok || r.HasTokens
		of += len(r.Instances)
		for k := range r.Instances {
			in := &r.Instances[k]
			if in.Cost != nil {
				cost = append(cost, *in.Cost)
				if in.Verdict == Resolved {
					resolved++
				}
			}
			if in.Steps != nil {
				steps = append(steps, float64(*in.Steps))
			}
			if in.Seconds != nil {
				secs = append(secs, *in.Seconds)
			}
			if in.Tokens != nil {
				tok.Input += in.Tokens.Input
				tok.Output += in.Tokens.Output
				tok.N++
			}
		}
	}
	if hasCost {
		m.Cost = dist(cost, of)
		if resolved > 0 {
			c := m.Cost.Total / float64(resolved)
			m.CostPerResolved = &c
		}
	}
	if hasSteps {
		m.Steps = dist(steps, of)
	}
	if hasSecs {
		m.Seconds = dist(secs, of)
	}
	if hasTok {
		tok.Of = of
		m.Tokens = &tok
	}
	return m
}

// dist summarises the known values v of of instances.
func dist(v []float64, of int) *Dist {
	d := &Dist{N: len(v), Of: of}
	for _, x := range v {
		d.Total += x
	}
	if len(v) > 0 {
		d.Mean = d.Total / float64(len(v))
		d.Median = median(v)
	}
	return d
}

// comparePair compares b with a on the instances both cover.
func comparePair(a, b *side, ids, repos []string, level float64, opts Options) Pair {
	p := Pair{A: a.name, B: b.name, AOnly: []string{}, BOnly: []string{}, Flaky: []string{},
		Newly: []string{}, Regressed: []string{}, Repos: []RepoPair{}, Warnings: []string{}}
	repoIdx := map[string]int{}
	repeats := len(a.runs) > 1 || len(b.runs) > 1
	var diffs []float64
	for i, id := range ids {
		ca, cb := a.n[i] > 0, b.n[i] > 0
		switch {
		case ca && !cb:
			p.AOnly = append(p.AOnly, id)
			continue
		case cb && !ca:
			p.BOnly = append(p.BOnly, id)
			continue
		case !ca && !cb:
			continue
		case a.broken[i] || b.broken[i]:
			p.SetApart = append(p.SetApart, id)
			continue
		}
		p.Common++
		ma, mb := a.mean(i), b.mean(i)
		p.ResolvedA += ma
		p.ResolvedB += mb
		diffs = append(diffs, mb-ma)
		j, ok := repoIdx[repos[i]]
		if !ok {
			j = len(p.Repos)
			repoIdx[repos[i]] = j
			p.Repos = append(p.Repos, RepoPair{Repo: repos[i]})
		}
		rp := &p.Repos[j]
		rp.Common++
		rp.ResolvedA += ma
		rp.ResolvedB += mb
		if !a.stable(i) || !b.stable(i) {
			p.Flaky = append(p.Flaky, id)
			continue
		}
		p.Paired++
		ra, rb := a.c[i] == a.n[i], b.c[i] == b.n[i]
		switch {
		case ra && rb:
			p.Both++
		case !ra && !rb:
			p.Neither++
		case rb:
			p.Newly = append(p.Newly, id)
			rp.Newly++
		default:
			p.Regressed = append(p.Regressed, id)
			rp.Regressed++
		}
	}
	sort.Slice(p.Repos, func(x, y int) bool { return p.Repos[x].Repo < p.Repos[y].Repo })
	if p.Common > 0 {
		p.RateA, p.RateB = p.ResolvedA/float64(p.Common), p.ResolvedB/float64(p.Common)
	}
	p.McNemarP = McNemarExact(len(p.Newly), len(p.Regressed))
	if p.Paired > 0 {
		d := float64(len(p.Newly)-len(p.Regressed)) / float64(p.Paired)
		lo, hi := TangoCI(len(p.Newly), len(p.Regressed), p.Paired, level)
		p.Difference, p.CILow, p.CIHigh = &d, &lo, &hi
	}
	p.diffs = diffs
	if repeats && len(diffs) > 0 {
		bs := BootstrapMeanCI(diffs, opts.Resamples, opts.Seed, level)
		p.Bootstrap = &bs
	}
	if len(p.AOnly) > 0 || len(p.BOnly) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("compared on the %d instances both cover; %s has %d alone, %s has %d alone", p.Common, p.A, len(p.AOnly), p.B, len(p.BOnly)))
	}
	return p
}

// gate decides, for every pair (baseline A, candidate B) on its dataset, whether B regressed
// significantly: its resolved rate is lower and the test's p-value, adjusted by Holm's step-down
// over the datasets B was tested on, is below alpha. The test is McNemar's exact test when both
// inputs are single runs, the bootstrap when either has repeats (its p-value inverts the
// percentile interval: on one dataset, a regression is an interval entirely below 0, as before
// the correction). Flaky instances are left out and counted.
func gate(pairs []Pair, baseline string, alpha float64) *Gate {
	g := &Gate{Baseline: baseline, Alpha: alpha, Correction: MethodCorrection, Verdicts: make([]GateVerdict, len(pairs))}
	below := make([]bool, len(pairs))
	family := map[string][]int{} // candidate → its tested pairs
	var order []string
	for k, p := range pairs {
		v := &g.Verdicts[k]
		*v = GateVerdict{Dataset: p.Dataset, Candidate: p.B, Baseline: p.A}
		var pv float64
		switch {
		case p.Common == 0:
			v.Outcome = OutcomeNoOverlap
			v.Line = fmt.Sprintf("%s: %s and %s cover no instance in common", OutcomeNoOverlap, p.B, p.A)
			continue
		case p.Paired == 0 && p.Bootstrap == nil:
			v.Outcome = OutcomeNoChange
			v.Line = fmt.Sprintf("%s: all %d common instances are flaky", OutcomeNoChange, len(p.Flaky))
			continue
		case p.Bootstrap != nil:
			v.Test, pv, below[k] = "bootstrap", p.Bootstrap.P, p.Bootstrap.below
		default:
			v.Test, pv, below[k] = "mcnemar", p.McNemarP, *p.Difference < 0
		}
		v.P = &pv
		if _, ok := family[p.B]; !ok {
			order = append(order, p.B)
		}
		family[p.B] = append(family[p.B], k)
	}
	for _, cand := range order {
		ks := family[cand]
		ps := make([]float64, len(ks))
		for j, k := range ks {
			ps[j] = *g.Verdicts[k].P
		}
		for j, adj := range HolmAdjust(ps) {
			k := ks[j]
			v := &g.Verdicts[k]
			v.PAdjusted, v.Tests = &adj, len(ks)
			switch {
			case adj < alpha && below[k]:
				v.Outcome = OutcomeRegression
			case adj < alpha:
				v.Outcome = OutcomeImprovement
			default:
				v.Outcome = OutcomeNoChange
			}
			v.Regression = v.Outcome == OutcomeRegression
			g.Regression = g.Regression || v.Regression
			v.Line = gateLine(pairs[k], *v, 1-alpha)
		}
	}
	return g
}

// gateLine is the one-line verdict, e.g. "regression: −3.2 points, 95% CI [−5.1, −1.3],
// McNemar p = 0.004, 21 regressed / 5 newly resolved, 3 flaky ignored"; on several datasets the
// p-value is followed by its Holm-adjusted value ("Holm-adjusted p = 0.008 over 2 datasets").
func gateLine(p Pair, v GateVerdict, level float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", v.Outcome)
	holm := ""
	if v.Tests > 1 {
		adj := PValue(*v.PAdjusted)
		if p.Bootstrap != nil { // a bootstrap p-value resolves no finer than one resample
			adj = BootstrapPValue(*v.PAdjusted, p.Bootstrap.Resamples/v.Tests)
		}
		holm = fmt.Sprintf(", Holm-adjusted p %s over %d datasets", pIs(adj), v.Tests)
	}
	if p.Bootstrap != nil {
		fmt.Fprintf(&b, "%s points (mean over repeats), %s CI [%s, %s] (bootstrap, seed %d)",
			Points(p.Bootstrap.Difference), Percent(level), Points(p.Bootstrap.CILow), Points(p.Bootstrap.CIHigh), p.Bootstrap.Seed)
		if holm != "" {
			fmt.Fprintf(&b, ", bootstrap p %s%s", pIs(BootstrapPValue(p.Bootstrap.P, p.Bootstrap.Resamples)), holm)
		}
		if p.Difference != nil {
			fmt.Fprintf(&b, ", McNemar p = %s on %d stable instances", PValue(p.McNemarP), p.Paired)
		}
	} else {
		fmt.Fprintf(&b, "%s points, %s CI [%s, %s], McNemar p = %s%s", Points(*p.Difference), Percent(level), Points(*p.CILow), Points(*p.CIHigh), PValue(p.McNemarP), holm)
	}
	fmt.Fprintf(&b, ", %d regressed / %d newly resolved, %d flaky ignored", len(p.Regressed), len(p.Newly), len(p.Flaky))
	if len(p.SetApart) > 0 {
		fmt.Fprintf(&b, ", %d with a broken environment set apart", len(p.SetApart))
	}
	return b.String()
}

// pIs joins a formatted p-value to "p": "= 0.03", or "< 0.0001" as it stands.
func pIs(s string) string {
	if strings.HasPrefix(s, "<") {
		return s
	}
	return "= " + s
}

// Points formats a difference of rates (a fraction) as signed percentage points, with a true
// minus sign: "+4.0", "−3.2", "0.0".
func Points(d float64) string {
	if math.IsNaN(d) {
		return "n/a"
	}
	v := math.Round(d*1000) / 10
	switch {
	case v > 0:
		return fmt.Sprintf("+%.1f", v)
	case v < 0:
		return fmt.Sprintf("−%.1f", -v)
	}
	return "0.0"
}

// Percent formats a fraction as a percentage: "95%", "26.1%".
func Percent(f float64) string {
	v := f * 100
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}

// PValue formats a p-value with three significant digits ("0.0386", "1", "< 0.0001").
func PValue(p float64) string {
	switch {
	case p >= 1:
		return "1"
	case p < 0.0001:
		return "< 0.0001"
	}
	return fmt.Sprintf("%.3g", p)
}

// rows lists every instance's verdicts per input and repeat.
func rows(sides []*side, ids, repos []string) []Row {
	out := make([]Row, len(ids))
	for i, id := range ids {
		r := Row{ID: id, Repo: repos[i], Verdicts: make([][]Verdict, len(sides))}
		for k, s := range sides {
			vs := make([]Verdict, len(s.v))
			for ri, v := range s.v {
				vs[ri] = v[i]
			}
			r.Verdicts[k] = vs
			r.Flaky = r.Flaky || s.flaky[i] || s.hflaky[i] || s.vflaky[i]
		}
		out[i] = r
	}
	return out
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// compactStrings drops the repeats of a sorted list.
func compactStrings(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
