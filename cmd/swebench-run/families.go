package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/results"
)

// envProScripts names a local copy of SWE-bench Pro's run_scripts/ (the harness's --scripts_dir),
// used instead of the files of the pinned commit.
const envProScripts = "SWEBENCH_RUN_PRO_SCRIPTS"

// families returns the registry of dataset families, configured from the environment.
func families() *all.Registry {
	return all.New(all.Options{ProScripts: os.Getenv(envProScripts)})
}

// exportFamilyPredictions writes the run's predictions in the input format of each family's
// harness that takes another format than preds.json (SWE-bench Pro's patches file) beside
// preds.json, and names the files on stderr.
func exportFamilyPredictions(dir string, insts []dataset.Instance, out *results.Dir, stderr io.Writer) error {
	preds := map[string]family.Prediction{}
	for id, p := range out.Predictions() {
		patch := p.ModelPatch
		preds[id] = family.Prediction{InstanceID: id, ModelNameOrPath: p.ModelNameOrPath, ModelPatch: &patch}
	}
	files, err := families().ExportPredictions(dir, insts, preds)
	for _, f := range files {
		fmt.Fprintf(stderr, "swebench-run: predictions in the harness's format: %s\n", f)
	}
	return err
}

// familyEvalStats counts the verdicts <dir>/eval holds in another dataset family's format (SWE-bench
// Pro's eval_results.json), for a run whose evaluation wrote no report.json; nil when there are
// none. The instances counted are those of the ledger.
func familyEvalStats(dir string, st *results.Stats) (*results.EvalStats, error) {
	folders, err := all.ReadEvalFolder(filepath.Join(dir, "eval"))
	if err != nil || len(folders) == 0 {
		return nil, err
	}
	history, _, err := results.ReadLedger(dir)
	if err != nil {
		return nil, err
	}
	es := &results.EvalStats{}
	var formats []string
	for _, fv := range folders {
		formats = append(formats, fv.Format)
		for id, v := range fv.Verdicts {
			if _, ok := history[id]; !ok && len(history) > 0 {
				continue
			}
			es.Evaluated++
			switch v.Outcome {
			case family.Resolved:
				es.Resolved++
			case family.Unresolved:
				es.Unresolved++
			}
		}
	}
	es.Format = strings.Join(formats, ", ")
	if st.Instances > 0 {
		es.Rate = float64(es.Resolved) / float64(st.Instances)
	}
	return es, nil
}
