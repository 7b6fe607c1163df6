package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var (
	testNow      = time.Date(2026, 8, 12, 2, 3, 4, 0, time.Local)
	testDefaults = Defaults{Repeats: 1, MaxAttempts: 3, EvalTimeout: time.Hour}
	testOptions  = Options{Workers: 4, PullWorkers: 4}
)

// planFile reads a sweep file, fills the defaults and plans it.
func planFile(t *testing.T, path string, opts Options) (*Plan, error) {
	t.Helper()
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f.FillDefaults(testDefaults)
	return f.Plan(opts, testNow)
}

// A sweep whose values make no matrix is refused, naming the file's line.
func TestPlanErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		opts *Options // default testOptions
		want string   // the whole error, with FILE for the path
	}{
		{"no models", "datasets: [lite]\n", nil, "FILE: the sweep has no models: give models: in the sweep file, or --model [NAME=]MODEL"},
		{"no datasets", "models: [scripted]\n", nil, "FILE: the sweep has no datasets: give datasets: in the sweep file, or --split DATASET"},
		{"no repeats", "datasets: [lite]\nmodels: [scripted]\nrepeats: 0\n", nil, "FILE:3: repeats 0: want at least 1"},
		{"no workers", "datasets: [lite]\nmodels: [scripted]\nworkers: -1\n", &Options{Workers: -1, PullWorkers: 1}, "FILE:3: workers -1: want at least 1"},
		{"no workers from the caller", "datasets: [lite]\nmodels: [scripted]\n", &Options{Workers: 0, PullWorkers: 1}, "FILE: workers 0: want at least 1"},
		{"no pull workers", "datasets: [lite]\nmodels: [scripted]\npull_workers: -2\n", &Options{Workers: 1, PullWorkers: -2}, "FILE:3: pull_workers -2: want at least 1"},
		{"no attempts", "datasets: [lite]\nmodels: [scripted]\nmax_attempts: 0\n", nil, "FILE:3: max_attempts 0: want at least 1"},
		{"a negative cost limit", "datasets: [lite]\nmodels: [scripted]\nmax_cost: -1\n", nil, "FILE:3: max_cost must not be negative"},
		{"a negative deadline", "datasets: [lite]\nmodels: [scripted]\nmax_duration: -1s\n", nil, "FILE:3: max_duration must not be negative"},
		{"no eval time", "datasets: [lite]\nmodels: [scripted]\neval_timeout: 0s\n", nil, "FILE:3: eval_timeout must be positive"},
		{"a negative backend wait", "datasets: [lite]\nmodels: [scripted]\nbackend_wait: -1m\n", nil, "FILE:3: backend_wait must not be negative (0 stops the sweep as soon as the backend does not answer)"},
		{"a name that is no folder name", "name: nightly/{date}\ndatasets: [lite]\nmodels: [scripted]\n", nil,
			`FILE:1: name "nightly/{date}" makes the folder name "nightly/2026-08-12": use letters, digits, '.', '_', '-' and {date}, {time}`},
		{"a dataset without a split", "datasets:\n  - name: x\nmodels: [scripted]\n", nil, "FILE:2: datasets[0] has no split"},
		{"a dataset name that is no folder name", "datasets:\n  - {name: 'a b', split: lite}\nmodels: [scripted]\n", nil,
			`FILE:2: datasets[0]: name "a b": use letters, digits, '.', '_' and '-' (it names folders)`},
		{"two datasets of one name", "datasets:\n  - lite\n  - hf:org/lite\nmodels: [scripted]\n", nil,
			`FILE:3: datasets[1]: the name "lite" is also the name of datasets[0] on line 2; give each a distinct name`},
		{"a bad selection", "datasets:\n  - split: lite\n    slice: \"zero:3\"\nmodels: [scripted]\n", nil,
			`FILE:2: datasets[0] (lite): --slice "zero:3": "zero" is not an integer; want Python slice syntax A:B or A:B:C (e.g. 0:5, 10:, ::2, -3:)`},
		{"a model without a model", "datasets: [lite]\nmodels:\n  - name: a\n", nil, "FILE:3: models[0] has no model: (e.g. model: openai/gpt-5)"},
		{"a negative cost limit of a model", "datasets: [lite]\nmodels:\n  - model: scripted\n    max_cost: -3\n", nil, "FILE:3: models[0]: max_cost must not be negative"},
		{"a model name that is no folder name", "datasets: [lite]\nmodels:\n  - model: scripted\n    name: _x\n", nil,
			`FILE:3: models[0]: name "_x": use letters, digits, '.', '_' and '-' (it names folders)`},
		{"duplicate model names", "datasets: [lite]\nmodels:\n  - name: a\n    model: scripted\n  - name: a\n    model: scripted\n", nil,
			`FILE:5: models[1]: duplicate name "a" (also models[0] on line 3): two settings of one model are two models, each with its own name`},
		{"two settings of one model without names", "datasets: [lite]\nmodels:\n  - model: openai/gpt-4o-mini\n  - model: openai/gpt-4o-mini\n", nil,
			`FILE:4: models[1]: duplicate name "gpt-4o-mini" (also models[0] on line 3): two settings of one model are two models, each with its own name`},
		{"a baseline that names no model", "datasets: [lite]\nmodels: [scripted, openai/gpt-5]\nbaseline: sonnet\n", nil,
			`FILE:3: baseline "sonnet" names no model; the models are gpt-5, scripted`},
		{"a baseline that names a cell", "datasets:\n  - {name: x, split: lite}\n  - {name: y, split: lite}\nmodels: [scripted]\nbaseline: scripted-x\n", nil,
			`FILE:5: baseline "scripted-x" names a cell; the baseline is a model, compared with the others on each dataset: baseline: scripted`},
		{"a baseline that names no model of several datasets", "datasets:\n  - {name: x, split: lite}\n  - {name: y, split: lite}\nmodels: [scripted]\nbaseline: sonnet\n", nil,
			`FILE:5: baseline "sonnet" names no model; the models are scripted`},
		{"duplicate cell name", "datasets:\n  - {name: b-c, split: lite}\n  - {name: c, split: lite}\nmodels:\n  - name: a\n    model: scripted\n  - name: a-b\n    model: scripted\n", nil,
			`FILE:7: models[1] (a-b): duplicate cell name "a-b-c": also the cell of models[0] (a) on line 5; rename one of the models`},
		{"a cell named as a file of the sweep folder", "datasets: [lite]\nmodels:\n  - name: compare.json\n    model: scripted\n", nil,
			`FILE:3: models[0] (compare.json): the cell name "compare.json" is taken by a file of the sweep folder; rename the model`},
		{"a cell named as a file of the sweep folder, in capitals", "datasets: [lite]\nmodels:\n  - name: Sweep.JSON\n    model: scripted\n", nil,
			`FILE:3: models[0] (Sweep.JSON): the cell name "Sweep.JSON" is taken by a file of the sweep folder; rename the model`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions
			if tt.opts != nil {
				opts = *tt.opts
			}
			path := writeFile(t, tt.file)
			p, err := planFile(t, path, opts)
			if err == nil {
				t.Fatalf("no error; planned %d cells", len(p.Cells))
			}
			if got, want := err.Error(), strings.ReplaceAll(tt.want, "FILE", path); got != want {
				t.Errorf("error:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// A sweep the command line makes has no file: its errors name no file and no line.
func TestPlanErrorsWithoutFile(t *testing.T) {
	tests := []struct {
		name     string
		models   []ModelSpec
		datasets []DatasetSpec
		want     string
	}{
		{"no datasets", []ModelSpec{{Model: "scripted"}}, nil, "the sweep has no datasets: give datasets: in the sweep file, or --split DATASET"},
		{"two datasets of one name", []ModelSpec{{Model: "scripted"}}, []DatasetSpec{{Split: "d/dataset.jsonl"}, {Split: "dataset.jsonl"}},
			`datasets[1]: the name "dataset" is also the name of datasets[0]; give each a distinct name`},
		{"two models of one name", []ModelSpec{{Model: "scripted"}, {Model: "scripted"}}, []DatasetSpec{{Split: "lite"}},
			`models[1]: duplicate name "scripted" (also models[0]): two settings of one model are two models, each with its own name`},
		{"duplicate cell name", []ModelSpec{{Name: "a", Model: "scripted"}, {Name: "a-b", Model: "scripted"}}, []DatasetSpec{{Name: "b-c", Split: "lite"}, {Name: "c", Split: "lite"}},
			`models[1] (a-b): duplicate cell name "a-b-c": also the cell of models[0] (a); rename one of the models`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFile()
			f.ReplaceModels(tt.models)
			f.ReplaceDatasets(tt.datasets)
			f.FillDefaults(testDefaults)
			_, err := f.Plan(testOptions, testNow)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tt.want)
			}
		})
	}
}

// The matrix expands into cells by model, dataset and repeat; a variant is the model; a cell is
// named by the model, the dataset when there are several, and -rN with repeats.
func TestPlanCells(t *testing.T) {
	type cell struct {
		Name, Variant, Model, Dataset string
		Repeat                        int
	}
	tests := []struct {
		name string
		file string
		want []cell
	}{
		{"one of each", "datasets: [lite]\nmodels: [openai/gpt-5]\n", []cell{{"gpt-5", "gpt-5", "gpt-5", "lite", 1}}},
		{"repeats", "datasets: [lite]\nmodels: [openai/gpt-5]\nrepeats: 2\n",
			[]cell{{"gpt-5-r1", "gpt-5", "gpt-5", "lite", 1}, {"gpt-5-r2", "gpt-5", "gpt-5", "lite", 2}}},
		{"models × datasets × repeats", "datasets:\n  - verified\n  - {name: l0, split: lite, slice: '0:2'}\nmodels:\n  - {name: a, model: scripted}\n  - openai/gpt-5\nrepeats: 2\n",
			[]cell{
				{"a-verified-r1", "a", "a", "verified", 1}, {"a-verified-r2", "a", "a", "verified", 2},
				{"a-l0-r1", "a", "a", "l0", 1}, {"a-l0-r2", "a", "a", "l0", 2},
				{"gpt-5-verified-r1", "gpt-5", "gpt-5", "verified", 1}, {"gpt-5-verified-r2", "gpt-5", "gpt-5", "verified", 2},
				{"gpt-5-l0-r1", "gpt-5", "gpt-5", "l0", 1}, {"gpt-5-l0-r2", "gpt-5", "gpt-5", "l0", 2},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := planFile(t, writeFile(t, tt.file), testOptions)
			if err != nil {
				t.Fatal(err)
			}
			var got []cell
			for _, c := range p.Cells {
				got = append(got, cell{c.Name, c.Variant, c.Model.Name, c.Dataset.Name, c.Repeat})
				if c.Dir != c.Name {
					t.Errorf("cell %s: dir %q", c.Name, c.Dir)
				}
				if p.Models[c.Model.Index] != c.Model || p.Datasets[c.Dataset.Index] != c.Dataset {
					t.Errorf("cell %s: its model and dataset are not the plan's", c.Name)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells:\n%v\nwant:\n%v", got, tt.want)
			}
		})
	}
}

// The folder's name fills the template with the local date and time; the folder and the history
// file are in the output folder unless given.
func TestPlanFolder(t *testing.T) {
	p, err := planFile(t, writeFile(t, "name: n-{date}-{time}\noutput: out\ndatasets: [lite]\nmodels: [scripted]\n"), testOptions)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "n-2026-08-12-020304" || p.Dir != filepath.Join("out", p.Name) || p.History != filepath.Join("out", "history.jsonl") {
		t.Errorf("name %q, dir %q, history %q", p.Name, p.Dir, p.History)
	}
	p, err = planFile(t, writeFile(t, "history: h.jsonl\ndatasets: [lite]\nmodels: [scripted]\n"), testOptions)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "sweep-2026-08-12" || p.Dir != filepath.Join(DefaultOutput, p.Name) || p.History != "h.jsonl" {
		t.Errorf("name %q, dir %q, history %q", p.Name, p.Dir, p.History)
	}
}

// A dataset file or a model's script beside the sweep file is found from any working directory;
// the same given on the command line is the working directory's.
func TestPlanPathsOfTheFile(t *testing.T) {
	path := writeFile(t, "datasets: [data.jsonl, lite]\nmodels: [scripted:script.yaml, scripted:other.yaml]\n")
	dir := filepath.Dir(path)
	for _, name := range []string{"data.jsonl", "script.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := planFile(t, path, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{p.Datasets[0].Split, p.Datasets[1].Split}; !reflect.DeepEqual(got, []string{filepath.Join(dir, "data.jsonl"), "lite"}) {
		t.Errorf("splits = %q", got)
	}
	if got := []string{p.Models[0].Spec.Model, p.Models[1].Spec.Model}; !reflect.DeepEqual(got, []string{"scripted:" + filepath.Join(dir, "script.yaml"), "scripted:other.yaml"}) {
		t.Errorf("models = %q", got)
	}
	if p.Datasets[0].Name != "data" || p.Models[0].Name != "scripted-script" {
		t.Errorf("names %q, %q", p.Datasets[0].Name, p.Models[0].Name)
	}

	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f.ReplaceDatasets([]DatasetSpec{{Split: "data.jsonl"}})
	f.ReplaceModels([]ModelSpec{{Model: "scripted:script.yaml"}})
	f.FillDefaults(testDefaults)
	if p, err = f.Plan(testOptions, testNow); err != nil {
		t.Fatal(err)
	}
	if p.Datasets[0].Split != "data.jsonl" || p.Models[0].Spec.Model != "scripted:script.yaml" {
		t.Errorf("from the command line: split %q, model %q", p.Datasets[0].Split, p.Models[0].Spec.Model)
	}
}

// Default names come from the model or split: the last path element, without revision, extension
// or characters that do not belong in a folder name.
func TestNamePart(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"openai/gpt-5", "gpt-5"},
		{"openai/gpt-4.1", "gpt-4.1"}, // a dot is no extension: gpt-4.1 and gpt-4.5 stay apart
		{"deepseek/deepseek-v3.2", "deepseek-v3.2"},
		{"/data/sets/tasks.jsonl.gz", "tasks"},
		{"anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"openrouter/moonshotai/kimi-k2", "kimi-k2"},
		{"verified", "verified"},
		{"hf:princeton-nlp/SWE-bench_Lite:dev@0123abc", "SWE-bench_Lite-dev"},
		{"/data/sets/dataset.jsonl", "dataset"},
		{"scripted", "scripted"},
		{"scripted:demo/scripted.yaml", "scripted-scripted"},
		{"my model", "my_model"},
		{"_hidden", "hidden"},
	} {
		if got := namePart(tt.in); got != tt.want {
			t.Errorf("namePart(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
