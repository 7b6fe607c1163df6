package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/results"
)

// miniTrajectory is what a comparison needs of a mini-swe-agent trajectory (ours add tokens).
type miniTrajectory struct {
	Info struct {
		ExitStatus string         `json:"exit_status"`
		Config     map[string]any `json:"config"`
		ModelStats struct {
			InstanceCost float64 `json:"instance_cost"`
			APICalls     int     `json:"api_calls"`
		} `json:"model_stats"`
		SwebenchRun *struct {
			Tokens Tokens `json:"tokens"`
		} `json:"swebench_run"`
	} `json:"info"`
}

// readMini reads mini-swe-agent output: preds.json, <id>/<id>.traj.json (exit status, cost,
// model calls) and the newest exit_statuses_*.yaml, graded by the harness logs in logsDir
// (<logs>/<id>/report.json). A prediction with an empty patch is EmptyPatch; a prediction the
// logs know nothing of is NotSubmitted ("not evaluated"); an instance with a trajectory but no
// prediction is NotSubmitted ("no prediction").
func readMini(dir, logsDir string) (*Run, error) {
	if logsDir == "" {
		return nil, fmt.Errorf("input %s is mini-swe-agent output without evaluation: give its harness logs (the folder of <id>/report.json, e.g. logs/run_evaluation/<run_id>/<model>) with --eval-logs %s=LOGS", dir, dir)
	}
	preds, err := readPreds(filepath.Join(dir, "preds.json"))
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	folder, err := readEvalFolder(logsDir)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	if len(folder.reports) == 0 && len(folder.tried) == 0 && len(folder.family) == 0 {
		return nil, fmt.Errorf("input %s: the harness logs %s hold no <id>/report.json", dir, logsDir)
	}
	// The trajectories record cost and model calls: an instance without one has neither.
	r := &Run{Path: dir, Kind: KindMini, HasCost: true, HasSteps: true, ReportLayouts: folder.layouts}
	m := map[string]*Instance{}
	for id, p := range preds {
		in := &Instance{}
		m[id] = in
		if r.Model == "" {
			r.Model = p.ModelNameOrPath
		}
		switch {
		case folder.fill(in, id):
		case p.Empty():
			in.Verdict = EmptyPatch
		default:
			in.Verdict, in.Detail = NotSubmitted, "not evaluated"
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		id := e.Name()
		p := filepath.Join(dir, id, id+".traj.json")
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", dir, err)
		}
		var t miniTrajectory
		if err := json.Unmarshal(data, &t); err != nil {
			return nil, fmt.Errorf("input %s: trajectory %s: %w", dir, p, err)
		}
		in, ok := m[id]
		if !ok {
			in = &Instance{Verdict: NotSubmitted, Detail: "no prediction"}
			m[id] = in
		}
		in.ExitStatus = t.Info.ExitStatus
		cost, calls := t.Info.ModelStats.InstanceCost, t.Info.ModelStats.APICalls
		in.Steps = &calls
		if results.KnownCost(cost, calls, results.CostUntracked(t.Info.Config)) {
			in.Cost = &cost
		}
		if sr := t.Info.SwebenchRun; sr != nil {
			r.HasTokens = true
			if tok := sr.Tokens; results.KnownTokens(tok.Input, tok.Output, calls) {
				in.Tokens = &tok
			}
		}
	}
	statuses, file, err := readExitStatuses(dir)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	var unknown []string
	for id, st := range statuses {
		in, ok := m[id]
		if !ok {
			unknown = append(unknown, id)
			continue
		}
		if in.ExitStatus == "" {
			in.ExitStatus = st
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s lists %d ids with neither a prediction nor a trajectory (left out): %s", filepath.Base(file), len(unknown), strings.Join(unknown, ", ")))
	}
	var orphans []string
	for id := range folder.reports {
		if _, ok := m[id]; !ok {
			orphans = append(orphans, id)
		}
	}
	if len(orphans) > 0 {
		sort.Strings(orphans)
		r.Warnings = append(r.Warnings, fmt.Sprintf("the harness logs grade %d instances without a prediction here (left out): %s", len(orphans), strings.Join(orphans, ", ")))
	}
	r.Instances = instancesFrom(m)
	return r, nil
}

// readExitStatuses reads the newest exit_statuses_<unix time>.yaml of dir into id → status.
func readExitStatuses(dir string) (map[string]string, string, error) {
	matches, _ := filepath.Glob(filepath.Join(dir, "exit_statuses_*.yaml"))
	if len(matches) == 0 {
		return nil, "", nil
	}
	stamp := func(p string) float64 {
		s := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "exit_statuses_"), ".yaml")
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	sort.Slice(matches, func(i, j int) bool { return stamp(matches[i]) < stamp(matches[j]) })
	p := matches[len(matches)-1]
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, p, err
	}
	var doc struct {
		ByStatus map[string][]string `yaml:"instances_by_exit_status"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, p, fmt.Errorf("%s is not an exit-status summary (%v); expected instances_by_exit_status: {status: [ids]}", p, err)
	}
	out := map[string]string{}
	for st, ids := range doc.ByStatus {
		for _, id := range ids {
			out[id] = st
		}
	}
	return out, p, nil
}
