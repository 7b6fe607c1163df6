package multiswebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/family"
)

// The layouts the reader reads (family.FolderVerdicts.Format; docs/per-instance-reports.md lists
// them with their origins).
const (
	// FormatWorkdir is the harness's workdir after run_evaluation.py (multi_swe_bench/harness):
	// <org>/<repo>/evals/pr-<n>/{fix.patch, fix-patch-run.log, report.json}, with the run's
	// final_report.json beside them when the output_dir is the workdir.
	FormatWorkdir = "Multi-SWE-bench workdir"
	// FormatExperiments is a submission folder of multi-swe-bench/experiments
	// (evaluation/<language>/verified/<date>_<name>/): the workdir's <org>/<repo> folders under
	// logs/, and final_report.json as results/results.json.
	FormatExperiments = "Multi-SWE-bench experiments"
	// FormatFinalReport is the run's final_report.json (gen_report.py), alone or beside this tool's
	// <instance_id>/ folders of the same files.
	FormatFinalReport = "Multi-SWE-bench final_report.json"
	// FormatJavaResults is the results/results.json of the SWE-bench-java submissions the
	// experiments repository keeps from 2024: the SWE-bench-java harness's run report (ids
	// org__repo-number) with resolved_ids published as "resolved".
	FormatJavaResults = "SWE-bench-java results.json"
)

const (
	evalsDir       = "evals"
	resultsFile    = "results.json"
	resultsDir     = "results"
	submissionLogs = "logs"
)

type reports struct{}

// summary is a run-level verdict file: final_report.json (or the same as an experiments
// results/results.json), or SWE-bench-java's results.json.
type summary struct {
	format   string
	verdicts map[string]family.InstanceVerdict
}

// finalReportJSON is report.py's FinalReport as the harness serializes it.
type finalReportJSON struct {
	Submitted  []string `json:"submitted_ids"`
	Completed  []string `json:"completed_ids"`
	Incomplete []string `json:"incomplete_ids"`
	Resolved   []string `json:"resolved_ids"`
	Unresolved []string `json:"unresolved_ids"`
	EmptyPatch []string `json:"empty_patch_ids"`
	Errors     []string `json:"error_ids"`
}

// javaResultsJSON is SWE-bench-java's results.json.
type javaResultsJSON struct {
	Resolved   []string `json:"resolved"`
	Unresolved []string `json:"unresolved_ids"`
	EmptyPatch []string `json:"empty_patch_ids"`
	Errors     []string `json:"error_ids"`
	Completed  []string `json:"completed_ids"`
}

// harnessID is the harness's name of an instance, org/repo:pr-number (PullRequestBase.id).
var harnessID = regexp.MustCompile(`^([^/\s]+)/([^/\s:]+):pr-(\d+)$`)

// InstanceIDOfHarnessID maps the harness's org/repo:pr-number to the instance id
// org__repo-number; ok is false for another string.
func InstanceIDOfHarnessID(id string) (string, bool) {
	m := harnessID.FindStringSubmatch(id)
	if m == nil {
		return "", false
	}
	n, err := strconv.Atoi(m[3])
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%s__%s-%d", m[1], m[2], n), true
}

