package compare

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/results"
)

// SweepFile is the name of a sweep folder's manifest.
const SweepFile = "sweep.json"

// SweepSchemaVersion is the version of sweep.json this package writes. It reads version 1 too,
// where a cell's variant named the model and, with several datasets, the dataset
// ("MODEL-DATASET"), and no cell had a dataset_name.
const SweepSchemaVersion = 2

// Sweep is <sweep folder>/sweep.json: the matrix of a sweep. Every cell is an ordinary run
// directory inside the sweep folder; cells with the same Variant and DatasetName are repeats of
// one model × config on one dataset.
//
//	{
//	  "schema_version": 2,
//	  "name": "nightly-2026-08-12",
//	  "created": "2026-08-12T02:00:00Z",
//	  "cells": [
//	    {"name": "sonnet-verified-r1", "variant": "sonnet", "dataset_name": "verified",
//	     "dir": "sonnet-verified-r1", "model": "anthropic/claude-sonnet-4-5",
//	     "config_hash": "3f2a9c0d41b7", "dataset": "princeton-nlp/SWE-bench_Verified:test",
//	     "dataset_revision": "<sha>", "repeat": 1}
//	  ]
//	}
//
// variant is the model's name in the sweep file; dataset_name the dataset's; dir is relative to
// the sweep folder; repeat is 1-based; config_hash is ConfigHash of the cell's resolved config;
// dataset_revision is the dataset's resolved commit (or file sha256).
type Sweep struct {
	SchemaVersion int       `json:"schema_version"`
	Name          string    `json:"name"`
	Created       time.Time `json:"created"`
	Cells         []Cell    `json:"cells"`
}

// Cell is one run of a sweep.
type Cell struct {
	Name            string `json:"name"`
	Variant         string `json:"variant"`
	DatasetName     string `json:"dataset_name,omitempty"` // schema 2
	Dir             string `json:"dir"`
	Model           string `json:"model"`
	ConfigHash      string `json:"config_hash"`
	Dataset         string `json:"dataset"`
	DatasetRevision string `json:"dataset_revision"`
	Repeat          int    `json:"repeat"`
	// History is the cell's environment.history (past, none, as-is); "" in sweeps made before
	// the history guard.
	History string `json:"history,omitempty"`
}

// Validate checks the manifest: a known schema version, a name, unique cell names, relative
// cell directories inside the folder, and repeats numbered from 1 without duplicates per variant
// and dataset.
func (s *Sweep) Validate() error {
	switch s.SchemaVersion {
	case SweepSchemaVersion:
	case 1:
		for k, c := range s.Cells {
			if c.DatasetName != "" {
				return fmt.Errorf("cells[%d] (%s): dataset_name is a key of schema_version 2", k, c.Name)
			}
		}
	default:
		return fmt.Errorf("schema_version is %d, this version reads 1 and %d", s.SchemaVersion, SweepSchemaVersion)
	}
	if s.Name == "" {
		return errors.New("name is empty")
	}
	if len(s.Cells) == 0 {
		return errors.New("cells is empty")
	}
	names := map[string]bool{}
	dirs := map[string]string{}
	type vr struct {
		variant, dataset string
		repeat           int
	}
	repeats := map[vr]string{}
	for k, c := range s.Cells {
		where := fmt.Sprintf("cells[%d]", k)
		switch {
		case c.Name == "":
			return fmt.Errorf("%s: name is empty", where)
		case names[c.Name]:
			return fmt.Errorf("%s: duplicate cell name %q", where, c.Name)
		case c.Variant == "":
			return fmt.Errorf("%s (%s): variant is empty", where, c.Name)
		case c.Dir == "" || filepath.IsAbs(c.Dir) || !filepath.IsLocal(filepath.FromSlash(c.Dir)):
			return fmt.Errorf("%s (%s): dir %q must be a relative path inside the sweep folder", where, c.Name, c.Dir)
		case c.Repeat < 1:
			return fmt.Errorf("%s (%s): repeat is %d, repeats count from 1", where, c.Name, c.Repeat)
		}
		if other, ok := dirs[filepath.Clean(c.Dir)]; ok {
			return fmt.Errorf("%s (%s): dir %q is also the dir of cell %q", where, c.Name, c.Dir, other)
		}
		if other, ok := repeats[vr{c.Variant, c.DatasetName, c.Repeat}]; ok {
			on := ""
			if c.DatasetName != "" {
				on = fmt.Sprintf(" on dataset %q", c.DatasetName)
			}
			return fmt.Errorf("%s (%s): variant %q has repeat %d twice%s (also cell %q)", where, c.Name, c.Variant, c.Repeat, on, other)
		}
		names[c.Name] = true
		dirs[filepath.Clean(c.Dir)] = c.Name
		repeats[vr{c.Variant, c.DatasetName, c.Repeat}] = c.Name
	}
	return nil
}

// ReadSweep reads and validates <dir>/sweep.json.
func ReadSweep(dir string) (*Sweep, error) {
	p := filepath.Join(dir, SweepFile)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read sweep: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Sweep
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s is not a sweep manifest (%v); expected {\"schema_version\":%d,\"name\",\"created\",\"cells\":[…]}", p, err, SweepSchemaVersion)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &s, nil
}

// WriteSweep validates s and writes it atomically as <dir>/sweep.json.
func WriteSweep(dir string, s *Sweep) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("sweep %s: %w", dir, err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sweep folder: %w", err)
	}
	return results.WriteFileAtomic(filepath.Join(dir, SweepFile), append(data, '\n'), 0o644)
}

// isSweep reports whether dir holds a sweep.json.
func isSweep(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, SweepFile))
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// ConfigHash is the short hash that identifies a resolved config (run.json's config, secrets
// removed): the first 12 hex digits of the sha256 of its canonical JSON (keys sorted). Two runs
// with the same hash ran with the same settings, model included. Settings that change how a
// command is carried but not what it does (environment.launcher: the launcher runs each command
// as exec would) are left out, so that runs made before such a setting existed keep their hash.
// environment.history changes what the agent may read, so past and none are in the hash; as-is
// is left out, as runs made before the history guard saw their images' repositories as they
// were, so an as-is run and such a run have the same hash.
func ConfigHash(config map[string]any) string {
	if len(config) == 0 {
		return ""
	}
	if env, ok := config["environment"].(map[string]any); ok {
		_, launcher := env["launcher"]
		asIs := env["history"] == "as-is"
		if launcher || asIs {
			env = maps.Clone(env)
			delete(env, "launcher")
			if asIs {
				delete(env, "history")
			}
			config = maps.Clone(config)
			config["environment"] = env
		}
	}
	data, err := json.Marshal(config)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// cellLabel names a cell's run, unique in the sweep: the variant, its dataset when the sweep has
// several, and the repeat when it has several ("sonnet-verified#2").
func cellLabel(s *Sweep, c Cell) string {
	n := 0
	datasets := map[string]bool{}
	for _, o := range s.Cells {
		datasets[o.DatasetName] = true
		if o.Variant == c.Variant && o.DatasetName == c.DatasetName {
			n++
		}
	}
	label := strings.TrimSpace(c.Variant)
	if len(datasets) > 1 {
		label += "-" + c.DatasetName
	}
	if n > 1 {
		return fmt.Sprintf("%s#%d", label, c.Repeat)
	}
	return label
}
