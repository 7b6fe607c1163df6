package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/internal/names"
)

// sweepFile is a sweep file: the matrix (models × datasets × repeats) and how to run it. Its
// YAML keys are the fields' tags; unknown keys are refused with their line.
type sweepFile struct {
	// Name is the template of the sweep folder's name: {date} (YYYY-MM-DD) and {time} (HHMMSS),
	// local time. Default "sweep-{date}".
	Name string `yaml:"name"`
	// Output is the folder that holds the sweep folders and the history file (default "sweeps").
	Output string `yaml:"output"`
	// History is the history file (default <output>/history.jsonl).
	History  string         `yaml:"history"`
	Datasets []sweepDataset `yaml:"datasets"`
	Models   []sweepModel   `yaml:"models"`
	// Config is given to every model before its own config (files, shipped configs, overrides).
	Config      []string      `yaml:"config"`
	Repeats     int           `yaml:"repeats"`
	Workers     int           `yaml:"workers"`
	MaxCost     float64       `yaml:"max_cost"` // sweep-wide, across resumes
	MaxDuration time.Duration `yaml:"max_duration"`
	Eval        bool          `yaml:"eval"`
	EvalTimeout time.Duration `yaml:"eval_timeout"`
	// Baseline is the variant (model name) the others are compared with in compare.json.
	Baseline    string `yaml:"baseline"`
	MaxAttempts int    `yaml:"max_attempts"`

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
	lines sweepLines      // where each entry is, for errors
	set   map[string]bool // top-level keys the file sets
}

// sweepDataset is one dataset of the matrix, with its selection.
type sweepDataset struct {
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

	fromFlag bool // given with --split: its path is the working directory's
}

// sweepModel is one model of the matrix: a variant. Two temperatures of one model are two
// entries with their own names.
type sweepModel struct {
	// Name is the variant's name (cell and folder names, comparison inputs); default: from the
	// model.
	Name  string `yaml:"name"`
	Model string `yaml:"model"`
	// Config follows the sweep's config: files, shipped configs, key.path=value overrides.
	Config  []string `yaml:"config"`
	MaxCost float64  `yaml:"max_cost"` // over all the model's cells, across resumes

	fromFlag bool // given with --model: its path is the working directory's
}

// sweepLines are the lines of a sweep file's entries.
type sweepLines struct {
	keys     map[string]int // top-level keys
	models   []int
	datasets []int
}

// at names a place of the sweep file for an error: "FILE:LINE: " (or "FILE: " without a line,
// "" for a sweep from flags).
func (sf *sweepFile) at(line int) string {
	switch {
	case sf.path == "":
		return ""
	case line > 0:
		return fmt.Sprintf("%s:%d: ", sf.path, line)
	}
	return sf.path + ": "
}

func (sf *sweepFile) modelAt(k int) string {
	if k < len(sf.lines.models) {
		return sf.at(sf.lines.models[k])
	}
	return sf.at(0)
}

func (sf *sweepFile) datasetAt(k int) string {
	if k < len(sf.lines.datasets) {
		return sf.at(sf.lines.datasets[k])
	}
	return sf.at(0)
}

// The keys a sweep file may have, by level, from the fields' tags.
var (
	sweepKeys        = yamlKeys(sweepFile{})
	sweepDatasetKeys = yamlKeys(sweepDataset{})
	sweepModelKeys   = yamlKeys(sweepModel{})
)

// readSweepFile reads and checks a sweep file: unknown keys (at any level), values of the wrong
// type and malformed YAML are refused with their line.
func readSweepFile(path string) (*sweepFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sweep file: %w", err)
	}
	return parseSweepFile(path, data)
}

