package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
)

// readRunDir reads a swebench-run output directory. The ledger says which instances finished:
// an instance whose last record is not a model outcome (an infrastructure failure, an
// interruption, a run-wide budget cut, or any category but "model") is NotSubmitted. A finished
// instance is graded by <eval>/<id>/report.json, else by the run report's lists (errors, empty
// patches), else by its prediction (an empty patch is EmptyPatch); a finished instance with a
// patch and no evaluation is NotSubmitted ("not evaluated"). evalDir defaults to <dir>/eval.
func readRunDir(dir, evalDir string, opts ReadOptions) (*Run, error) {
	r := &Run{Path: dir, Kind: KindRunDir, HasCost: true, HasSteps: true, HasTokens: true, HasDuration: true, HasAttempts: true}
	man, err := results.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	selected := 0
	if man != nil {
		r.Model = man.Model
		r.ConfigHash = ConfigHash(man.Config)
		r.Dataset, r.DatasetRevision = DatasetOf(man.Dataset)
		selected = man.Instances
	}
	history, torn, err := results.ReadLedger(dir)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	if torn {
		r.Warnings = append(r.Warnings, "the ledger's last line is torn (a crash while writing it) and was ignored")
	}
	preds, err := readPreds(filepath.Join(dir, results.PredsFile))
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	if evalDir == "" {
		evalDir = filepath.Join(dir, "eval")
	}
	folder, err := readEvalFolder(evalDir)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	rep, err := findRunReport(evalDir, r.Model, man)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", dir, err)
	}
	r.ReportLayouts = folder.layouts
	evaluated := rep != nil || len(folder.reports) > 0 || len(folder.tried) > 0 || len(folder.family) > 0
	lists := rep.lists()
	if rep != nil {
		r.GradingFlaky = rep.FlakyIDs
	}

	untracked := man != nil && results.CostUntracked(man.Config)
	m := make(map[string]*Instance, len(history))
	notEvaluated := 0
	for id, h := range history {
		last := h[len(h)-1]
		steps := last.Steps
		in := &Instance{ExitStatus: last.ExitStatus, Steps: &steps, Attempts: len(h)}
		cost, calls, tok := 0.0, 0, Tokens{}
		for _, rec := range h {
			cost += rec.Cost
			calls += rec.APICalls
			tok.Input += rec.Tokens.Input
			tok.Output += rec.Tokens.Output
		}
		if results.KnownCost(cost, calls, untracked) {
			in.Cost = &cost
		}
		if results.KnownTokens(tok.Input, tok.Output, calls) {
			in.Tokens = &tok
		}
		if last.Queued > 0 && last.End >= last.Queued {
			secs := last.End - last.Queued
			in.Seconds = &secs
		}
		m[id] = in
		if last.Category != results.CategoryModel {
			in.Verdict, in.Detail = NotSubmitted, "unfinished: "+last.ExitStatus
			continue
		}
		if folder.fill(in, id) {
			if reason := rep.reason(id); in.Verdict == Error && reason != "" {
				in.Detail = reason
			}
			continue
		}
		if v, ok := lists[id]; ok && v != NotSubmitted {
			in.Verdict = v
			if v == Error {
				in.Detail = rep.reason(id)
			}
			continue
		}
		if p, ok := preds[id]; (ok && p.Empty()) || (!ok && last.PatchBytes == 0) {
			in.Verdict = EmptyPatch
			continue
		}
		in.Verdict, in.Detail = NotSubmitted, "not evaluated"
		notEvaluated++
	}
	// Evaluations of instances the ledger does not know (an `eval -o` into this folder).
	for id := range folder.reports {
		if _, ok := m[id]; !ok {
			v, _, _ := folder.verdict(id)
			m[id] = &Instance{Verdict: v}
		}
	}
	for id := range folder.family {
		if _, ok := m[id]; !ok {
			in := &Instance{}
			folder.fill(in, id)
			m[id] = in
		}
	}
	for id, v := range lists {
		if _, ok := m[id]; !ok {
			in := &Instance{Verdict: v, Detail: rep.reason(id)}
			if v == NotSubmitted {
				in.Detail = "no prediction"
			}
			m[id] = in
		}
	}
	if notEvaluated > 0 && !evaluated && !opts.AllowUnevaluated {
		return nil, fmt.Errorf("input %s: the run is not evaluated (no %s/<id>/report.json, no run report); evaluate it with `swebench-run eval --predictions %s --split …` into that folder, or run with --eval", dir, evalDir, filepath.Join(dir, results.PredsFile))
	}
	if notEvaluated > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d finished instances are not evaluated (not submitted)", notEvaluated))
	}
	if missing := selected - len(history); man != nil && missing > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d of the %d selected instances have no record yet", missing, selected))
	}
	r.Total = selected
	r.Instances = instancesFrom(m)
	return r, nil
}

