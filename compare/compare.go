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

// SchemaVersion is the version of the JSON form of Result (see JSON.md).
const SchemaVersion = 1

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

// Result is a comparison: one Input per compared side, the pairs, the gate, and the verdicts of
// every instance. Its JSON form is stable (SchemaVersion, JSON.md).
type Result struct {
	SchemaVersion   int            `json:"schema_version"`
	Alpha           float64        `json:"alpha"`
	ConfidenceLevel float64        `json:"confidence_level"`
	Methods         Methods        `json:"methods"`
	Instances       int            `json:"instances"` // ids known to any input
	Inputs          []Input        `json:"inputs"`
	Pairs           []Pair         `json:"pairs"`
	Best            string         `json:"best,omitempty"` // with 3 or more inputs: the highest resolved rate
	VsBest          []Pair         `json:"vs_best,omitempty"`
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
	CI        string `json:"ci"`
	Test      string `json:"test"`
	Bootstrap string `json:"bootstrap"`
}

// Input is one side of the comparison: a run, or the repeats of one sweep variant.
type Input struct {
	Name         string          `json:"name"`
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

// Gate is the regression verdict of every input against the baseline.
type Gate struct {
	Baseline   string        `json:"baseline"`
	Alpha      float64       `json:"alpha"`
	Regression bool          `json:"regression"` // some input regressed significantly
	Verdicts   []GateVerdict `json:"verdicts"`
}

// Gate outcomes.
const (
	OutcomeRegression  = "regression"
	OutcomeImprovement = "improvement"
	OutcomeNoChange    = "no significant change"
	OutcomeNoOverlap   = "no common instances"
)

// GateVerdict is one input's verdict against the baseline.
type GateVerdict struct {
	Candidate  string `json:"candidate"`
	Baseline   string `json:"baseline"`
	Outcome    string `json:"outcome"`
	Regression bool   `json:"regression"`
	Line       string `json:"line"`
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
	v      [][]Verdict // per run, aligned to the ids
	n, c   []int32     // per instance: repeats covering it, repeats resolving it
	flaky  map[int]bool
	hflaky map[int]bool
	// broken and vflaky: instances the validation sets apart, or finds flaky.
	broken, vflaky map[int]bool
}

func (s *side) stable(i int) bool  { return !s.flaky[i] && !s.hflaky[i] && !s.vflaky[i] }
func (s *side) mean(i int) float64 { return float64(s.c[i]) / float64(s.n[i]) }

// Compare compares runs: runs of one Group are repeats of one input, every other run is an input
// of its own.
func Compare(runs []*Run, opts Options) (*Result, error) {
	if len(runs) == 0 {
		return nil, ErrNoInputs
	}
	opts.defaults()
	level := 1 - opts.Alpha
	res := &Result{SchemaVersion: SchemaVersion, Alpha: opts.Alpha, ConfidenceLevel: level,
		Methods:  Methods{CI: MethodCI, Test: MethodTest, Bootstrap: MethodBootstrap},
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

	sides := groupSides(runs)
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
				for k := range v {
					if v[k] == "" {
						v[k] = Unresolved
					}
				}
				if r.Total > 0 && len(ids) > r.Total {
					res.Warnings = append(res.Warnings, fmt.Sprintf("%s: the comparison knows %d instances but its split has %d; %d instances of other datasets count as unresolved in it", r.Label, len(ids), r.Total, len(ids)-r.Total))
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
		res.Inputs = append(res.Inputs, summarise(s, ids, repos))
		res.runs = append(res.runs, s.runs)
		res.verdicts = append(res.verdicts, s.v)
	}
	res.Rows = rows(sides, ids, repos)
	for k := range res.Rows {
		if rec, ok := opts.Validation[res.Rows[k].ID]; ok {
			res.Rows[k].Environment = rec.Outcome
		}
	}
	datasetWarnings(res, sides)

	pair := func(a, b int) Pair { return comparePair(sides[a], sides[b], ids, repos, level, opts) }
	var gatePairs []Pair
	if opts.Baseline != "" {
		base := matchBaseline(sides, opts.Baseline)
		if len(base) == 0 {
			return nil, fmt.Errorf("baseline %q names no input; inputs are %s", opts.Baseline, names(sides))
		}
		isBase := map[int]bool{}
		for _, b := range base {
			isBase[b] = true
		}
		for x := range sides {
			if isBase[x] {
				continue
			}
			b := base[0]
			if len(base) > 1 {
				b = -1
				for _, c := range base {
					if sides[c].runs[0].Variant != "" && sides[c].runs[0].Variant == sides[x].runs[0].Variant {
						b = c
					}
				}
				if b < 0 {
					why := fmt.Sprintf("the baseline %q has no variant %q", opts.Baseline, sides[x].runs[0].Variant)
					if sides[x].runs[0].Variant == "" {
						why = fmt.Sprintf("the baseline %q is a sweep of several variants and this input is no sweep variant", opts.Baseline)
					}
					res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s; not compared", sides[x].name, why))
					continue
				}
			}
			gatePairs = append(gatePairs, pair(b, x))
		}
		res.Pairs = gatePairs
		res.Gate = gate(gatePairs, opts.Baseline, opts.Alpha)
	} else {
		for a := range sides {
			for b := a + 1; b < len(sides); b++ {
				res.Pairs = append(res.Pairs, pair(a, b))
			}
		}
	}
	if len(sides) >= 3 {
		best := 0
		for k := range res.Inputs {
			if res.Inputs[k].ResolvedRate > res.Inputs[best].ResolvedRate {
				best = k
			}
		}
		res.Best = sides[best].name
		for x := range sides {
			if x != best {
				res.VsBest = append(res.VsBest, pair(best, x))
			}
		}
	}
	return res, nil
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

func names(sides []*side) string {
	n := make([]string, len(sides))
	for k, s := range sides {
		n[k] = fmt.Sprintf("%q", s.name)
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
		if repeats {
			diffs = append(diffs, mb-ma)
		}
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
	if repeats && len(diffs) > 0 {
		bs := BootstrapMeanCI(diffs, opts.Resamples, opts.Seed, level)
		p.Bootstrap = &bs
	}
	if len(p.AOnly) > 0 || len(p.BOnly) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("compared on the %d instances both cover; %s has %d alone, %s has %d alone", p.Common, p.A, len(p.AOnly), p.B, len(p.BOnly)))
	}
	return p
}

// gate decides, for every pair (baseline A, candidate B), whether B regressed significantly:
// B's resolved rate is lower and the drop is significant at alpha — by McNemar's exact test
// when both inputs are single runs, by the bootstrap interval (excluding 0) when either has
// repeats. Flaky instances are left out and counted.
func gate(pairs []Pair, baseline string, alpha float64) *Gate {
	g := &Gate{Baseline: baseline, Alpha: alpha, Verdicts: []GateVerdict{}}
	for _, p := range pairs {
		v := GateVerdict{Candidate: p.B, Baseline: p.A}
		switch {
		case p.Common == 0:
			v.Outcome = OutcomeNoOverlap
			v.Line = fmt.Sprintf("%s: %s and %s cover no instance in common", OutcomeNoOverlap, p.B, p.A)
			g.Verdicts = append(g.Verdicts, v)
			continue
		case p.Paired == 0 && p.Bootstrap == nil:
			v.Outcome = OutcomeNoChange
			v.Line = fmt.Sprintf("%s: all %d common instances are flaky", OutcomeNoChange, len(p.Flaky))
			g.Verdicts = append(g.Verdicts, v)
			continue
		case p.Bootstrap != nil:
			switch {
			case p.Bootstrap.CIHigh < 0:
				v.Outcome = OutcomeRegression
			case p.Bootstrap.CILow > 0:
				v.Outcome = OutcomeImprovement
			default:
				v.Outcome = OutcomeNoChange
			}
		default:
			switch {
			case p.McNemarP < alpha && *p.Difference < 0:
				v.Outcome = OutcomeRegression
			case p.McNemarP < alpha && *p.Difference > 0:
				v.Outcome = OutcomeImprovement
			default:
				v.Outcome = OutcomeNoChange
			}
		}
		v.Regression = v.Outcome == OutcomeRegression
		g.Regression = g.Regression || v.Regression
		v.Line = gateLine(p, v.Outcome, 1-alpha)
		g.Verdicts = append(g.Verdicts, v)
	}
	return g
}

// gateLine is the one-line verdict, e.g. "regression: −3.2 points, 95% CI [−5.1, −1.3],
// McNemar p = 0.004, 21 regressed / 5 newly resolved, 3 flaky ignored".
func gateLine(p Pair, outcome string, level float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", outcome)
	if p.Bootstrap != nil {
		fmt.Fprintf(&b, "%s points (mean over repeats), %s CI [%s, %s] (bootstrap, seed %d)",
			Points(p.Bootstrap.Difference), Percent(level), Points(p.Bootstrap.CILow), Points(p.Bootstrap.CIHigh), p.Bootstrap.Seed)
		if p.Difference != nil {
			fmt.Fprintf(&b, ", McNemar p = %s on %d stable instances", PValue(p.McNemarP), p.Paired)
		}
	} else {
		fmt.Fprintf(&b, "%s points, %s CI [%s, %s], McNemar p = %s", Points(*p.Difference), Percent(level), Points(*p.CILow), Points(*p.CIHigh), PValue(p.McNemarP))
	}
	fmt.Fprintf(&b, ", %d regressed / %d newly resolved, %d flaky ignored", len(p.Regressed), len(p.Newly), len(p.Flaky))
	if len(p.SetApart) > 0 {
		fmt.Fprintf(&b, ", %d with a broken environment set apart", len(p.SetApart))
	}
	return b.String()
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

// datasetWarnings warns when inputs name different datasets or revisions.
func datasetWarnings(res *Result, sides []*side) {
	type ds struct{ name, rev string }
	var first *ds
	var firstName string
	for _, s := range sides {
		for _, r := range s.runs {
			if r.Dataset == "" {
				continue
			}
			d := ds{r.Dataset, r.DatasetRevision}
			if first == nil {
				first, firstName = &d, r.Label
				continue
			}
			if d.name != first.name {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s is on %s but %s is on %s: inputs are compared on their common instances only", r.Label, d.name, firstName, first.name))
			} else if d.rev != "" && first.rev != "" && d.rev != first.rev {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s is on revision %s of %s but %s on %s: the instances' tests may differ", r.Label, short(d.rev), d.name, firstName, short(first.rev)))
			}
		}
	}
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