// parseSummary reads a run-level verdict file; ok is false when data is neither layout. A
// final_report.json is told from the SWE-bench harness's run report, which has the same keys,
// by its incomplete_instances, the absence of schema_version and its harness ids.
func parseSummary(path string, data []byte) (summary, bool, error) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return summary{}, false, nil
	}
	has := func(k string) bool { _, ok := keys[k]; return ok }
	switch {
	case has("resolved_ids") && has("submitted_ids") && has("incomplete_instances") && !has("schema_version"):
		var j finalReportJSON
		if err := json.Unmarshal(data, &j); err != nil {
			return summary{}, false, nil
		}
		for _, list := range [][]string{j.Submitted, j.Completed, j.Incomplete, j.Resolved, j.Unresolved, j.EmptyPatch, j.Errors} {
			for _, id := range list {
				if _, ok := InstanceIDOfHarnessID(id); !ok {
					return summary{}, false, nil // the ids of another harness's report
				}
			}
		}
		s := summary{format: FormatFinalReport, verdicts: map[string]family.InstanceVerdict{}}
		set := func(ids []string, v family.InstanceVerdict) {
			for _, id := range ids {
				our, _ := InstanceIDOfHarnessID(id)
				s.verdicts[our] = v
			}
		}
		// Later lists win: an id the harness lists twice is taken by its strongest verdict.
		set(j.Incomplete, family.InstanceVerdict{Outcome: family.Error, Detail: "incomplete (incomplete_ids of final_report.json)"})
		set(j.Errors, family.InstanceVerdict{Outcome: family.Error, Detail: "the harness could not generate its report (error_ids of final_report.json; its log names the reason)"})
		set(j.EmptyPatch, family.InstanceVerdict{Outcome: family.EmptyPatch})
		set(j.Unresolved, family.InstanceVerdict{Outcome: family.Unresolved})
		set(j.Resolved, family.InstanceVerdict{Outcome: family.Resolved})
		return s, true, nil
	case has("total_instances") && has("resolved") && has("unresolved_ids") && !has("resolved_ids"):
		var j javaResultsJSON
		if err := json.Unmarshal(data, &j); err != nil {
			return summary{}, true, fmt.Errorf("%s: %s: %w", path, FormatJavaResults, err)
		}
		s := summary{format: FormatJavaResults, verdicts: map[string]family.InstanceVerdict{}}
		set := func(ids []string, v family.InstanceVerdict) {
			for _, id := range ids {
				s.verdicts[id] = v
			}
		}
		set(j.Errors, family.InstanceVerdict{Outcome: family.Error, Detail: "the harness could not evaluate it (error_ids of results.json)"})
		set(j.EmptyPatch, family.InstanceVerdict{Outcome: family.EmptyPatch})
		set(j.Unresolved, family.InstanceVerdict{Outcome: family.Unresolved})
		set(j.Resolved, family.InstanceVerdict{Outcome: family.Resolved})
		for _, id := range j.Completed {
			if _, ok := s.verdicts[id]; !ok {
				s.verdicts[id] = family.InstanceVerdict{Outcome: family.Unresolved}
			}
		}
		for id := range s.verdicts {
			if _, _, _, ok := splitID(id); !ok {
				return summary{}, true, fmt.Errorf("%s: %q is not a Multi-SWE-bench instance id (org__repo-number)", path, id)
			}
		}
		return s, true, nil
	}
	return summary{}, false, nil
}

// ReadReportFile implements family.ReportReader: final_report.json (or an experiments
// results/results.json holding it), or SWE-bench-java's results.json.
func (reports) ReadReportFile(path string, data []byte) (family.FolderVerdicts, bool, error) {
	s, ok, err := parseSummary(path, data)
	if !ok || err != nil {
		return family.FolderVerdicts{}, ok, err
	}
	return family.FolderVerdicts{Format: s.format, Verdicts: s.verdicts}, true, nil
}

// readSummary reads the first of paths that holds a run-level verdict file.
func readSummary(paths ...string) (summary, bool, error) {
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return summary{}, false, err
		}
		s, ok, err := parseSummary(p, data)
		if err != nil || ok {
			return s, ok, err
		}
	}
	return summary{}, false, nil
}

// evalFolder is one instance's folder of the harness's files: pr-<n> of the workdir, or this
// tool's <instance_id>.
type evalFolder struct {
	id  string
	dir string
}

// workdirInstances lists the instance folders of a harness workdir: <root>/<org>/<repo>/evals/
// pr-<n>/, as gen_report.py's collect_report_tasks finds them (a folder named pr- and a number;
// the images/ and instances/ folders beside evals/ are not evaluations).
func workdirInstances(root string) ([]evalFolder, error) {
	orgs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []evalFolder
	for _, org := range orgs {
		if !org.IsDir() {
			continue
		}
		repos, err := os.ReadDir(filepath.Join(root, org.Name()))
		if err != nil {
			return nil, err
		}
		for _, repo := range repos {
			if !repo.IsDir() {
				continue
			}
			evals := filepath.Join(root, org.Name(), repo.Name(), evalsDir)
			if !isDir(evals) {
				continue
			}
			prs, err := os.ReadDir(evals)
			if err != nil {
				return nil, err
			}
			for _, pr := range prs {
				n, ok := prNumber(pr.Name())
				if !pr.IsDir() || !ok {
					continue
				}
				out = append(out, evalFolder{id: fmt.Sprintf("%s__%s-%d", org.Name(), repo.Name(), n), dir: filepath.Join(evals, pr.Name())})
			}
		}
	}
	return out, nil
}

// prNumber reads pr-<n>.
func prNumber(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "pr-")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// reportJSON is what the reader takes from an instance's report.json (report.py's Report).
type reportJSON struct {
	Valid    *bool       `json:"valid"`
	ErrorMsg string      `json:"error_msg"`
	Fix      *TestResult `json:"fix_patch_result"`
}