// readPreds reads a preds.json; a missing file is empty.
func readPreds(path string) (map[string]eval.Prediction, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return map[string]eval.Prediction{}, nil
	}
	return eval.LoadPredictions(path)
}

// runReportFile is a run report found beside per-instance evaluations.
type runReportFile struct {
	eval.RunReport
}

// lists maps every id of the report to its verdict; a nil report maps nothing.
func (rep *runReportFile) lists() map[string]Verdict {
	m := map[string]Verdict{}
	if rep == nil {
		return m
	}
	for _, l := range []struct {
		ids []string
		v   Verdict
	}{{rep.IncompleteIDs, NotSubmitted}, {rep.EmptyPatchIDs, EmptyPatch}, {rep.ErrorIDs, Error}, {rep.UnresolvedIDs, Unresolved}, {rep.ResolvedIDs, Resolved}} {
		for _, id := range l.ids {
			m[id] = l.v
		}
	}
	return m
}

// reason is the error reason the report gives for id.
func (rep *runReportFile) reason(id string) string {
	if rep == nil {
		return ""
	}
	return rep.ErrorReasons[id]
}

// findRunReport returns the run report of an evaluation folder: <model>.<run_id>.json of the
// run's manifest, else the newest *.json in it that is a run report; nil when there is none.
func findRunReport(evalDir, model string, man *results.Manifest) (*runReportFile, error) {
	var candidates []string
	if man != nil && model != "" && man.RunID != "" {
		candidates = append(candidates, filepath.Join(evalDir, eval.RunReportName(model, man.RunID)))
	}
	matches, _ := filepath.Glob(filepath.Join(evalDir, "*.json"))
	sort.Slice(matches, func(i, j int) bool { return modTime(matches[i]) > modTime(matches[j]) })
	candidates = append(candidates, matches...)
	for _, p := range candidates {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read run report: %w", err)
		}
		var rep runReportFile
		var keys map[string]json.RawMessage
		if json.Unmarshal(data, &keys) != nil || keys["resolved_ids"] == nil {
			continue
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, fmt.Errorf("%s is not a run report: %w", p, err)
		}
		return &rep, nil
	}
	return nil, nil
}

func modTime(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.ModTime().UnixNano()
}

// DatasetOf names the dataset of a run manifest (run.json's dataset) and its revision: the named
// dataset or hub repository with its split and resolved commit, or the file with its sha256. A
// sweep records these in sweep.json.
func DatasetOf(raw json.RawMessage) (name, revision string) {
	if len(raw) == 0 {
		return "", ""
	}
	var m dataset.Manifest
	if json.Unmarshal(raw, &m) != nil {
		return "", ""
	}
	s := m.Source
	switch {
	case s.HFRepo != "":
		name = s.HFRepo
		if s.Split != "" {
			name += ":" + s.Split
		}
	case s.Name != "":
		name = s.Name
	case len(s.Files) > 0:
		name = filepath.Base(s.Files[0].Path)
	default:
		name = s.Spec
	}
	revision = s.ResolvedSHA
	if revision == "" && len(s.Files) > 0 {
		sums := make([]string, len(s.Files))
		for k, f := range s.Files {
			sums[k] = f.SHA256
		}
		sort.Strings(sums)
		revision = "sha256:" + strings.Join(sums, ",")
	}
	if revision == "" {
		revision = s.Revision
	}
	return name, revision
}

// readSweepDir reads every cell of a sweep folder as a run directory.
func readSweepDir(src Source, opts ReadOptions) ([]*Run, error) {
	s, err := ReadSweep(src.Path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", src.Path, err)
	}
	runs := make([]*Run, 0, len(s.Cells))
	for _, c := range s.Cells {
		dir := filepath.Join(src.Path, filepath.FromSlash(c.Dir))
		var r *Run
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			r = &Run{Path: dir, Warnings: []string{"the cell has not started (its folder does not exist)"}}
		} else if r, err = readRunDir(dir, "", opts); err != nil {
			return nil, fmt.Errorf("sweep %s, cell %s: %w", src.Path, c.Name, err)
		}
		r.Kind = KindSweepCell
		r.Sweep, r.SweepDir, r.Cell, r.Variant, r.Repeat, r.DatasetName = s.Name, src.Path, c.Name, c.Variant, c.Repeat, c.DatasetName
		// The sweep's own record of the cell wins over what the run directory says.
		r.Model = firstNonEmpty(c.Model, r.Model)
		r.ConfigHash = firstNonEmpty(c.ConfigHash, r.ConfigHash)
		r.Dataset = firstNonEmpty(c.Dataset, r.Dataset)
		r.DatasetRevision = firstNonEmpty(c.DatasetRevision, r.DatasetRevision)
		r.Label, r.Group = cellLabel(s, c), c.Variant
		if src.Label != "" {
			r.Label, r.Group = src.Label+"/"+r.Label, src.Label+"/"+r.Group
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
