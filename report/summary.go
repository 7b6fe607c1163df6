package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/results"
)

// SummaryVersion is the version of the summary the pages read (data/summary.js).
const SummaryVersion = 1

// summary is what every page needs: the comparison, per run its figures and failures, and per
// run and instance one compact cell. It is data/summary.js, loaded once (and polled by view).
type summary struct {
	Version   int                    `json:"version"`
	Title     string                 `json:"title"`
	Generated string                 `json:"generated"`
	Tool      string                 `json:"tool"`
	Live      bool                   `json:"live"`
	Compare   *compare.Result        `json:"compare"` // without instance_verdicts: see Cells
	Inputs    []inputExtra           `json:"inputs"`  // beside compare.inputs, same order
	Runs      []runSummary           `json:"runs"`
	IDs       []string               `json:"ids"`
	Repos     []string               `json:"repos"`
	Repo      []int                  `json:"repo"`  // per instance: index into Repos
	Flaky     []int                  `json:"flaky"` // instance indices
	Statuses  []string               `json:"statuses"`
	Details   []string               `json:"details"`
	Trend     []compare.VariantTrend `json:"trend,omitempty"`
	Warnings  []string               `json:"warnings"`
	Problems  bool                   `json:"problems"` // problem statements are known (searchable)
	Search    *searchInfo            `json:"search,omitempty"`
	Stamp     string                 `json:"stamp"` // changes when anything shown changes
	// Env is, per instance, the outcome of its environment's validation ("" when not
	// validated), and EnvWhy, by id, the validation in one line; absent without a validation.
	Env    []string          `json:"env,omitempty"`
	EnvWhy map[string]string `json:"env_why,omitempty"`
}

// inputExtra adds to compare's Input what the overview shows beside it.
type inputExtra struct {
	CILow     *float64 `json:"ci_low,omitempty"` // of the resolved rate, at the comparison's level
	CIHigh    *float64 `json:"ci_high,omitempty"`
	CIMethod  string   `json:"ci_method,omitempty"`
	Submitted int      `json:"submitted"` // instances with a non-empty patch (over all repeats)
	Runs      []int    `json:"runs"`      // indices into runs
}

// runSummary is one run (a sweep cell or an input of its own).
type runSummary struct {
	Label    string          `json:"label"`
	Input    int             `json:"input"`
	Kind     compare.Kind    `json:"kind"`
	Path     string          `json:"path"`
	Model    string          `json:"model,omitempty"`
	Dataset  string          `json:"dataset,omitempty"`
	Has      map[string]bool `json:"has"`
	Warnings []string        `json:"warnings"`
	// ReportLayouts counts the per-instance report.json files read, by layout.
	ReportLayouts map[string]int `json:"report_layouts,omitempty"`
	// Failures are the instances whose last attempt failed for infrastructure reasons (run
	// directories), with the reason; Unfinished were cut by a run-wide budget.
	Failures   []results.Failure `json:"failures"`
	Unfinished []string          `json:"unfinished"`
	Attempts   int               `json:"attempts,omitempty"`
	Tokens     *results.Tokens   `json:"tokens,omitempty"`
	Cells      cells             `json:"cells"`
}

// cells are a run's per-instance values, aligned with summary.IDs.
type cells struct {
	// V has one letter per instance: R resolved, U unresolved, E error, P empty patch, N not
	// submitted, "." unknown to this run.
	V string `json:"v"`
	// X is the exit status (index into summary.Statuses, -1 none); D the detail (index into
	// summary.Details, -1 none); F flags: 1 a trajectory, 2 evaluation logs, 4 a patch, 8 a
	// trajectory flag (a command reaching beyond the task's start), 16 one that revealed something.
	X []int `json:"x"`
	D []int `json:"d"`
	F []int `json:"f"`
	// Per instance, when the run's form records them (else absent); null where the instance's
	// figure is not known.
	Cost    numbers `json:"c,omitempty"`
	Steps   numbers `json:"s,omitempty"`
	Seconds numbers `json:"t,omitempty"`
	TokIn   numbers `json:"ti,omitempty"`
	TokOut  numbers `json:"to,omitempty"`
	// Attempts of each instance, retries within a run and resumes included.
	Attempts numbers `json:"a,omitempty"`
}

