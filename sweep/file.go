// Package sweep is the sweep's matrix: the sweep file (YAML, decoded strictly, errors with their
// FILE:LINE), its planning into cells (models × datasets × repeats, with their names), the
// sweep.json of a planned matrix, what changed between two matrices, and the history lines a
// finished sweep appends.
//
// A sweep is read with ReadFile (or made by the command line from NewFile), adjusted by the
// command line (ReplaceModels, ReplaceDatasets, the exported fields), completed with
// FillDefaults and expanded by Plan. Loading configs, models and datasets, and running the cells,
// is the caller's: this package reads nothing but the sweep file.
package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/internal/names"
)

// Defaults of a sweep's name and output folder.
const (
	DefaultName   = "sweep-{date}"
	DefaultOutput = "sweeps"
)

// File is a sweep file: the matrix (models × datasets × repeats) and how to run it. Its YAML keys
// are the fields' tags; unknown keys are refused with their line.
type File struct {
	// Name is the template of the sweep folder's name: {date} (YYYY-MM-DD) and {time} (HHMMSS),
	// local time. Default DefaultName.
	Name string `yaml:"name"`
	// Output is the folder that holds the sweep folders and the history file (default
	// DefaultOutput).
	Output string `yaml:"output"`
	// History is the history file (default <output>/history.jsonl).
	History  string        `yaml:"history"`
	Datasets []DatasetSpec `yaml:"datasets"`
	Models   []ModelSpec   `yaml:"models"`
	// Config is given to every model before its own config (files, shipped configs, overrides).
	Config      []string      `yaml:"config"`
	Repeats     int           `yaml:"repeats"`
	Workers     int           `yaml:"workers"`
	MaxCost     float64       `yaml:"max_cost"` // sweep-wide, across resumes
	MaxDuration time.Duration `yaml:"max_duration"`
	Eval        bool          `yaml:"eval"`
	EvalTimeout time.Duration `yaml:"eval_timeout"`
	// Baseline is the model (its name) the others are compared with in compare.json, on each
	// dataset.
	Baseline    string `yaml:"baseline"`
	MaxAttempts int    `yaml:"max_attempts"`
	// BackendWait bounds the wait for a backend that stops answering before the sweep stops
	// (as run's --backend-wait; 0 stops at once).
	BackendWait time.Duration `yaml:"backend_wait"`

	// Where the containers run: as run's flags of the same names.
	Backend       string   `yaml:"backend"`
	DockerHosts   []string `yaml:"docker_hosts"`
	ImageTemplate string   `yaml:"image_template"`
	Pull          string   `yaml:"pull"`
	PullWorkers   int      `yaml:"pull_workers"`
	Platform      string   `yaml:"platform"`
	ImageCache    string   `yaml:"image_cache"`
	Network       string   `yaml:"network"`
	Memory        string   `yaml:"memory"`
	CPUs          float64  `yaml:"cpus"`
	PidsLimit     int64    `yaml:"pids_limit"`

	path  string          // the file, "" for a sweep from flags only
	lines lines           // where each entry is, for errors
	set   map[string]bool // top-level keys the file sets
}

// DatasetSpec is one dataset of the matrix, with its selection. In a file it may be the split
// alone ("- verified").
type DatasetSpec struct {
	// Name labels the dataset in variant and cell names when the sweep has several (default:
	// from the split).
	Name          string   `yaml:"name"`
	Split         string   `yaml:"split"`
	Filter        string   `yaml:"filter"`
	Slice         string   `yaml:"slice"`
	Shuffle       bool     `yaml:"shuffle"`
	Seed          *int64   `yaml:"seed"`
	InstanceIDs   []string `yaml:"instance_ids"`
	Exclude       []string `yaml:"exclude"`
	Shard         string   `yaml:"shard"`
	ImageTemplate string   `yaml:"image_template"`

	fromFlag bool // given on the command line: its path is the working directory's
}

// ModelSpec is one model of the matrix: a variant. Two temperatures of one model are two entries
// with their own names. In a file it may be the model alone ("- openai/gpt-5").
type ModelSpec struct {
	// Name is the variant's name (cell and folder names, comparison inputs); default: from the
	// model.
	Name  string `yaml:"name"`
	Model string `yaml:"model"`
	// Config follows the sweep's config: files, shipped configs, key.path=value overrides.
	Config  []string `yaml:"config"`
	MaxCost float64  `yaml:"max_cost"` // over all the model's cells, across resumes

	fromFlag bool // given on the command line: its path is the working directory's
}

// lines are the lines of a sweep file's entries.
type lines struct {
	keys     map[string]int // top-level keys
	models   []int
	datasets []int
}