// readInstance reads an instance folder's report.json and fix-patch-run.log into the verdict the
// folder shows on its own: without final_report.json, a report the harness judged invalid is
// unresolved; a valid one is not known to resolve (gen_report.py also checks the dataset's test
// lists, which only final_report.json records), and a folder without report.json evaluated
// nothing that was graded.
func readInstance(f evalFolder) (family.InstanceVerdict, error) {
	v := family.InstanceVerdict{}
	if log := filepath.Join(f.dir, fixLogFile); fileExists(log) {
		v.Log = log
	}
	p := filepath.Join(f.dir, reportFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		v.Outcome, v.Detail = family.Error, "no report.json: the fix run or gen_report.py did not finish"
		return v, nil
	}
	if err != nil {
		return v, err
	}
	var r reportJSON
	if err := json.Unmarshal(data, &r); err != nil || r.Valid == nil {
		if err == nil {
			err = errors.New("no valid field")
		}
		return v, fmt.Errorf("%s: not the harness's report.json: %w", p, err)
	}
	if r.Fix != nil {
		v.Tests = map[string]family.TestGroup{"fix_patch_result": family.Group(r.Fix.Passed(), r.Fix.Failed())}
	}
	switch {
	case !*r.Valid:
		v.Outcome, v.Detail = family.Unresolved, r.ErrorMsg
	default:
		v.Outcome = family.Error
		v.Detail = "report.json finds the fix valid, but whether it resolves also depends on the dataset's test lists, which final_report.json records: read the folder with the run's final_report.json (the harness's output_dir) beside it"
	}
	return v, nil
}

// ourInstances lists the <instance_id>/ folders of this tool's evaluation folder that hold the
// harness's files.
func ourInstances(dir string) []evalFolder {
	entries, _ := os.ReadDir(dir)
	var out []evalFolder
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, _, _, ok := splitID(e.Name()); !ok {
			continue
		}
		d := filepath.Join(dir, e.Name())
		if fileExists(filepath.Join(d, fixLogFile)) || fileExists(filepath.Join(d, fixPatchFile)) || fileExists(filepath.Join(d, reportFile)) {
			out = append(out, evalFolder{id: e.Name(), dir: d})
		}
	}
	return out
}

// ReadEvalFolder implements family.ReportReader. dir is read, in this order, as
//   - a submission folder of multi-swe-bench/experiments: logs/<org>/<repo>/evals/pr-<n>/ and
//     results/results.json (SWE-bench-java's older ones: results/results.json alone);
//   - the harness's workdir: <org>/<repo>/evals/pr-<n>/, with final_report.json beside them when
//     the run's output_dir was the workdir;
//   - this tool's evaluation folder (<instance_id>/ folders of the same files), or the
//     harness's output_dir, with final_report.json.
//
// When a run-level file is there, it gives the verdicts (as gen_report.py decided them, with
// the dataset's test lists) and the instance folders their tests and logs; an instance folder
// it does not list was not part of that evaluation and is left out. Without one, each folder's
// own files give its verdict (readInstance).
func (reports) ReadEvalFolder(dir string) (family.FolderVerdicts, bool, error) {
	var (
		format    string
		instances []evalFolder
		sum       summary
		hasSum    bool
		err       error
	)
	if instances, err = workdirInstances(filepath.Join(dir, submissionLogs)); err != nil {
		return family.FolderVerdicts{}, false, err
	}
	if len(instances) > 0 {
		format = FormatExperiments
		sum, hasSum, err = readSummary(filepath.Join(dir, resultsDir, resultsFile), filepath.Join(dir, finalReport))
	} else if instances, err = workdirInstances(dir); err != nil {
		return family.FolderVerdicts{}, false, err
	} else if len(instances) > 0 {
		format = FormatWorkdir
		sum, hasSum, err = readSummary(filepath.Join(dir, finalReport))
	} else {
		sum, hasSum, err = readSummary(filepath.Join(dir, finalReport), filepath.Join(dir, resultsDir, resultsFile))
		if hasSum {
			format = sum.format
			if sum.format == FormatFinalReport {
				instances = ourInstances(dir)
			}
		}
	}
	if err != nil {
		return family.FolderVerdicts{}, false, err
	}
	if format == "" {
		return family.FolderVerdicts{}, false, nil
	}
	fv := family.FolderVerdicts{Format: format, Verdicts: map[string]family.InstanceVerdict{}}
	if hasSum {
		for id, v := range sum.verdicts {
			fv.Verdicts[id] = v
		}
	}
	sort.Slice(instances, func(i, j int) bool { return instances[i].id < instances[j].id })
	for _, in := range instances {
		own, err := readInstance(in)
		if err != nil {
			return fv, true, err
		}
		if !hasSum {
			fv.Verdicts[in.id] = own
			continue
		}
		v, listed := fv.Verdicts[in.id]
		if !listed {
			continue
		}
		v.Tests, v.Log = own.Tests, own.Log
		if v.Outcome == family.Unresolved && v.Detail == "" && own.Outcome == family.Unresolved {
			v.Detail = own.Detail // the report's error_msg says why
		}
		fv.Verdicts[in.id] = v
	}
	return fv, true, nil
}