func parseSweepFile(path string, data []byte) (*sweepFile, error) {
	sf := &sweepFile{path: path, set: map[string]bool{}, lines: sweepLines{keys: map[string]int{}}}
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
	if err := checkKeys(sf, doc, sweepKeys, ""); err != nil {
		return nil, err
	}
	for k := 0; k+1 < len(doc.Content); k += 2 {
		key, val := doc.Content[k].Value, doc.Content[k+1]
		sf.set[key] = true
		sf.lines.keys[key] = doc.Content[k].Line
		var itemKeys []string
		var lines *[]int
		switch key {
		case "models":
			itemKeys, lines = sweepModelKeys, &sf.lines.models
		case "datasets":
			itemKeys, lines = sweepDatasetKeys, &sf.lines.datasets
		default:
			continue
		}
		if val.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%s%s: want a list (- …), one entry per line", sf.at(val.Line), key)
		}
		for i, item := range val.Content {
			*lines = append(*lines, item.Line)
			if item.Kind == yaml.ScalarNode && key == "models" {
				continue // "- openai/gpt-5": the model alone
			}
			if item.Kind == yaml.ScalarNode && key == "datasets" {
				continue // "- verified": the split alone
			}
			if item.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("%s%s[%d]: want a mapping of keys (%s)", sf.at(item.Line), key, i, strings.Join(itemKeys, ", "))
			}
			if err := checkKeys(sf, item, itemKeys, fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return nil, err
			}
		}
	}
	// Then the values, strictly.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(sf); err != nil {
		return nil, yamlError(path, err)
	}
	return sf, nil
}

// UnmarshalYAML lets a model entry be the model alone ("- openai/gpt-5"). Its keys were checked
// by checkKeys; decoding the node itself keeps the file's lines in errors.
func (m *sweepModel) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		m.Model = n.Value
		return nil
	}
	type plain sweepModel
	return n.Decode((*plain)(m))
}

// UnmarshalYAML lets a dataset entry be the split alone ("- verified").
func (d *sweepDataset) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		d.Split = n.Value
		return nil
	}
	type plain sweepDataset
	return n.Decode((*plain)(d))
}

// checkKeys refuses a key of m that is not in known, naming its line and the known keys.
func checkKeys(sf *sweepFile, m *yaml.Node, known []string, where string) error {
	seen := map[string]int{}
	for k := 0; k+1 < len(m.Content); k += 2 {
		key := m.Content[k]
		in := ""
		if where != "" {
			in = " in " + where
		}
		if prev, dup := seen[key.Value]; dup {
			return fmt.Errorf("%skey %q%s is given twice (also on line %d)", sf.at(key.Line), key.Value, in, prev)
		}
		seen[key.Value] = key.Line
		if !contains(known, key.Value) {
			hint := ""
			if c := closest(key.Value, known); len(c) > 0 {
				hint = fmt.Sprintf(" (did you mean %s?)", strings.Join(c, " or "))
			}
			return fmt.Errorf("%sunknown key %q%s%s; known keys: %s", sf.at(key.Line), key.Value, in, hint, strings.Join(known, ", "))
		}
	}
	return nil
}

// closest returns the known keys within a small edit distance of key.
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

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

// sweepNameRe is what variant, dataset and cell names may contain: they name folders.
var sweepNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

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
	s = strings.TrimSuffix(s, filepath.Ext(s))
	s = names.Safe(s)
	return strings.TrimLeft(s, "._-")
}

// expandSweepName fills the sweep name template.
func expandSweepName(tmpl string, now time.Time) string {
	r := strings.NewReplacer("{date}", now.Format(time.DateOnly), "{time}", now.Format("150405"))
	return r.Replace(tmpl)
}

// selection is the dataset's selection.
func (d sweepDataset) selection() dataset.Selection {
	sel := dataset.Selection{Filter: d.Filter, Slice: d.Slice, Shuffle: d.Shuffle, IDs: d.InstanceIDs, Exclude: d.Exclude, Shard: d.Shard, Seed: dataset.DefaultSeed}
	if d.Seed != nil {
		sel.Seed = *d.Seed
	}
	return sel
}

// relToFile resolves a path of the sweep file relative to the file's folder when it exists
// there; otherwise (a shipped config, a named dataset, a path relative to the working
// directory) it is kept as given.
func (sf *sweepFile) relToFile(p string) string {
	if sf.path == "" || p == "" || filepath.IsAbs(p) {
		return p
	}
	cand := filepath.Join(filepath.Dir(sf.path), p)
	if _, err := os.Stat(cand); err == nil {
		return cand
	}
	return p
}