// numbers encode compactly: six significant digits, integers without a point.
type numbers []float64

func (n numbers) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, x := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			b.WriteString("null")
		case x == math.Trunc(x) && math.Abs(x) < 1e15:
			b.WriteString(strconv.FormatInt(int64(x), 10))
		default:
			b.WriteString(strconv.FormatFloat(x, 'g', 6, 64))
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

type searchInfo struct {
	Shards []string `json:"shards"` // keys of data/search/<key>.js
	Bytes  int64    `json:"bytes"`
	Docs   int      `json:"docs"`
	Terms  int      `json:"terms"`
}

var verdictLetter = map[compare.Verdict]byte{
	compare.Resolved: 'R', compare.Unresolved: 'U', compare.Error: 'E', compare.EmptyPatch: 'P', compare.NotSubmitted: 'N',
}

// flags of a cell.
const (
	flagTraj  = 1
	flagEval  = 2
	flagPatch = 4
)

// summary builds the summary; search, when known, describes the index written beside it.
func (r *Report) summary(search *searchInfo) *summary {
	s := &summary{Version: SummaryVersion, Title: r.title(), Generated: r.generated.UTC().Format("2006-01-02 15:04 MST"),
		Tool: strings.TrimSpace("swebench-run " + r.opts.Version), Live: r.opts.Live, IDs: r.ids, Flaky: []int{}, Warnings: []string{},
		Trend: r.trend, Problems: len(r.problems) > 0, Search: search}
	res := *r.res
	res.Rows = nil
	s.Compare = &res
	s.Warnings = append(append(s.Warnings, r.warnings...), r.res.Warnings...)

	repoIdx := map[string]int{}
	s.Repo = make([]int, len(r.ids))
	for i, row := range r.res.Rows {
		k, ok := repoIdx[row.Repo]
		if !ok {
			k = len(s.Repos)
			repoIdx[row.Repo] = k
			s.Repos = append(s.Repos, row.Repo)
		}
		s.Repo[i] = k
		if row.Flaky {
			s.Flaky = append(s.Flaky, i)
		}
	}
	r.summariseValidation(s)
	statusIdx, detailIdx := map[string]int{}, map[string]int{}
	intern := func(m map[string]int, list *[]string, v string) int {
		if v == "" {
			return -1
		}
		k, ok := m[v]
		if !ok {
			k = len(*list)
			m[v] = k
			*list = append(*list, v)
		}
		return k
	}
	s.Inputs = make([]inputExtra, len(r.res.Inputs))
	for _, rd := range r.runs {
		rs := runSummary{Label: rd.Label, Input: rd.input, Kind: rd.Kind, Path: rd.Path, Model: rd.Model, Dataset: rd.Dataset,
			Has:      map[string]bool{"cost": rd.HasCost, "steps": rd.HasSteps, "tokens": rd.HasTokens, "time": rd.HasDuration, "traj": rd.trajDir != "", "eval": rd.evalDir != "", "flags": rd.Flags != nil},
			Warnings: append([]string{}, rd.Warnings...), Failures: []results.Failure{}, Unfinished: []string{}, ReportLayouts: rd.ReportLayouts}
		if rd.stats != nil {
			rs.Failures = append(rs.Failures, rd.stats.Failures...)
			rs.Unfinished = append(rs.Unfinished, rd.stats.Unfinished...)
			rs.Attempts = rd.stats.Attempts
			tok := rd.stats.Tokens
			rs.Tokens = &tok
		}
		n := len(r.ids)
		c := cells{X: make([]int, n), D: make([]int, n), F: make([]int, n)}
		v := bytes.Repeat([]byte{'.'}, n)
		opt := func(has bool) numbers {
			if !has {
				return nil
			}
			out := make(numbers, n)
			for i := range out {
				out[i] = math.NaN()
			}
			return out
		}
		c.Cost, c.Steps, c.Seconds = opt(rd.HasCost), opt(rd.HasSteps), opt(rd.HasDuration)
		c.TokIn, c.TokOut = opt(rd.HasTokens), opt(rd.HasTokens)
		c.Attempts = opt(rd.HasAttempts)
		for i := range c.X {
			c.X[i], c.D[i] = -1, -1
		}
		flagged := runFlagCells(rd)
		for k := range rd.Instances {
			in := &rd.Instances[k]
			i, ok := r.index[in.ID]
			if !ok {
				continue
			}
			v[i] = verdictLetter[in.Verdict]
			c.X[i] = intern(statusIdx, &s.Statuses, in.ExitStatus)
			c.D[i] = intern(detailIdx, &s.Details, r.opts.Redactor.Text(in.Detail))
			if rd.trajPath(in.ID) != "" {
				c.F[i] |= flagTraj
			}
			if rd.evalPath(in.ID, "report.json") != "" || rd.evalPath(in.ID, "test_output.txt") != "" {
				c.F[i] |= flagEval
			}
			if p, ok := rd.preds[in.ID]; ok && !p.Empty() {
				c.F[i] |= flagPatch
			}
			c.F[i] |= flagged[in.ID]
			// An unknown figure stays NaN, null in the data: the pages show "–", never 0.
			if c.Cost != nil && in.Cost != nil {
				c.Cost[i] = *in.Cost
			}
			if c.Steps != nil && in.Steps != nil {
				c.Steps[i] = float64(*in.Steps)
			}
			if c.Seconds != nil && in.Seconds != nil {
				c.Seconds[i] = *in.Seconds
			}
			if c.TokIn != nil && in.Tokens != nil {
				c.TokIn[i], c.TokOut[i] = float64(in.Tokens.Input), float64(in.Tokens.Output)
			}
			if c.Attempts != nil && in.Attempts > 0 {
				c.Attempts[i] = float64(in.Attempts)
			}
			if in.Verdict == compare.Resolved || in.Verdict == compare.Unresolved || in.Verdict == compare.Error {
				s.Inputs[rd.input].Submitted++
			}
		}
		c.V = string(v)
		rs.Cells = c
		for k := range rs.Failures {
			rs.Failures[k].Error = r.opts.Redactor.Text(rs.Failures[k].Error)
		}
		s.Inputs[rd.input].Runs = append(s.Inputs[rd.input].Runs, rd.idx)
		s.Runs = append(s.Runs, rs)
	}
	if s.Statuses == nil {
		s.Statuses = []string{}
	}
	if s.Details == nil {
		s.Details = []string{}
	}
	for k := range r.res.Inputs {
		r.inputCI(k, &s.Inputs[k])
	}
	s.Stamp = stamp(s)
	return s
}

