package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
)

// Input is one thing to export: a run (our output directory, a sweep folder, mini-swe-agent's
// output folder, a folder of SWE-agent .traj files) or one trajectory file, and the folder of
// its harness logs (<logs>/<id>/report.json) when its verdicts are not in it.
type Input struct {
	Label    string // names the run in the output ("" : its folder's name; a sweep's cells get it as a prefix)
	Path     string
	EvalLogs string
}

// ErrNoTrajectories is wrapped by the error of an input that holds no trajectory to export.
var ErrNoTrajectories = errors.New("no trajectories")

// unit is one run of an input (a sweep has one per cell): its trajectory files and what is known
// of them.
type unit struct {
	label                    string // the run's name: its folder, or the sweep cell's label
	cell, variant            string
	repeat                   int
	model, configHash        string
	dataset, datasetRevision string
	family                   string
	history                  string // run.json's environment.history
	files                    []string
	verdicts                 *compare.Run // nil: no evaluation known
}

// resolve reads an input into its runs: their trajectory files, run-level facts (run.json,
// sweep.json) and verdicts, read as compare and report read them (compare.Read: the run's
// eval/, or the harness logs given).
func resolve(in Input) ([]*unit, error) {
	fi, err := os.Stat(in.Path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in.Path, err)
	}
	if !fi.IsDir() {
		u := &unit{label: firstOf(in.Label, instanceOfPath(in.Path)), files: []string{in.Path}}
		if in.EvalLogs != "" {
			if u.verdicts, err = readVerdicts(compare.Source{Path: in.EvalLogs}); err != nil {
				return nil, err
			}
		}
		return []*unit{u}, nil
	}
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(in.Path, name))
		return err == nil
	}
	var runs []*compare.Run
	switch {
	case has(compare.SweepFile) || has(results.ManifestFile) || has(results.LedgerFile):
		// A sweep, or our run: their own evaluation (or the logs given), unevaluated ones allowed.
		runs, err = compare.Read(compare.Source{Path: in.Path, EvalLogs: in.EvalLogs}, compare.ReadOptions{AllowUnevaluated: true})
	case in.EvalLogs != "" && has(results.PredsFile):
		runs, err = compare.Read(compare.Source{Path: in.Path, EvalLogs: in.EvalLogs}, compare.ReadOptions{})
	case in.EvalLogs != "":
		var r *compare.Run
		r, err = readVerdicts(compare.Source{Path: in.EvalLogs})
		if r != nil {
			r.Path, r.Label = in.Path, filepath.Base(filepath.Clean(in.Path))
			runs = []*compare.Run{r}
		}
	}
	if err != nil {
		return nil, err
	}
	if runs == nil {
		// No evaluation: the trajectories alone (a run compare read always has a Kind).
		runs = []*compare.Run{{Path: in.Path, Label: filepath.Base(filepath.Clean(in.Path))}}
	}
	var units []*unit
	for _, r := range runs {
		if _, err := os.Stat(r.Path); errors.Is(err, fs.ErrNotExist) {
			continue // a sweep cell that has not started
		}
		files, err := results.TrajectoryFiles(r.Path)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", r.Path, err)
		}
		label := r.Label
		switch {
		case in.Label != "" && r.Cell != "":
			label = in.Label + "/" + r.Label
		case in.Label != "":
			label = in.Label
		}
		u := &unit{label: label, cell: r.Cell, variant: r.Variant, repeat: r.Repeat, model: r.Model, configHash: r.ConfigHash,
			dataset: r.Dataset, datasetRevision: r.DatasetRevision, files: files}
		if r.Kind != "" {
			u.verdicts = r
		}
		if man, err := results.ReadManifest(r.Path); err == nil && man != nil {
			u.history = results.HistoryMode(man.Config)
			u.family = familyOf(man.Dataset)
			if u.model == "" {
				u.model = man.Model
			}
		}
		units = append(units, u)
	}
	n := 0
	for _, u := range units {
		n += len(u.files)
	}
	if n == 0 {
		return nil, fmt.Errorf("input %s: %w: expected <id>/<id>.traj.json (swebench-run, mini-swe-agent 1.x or 2.x), *.traj (SWE-agent) below it, or a sweep folder whose cells hold them", in.Path, ErrNoTrajectories)
	}
	return units, nil
}

// readVerdicts reads a folder or file of verdicts (harness logs, a run report) as compare does.
func readVerdicts(src compare.Source) (*compare.Run, error) {
	runs, err := compare.Read(src, compare.ReadOptions{AllowUnevaluated: true})
	if err != nil {
		return nil, fmt.Errorf("--eval-logs %s: %w", src.Path, err)
	}
	if len(runs) != 1 {
		return nil, fmt.Errorf("--eval-logs %s: %d runs in it, want the verdicts of one run", src.Path, len(runs))
	}
	return runs[0], nil
}

// familyOf names the dataset family of a run manifest's dataset: the named dataset's, or that of
// the named dataset whose hub repository it is; "" when the dataset is a file or unknown.
func familyOf(raw json.RawMessage) string {
	var m dataset.Manifest
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return ""
	}
	s := m.Source
	if s.Kind == "named" {
		if d, ok := dataset.LookupNamed(s.Name); ok {
			return d.Family
		}
	}
	if s.HFRepo != "" {
		for _, d := range dataset.Named() {
			if strings.EqualFold(d.HFRepo, s.HFRepo) {
				return d.Family
			}
		}
	}
	return ""
}

// verdict is what the unit's evaluation says of an instance: resolved (nil: not known) and the
// verdict's name ("" when there is no evaluation).
func (u *unit) verdict(id string) (*bool, string) {
	if u.verdicts == nil {
		return nil, ""
	}
	in, ok := u.verdicts.Get(id)
	if !ok {
		return nil, ""
	}
	v := in.Verdict
	if !v.Covered() {
		return nil, string(v)
	}
	resolved := v == compare.Resolved
	return &resolved, string(v)
}
