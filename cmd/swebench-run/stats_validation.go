package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/validation"
)

// validationStats counts a run's instances by the validation of their environments, and the
// unresolved instances its evaluation set apart as the environment's failures.
type validationStats struct {
	Source    string                     `json:"source"`
	Instances int                        `json:"instances"` // of the run
	Validated int                        `json:"validated"` // of them, with a validation
	Counts    map[validation.Outcome]int `json:"counts"`
	Broken    []string                   `json:"broken"` // gold fails, empty passes, infrastructure, known bad
	Flaky     []string                   `json:"flaky"`
	// Environment are the unresolved instances the run report marks as the environment's
	// failures (environment_ids), with the evidence.
	Environment         []string          `json:"environment_ids"`
	EnvironmentEvidence map[string]string `json:"environment_evidence,omitempty"`
}

// statsWithValidation is stats --json: the run's statistics and, when known, its validation.
type statsWithValidation struct {
	*results.Stats
	Validation *validationStats `json:"validation,omitempty"`
}

// runValidationStats reads the validation of a run's instances (--validation PATH, else the
// store's folder of the dataset run.json names) and its run report's environment marks; nil
// when there is neither.
func runValidationStats(dir, path string) (*validationStats, error) {
	man, err := results.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	history, _, err := results.ReadLedger(dir)
	if err != nil {
		return nil, err
	}
	run := &compare.Run{}
	if man != nil {
		run.Dataset, run.DatasetRevision = compare.DatasetOf(man.Dataset)
	}
	recs, source, err := runsValidation([]*compare.Run{run}, path)
	if err != nil {
		return nil, err
	}
	vs := &validationStats{Source: source, Instances: len(history), Counts: map[validation.Outcome]int{}, Broken: []string{}, Flaky: []string{}, Environment: []string{}}
	for id := range history {
		rec, ok := recs[id]
		if !ok {
			continue
		}
		vs.Validated++
		vs.Counts[rec.Outcome]++
		switch {
		case rec.Outcome.Broken():
			vs.Broken = append(vs.Broken, id)
		case rec.Outcome == validation.Flaky:
			vs.Flaky = append(vs.Flaky, id)
		}
	}
	sort.Strings(vs.Broken)
	sort.Strings(vs.Flaky)
	if rep := runReportOf(dir); rep != nil && len(rep.EnvironmentIDs) > 0 {
		vs.Environment, vs.EnvironmentEvidence = rep.EnvironmentIDs, rep.EnvironmentEvidence
	}
	if vs.Validated == 0 && len(vs.Environment) == 0 {
		return nil, nil
	}
	return vs, nil
}

// runReportOf is the newest run report of <dir>/eval, nil when there is none.
func runReportOf(dir string) *eval.RunReport {
	paths, _ := filepath.Glob(filepath.Join(dir, "eval", "*.json"))
	var best *eval.RunReport
	var bestTime int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var rep eval.RunReport
		if json.Unmarshal(data, &rep) != nil || rep.SchemaVersion != 2 {
			continue
		}
		if t := fi.ModTime().UnixNano(); best == nil || t > bestTime {
			best, bestTime = &rep, t
		}
	}
	return best
}

func printValidationStats(w io.Writer, vs *validationStats) {
	if vs == nil {
		return
	}
	if vs.Validated > 0 {
		fmt.Fprintf(w, "\nvalidation: %d of %d instances validated (%s): %s\n", vs.Validated, vs.Instances, vs.Source, validation.CountsLine(vs.Counts))
		if len(vs.Broken) > 0 {
			fmt.Fprintf(w, "  broken environment (compare sets them apart): %s\n", strings.Join(vs.Broken, ", "))
		}
		if len(vs.Flaky) > 0 {
			fmt.Fprintf(w, "  flaky: %s\n", strings.Join(vs.Flaky, ", "))
		}
	}
	if len(vs.Environment) > 0 {
		fmt.Fprintf(w, "\nenvironment: %d unresolved instances failed as their environment fails (environment_ids of the run report):\n", len(vs.Environment))
		for _, id := range vs.Environment {
			fmt.Fprintf(w, "  %s  %s\n", id, vs.EnvironmentEvidence[id])
		}
	}
}
