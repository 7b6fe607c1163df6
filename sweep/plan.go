package sweep

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/internal/names"
	"github.com/swebench-run/swebench-run/results"
)

// Files a sweep writes into its folder besides the cells and sweep.json (compare.SweepFile).
const (
	CompareJSON = "compare.json"
	CompareMD   = "compare.md"
)

// reservedNames are the files of a sweep folder that no cell may be named as (in any case).
var reservedNames = map[string]bool{
	compare.SweepFile: true, CompareJSON: true, CompareMD: true, results.LogFile: true, results.LockFile: true,
}

// nameRe is what variant, dataset and cell names may contain: they name folders.
var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Plan is a sweep resolved from its file (and the command line): the matrix and where it goes.
type Plan struct {
	File     *File
	Name     string // the sweep folder's name, the template expanded
	Dir      string // the sweep folder, <output>/<name>
	History  string // the history file
	Datasets []*Dataset
	Models   []*Model
	// Cells are the runs of the matrix, by model, then dataset, then repeat.
	Cells []*Cell
}

// Dataset is one dataset of the matrix.
type Dataset struct {
	Index     int // in File.Datasets
	Spec      DatasetSpec
	Name      string // in variant and cell names
	Split     string // as dataset.Load takes it, a path resolved against the sweep file's folder
	Selection dataset.Selection
}

// Model is one model of the matrix: a variant on each dataset.
type Model struct {
	Index int       // in File.Models
	Spec  ModelSpec // a scripted:PATH model resolved against the sweep file's folder
	Name  string    // in variant and cell names
}

// Cell is one run of the matrix: a model on a dataset, one repeat. Its folder is Dir in the
// sweep folder.
type Cell struct {
	Name string
	// Variant is the model's name: the comparison's input on each dataset. The cells of one
	// variant and dataset are repeats of each other.
	Variant string
	Dir     string
	Repeat  int // from 1
	Model   *Model
	Dataset *Dataset
}

// Options are the values of a sweep that the caller resolves from the file and its own settings
// (the command line's flags), which Plan checks with the file's lines.
type Options struct {
	Workers     int
	PullWorkers int
}

// Plan checks the sweep's values and expands its matrix into cells, named from the models and
// datasets (and their repeats); now fills the name's {date} and {time}. Nothing is read but the
// sweep file: datasets, configs and models are the caller's to load. Every error is a mistake in
// the sweep's values, named with the file's line when they come from the file.
func (f *File) Plan(opts Options, now time.Time) (*Plan, error) {
	switch {
	case len(f.Models) == 0:
		return nil, fmt.Errorf("%sthe sweep has no models: give models: in the sweep file, or --model [NAME=]MODEL", f.at(0))
	case len(f.Datasets) == 0:
		return nil, fmt.Errorf("%sthe sweep has no datasets: give datasets: in the sweep file, or --split DATASET", f.at(0))
	case f.Repeats < 1:
		return nil, fmt.Errorf("%srepeats %d: want at least 1", f.At("repeats"), f.Repeats)
	case opts.Workers < 1:
		return nil, fmt.Errorf("%sworkers %d: want at least 1", f.At("workers"), opts.Workers)
	case opts.PullWorkers < 1:
		return nil, fmt.Errorf("%spull_workers %d: want at least 1", f.At("pull_workers"), opts.PullWorkers)
	case f.MaxAttempts < 1:
		return nil, fmt.Errorf("%smax_attempts %d: want at least 1", f.At("max_attempts"), f.MaxAttempts)
	case f.MaxCost < 0:
		return nil, fmt.Errorf("%smax_cost must not be negative", f.At("max_cost"))
	case f.MaxDuration < 0:
		return nil, fmt.Errorf("%smax_duration must not be negative", f.At("max_duration"))
	case f.EvalTimeout <= 0:
		return nil, fmt.Errorf("%seval_timeout must be positive", f.At("eval_timeout"))
	case f.BackendWait < 0:
		return nil, fmt.Errorf("%sbackend_wait must not be negative (0 stops the sweep as soon as the backend does not answer)", f.At("backend_wait"))
	}
	p := &Plan{File: f}
	p.Name = expandName(f.Name, now)
	if !nameRe.MatchString(p.Name) {
		return nil, fmt.Errorf("%sname %q makes the folder name %q: use letters, digits, '.', '_', '-' and {date}, {time}", f.At("name"), f.Name, p.Name)
	}
	p.Dir = filepath.Join(f.Output, p.Name)
	p.History = f.History
	if p.History == "" {
		p.History = filepath.Join(f.Output, compare.HistoryFile)
	}
	if err := p.planDatasets(); err != nil {
		return nil, err
	}
	modelNames, err := p.planModels()
	if err != nil {
		return nil, err
	}
	if err := p.planCells(); err != nil {
		return nil, err
	}
	if f.Baseline != "" {
		if _, ok := modelNames[f.Baseline]; !ok {
			// A cell's name (MODEL-DATASET, the variant of sweeps before datasets were a
			// dimension of the comparison) gets the model it starts with.
			for _, c := range p.Cells {
				if f.Baseline == c.Variant+"-"+c.Dataset.Name || f.Baseline == c.Name {
					return nil, fmt.Errorf("%sbaseline %q names a cell; the baseline is a model, compared with the others on each dataset: baseline: %s", f.At("baseline"), f.Baseline, c.Variant)
				}
			}
			return nil, fmt.Errorf("%sbaseline %q names no model; the models are %s", f.At("baseline"), f.Baseline, strings.Join(sortedNames(modelNames), ", "))
		}
	}
	return p, nil
}

