package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family/all"
)

// Source is one input to read: a path, an optional label, and for mini-swe-agent output (or a
// run directory evaluated elsewhere) the folder of its harness logs (<logs>/<id>/report.json).
type Source struct {
	Label    string
	Path     string
	EvalLogs string
}

// ParseSource reads a command-line input "[LABEL=]PATH". A path that itself contains '=' keeps
// it when it exists as given.
func ParseSource(arg string) Source {
	if label, path, ok := strings.Cut(arg, "="); ok && label != "" && path != "" {
		if _, err := os.Stat(arg); err != nil {
			return Source{Label: label, Path: path}
		}
	}
	return Source{Path: arg}
}

// ReadOptions change how inputs are read.
type ReadOptions struct {
	// AllowUnevaluated reads run directories that have no evaluation: their finished instances
	// are NotSubmitted ("not evaluated") instead of the input being refused.
	AllowUnevaluated bool
}

// ErrUnrecognised is wrapped by the error for an input of no known form.
var ErrUnrecognised = errors.New("unrecognised input")

// expected lists the forms Read understands, for error messages.
const expected = "expected a swebench-run output directory (run.json, status.jsonl, eval/), a sweep folder (sweep.json), " +
	"mini-swe-agent output (preds.json, exit_statuses_*.yaml, <id>/<id>.traj.json) with its harness logs, " +
	"a harness run report (<model>.<run_id>.json, schema_version 2), an sb-cli report, " +
	"a folder of <id>/report.json (the harness's or sb-cli's layout), an experiments results/results.json, " +
	"or another dataset family's harness output or leaderboard folder (Multi-SWE-bench's workdir <org>/<repo>/evals/pr-<n>/, " +
	"its experiments submission, final_report.json; SWE-bench Pro's output_dir or eval_results.json; SWE-rebench-V2's eval_report.json; " +
	"SWE-PolyBench's <id>_result.json files, submission or result.json; SWE-bench-Live's output_dir or results.json; " +
	"SWE-smith's run_evaluation folder or its report.json: docs/per-instance-reports.md lists them)"

// ReadAll reads every source, in order, and makes the run labels unique. A sweep folder yields
// one run per cell.
func ReadAll(srcs []Source, opts ReadOptions) ([]*Run, error) {
	var runs []*Run
	for _, s := range srcs {
		rs, err := Read(s, opts)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	uniqueLabels(runs)
	return runs, nil
}

// Read reads one source into its runs (several for a sweep folder), detecting its form.
func Read(src Source, opts ReadOptions) ([]*Run, error) {
	if src.Path == "" {
		return nil, errors.New("input: empty path")
	}
	fi, err := os.Stat(src.Path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", src.Path, err)
	}
	var runs []*Run
	if fi.IsDir() {
		runs, err = readDir(src, opts)
	} else {
		var r *Run
		r, err = readFile(src)
		runs = []*Run{r}
	}
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.Path == "" {
			r.Path = src.Path
		}
		if src.Label != "" && r.Kind != KindSweepCell {
			r.Label = src.Label // the user's name wins; sweep cells carry it as a prefix
		}
		if r.Label == "" {
			r.Label = defaultLabel(src.Path)
		}
		r.finish()
		if r.Flags, err = readFlags(r); err != nil {
			return nil, err
		}
	}
	return runs, nil
}

