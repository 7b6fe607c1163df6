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
	Cost       Dist           `json:"cost"`             // per instance, all attempts
	Steps      Dist           `json:"steps"`            // per instance, last attempt
	Seconds    Dist           `json:"duration_seconds"` // per instance, last attempt, queued → end
	Tokens     Tokens         `json:"tokens"`
	Failures   []Failure      `json:"infrastructure_failures"`
	// Retried lists the instances attempted more than once (infrastructure failures retried
	// within a run or on resume, --retry-failed, --redo-existing), with every attempt's status.
	Retried []Retried `json:"retried"`
	// Unfinished lists the instances whose last attempt was cut by a run-wide budget: neither
	// resolved nor unresolved, they run again when a run has budget left.
	Unfinished []string   `json:"unfinished"`
	Eval       *EvalStats `json:"eval,omitempty"`
	// FromTrajectories: the directory has no ledger (a mini-swe-agent output directory, 1.x or
	// 2.x), so the figures come from its trajectories: one attempt each, no times or tokens.
	FromTrajectories bool `json:"from_trajectories,omitempty"`
}

// Dist describes a distribution.
type Dist struct {
	Total float64 `json:"total"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	Max   float64 `json:"max"`
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
	Evaluated  int     `json:"evaluated"`
	Resolved   int     `json:"resolved"`
	Unresolved int     `json:"unresolved"`
	Applied    int     `json:"patch_applied"`
	Rate       float64 `json:"resolved_rate"` // resolved ÷ instances in the ledger, unfinished ones left out
}

// ComputeStats reads dir's ledger and evaluation reports.
func ComputeStats(dir string) (*Stats, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("output directory %s: %w", dir, err)
	}
	history, _, err := ReadLedger(dir)
	if err != nil {
		return nil, err
	}
	if len(history) == 0 {
		if st, err := statsFromTrajectories(dir); st != nil || err != nil {
			return st, err
		}
		return nil, fmt.Errorf("%s has no %s and no <id>/<id>.traj.json: not an output directory of swebench-run or mini-swe-agent, or nothing finished yet", dir, LedgerFile)
	}
	st := &Stats{Dir: dir, Instances: len(history), ByStatus: map[string]int{}, ByCategory: map[string]int{}}
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
		c := 0.0
		for _, r := range h {
			c += r.Cost
			st.Tokens.Input += r.Tokens.Input
			st.Tokens.Output += r.Tokens.Output
			st.Tokens.CacheRead += r.Tokens.CacheRead
			st.Tokens.CacheWrite += r.Tokens.CacheWrite
		}
		costs = append(costs, c)
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
	st.Eval, err = evalStats(dir, len(history)-len(st.Unfinished))
	return st, err
}

// statsFromTrajectories computes the statistics of an output directory without a ledger from
// its trajectories (mini-swe-agent's layout: <dir>/<id>/<id>.traj.json, any trajectory format);
// nil when it has none.
func statsFromTrajectories(dir string) (*Stats, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.traj.json"))
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	sort.Strings(paths)
	st := &Stats{Dir: dir, ByStatus: map[string]int{}, ByCategory: map[string]int{}, FromTrajectories: true}
	var costs, steps []float64
	for _, p := range paths {
		t, err := ReadTrajectory(p)
		if err != nil {
			return nil, err
		}
		st.Instances++
		st.Attempts++
		status := t.Info.ExitStatus
		if status == "" {
			status = "(none recorded)"
		}
		st.ByStatus[status]++
		costs = append(costs, t.Info.ModelStats.InstanceCost)
		steps = append(steps, float64(t.Info.ModelStats.APICalls))
	}
	st.Cost, st.Steps = dist(costs), dist(steps)
	st.Eval, err = evalStats(dir, st.Instances)
	return st, err
}

func evalStats(dir string, instances int) (*EvalStats, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "eval", "*", "report.json"))
	if len(paths) == 0 {
		return nil, nil
	}
	es := &EvalStats{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var rep map[string]struct {
			Resolved bool `json:"resolved"`
			Applied  bool `json:"patch_successfully_applied"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, fmt.Errorf("%s: not a harness report: %w", p, err)
		}
		for _, r := range rep {
			es.Evaluated++
			if r.Resolved {
				es.Resolved++
			} else {
				es.Unresolved++
			}
			if r.Applied {
				es.Applied++
			}
		}
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
	d := Dist{Max: s[len(s)-1]}
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
