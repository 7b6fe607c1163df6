package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/internal/redact"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/validation"
)

// Options change what a report shows.
type Options struct {
	// Baseline names the reference input, as compare's --baseline: flips are counted against it.
	Baseline string
	// HistoryFile is a compare history (history.jsonl): the overview draws the nightly trend, and
	// instances whose verdict changed between nights of the same config are flaky.
	HistoryFile string
	// HistoryNights limits the trend to the last nights of each variant (0: all).
	HistoryNights int
	// Dataset names the dataset whose problem statements the instance pages show, for inputs
	// that do not name theirs (run.json does). Loaded as `--split` is; empty: only datasets
	// recorded in run.json files, from the local cache (never downloaded).
	Dataset string
	// Title heads every page (default: the inputs' labels).
	Title string
	// Live marks a report served by `view` while runs may be in progress: unevaluated runs are
	// read, and the pages poll for new data.
	Live bool
	// AllowUnevaluated reads run directories without an evaluation (as compare's flag).
	AllowUnevaluated bool
	// Validation returns the validation of the runs' instances and where it was read (package
	// validation): the pages show each instance's outcome and filter by it, and the comparison
	// sets broken instances apart as compare does (IncludeBroken keeps them). nil: none.
	Validation    func(runs []*compare.Run) (map[string]validation.Record, string, error)
	IncludeBroken bool
	// Version is the tool's version, printed in the footer.
	Version string
	// Redactor removes secrets (default: redact.New()).
	Redactor *redact.Redactor
	// Now stamps the report (default time.Now).
	Now func() time.Time

	problems map[string]string // read before (view): not read again
}

// Report is everything read from the inputs: the runs, their comparison, and where each run keeps
// its trajectories, evaluation logs and predictions.
type Report struct {
	opts      Options
	srcs      []compare.Source
	runs      []*runData
	res       *compare.Result
	ids       []string
	index     map[string]int
	problems  map[string]string // from datasets
	trend     []compare.VariantTrend
	warnings  []string
	generated time.Time
	// validation of the instances' environments, by id (Options.Validation).
	validation map[string]validation.Record
}

// runData is one run (or sweep cell) with the places its per-instance files live.
type runData struct {
	*compare.Run
	idx     int
	input   int            // index into Result.Inputs
	src     compare.Source // the input it was read from
	trajDir string         // <trajDir>/<id>/<id>.traj.json; "" when the form has none
	evalDir string         // <evalDir>/<id>/{report.json,test_output.txt,patch.diff}; "" when none
	preds   map[string]eval.Prediction
	stats   *results.Stats // run directories only
	config  any            // run.json's config, redacted later
}

