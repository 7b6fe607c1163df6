package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Stats summarise one output directory: outcomes, cost, steps, tokens, durations, failures and,
// when an evaluation exists, the resolved rate.
type Stats struct {
	Dir        string         `json:"dir"`
	Instances  int            `json:"instances"`
	Attempts   int            `json:"attempts"`
	ByStatus   map[string]int `json:"by_status"`
	ByCategory map[string]int `json:"by_category"`
	// Cost, Steps and Seconds are over the instances whose figure is known (Dist.N of Instances):
	// an unknown figure is left out, never counted as zero.
	Cost     Dist      `json:"cost"`             // per instance, all attempts
	Steps    Dist      `json:"steps"`            // per instance, last attempt
	Seconds  Dist      `json:"duration_seconds"` // per instance, last attempt, queued → end
	Tokens   Tokens    `json:"tokens"`           // over the TokensN instances whose usage is known
	TokensN  int       `json:"tokens_n"`
	Failures []Failure `json:"infrastructure_failures"`
	// Retried lists the instances attempted more than once (infrastructure failures retried
	// within a run or on resume, --retry-failed, --redo-existing), with every attempt's status.
	Retried []Retried `json:"retried"`
	// Unfinished lists the instances whose last attempt was cut by a run-wide budget: neither
	// resolved nor unresolved, they run again when a run has budget left.
	Unfinished []string   `json:"unfinished"`
	Eval       *EvalStats `json:"eval,omitempty"`
	// Flags counts the trajectories' commands that reached beyond the task's start (audit),
	// when the caller set it (RunFlagStats).
	Flags *FlagStats `json:"flags,omitempty"`
	// FromTrajectories: the directory has no ledger (a mini-swe-agent output directory, 1.x or
	// 2.x), so the figures come from its trajectories: one attempt each, no times or tokens.
	FromTrajectories bool `json:"from_trajectories,omitempty"`
}