// inputCI sets the interval of input k's resolved rate: Wilson's score interval for a single
// run, the percentile bootstrap over instances of the mean resolved for repeats.
func (r *Report) inputCI(k int, x *inputExtra) {
	in := r.res.Inputs[k]
	level := r.res.ConfidenceLevel
	if in.Covered == 0 {
		return
	}
	if in.Repeats <= 1 {
		lo, hi := compare.WilsonCI(int(math.Round(in.Resolved)), in.Covered, level)
		x.CILow, x.CIHigh, x.CIMethod = &lo, &hi, "Wilson score interval"
		return
	}
	var means []float64
	for _, row := range r.res.Rows {
		n, c := 0, 0
		for _, v := range row.Verdicts[k] {
			if v.Covered() {
				n++
				if v == compare.Resolved {
					c++
				}
			}
		}
		if n > 0 {
			means = append(means, float64(c)/float64(n))
		}
	}
	b := compare.BootstrapMeanCI(means, 2000, 1, level)
	x.CILow, x.CIHigh, x.CIMethod = &b.CILow, &b.CIHigh, "percentile bootstrap over instances (seed 1)"
}

// title is the report's title: the option, else the inputs' names (each once: a sweep's models
// are inputs on every dataset).
func (r *Report) title() string {
	if r.opts.Title != "" {
		return r.opts.Title
	}
	t := ""
	seen := map[string]bool{}
	for _, in := range r.res.Inputs {
		if seen[in.Name] {
			continue
		}
		if len(seen) > 0 {
			t += " · "
		}
		if len(seen) == 3 {
			t += "…"
			break
		}
		seen[in.Name] = true
		t += in.Name
	}
	return t
}

// stamp is a short hash of the summary's content, without the time it was made.
func stamp(s *summary) string {
	c := *s
	c.Generated, c.Stamp = "", ""
	data, _ := json.Marshal(&c)
	return shortHash(data)
}
