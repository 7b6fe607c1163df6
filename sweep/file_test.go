package sweep

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeFile writes a sweep file into a fresh folder and returns its path.
func writeFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nightly.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	knownFileKeys    = "backend, backend_wait, baseline, config, cpus, datasets, docker_hosts, eval, eval_timeout, history, image_cache, image_template, max_attempts, max_cost, max_duration, memory, models, name, network, output, pids_limit, platform, pull, pull_workers, repeats, workers"
	knownDatasetKeys = "exclude, filter, image_template, instance_ids, name, seed, shard, shuffle, slice, split"
)

// A bad sweep file is refused with the file, the line and what is wrong, in words: unknown keys
// (with the near ones), keys given twice, values of the wrong type, malformed YAML.
func TestReadFileErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		want string // the whole error, with FILE for the path
	}{
		{"unknown top-level key", "name: n\ndatasets: [lite]\nworkres: 2\nmodels: [scripted]\n",
			`FILE:3: unknown key "workres" (did you mean workers?); known keys: ` + knownFileKeys},
		{"a prefix of known keys", "datasets: [lite]\nmodels: [scripted]\nmax: 3\n",
			`FILE:3: unknown key "max" (did you mean max_attempts or max_cost or max_duration?); known keys: ` + knownFileKeys},
		{"unknown key of a model", "datasets: [lite]\nmodels:\n  - name: a\n    model: scripted\n  - name: b\n    model: openai/gpt-4o-mini\n    tempreature: 0.7\n",
			`FILE:7: unknown key "tempreature" in models[1]; known keys: config, max_cost, model, name`},
		{"unknown key of a dataset", "datasets:\n  - split: lite\n    slise: \"0:3\"\nmodels: [scripted]\n",
			`FILE:3: unknown key "slise" in datasets[0] (did you mean slice?); known keys: ` + knownDatasetKeys},
		{"a near key of a dataset", "datasets:\n  - split: lite\n    instance_id: [a]\nmodels: [scripted]\n",
			`FILE:3: unknown key "instance_id" in datasets[0] (did you mean instance_ids?); known keys: ` + knownDatasetKeys},
		{"a key given twice", "datasets: [lite]\nmodels: [scripted]\nrepeats: 2\nrepeats: 3\n",
			`FILE:4: key "repeats" is given twice (also on line 3)`},
		{"a key of a model given twice", "datasets: [lite]\nmodels:\n  - name: a\n    name: b\n",
			`FILE:4: key "name" in models[0] is given twice (also on line 3)`},
		{"text for a number", "datasets: [lite]\nmodels: [scripted]\nrepeats: two\n",
			"FILE:3: cannot unmarshal the text `two`, want a whole number"},
		{"text for a number in a model", "datasets: [lite]\nmodels:\n  - name: a\n    model: scripted\n    max_cost: lots\n",
			"FILE:5: cannot unmarshal the text `lots`, want a number"},
		{"text for a seed", "datasets:\n  - split: lite\n    seed: abc\nmodels: [scripted]\n",
			"FILE:3: cannot unmarshal the text `abc`, want a whole number"},
		{"text for a duration", "datasets: [lite]\nmodels: [scripted]\nmax_duration: soon\n",
			"FILE:3: cannot unmarshal the text `soon`, want a duration such as 8h or 90m"},
		{"a number for a list", "datasets: [lite]\nmodels: [scripted]\ndocker_hosts: 3\n",
			"FILE:3: cannot unmarshal the number `3`, want a list"},
		{"two values of the wrong type", "datasets: [lite]\nmodels: [scripted]\nrepeats: two\nworkers: many\n",
			"FILE:3: cannot unmarshal the text `two`, want a whole number\nFILE:4: cannot unmarshal the text `many`, want a whole number"},
		{"empty", "", "FILE: the sweep file is empty; it needs at least models: and datasets:"},
		{"a list", "- a\n- b\n", "FILE:1: a sweep file is a mapping of keys (name, datasets, models, …)"},
		{"models not a list", "datasets: [lite]\nmodels: scripted\n", "FILE:2: models: want a list (- …), one entry per line"},
		{"a model that is a list", "datasets: [lite]\nmodels:\n  - [a, b]\n", "FILE:3: models[0]: want a mapping of keys (config, max_cost, model, name)"},
		{"malformed", "datasets: [lite]\nmodels: [a\n", "FILE: yaml: line 1: did not find expected ',' or ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file)
			f, err := ReadFile(path)
			if err == nil {
				t.Fatalf("no error; read %+v", f)
			}
			if got, want := err.Error(), strings.ReplaceAll(tt.want, "FILE", path); got != want {
				t.Errorf("error:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestReadFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.yaml")
	_, err := ReadFile(path)
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "sweep file: ") || !strings.Contains(err.Error(), path) {
		t.Errorf("error = %v, want the missing %s", err, path)
	}
}

// Entries may be given whole or as the model or split alone; every key lands in its field.
func TestReadFile(t *testing.T) {
	path := writeFile(t, `name: nightly-{date}
output: /data/sweeps
datasets:
  - verified
  - name: lite0
    split: lite
    filter: django
    slice: "0:5"
    shuffle: true
    seed: 7
    instance_ids: [a, b]
    exclude: [c]
    shard: 1/2
    image_template: reg/{id}
models:
  - openai/gpt-5
  - name: t1
    model: openai/gpt-4o-mini
    config: [model.model_kwargs.temperature=1]
    max_cost: 5
config: [base.yaml]
repeats: 3
max_duration: 8h
eval: true
eval_timeout: 90m
docker_hosts: [unix:///a.sock]
cpus: 1.5
pids_limit: -1
`)
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seed := int64(7)
	want := []DatasetSpec{{Split: "verified"}, {Name: "lite0", Split: "lite", Filter: "django", Slice: "0:5", Shuffle: true, Seed: &seed,
		InstanceIDs: []string{"a", "b"}, Exclude: []string{"c"}, Shard: "1/2", ImageTemplate: "reg/{id}"}}
	if !reflect.DeepEqual(f.Datasets, want) {
		t.Errorf("datasets = %+v, want %+v", f.Datasets, want)
	}
	wantModels := []ModelSpec{{Model: "openai/gpt-5"}, {Name: "t1", Model: "openai/gpt-4o-mini", Config: []string{"model.model_kwargs.temperature=1"}, MaxCost: 5}}
	if !reflect.DeepEqual(f.Models, wantModels) {
		t.Errorf("models = %+v, want %+v", f.Models, wantModels)
	}
	if f.Name != "nightly-{date}" || f.Output != "/data/sweeps" || f.Repeats != 3 || f.MaxDuration != 8*time.Hour || !f.Eval ||
		f.EvalTimeout != 90*time.Minute || f.CPUs != 1.5 || f.PidsLimit != -1 || !reflect.DeepEqual(f.Config, []string{"base.yaml"}) ||
		!reflect.DeepEqual(f.DockerHosts, []string{"unix:///a.sock"}) {
		t.Errorf("read %+v", f)
	}
	if got := f.Datasets[1].selection(); got.Seed != 7 || got.Slice != "0:5" || !got.Shuffle || got.Shard != "1/2" {
		t.Errorf("selection = %+v", got)
	}
	if got := f.Datasets[0].selection(); got.Seed == 0 {
		t.Errorf("selection without a seed has seed 0, want the default")
	}
}

// At names a key's line; a key the file does not set names the file; a sweep without a file names
// nothing.
func TestAt(t *testing.T) {
	path := writeFile(t, "datasets: [lite]\nmodels:\n  - a\n  - b\nrepeats: 2\n")
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ got, want string }{
		{f.At("repeats"), path + ":5: "},
		{f.At("workers"), path + ": "},
		{f.ModelAt(1), path + ":4: "},
		{f.DatasetAt(0), path + ":1: "},
		{f.ModelAt(5), path + ": "},
		{NewFile().At("repeats"), ""},
		{NewFile().ModelAt(0), ""},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	// Models from the command line have no line.
	f.ReplaceModels([]ModelSpec{{Model: "scripted"}})
	if got := f.ModelAt(0); got != path+": " {
		t.Errorf("a model from the command line is at %q", got)
	}
}

// Defaults fill what the file leaves out, not what it sets (even to zero).
func TestFillDefaults(t *testing.T) {
	d := Defaults{Repeats: 1, MaxAttempts: 3, EvalTimeout: time.Hour, BackendWait: 5 * time.Minute}
	tests := []struct {
		name     string
		file     string
		defaults Defaults
		want     File // Name, Output, Repeats, MaxAttempts, EvalTimeout, BackendWait
	}{
		{"nothing set", "datasets: [lite]\n", d, File{Name: DefaultName, Output: DefaultOutput, Repeats: 1, MaxAttempts: 3, EvalTimeout: time.Hour, BackendWait: 5 * time.Minute}},
		{"set", "name: n\noutput: o\nrepeats: 2\nmax_attempts: 5\neval_timeout: 2m\nbackend_wait: 30m\n", d, File{Name: "n", Output: "o", Repeats: 2, MaxAttempts: 5, EvalTimeout: 2 * time.Minute, BackendWait: 30 * time.Minute}},
		{"set to zero", "name: \"\"\nrepeats: 0\nmax_attempts: 0\neval_timeout: 0s\nbackend_wait: 0s\n", d, File{Name: DefaultName, Output: DefaultOutput}},
		{"zero defaults", "datasets: [lite]\n", Defaults{}, File{Name: DefaultName, Output: DefaultOutput}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ReadFile(writeFile(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			f.FillDefaults(tt.defaults)
			got := File{Name: f.Name, Output: f.Output, Repeats: f.Repeats, MaxAttempts: f.MaxAttempts, EvalTimeout: f.EvalTimeout, BackendWait: f.BackendWait}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Paths of a sweep file are its folder's when they exist there, else kept as given.
func TestResolve(t *testing.T) {
	path := writeFile(t, "datasets: [lite]\n")
	dir := filepath.Dir(path)
	if err := os.WriteFile(filepath.Join(dir, "base.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(t.TempDir(), "x.yaml")
	for _, tt := range []struct{ in, want string }{
		{"base.yaml", filepath.Join(dir, "base.yaml")},
		{"other.yaml", "other.yaml"},
		{"swebench", "swebench"},
		{abs, abs},
		{"", ""},
	} {
		if got := f.Resolve(tt.in); got != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := NewFile().Resolve("base.yaml"); got != "base.yaml" {
		t.Errorf("without a file: Resolve = %q", got)
	}
}