func readDir(src Source, opts ReadOptions) ([]*Run, error) {
	dir := src.Path
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	switch {
	case isSweep(dir):
		return readSweepDir(src, opts)
	case has("status.jsonl") || has("run.json"):
		r, err := readRunDir(dir, src.EvalLogs, opts)
		return []*Run{r}, err
	}
	// A dataset family's harness output or leaderboard folder, before the forms it resembles (a
	// Multi-SWE-bench submission keeps results/results.json too).
	if others, err := all.ReadEvalFolder(dir); err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	} else if len(others) > 0 {
		r, err := readReportDir(dir)
		return []*Run{r}, err
	}
	switch {
	case has(filepath.Join("results", "results.json")):
		// An experiments submission folder (it may keep its preds.json too).
		r, err := readExperimentsFile(filepath.Join(dir, "results", "results.json"))
		return []*Run{r}, err
	case has("preds.json"):
		r, err := readMini(dir, src.EvalLogs)
		return []*Run{r}, err
	}
	if n, err := countReportDirs(dir); err != nil {
		return nil, err
	} else if n > 0 {
		r, err := readReportDir(dir)
		return []*Run{r}, err
	}
	return nil, fmt.Errorf("input %s: %w: the folder holds none of the files of a known form; %s", dir, ErrUnrecognised, expected)
}

// readFile detects a JSON report by its keys.
func readFile(src Source) (*Run, error) {
	p := src.Path
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", p, err)
	}
	if filepath.Base(p) == SweepFile || filepath.Base(p) == "run.json" || filepath.Base(p) == "status.jsonl" {
		return nil, fmt.Errorf("input %s: pass the folder that holds %s, not the file", p, filepath.Base(p))
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\ufeff")), &keys); err != nil {
		return nil, fmt.Errorf("input %s: %w: not a JSON object (%v); %s", p, ErrUnrecognised, err, expected)
	}
	// A dataset family's verdict file first: some share keys with SWE-bench's forms
	// (Multi-SWE-bench's final_report.json those of the harness's run report, SWE-PolyBench's
	// result.json those of an experiments results.json).
	if r, ok, ferr := readFamilyFile(p, data); ok {
		return r, ferr
	}
	_, hasTotal := keys["total_instances"]
	_, hasResolvedIDs := keys["resolved_ids"]
	_, hasResolved := keys["resolved"]
	_, hasNoGen := keys["no_generation"]
	_, hasNoLogs := keys["no_logs"]
	switch {
	case hasTotal && hasResolvedIDs:
		return readRunReport(p, data, keys)
	case hasResolved && (hasNoGen || hasNoLogs):
		return readExperiments(p, data)
	}
	r, err := readSingleReport(p, data)
	if err == nil {
		return r, nil
	}
	if errors.Is(err, eval.ErrReportUnnamed) || hasResolved {
		return nil, fmt.Errorf("input %s: %w", p, err)
	}
	return nil, fmt.Errorf("input %s: %w: a JSON object with none of the known keys; %s", p, ErrUnrecognised, expected)
}

// defaultLabel names an input after its path: the folder's name, or the file's name without
// .json (an sb-cli report without its subset__split__ prefix; results/results.json after its
// submission folder).
func defaultLabel(path string) string {
	clean := filepath.Clean(path)
	base := filepath.Base(clean)
	if base == "results.json" {
		parent := filepath.Dir(clean)
		if filepath.Base(parent) == "results" {
			return filepath.Base(filepath.Dir(parent))
		}
	}
	base = strings.TrimSuffix(base, ".json")
	if parts := strings.Split(base, "__"); len(parts) == 3 && strings.HasPrefix(parts[0], "swe-bench") {
		return parts[2]
	}
	return base
}

// uniqueLabels suffixes duplicate labels with " (2)", " (3)", ….
func uniqueLabels(runs []*Run) {
	seen := map[string]int{}
	for _, r := range runs {
		seen[r.Label]++
	}
	count := map[string]int{}
	for _, r := range runs {
		if seen[r.Label] < 2 {
			continue
		}
		count[r.Label]++
		if n := count[r.Label]; n > 1 {
			r.Label = fmt.Sprintf("%s (%d)", r.Label, n)
		}
	}
}

// countReportDirs counts the subfolders of dir that hold a report.json.
func countReportDirs(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("input %s: %w", dir, err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "report.json")); err == nil {
			n++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("input %s: %w", dir, err)
		}
	}
	return n, nil
}
