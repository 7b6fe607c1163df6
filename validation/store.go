package validation

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
	"sort"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/internal/atomicfile"
	"github.com/swebench-run/swebench-run/internal/names"
)

// EnvDir names the environment variable that overrides the store's default directory.
const EnvDir = "SWEBENCH_RUN_VALIDATION"

// File names in a dataset's folder of the store.
const (
	FileName     = "validation.json"
	instancesDir = "instances"
	logsDir      = "logs"
)

// SchemaVersion is the version of File's JSON form.
const SchemaVersion = 1

// DefaultDir is the store's directory: $SWEBENCH_RUN_VALIDATION, else
// $XDG_CACHE_HOME/swebench-run/validation, else ~/.cache/swebench-run/validation.
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "swebench-run", "validation"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no directory for validations (set %s): %w", EnvDir, err)
	}
	return filepath.Join(home, ".cache", "swebench-run", "validation"), nil
}

// Store keeps validations under Dir, one folder per dataset and revision.
type Store struct {
	Dir string
}

// Folder is the folder of a dataset (as compare.DatasetOf names it: "princeton-nlp/SWE-bench_Lite:test",
// "dataset.jsonl") at a revision (a commit, or "sha256:…" of local files).
func (s Store) Folder(dataset, revision string) string {
	h := sha256.Sum256([]byte(dataset + "\x00" + revision))
	slug := names.Safe(strings.NewReplacer("/", "__", ":", "-").Replace(dataset))
	if len(slug) > 80 {
		slug = slug[:80]
	}
	return filepath.Join(s.Dir, slug+"-"+hex.EncodeToString(h[:])[:12])
}

// LogDir is where the gradings of a dataset's validation keep their files.
func (s Store) LogDir(dataset, revision string) string {
	return filepath.Join(s.Folder(dataset, revision), logsDir)
}

func recordFile(folder, id string) string {
	return filepath.Join(folder, instancesDir, names.Safe(id)+".json")
}

// Put writes one record atomically (an interrupted validate keeps every record written).
func (s Store) Put(rec Record) error {
	if rec.InstanceID == "" {
		return errors.New("validation record without an instance id")
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	path := recordFile(s.Folder(rec.Dataset, rec.DatasetRevision), rec.InstanceID)
	if err := atomicfile.MkdirWrite(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("validation of %s: %w", rec.InstanceID, err)
	}
	return nil
}

// Set is the validation of a dataset: its records by instance id.
type Set struct {
	Dataset  string
	Revision string
	// Path is where it was read from (a folder of the store, or a validation file).
	Path    string
	Records map[string]Record
}

// Get returns the record of id.
func (s *Set) Get(id string) (Record, bool) {
	if s == nil {
		return Record{}, false
	}
	r, ok := s.Records[id]
	return r, ok
}

// Len is the number of records.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.Records)
}

// Load reads the records of a dataset and revision; a dataset never validated is an empty Set.
func (s Store) Load(dataset, revision string) (*Set, error) {
	folder := s.Folder(dataset, revision)
	set, err := readFolder(folder)
	if err != nil {
		return nil, err
	}
	set.Dataset, set.Revision = dataset, revision
	return set, nil
}

// readFolder reads the records of a dataset's folder: its instances/ records, else its
// validation.json.
func readFolder(folder string) (*Set, error) {
	set := &Set{Path: folder, Records: map[string]Record{}}
	entries, err := os.ReadDir(filepath.Join(folder, instancesDir))
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(filepath.Join(folder, FileName)); serr == nil {
			return ReadFile(filepath.Join(folder, FileName))
		}
		return set, nil
	}
	if err != nil {
		return nil, fmt.Errorf("validations %s: %w", folder, err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(folder, instancesDir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("validation %s: %w", p, err)
		}
		var r Record
		if err := json.Unmarshal(data, &r); err != nil || r.InstanceID == "" {
			return nil, fmt.Errorf("validation %s: not a validation record (%v); remove it and validate again", p, err)
		}
		set.Records[r.InstanceID] = r
		set.Dataset, set.Revision = r.Dataset, r.DatasetRevision
	}
	return set, nil
}

// File is the JSON form of a dataset's validation (validation.json): what validate writes at its
// end, and what can be handed to compare, report, stats or submission --check with --validation.
type File struct {
	SchemaVersion   int             `json:"schema_version"`
	Dataset         string          `json:"dataset"`
	DatasetRevision string          `json:"dataset_revision"`
	Updated         time.Time       `json:"updated"`
	Counts          map[Outcome]int `json:"counts"`
	Records         []Record        `json:"instances"`
}

// WriteFile writes validation.json of a dataset's folder from its records and returns its path.
func (s Store) WriteFile(dataset, revision string, now time.Time) (string, error) {
	set, err := s.Load(dataset, revision)
	if err != nil {
		return "", err
	}
	f := File{SchemaVersion: SchemaVersion, Dataset: dataset, DatasetRevision: revision, Updated: now.UTC(),
		Counts: Counts(set.Records), Records: make([]Record, 0, set.Len())}
	ids := make([]string, 0, set.Len())
	for id := range set.Records {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f.Records = append(f.Records, set.Records[id])
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(s.Folder(dataset, revision), FileName)
	return path, atomicfile.MkdirWrite(path, append(data, '\n'), 0o644)
}

// ReadFile reads a validation file (File).
func ReadFile(path string) (*Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("validation file: %w", err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("validation file %s: %w; expected the validation.json `swebench-run validate` writes", path, err)
	}
	if f.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("validation file %s: schema_version %d; this version reads %d (validate again)", path, f.SchemaVersion, SchemaVersion)
	}
	set := &Set{Dataset: f.Dataset, Revision: f.DatasetRevision, Path: path, Records: make(map[string]Record, len(f.Records))}
	for k, r := range f.Records {
		if r.InstanceID == "" {
			return nil, fmt.Errorf("validation file %s: instance %d has no instance_id", path, k)
		}
		set.Records[r.InstanceID] = r
	}
	return set, nil
}

// Open reads the validation at path: a validation file, a dataset's folder of a store, or a
// store (every dataset folder in it, merged; an instance validated for several datasets keeps
// the newest record).
func Open(path string) (*Set, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("validation: %w", err)
	}
	if !fi.IsDir() {
		return ReadFile(path)
	}
	if isFolder(path) {
		return readFolder(path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("validation: %w", err)
	}
	merged := &Set{Path: path, Records: map[string]Record{}}
	for _, e := range entries {
		sub := filepath.Join(path, e.Name())
		if !e.IsDir() || !isFolder(sub) {
			continue
		}
		set, err := readFolder(sub)
		if err != nil {
			return nil, err
		}
		for id, r := range set.Records {
			if old, ok := merged.Records[id]; !ok || r.Date.After(old.Date) {
				merged.Records[id] = r
			}
		}
	}
	return merged, nil
}

func isFolder(dir string) bool {
	for _, name := range []string{instancesDir, FileName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}