// The keys a sweep file may have, by level, from the fields' tags.
var (
	fileKeys    = yamlKeys(File{})
	datasetKeys = yamlKeys(DatasetSpec{})
	modelKeys   = yamlKeys(ModelSpec{})
)

// NewFile returns a sweep without a file, for one the command line makes: its errors name no
// file or line.
func NewFile() *File {
	return &File{set: map[string]bool{}, lines: lines{keys: map[string]int{}}}
}

// ReadFile reads and checks a sweep file: unknown keys (at any level), values of the wrong type
// and malformed YAML are refused with their line.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sweep file: %w", err)
	}
	return parseFile(path, data)
}

func parseFile(path string, data []byte) (*File, error) {
	f := NewFile()
	f.path = path
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: the sweep file is empty; it needs at least models: and datasets:", path)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: a sweep file is a mapping of keys (name, datasets, models, …)", path, doc.Line)
	}
	// Unknown keys first, with their line and the keys known there.
	if err := f.checkKeys(doc, fileKeys, ""); err != nil {
		return nil, err
	}
	for k := 0; k+1 < len(doc.Content); k += 2 {
		key, val := doc.Content[k].Value, doc.Content[k+1]
		f.set[key] = true
		f.lines.keys[key] = doc.Content[k].Line
		var itemKeys []string
		var lines *[]int
		switch key {
		case "models":
			itemKeys, lines = modelKeys, &f.lines.models
		case "datasets":
			itemKeys, lines = datasetKeys, &f.lines.datasets
		default:
			continue
		}
		if val.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%s%s: want a list (- …), one entry per line", f.at(val.Line), key)
		}
		for i, item := range val.Content {
			*lines = append(*lines, item.Line)
			if item.Kind == yaml.ScalarNode {
				continue // "- openai/gpt-5": the model alone; "- verified": the split alone
			}
			if item.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("%s%s[%d]: want a mapping of keys (%s)", f.at(item.Line), key, i, strings.Join(itemKeys, ", "))
			}
			if err := f.checkKeys(item, itemKeys, fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return nil, err
			}
		}
	}
	// Then the values, strictly.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil {
		return nil, yamlError(path, err)
	}
	return f, nil
}

// UnmarshalYAML lets a model entry be the model alone ("- openai/gpt-5"). Its keys were checked
// by checkKeys; decoding the node itself keeps the file's lines in errors.
func (m *ModelSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		m.Model = n.Value
		return nil
	}
	type plain ModelSpec
	return n.Decode((*plain)(m))
}

// UnmarshalYAML lets a dataset entry be the split alone ("- verified").
func (d *DatasetSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		d.Split = n.Value
		return nil
	}
	type plain DatasetSpec
	return n.Decode((*plain)(d))
}

// ReplaceModels replaces the file's models with models given on the command line: their paths
// are the working directory's, and errors about them name no line.
func (f *File) ReplaceModels(models []ModelSpec) {
	f.Models, f.lines.models = nil, nil
	for _, m := range models {
		m.fromFlag = true
		f.Models = append(f.Models, m)
	}
}

// ReplaceDatasets replaces the file's datasets with datasets given on the command line: their
// paths are the working directory's, and errors about them name no line.
func (f *File) ReplaceDatasets(datasets []DatasetSpec) {
	f.Datasets, f.lines.datasets = nil, nil
	for _, d := range datasets {
		d.fromFlag = true
		f.Datasets = append(f.Datasets, d)
	}
}

// Defaults are the values a sweep takes where its file has no key for them. A zero field
// leaves its value alone: the caller passes zero for a value its command line gave.
type Defaults struct {
	Repeats     int
	MaxAttempts int
	EvalTimeout time.Duration
	BackendWait time.Duration
}

// FillDefaults sets what the file leaves unset: the name (DefaultName) and output (DefaultOutput)
// when empty, and the values of d where the file has no key (repeats, max_attempts,
// eval_timeout, backend_wait) and the value is zero.
func (f *File) FillDefaults(d Defaults) {
	if f.Name == "" {
		f.Name = DefaultName
	}
	if f.Output == "" {
		f.Output = DefaultOutput
	}
	if f.Repeats == 0 && !f.set["repeats"] && d.Repeats != 0 {
		f.Repeats = d.Repeats
	}
	if f.MaxAttempts == 0 && !f.set["max_attempts"] {
		f.MaxAttempts = d.MaxAttempts
	}
	if f.EvalTimeout == 0 && !f.set["eval_timeout"] {
		f.EvalTimeout = d.EvalTimeout
	}
	if f.BackendWait == 0 && !f.set["backend_wait"] {
		f.BackendWait = d.BackendWait
	}
}

// At names the place of a top-level key of the sweep file for an error: "FILE:LINE: ", or
// "FILE: " when the file does not set it, or "" for a sweep without a file.
func (f *File) At(key string) string { return f.at(f.lines.keys[key]) }