// Dist describes the distribution of the N known values of a figure. Without any (N 0), its
// figures are null in JSON.
type Dist struct {
	N     int     `json:"n"`
	Total float64 `json:"total"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	Max   float64 `json:"max"`
}

// MarshalJSON writes null for the figures of a Dist without values.
func (d Dist) MarshalJSON() ([]byte, error) {
	type plain Dist
	if d.N > 0 {
		return json.Marshal(plain(d))
	}
	return []byte(`{"n":0,"total":null,"mean":null,"p50":null,"p90":null,"max":null}`), nil
}

// Failure is an instance whose last attempt failed for infrastructure reasons.
type Failure struct {
	InstanceID string `json:"instance_id"`
	ExitStatus string `json:"exit_status"`
	Attempts   int    `json:"attempts"`
	Error      string `json:"error"`
}

// Retried is an instance attempted more than once: its attempts' exit statuses, in order.
type Retried struct {
	InstanceID string   `json:"instance_id"`
	Attempts   int      `json:"attempts"`
	Statuses   []string `json:"exit_statuses"`
}

// EvalStats count the per-instance reports under <dir>/eval.
type EvalStats struct {
	Evaluated  int            `json:"evaluated"`
	Resolved   int            `json:"resolved"`
	Unresolved int            `json:"unresolved"`
	Applied    int            `json:"patch_applied"`
	Rate       float64        `json:"resolved_rate"`  // resolved ÷ instances in the ledger, unfinished ones left out
	Layouts    map[string]int `json:"report_layouts"` // reports read per layout (the harness's, sb-cli's)
	// Format names the verdict files read when they are not the SWE-bench harness's report.json
	// (another dataset family's, e.g. "SWE-bench Pro eval_results.json"); Applied is not known
	// then.
	Format string `json:"format,omitempty"`
}

// ReportReader reads one per-instance report.json, in whatever layout it was written: whether it
// resolved its instance, whether the patch applied, and the layout it was read in. The program
// passes eval.ReportVerdict (this package cannot import eval, which imports it). An empty layout
// with no error means the file is another dataset family's report, not counted here.
type ReportReader func(path string) (resolved, applied bool, layout string, err error)

// ComputeStats reads dir's ledger and its evaluation reports (<dir>/eval/<id>/report.json, read
// with readReport; nil leaves the evaluation out).
func ComputeStats(dir string, readReport ReportReader) (*Stats, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("output directory %s: %w", dir, err)
	}
	history, _, err := ReadLedger(dir)
	if err != nil {
		return nil, err
	}
	if len(history) == 0 {
		if st, err := statsFromTrajectories(dir, readReport); st != nil || err != nil {
			return st, err
		}
		return nil, fmt.Errorf("%s has no %s and no <id>/<id>.traj.json: not an output directory of swebench-run or mini-swe-agent, or nothing finished yet", dir, LedgerFile)
	}
	st := &Stats{Dir: dir, Instances: len(history), ByStatus: map[string]int{}, ByCategory: map[string]int{}}
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	untracked := man != nil && CostUntracked(man.Config)
	var costs, steps, secs []float64
	ids := make([]string, 0, len(history))
	for id := range history {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		h := history[id]
		last := h[len(h)-1]
		st.Attempts += len(h)
		st.ByStatus[last.ExitStatus]++
		st.ByCategory[last.Category]++
		c, calls, tok := 0.0, 0, Tokens{}
		for _, r := range h {
			c += r.Cost
			calls += r.APICalls
			tok.Input += r.Tokens.Input
			tok.Output += r.Tokens.Output
			tok.CacheRead += r.Tokens.CacheRead
			tok.CacheWrite += r.Tokens.CacheWrite
			tok.Reasoning += r.Tokens.Reasoning
		}
		if KnownCost(c, calls, untracked) {
			costs = append(costs, c)
		}
		if KnownTokens(tok.Input, tok.Output, calls) {
			st.Tokens.Input += tok.Input
			st.Tokens.Output += tok.Output
			st.Tokens.CacheRead += tok.CacheRead
			st.Tokens.CacheWrite += tok.CacheWrite
			st.Tokens.Reasoning += tok.Reasoning
			st.TokensN++
		}
		steps = append(steps, float64(last.Steps))
		if last.Queued > 0 && last.End >= last.Queued {
			secs = append(secs, last.End-last.Queued)
		}
		if len(h) > 1 {
			r := Retried{InstanceID: id, Attempts: len(h)}
			for _, rec := range h {
				r.Statuses = append(r.Statuses, rec.ExitStatus)
			}
			st.Retried = append(st.Retried, r)
		}
		switch last.Category {
		case CategoryInfrastructure:
			st.Failures = append(st.Failures, Failure{InstanceID: id, ExitStatus: last.ExitStatus, Attempts: len(h), Error: last.Error})
		case CategoryUnfinished:
			st.Unfinished = append(st.Unfinished, id)
		}
	}
	st.Cost, st.Steps, st.Seconds = dist(costs), dist(steps), dist(secs)
	st.Eval, err = evalStats(dir, len(history)-len(st.Unfinished), readReport)
	return st, err
}

// RunFlagStats counts the flags of dir's trajectories (Stats.Flags; ComputeStats leaves it to
// the caller, as it reads every trajectory); nil when dir holds none.
func RunFlagStats(dir string) (*FlagStats, error) {
	a, err := AuditPath(dir, nil)
	if errors.Is(err, ErrNoTrajectories) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return a.Stats(), nil
}

// statsFromTrajectories computes the statistics of an output directory without a ledger from
// its trajectories (mini-swe-agent's layout: <dir>/<id>/<id>.traj.json, any trajectory format);
// nil when it has none. A prediction of preds.json without a trajectory counts as an instance
// whose figures are not known ("(no trajectory)").
func statsFromTrajectories(dir string, readReport ReportReader) (*Stats, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.traj.json"))
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	sort.Strings(paths)
	st := &Stats{Dir: dir, ByStatus: map[string]int{}, ByCategory: map[string]int{}, FromTrajectories: true}
	var costs, steps []float64
	seen := map[string]bool{}
	for _, p := range paths {
		t, err := ReadTrajectory(p)
		if err != nil {
			return nil, err
		}
		seen[filepath.Base(filepath.Dir(p))] = true
		st.Instances++
		st.Attempts++
		status := t.Info.ExitStatus
		if status == "" {
			status = "(none recorded)"
		}
		st.ByStatus[status]++
		cost, calls := t.Info.ModelStats.InstanceCost, t.Info.ModelStats.APICalls
		config, _ := t.Info.Config.(map[string]any)
		if KnownCost(cost, calls, CostUntracked(config)) {
			costs = append(costs, cost)
		}
		steps = append(steps, float64(calls))
	}
	if data, err := os.ReadFile(filepath.Join(dir, PredsFile)); err == nil {
		var preds map[string]json.RawMessage
		if json.Unmarshal(data, &preds) == nil {
			for id := range preds {
				if !seen[id] {
					st.Instances++
					st.ByStatus[NoTrajectory]++
				}
			}
		}
	}
	st.Cost, st.Steps = dist(costs), dist(steps)
	st.Eval, err = evalStats(dir, st.Instances, readReport)
	return st, err
}

// NoTrajectory is the status stats gives a prediction without a trajectory.
const NoTrajectory = "(no trajectory)"

func evalStats(dir string, instances int, readReport ReportReader) (*EvalStats, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "eval", "*", "report.json"))
	if len(paths) == 0 || readReport == nil {
		return nil, nil
	}
	es := &EvalStats{Layouts: map[string]int{}}
	foreign := 0
	for _, p := range paths {
		resolved, applied, layout, err := readReport(p)
		if err != nil {
			return nil, err
		}
		if layout == "" {
			// Another dataset family's report.json (SWE-bench-Live's {"instance_id",
			// "resolved", …}, SWE-smith's), which the family's reader counts.
			foreign++
			continue
		}
		es.Evaluated++
		es.Layouts[layout]++
		if resolved {
			es.Resolved++
		} else {
			es.Unresolved++
		}
		if applied {
			es.Applied++
		}
	}
	if es.Evaluated == 0 && foreign > 0 {
		return nil, nil
	}
	if instances > 0 {
		es.Rate = float64(es.Resolved) / float64(instances)
	}
	return es, nil
}

func dist(v []float64) Dist {
	if len(v) == 0 {
		return Dist{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	d := Dist{N: len(s), Max: s[len(s)-1]}
	for _, x := range s {
		d.Total += x
	}
	d.Mean = d.Total / float64(len(s))
	d.P50 = quantile(s, 0.5)
	d.P90 = quantile(s, 0.9)
	return d
}

// quantile interpolates linearly between closest ranks (numpy's default).
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// Rebuild regenerates preds.json and a fresh exit_statuses_<time>.yaml from the ledger and the
// trajectories: the prediction of an instance is the submission of its trajectory when its last
// attempt ended with a model outcome.
func Rebuild(dir string) (int, error) {
	history, _, err := ReadLedger(dir)
	if err != nil {
		return 0, err
	}
	preds := map[string]Prediction{}
	for id, h := range history {
		last := h[len(h)-1]
		if last.Category != CategoryModel {
			continue
		}
		pred, err := predictionFromTrajectory(dir, last)
		if err != nil {
			return 0, err
		}
		preds[id] = pred
	}
	data, err := marshalIndent(preds)
	if err != nil {
		return 0, err
	}
	if err := WriteFileAtomic(filepath.Join(dir, PredsFile), data, 0o644); err != nil {
		return 0, err
	}
	d := &Dir{path: dir, history: history,
		exitFile: exitStatusesPath(dir)}
	return len(preds), d.writeExitStatuses()
}

// predictionFromTrajectory is the prediction of a finished attempt: the submission its
// trajectory recorded.
func predictionFromTrajectory(dir string, last Record) (Prediction, error) {
	id := last.InstanceID
	p := filepath.Join(dir, id, id+".traj.json")
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Prediction{}, fmt.Errorf("%s is missing; the ledger says %s finished", p, id)
	}
	if err != nil {
		return Prediction{}, err
	}
	var t struct {
		Info struct {
			Submission string `json:"submission"`
		} `json:"info"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return Prediction{}, fmt.Errorf("%s: %w", p, err)
	}
	return Prediction{ModelNameOrPath: last.ModelName, InstanceID: id, ModelPatch: t.Info.Submission}, nil
}