// planDatasets names and checks the datasets.
func (p *Plan) planDatasets() error {
	f := p.File
	dataNames := map[string]int{}
	for k, d := range f.Datasets {
		where := f.DatasetAt(k)
		if d.Split == "" {
			return fmt.Errorf("%sdatasets[%d] has no split", where, k)
		}
		sd := &Dataset{Index: k, Spec: d, Name: d.Name, Split: d.Split, Selection: d.selection()}
		if !d.fromFlag {
			sd.Split = f.Resolve(d.Split)
		}
		if sd.Name == "" {
			sd.Name = namePart(d.Split)
		}
		if !nameRe.MatchString(sd.Name) {
			return fmt.Errorf("%sdatasets[%d]: name %q: use letters, digits, '.', '_' and '-' (it names folders)", where, k, sd.Name)
		}
		if prev, dup := dataNames[sd.Name]; dup {
			return fmt.Errorf("%sdatasets[%d]: the name %q is also the name of datasets[%d]%s; give each a distinct name", where, k, sd.Name, prev, f.lineNote(f.lines.datasets, prev))
		}
		dataNames[sd.Name] = k
		if err := sd.Selection.Validate(); err != nil {
			return fmt.Errorf("%sdatasets[%d] (%s): %v", where, k, sd.Name, err)
		}
		p.Datasets = append(p.Datasets, sd)
	}
	return nil
}

// planModels names and checks the models; it returns their names.
func (p *Plan) planModels() (map[string]int, error) {
	f := p.File
	modelNames := map[string]int{}
	for k, m := range f.Models {
		where := f.ModelAt(k)
		if m.Model == "" {
			return nil, fmt.Errorf("%smodels[%d] has no model: (e.g. model: openai/gpt-5)", where, k)
		}
		if m.MaxCost < 0 {
			return nil, fmt.Errorf("%smodels[%d]: max_cost must not be negative", where, k)
		}
		if strings.HasPrefix(m.Model, "scripted:") && !m.fromFlag {
			m.Model = "scripted:" + f.Resolve(strings.TrimPrefix(m.Model, "scripted:"))
		}
		sm := &Model{Index: k, Spec: m, Name: m.Name}
		if sm.Name == "" {
			sm.Name = namePart(m.Model)
		}
		if !nameRe.MatchString(sm.Name) {
			return nil, fmt.Errorf("%smodels[%d]: name %q: use letters, digits, '.', '_' and '-' (it names folders)", where, k, sm.Name)
		}
		if prev, dup := modelNames[sm.Name]; dup {
			return nil, fmt.Errorf("%smodels[%d]: duplicate name %q (also models[%d]%s): two settings of one model are two models, each with its own name", where, k, sm.Name, prev, f.lineNote(f.lines.models, prev))
		}
		modelNames[sm.Name] = k
		p.Models = append(p.Models, sm)
	}
	return modelNames, nil
}

// planCells expands models × datasets × repeats into cells: a cell's variant is its model; it is
// named by the model, the dataset when there are several (MODEL-DATASET), and -rN with repeats.
func (p *Plan) planCells() error {
	f := p.File
	cellNames := map[string]*Cell{}
	for _, m := range p.Models {
		for _, d := range p.Datasets {
			base := m.Name
			if len(p.Datasets) > 1 {
				base += "-" + d.Name
			}
			for r := 1; r <= f.Repeats; r++ {
				name := base
				if f.Repeats > 1 {
					name = fmt.Sprintf("%s-r%d", base, r)
				}
				c := &Cell{Name: name, Variant: m.Name, Dir: name, Repeat: r, Model: m, Dataset: d}
				if reservedNames[strings.ToLower(name)] {
					return fmt.Errorf("%smodels[%d] (%s): the cell name %q is taken by a file of the sweep folder; rename the model", f.ModelAt(m.Index), m.Index, m.Name, name)
				}
				if prev, dup := cellNames[name]; dup {
					return fmt.Errorf("%smodels[%d] (%s): duplicate cell name %q: also the cell of models[%d] (%s)%s; rename one of the models",
						f.ModelAt(m.Index), m.Index, m.Name, name, prev.Model.Index, prev.Model.Name, f.lineNote(f.lines.models, prev.Model.Index))
				}
				cellNames[name] = c
				p.Cells = append(p.Cells, c)
			}
		}
	}
	return nil
}

func sortedNames(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// namePart makes a default name from a model or split: its last path element, with characters
// other than letters, digits, '.', '_' and '-' replaced.
func namePart(s string) string {
	s = strings.TrimPrefix(s, "hf:")
	if i := strings.IndexAny(s, "@"); i >= 0 {
		s = s[:i]
	}
	if strings.HasPrefix(s, "scripted:") {
		s = "scripted-" + strings.TrimSuffix(filepath.Base(strings.TrimPrefix(s, "scripted:")), filepath.Ext(s))
	}
	s = strings.ReplaceAll(s, ":", "-")
	if i := strings.LastIndex(s, "/"); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	s = names.Safe(names.Stem(s))
	return strings.TrimLeft(s, "._-")
}

// expandName fills the sweep name template.
func expandName(tmpl string, now time.Time) string {
	r := strings.NewReplacer("{date}", now.Format(time.DateOnly), "{time}", now.Format("150405"))
	return r.Replace(tmpl)
}
