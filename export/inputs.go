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
	"github.com/swebench-run/swebench-run/family/all"
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
	path                     string // the run's folder (or the trajectory file)
	label                    string // the run's name: its folder's, the sweep cell's, or the input's label
	cell, variant            string
	repeat                   int
	model, configHash        string
	dataset, datasetRevision string
	family                   string
	history                  string // run.json's environment.history
	files                    []string
	verdicts                 *compare.Run // nil: no evaluation known
}

// resolve reads an input into its runs: their trajectory files and run-level facts (sweep.json,
// run.json); with verdicts, also what the run's evaluation (or the harness logs given) says of
// each instance, read as compare and report read it (compare.Read). Verdicts cost a read of
// the whole run (its ledger, predictions, reports and flags), so they are read only when the
// export uses them.
func resolve(in Input, verdicts bool) ([]*unit, error) {
	fi, err := os.Stat(in.Path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in.Path, err)
	}
	if in.EvalLogs != "" {
		if _, err := os.Stat(in.EvalLogs); err != nil {
			return nil, fmt.Errorf("--eval-logs %s: %w", in.EvalLogs, err)
		}
	}
	if !fi.IsDir() {
		u := &unit{path: in.Path, label: firstOf(in.Label, instanceOfPath(in.Path)), files: []string{in.Path}}
		if in.EvalLogs != "" && verdicts {
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
	var units []*unit
	if has(compare.SweepFile) {
		s, err := compare.ReadSweep(in.Path)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.Path, err)
		}
		for _, c := range s.Cells {
			dir := filepath.Join(in.Path, filepath.FromSlash(c.Dir))
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				continue // a cell that has not started
			}
			label := c.Name
			if in.Label != "" {
				label = in.Label + "/" + c.Name
			}
			units = append(units, &unit{path: dir, label: label, cell: c.Name, variant: c.Variant, repeat: c.Repeat, model: c.Model,
				configHash: c.ConfigHash, dataset: c.Dataset, datasetRevision: c.DatasetRevision})
		}
	} else {
		units = []*unit{{path: in.Path, label: firstOf(in.Label, filepath.Base(filepath.Clean(in.Path)))}}
	}
	for _, u := range units {
		files, err := results.TrajectoryFiles(u.path)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", u.path, err)
		}
		u.files = files
		man, err := results.ReadManifest(u.path)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", u.path, err)
		}
		if man != nil {
			u.history = results.HistoryMode(man.Config)
			u.family = familyOf(man.Dataset)
			name, rev := compare.DatasetOf(man.Dataset)
			u.model = firstOf(u.model, man.Model)
			u.configHash = firstOf(u.configHash, compare.ConfigHash(man.Config))
			u.dataset, u.datasetRevision = firstOf(u.dataset, name), firstOf(u.datasetRevision, rev)
		}
	}
	if verdicts {
		if err := readRunVerdicts(in, units, has); err != nil {
			return nil, err
		}
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

// readRunVerdicts gives the units of an input their verdicts: a sweep's cells and our runs
// their own evaluation (or the logs given; unevaluated runs allowed), mini-swe-agent output
// and other trajectory folders those of the harness logs given.
func readRunVerdicts(in Input, units []*unit, has func(string) bool) error {
	var runs []*compare.Run
	var err error
	switch {
	case has(compare.SweepFile) || has(results.ManifestFile) || has(results.LedgerFile):
		runs, err = compare.Read(compare.Source{Path: in.Path, EvalLogs: in.EvalLogs}, compare.ReadOptions{AllowUnevaluated: true})
	case in.EvalLogs != "" && has(results.PredsFile):
		runs, err = compare.Read(compare.Source{Path: in.Path, EvalLogs: in.EvalLogs}, compare.ReadOptions{})
	case in.EvalLogs != "":
		var r *compare.Run
		if r, err = readVerdicts(compare.Source{Path: in.EvalLogs}); r != nil {
			r.Path = in.Path
			runs = []*compare.Run{r}
		}
	}
	if err != nil {
		return err
	}
	byPath := map[string]*compare.Run{}
	for _, r := range runs {
		byPath[filepath.Clean(r.Path)] = r
	}
	for _, u := range units {
		u.verdicts = byPath[filepath.Clean(u.path)]
	}
	return nil
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
	named := all.New(all.Options{}).Named()
	if s.Kind == "named" {
		if d, ok := dataset.LookupNamed(named, s.Name); ok {
			return d.Family
		}
	}
	if s.HFRepo != "" {
		for _, d := range named {
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
