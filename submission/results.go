package submission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Files of results/, as get_results names them.
const (
	ResultsDir       = "results"
	ResultsFile      = "results.json"
	ResolvedByRepo   = "resolved_by_repo.json"
	ResolvedByTime   = "resolved_by_time.json"
	summaryDelimiter = "=================================================="
)

// Results is results/results.json.
type Results struct {
	NoGeneration []string `json:"no_generation"`
	NoLogs       []string `json:"no_logs"`
	Resolved     []string `json:"resolved"`
}

// Count is one entry of resolved_by_repo.json or resolved_by_time.json.
type Count struct {
	Resolved int `json:"resolved"`
	Total    int `json:"total"`
}

// Computed is what get_results computes from a submission folder.
type Computed struct {
	Results Results
	ByRepo  map[string]Count // owner/name → counts
	ByYear  map[string]Count // "2023" → counts
	Total   int              // instances of the split: the denominator
	// Regraded maps each instance with a test_output.txt to whether regrading it resolved it,
	// and GradeErrors holds the instances whose log could not be graded (not resolved), with
	// why.
	Regraded    map[string]bool
	GradeErrors map[string]string
	// FromReports are the instances graded from their report.json alone (their logs hold no
	// test_output.txt), with the layout it was read in.
	FromReports map[string]eval.ReportLayout
}

// Compute grades a submission folder the way the experiments repository's
// analysis/get_results.py does. For every instance of the split (insts, the whole split: it is
// the denominator), in dataset order:
//
//   - neither patch.diff nor test_output.txt but a report.json (in any layout eval.ReadReport
//     knows), as published folders keep their logs: graded by that report, unlike get_results,
//     which has no log to grade and counts it as no_generation (FromReports lists them);
//   - no logs/<id>/ folder, or no patch.diff in it: no_generation;
//   - no test_output.txt: no_logs;
//   - otherwise the log is graded again against the dataset row (FAIL_TO_PASS, PASS_TO_PASS,
//     log parser), never read from report.json; a log that is a JSON string (an sb-cli dump) is
//     decoded first. Resolved instances are counted per repository and per year of created_at.
//
// Unlike get_results, Compute changes nothing in the folder (get_results deletes files it does
// not expect, run_instance.log and image_build_dir/; Check reports them).
func Compute(dir string, insts []dataset.Instance) (*Computed, error) {
	c := &Computed{
		Results:     Results{NoGeneration: []string{}, NoLogs: []string{}, Resolved: []string{}},
		ByRepo:      map[string]Count{},
		ByYear:      map[string]Count{},
		Total:       len(insts),
		Regraded:    map[string]bool{},
		GradeErrors: map[string]string{},
		FromReports: map[string]eval.ReportLayout{},
	}
	for _, inst := range insts {
		year, err := createdYear(inst.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("dataset row %s: created_at: %w", inst.InstanceID, err)
		}
		repo := c.ByRepo[inst.Repo]
		repo.Total++
		c.ByRepo[inst.Repo] = repo
		y := c.ByYear[year]
		y.Total++
		c.ByYear[year] = y

		logDir := filepath.Join(dir, "logs", inst.InstanceID)
		if !exists(filepath.Join(logDir, "test_output.txt")) && !exists(filepath.Join(logDir, "patch.diff")) {
			if rep, layout, err := eval.ReadReport(filepath.Join(logDir, "report.json")); err == nil {
				c.FromReports[inst.InstanceID] = layout
				if rep.Resolved {
					c.Results.Resolved = append(c.Results.Resolved, inst.InstanceID)
					repo.Resolved++
					c.ByRepo[inst.Repo] = repo
					y.Resolved++
					c.ByYear[year] = y
				}
				continue
			}
		}
		if !exists(logDir) || !exists(filepath.Join(logDir, "patch.diff")) {
			c.Results.NoGeneration = append(c.Results.NoGeneration, inst.InstanceID)
			continue
		}
		output, err := os.ReadFile(filepath.Join(logDir, "test_output.txt"))
		if errors.Is(err, fs.ErrNotExist) {
			c.Results.NoLogs = append(c.Results.NoLogs, inst.InstanceID)
			continue
		}
		if err != nil {
			return nil, err
		}
		text := string(output)
		if strings.HasPrefix(text, `"`) {
			var s string
			if err := json.Unmarshal(output, &s); err == nil {
				text = s
			}
		}
		rep, err := eval.Grade(inst, text)
		if err != nil {
			c.GradeErrors[inst.InstanceID] = err.Error()
			c.Regraded[inst.InstanceID] = false
			continue
		}
		c.Regraded[inst.InstanceID] = rep.Resolved
		if rep.Resolved {
			c.Results.Resolved = append(c.Results.Resolved, inst.InstanceID)
			repo.Resolved++
			c.ByRepo[inst.Repo] = repo
			y.Resolved++
			c.ByYear[year] = y
		}
	}
	sort.Strings(c.Results.NoGeneration)
	sort.Strings(c.Results.NoLogs)
	sort.Strings(c.Results.Resolved)
	return c, nil
}