// Load reads every source (the forms compare reads) and compares them.
func Load(ctx context.Context, srcs []compare.Source, opts Options) (*Report, error) {
	if len(srcs) == 0 {
		return nil, errors.New("report: no inputs")
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.New()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ropts := compare.ReadOptions{AllowUnevaluated: opts.AllowUnevaluated || opts.Live}
	runs, err := compare.ReadAll(srcs, ropts)
	if err != nil {
		return nil, err
	}
	r := &Report{opts: opts, srcs: srcs, generated: opts.Now()}
	copts := compare.Options{Baseline: opts.Baseline, IncludeBroken: opts.IncludeBroken}
	if opts.Validation != nil {
		if copts.Validation, copts.ValidationSource, err = opts.Validation(runs); err != nil {
			return nil, err
		}
		r.validation = copts.Validation
	}
	if opts.HistoryFile != "" {
		hist, torn, err := compare.ReadHistory(opts.HistoryFile)
		if err != nil {
			return nil, err
		}
		if torn {
			r.warnings = append(r.warnings, fmt.Sprintf("%s: the last line is torn (a crash while appending) and was ignored", opts.HistoryFile))
		}
		copts.History = hist
		r.trend = compare.Trend(hist, opts.HistoryNights)
	}
	r.res, err = compare.Compare(runs, copts)
	if err != nil {
		return nil, err
	}
	r.ids = make([]string, len(r.res.Rows))
	r.index = make(map[string]int, len(r.res.Rows))
	for k, row := range r.res.Rows {
		r.ids[k] = row.ID
		r.index[row.ID] = k
	}
	inputOf := map[string]int{}
	for k, in := range r.res.Inputs {
		for _, ri := range in.Runs {
			inputOf[ri.Label] = k
		}
	}
	// ReadAll keeps the order of the sources: a source's runs are the next ones read from its path.
	next := 0
	for _, s := range srcs {
		for next < len(runs) && (runs[next].Path == s.Path || runs[next].SweepDir == s.Path) {
			rd := &runData{Run: runs[next], idx: next, input: inputOf[runs[next].Label], src: s}
			if err := rd.locate(); err != nil {
				return nil, err
			}
			r.runs = append(r.runs, rd)
			next++
		}
	}
	if next != len(runs) {
		return nil, fmt.Errorf("report: %d runs read but only %d matched their inputs", len(runs), next)
	}
	if opts.problems != nil {
		r.problems = opts.problems
	} else {
		r.problems = r.loadProblems(ctx)
	}
	return r, nil
}

// locate finds the run's trajectories, evaluation logs and predictions by its form.
func (rd *runData) locate() error {
	switch rd.Kind {
	case compare.KindRunDir, compare.KindSweepCell:
		rd.trajDir = rd.Path
		rd.evalDir = filepath.Join(rd.Path, "eval")
		if rd.Kind == compare.KindRunDir && rd.src.EvalLogs != "" {
			rd.evalDir = rd.src.EvalLogs
		}
		// A run that has just started has an empty ledger: no statistics yet.
		if history, _, err := results.ReadLedger(rd.Path); err == nil && len(history) > 0 {
			st, err := results.ComputeStats(rd.Path, eval.ReportVerdict)
			if err != nil {
				return fmt.Errorf("input %s: %w", rd.Path, err)
			}
			rd.stats = st
		}
		man, err := results.ReadManifest(rd.Path)
		if err != nil {
			return fmt.Errorf("input %s: %w", rd.Path, err)
		}
		if man != nil && len(man.Config) > 0 {
			rd.config = map[string]any(man.Config)
		}
	case compare.KindMini:
		rd.trajDir, rd.evalDir = rd.Path, rd.src.EvalLogs
	case compare.KindReportDir:
		if fi, err := os.Stat(rd.Path); err == nil && fi.IsDir() {
			rd.evalDir = rd.Path
		}
	}
	if rd.trajDir != "" {
		p := filepath.Join(rd.trajDir, results.PredsFile)
		if _, err := os.Stat(p); err == nil {
			preds, err := eval.LoadPredictions(p)
			if err != nil {
				// A run in progress rewrites preds.json atomically; anything else is worth saying.
				rd.Warnings = append(rd.Warnings, fmt.Sprintf("%s: %v", p, err))
			}
			rd.preds = preds
		}
	}
	return nil
}

// trajPath is the trajectory file of id, or "" when the run has none.
func (rd *runData) trajPath(id string) string {
	if rd.trajDir == "" {
		return ""
	}
	p := filepath.Join(rd.trajDir, id, id+".traj.json")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// evalPath is a file of id's evaluation logs, or "" when it does not exist.
func (rd *runData) evalPath(id, name string) string {
	if rd.evalDir == "" {
		return ""
	}
	p := filepath.Join(rd.evalDir, id, name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// loadProblems reads the problem statements of the datasets the inputs name: the --split given
// (loaded as run does), and the datasets recorded in run.json files, from local files or the
// hub cache only. A dataset that cannot be read is a warning: pages then show the task message
// the agent received.
func (r *Report) loadProblems(ctx context.Context) map[string]string {
	out := map[string]string{}
	type attempt struct {
		spec    string
		offline bool
	}
	var specs []attempt
	if r.opts.Dataset != "" {
		specs = append(specs, attempt{r.opts.Dataset, false})
	}
	seen := map[string]bool{}
	for _, rd := range r.runs {
		if rd.Kind != compare.KindRunDir && rd.Kind != compare.KindSweepCell {
			continue
		}
		man, err := results.ReadManifest(rd.Path)
		if err != nil || man == nil || len(man.Dataset) == 0 {
			continue
		}
		var dm dataset.Manifest
		if json.Unmarshal(man.Dataset, &dm) != nil || dm.Source.Spec == "" {
			continue
		}
		spec := dm.Source.Spec
		if dm.Source.Kind == "file" && !filepath.IsAbs(spec) {
			if _, err := os.Stat(spec); errors.Is(err, fs.ErrNotExist) {
				continue // relative to where the run started; not here
			}
		}
		if !seen[spec] {
			seen[spec] = true
			specs = append(specs, attempt{spec, true})
		}
	}
	for _, a := range specs {
		loaded, err := dataset.Load(ctx, a.spec, dataset.LoadOptions{Offline: a.offline, Named: all.Named()})
		if err != nil {
			if !a.offline {
				r.warnings = append(r.warnings, fmt.Sprintf("problem statements: dataset %s: %v", a.spec, err))
			}
			continue
		}
		// Every row, not only the instances known now: view keeps them while a run adds instances.
		for k := range loaded.Instances {
			in := &loaded.Instances[k]
			if _, done := out[in.InstanceID]; !done {
				out[in.InstanceID] = in.ProblemStatement
			}
		}
	}
	return out
}

// inputRuns lists the runs of input k.
func (r *Report) inputRuns(k int) []*runData {
	var out []*runData
	for _, rd := range r.runs {
		if rd.input == k {
			out = append(out, rd)
		}
	}
	return out
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
