package compare

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/results"
)

// SweepFile is the name of a sweep folder's manifest.
const SweepFile = "sweep.json"

// SweepSchemaVersion is the version of sweep.json this package reads and writes.
const SweepSchemaVersion = 1

// Sweep is <sweep folder>/sweep.json: the matrix of a sweep. Every cell is an ordinary run
// directory inside the sweep folder; cells with the same Variant are repeats of one model ×
// config × dataset.
//
//	{
//	  "schema_version": 1,
//	  "name": "nightly-2026-08-12",
//	  "created": "2026-08-12T02:00:00Z",
//	  "cells": [
//	    {"name": "sonnet-r1", "variant": "sonnet", "dir": "sonnet-r1",
//	     "model": "anthropic/claude-sonnet-4-5", "config_hash": "3f2a9c0d41b7",
//	     "dataset": "princeton-nlp/SWE-bench_Verified:test", "dataset_revision": "<sha>",
//	     "repeat": 1}
//	  ]
//	}
//
// dir is relative to the sweep folder; repeat is 1-based; config_hash is ConfigHash of the
// cell's resolved config; dataset_revision is the dataset's resolved commit (or file sha256).
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
	Dir             string `json:"dir"`
	Model           string `json:"model"`
	ConfigHash      string `json:"config_hash"`
	Dataset         string `json:"dataset"`
	DatasetRevision string `json:"dataset_revision"`
	Repeat          int    `json:"repeat"`
}

// Validate checks the manifest: a known schema version, a name, unique cell names, relative
// cell directories inside the folder, and repeats numbered from 1 without duplicates per variant.
func (s *Sweep) Validate() error {
	if s.SchemaVersion != SweepSchemaVersion {
		return fmt.Errorf("schema_version is %d, this version reads %d", s.SchemaVersion, SweepSchemaVersion)
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
		variant string
		repeat  int
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
		if other, ok := repeats[vr{c.Variant, c.Repeat}]; ok {
			return fmt.Errorf("%s (%s): variant %q has repeat %d twice (also cell %q)", where, c.Name, c.Variant, c.Repeat, other)
		}
		names[c.Name] = true
		dirs[filepath.Clean(c.Dir)] = c.Name
		repeats[vr{c.Variant, c.Repeat}] = c.Name
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
		return nil, fmt.Errorf("%s is not a sweep manifest (%v); expected {\"schema_version\":1,\"name\",\"created\",\"cells\":[…]}", p, err)
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
// with the same hash ran with the same settings, model included.
func ConfigHash(config map[string]any) string {
	if len(config) == 0 {
		return ""
	}
	data, err := json.Marshal(config)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// cellLabel names a cell's run: the variant, plus the repeat when the variant has several.
func cellLabel(s *Sweep, c Cell) string {
	n := 0
	for _, o := range s.Cells {
		if o.Variant == c.Variant {
			n++
		}
	}
	if n > 1 {
		return fmt.Sprintf("%s#%d", c.Variant, c.Repeat)
	}
	return strings.TrimSpace(c.Variant)
}