// createdYear is the year of a created_at value, as datetime.fromisoformat(s.rstrip("Z")).year
// reads it: "2023-06-05T13:19:51Z", "2017-05-16 12:00:00".
func createdYear(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 4 && isDigits(s[:4]) && (len(s) == 4 || s[4] == '-') {
		return s[:4], nil
	}
	return "", fmt.Errorf("%q is not an ISO date", s)
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Write writes results/ into dir: the three files get_results writes, in Python's json.dump
// layout (indent 2, ASCII, no trailing newline).
func (c *Computed) Write(dir string, write func(path string, data []byte) error) error {
	for name, v := range map[string]any{ResultsFile: c.Results, ResolvedByRepo: c.ByRepo, ResolvedByTime: c.ByYear} {
		data, err := pythonJSON(v)
		if err != nil {
			return err
		}
		if err := write(filepath.Join(dir, ResultsDir, name), data); err != nil {
			return err
		}
	}
	return nil
}

// pythonJSON encodes v as Python's json.dump(v, indent=2) does for these values (ensure_ascii
// on; map keys sorted).
func pythonJSON(v any) ([]byte, error) { return pytext.JSONDumps(v, 2, true) }

// Summary is the text get_results prints, which the checklist asks to paste into the pull
// request and the README: the resolved count and rate over the whole split, then per repository
// and per year.
func (c *Computed) Summary(folder, split string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Submission summary for %s on SWE-bench %s split\n", folder, split)
	fmt.Fprintln(&b, summaryDelimiter)
	fmt.Fprintf(&b, "Resolved %d instances (%s%%)\n", len(c.Results.Resolved), pyRate(len(c.Results.Resolved), c.Total))
	fmt.Fprintln(&b, summaryDelimiter)
	fmt.Fprintln(&b, "Resolved by Repository")
	for _, repo := range sortedIDs(c.ByRepo) {
		v := c.ByRepo[repo]
		fmt.Fprintf(&b, "- %s: %d/%d (%s%%)\n", repo, v.Resolved, v.Total, pyRate(v.Resolved, v.Total))
	}
	fmt.Fprintln(&b, summaryDelimiter)
	fmt.Fprintln(&b, "Resolved by Time")
	for _, year := range sortedIDs(c.ByYear) {
		v := c.ByYear[year]
		fmt.Fprintf(&b, "- %s: %d/%d (%s%%)\n", year, v.Resolved, v.Total, pyRate(v.Resolved, v.Total))
	}
	return b.String()
}

// pyRate prints round(n * 100. / total, 2) as Python prints a float: 26.09, 100.0, 0.0.
func pyRate(n, total int) string {
	if total == 0 {
		return "0.0"
	}
	// FormatFloat with a precision rounds the exact binary value correctly, as Python's round
	// does; the result is then printed in its shortest form.
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(float64(n)*100/float64(total), 'f', 2, 64), 64)
	s := strconv.FormatFloat(rounded, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// readComputed reads the results/ files of a folder, as far as they exist; missing names the
// files that do not.
func readComputed(dir string) (res *Results, byRepo, byYear map[string]Count, missing []string, err error) {
	read := func(name string, v any) error {
		data, err := os.ReadFile(filepath.Join(dir, ResultsDir, name))
		if errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, filepath.Join(ResultsDir, name))
			return nil
		}
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, v); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(ResultsDir, name), err)
		}
		return nil
	}
	res = &Results{}
	if err = read(ResultsFile, res); err != nil {
		return nil, nil, nil, nil, err
	}
	if err = read(ResolvedByRepo, &byRepo); err != nil {
		return nil, nil, nil, nil, err
	}
	if err = read(ResolvedByTime, &byYear); err != nil {
		return nil, nil, nil, nil, err
	}
	return res, byRepo, byYear, missing, nil
}