// ModelAt names the place of models[k], as At.
func (f *File) ModelAt(k int) string {
	if k < len(f.lines.models) {
		return f.at(f.lines.models[k])
	}
	return f.at(0)
}

// DatasetAt names the place of datasets[k], as At.
func (f *File) DatasetAt(k int) string {
	if k < len(f.lines.datasets) {
		return f.at(f.lines.datasets[k])
	}
	return f.at(0)
}

// at names a line of the sweep file for an error: "FILE:LINE: " (or "FILE: " without a line,
// "" for a sweep without a file).
func (f *File) at(line int) string {
	switch {
	case f.path == "":
		return ""
	case line > 0:
		return fmt.Sprintf("%s:%d: ", f.path, line)
	}
	return f.path + ": "
}

// lineNote is " on line N" for entry k of a list of the sweep file.
func (f *File) lineNote(lines []int, k int) string {
	if f.path == "" || k >= len(lines) {
		return ""
	}
	return fmt.Sprintf(" on line %d", lines[k])
}

// Resolve returns a path given in the sweep file relative to the file's folder when it exists
// there; otherwise (a shipped config, a named dataset, a path relative to the working directory,
// a sweep without a file) it is kept as given.
func (f *File) Resolve(p string) string {
	if f.path == "" || p == "" || filepath.IsAbs(p) {
		return p
	}
	cand := filepath.Join(filepath.Dir(f.path), p)
	if _, err := os.Stat(cand); err == nil {
		return cand
	}
	return p
}

// checkKeys refuses a key of m that is not in known, naming its line and the known keys.
func (f *File) checkKeys(m *yaml.Node, known []string, where string) error {
	seen := map[string]int{}
	for k := 0; k+1 < len(m.Content); k += 2 {
		key := m.Content[k]
		in := ""
		if where != "" {
			in = " in " + where
		}
		if prev, dup := seen[key.Value]; dup {
			return fmt.Errorf("%skey %q%s is given twice (also on line %d)", f.at(key.Line), key.Value, in, prev)
		}
		seen[key.Value] = key.Line
		if !slices.Contains(known, key.Value) {
			hint := ""
			if c := closest(key.Value, known); len(c) > 0 {
				hint = fmt.Sprintf(" (did you mean %s?)", strings.Join(c, " or "))
			}
			return fmt.Errorf("%sunknown key %q%s%s; known keys: %s", f.at(key.Line), key.Value, in, hint, strings.Join(known, ", "))
		}
	}
	return nil
}

// closest returns the known keys within a small edit distance of key, or that start with it.
func closest(key string, known []string) []string {
	var out []string
	for _, k := range known {
		if names.Distance(key, k) <= 2 || strings.HasPrefix(k, key) && len(key) >= 3 {
			out = append(out, k)
		}
	}
	return out
}

// yamlError turns a decoding error into "FILE:LINE: what" lines, in words rather than YAML
// tags and Go types.
func yamlError(path string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		for tag, words := range map[string]string{"!!str": "the text", "!!int": "the number", "!!float": "the number", "!!bool": "the boolean", "!!seq": "a list", "!!map": "a mapping"} {
			m = strings.ReplaceAll(m, tag, words)
		}
		m = yamlInto.ReplaceAllStringFunc(m, func(into string) string {
			t := strings.TrimPrefix(into, " into ")
			want, ok := map[string]string{"int": "a whole number", "int64": "a whole number", "float64": "a number",
				"bool": "true or false", "string": "text", "time.Duration": "a duration such as 8h or 90m", "[]string": "a list"}[t]
			if !ok {
				return ""
			}
			return ", want " + want
		})
		if rest, ok := strings.CutPrefix(m, "line "); ok {
			if line, msg, ok := strings.Cut(rest, ": "); ok {
				m = fmt.Sprintf("%s:%s: %s", path, line, msg)
			}
		}
		msgs[i] = m
	}
	return errors.New(strings.Join(msgs, "\n"))
}

var yamlInto = regexp.MustCompile(` into [A-Za-z0-9_.\[\]*]+`)

// yamlKeys lists the yaml tags of a struct's fields, sorted.
func yamlKeys(v any) []string {
	var out []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	sort.Strings(out)
	return out
}

// selection is the dataset's selection.
func (d DatasetSpec) selection() dataset.Selection {
	sel := dataset.Selection{Filter: d.Filter, Slice: d.Slice, Shuffle: d.Shuffle, IDs: d.InstanceIDs, Exclude: d.Exclude, Shard: d.Shard, Seed: dataset.DefaultSeed}
	if d.Seed != nil {
		sel.Seed = *d.Seed
	}
	return sel
}
