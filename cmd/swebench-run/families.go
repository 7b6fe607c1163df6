package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
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

// checkGradable checks, before anything runs, that every instance can be graded: the SWE-bench
// family's rows by eval's built-in grading, the rows of a family with a grader by that grader.
func checkGradable(insts []dataset.Instance) error {
	reg := families()
	var builtin []dataset.Instance
	byFamily := map[string][]dataset.Instance{}
	var names []string
	for _, inst := range insts {
		name := inst.FamilyName()
		if reg.Grader(name) == nil {
			builtin = append(builtin, inst)
			continue
		}
		if _, ok := byFamily[name]; !ok {
			names = append(names, name)
		}
		byFamily[name] = append(byFamily[name], inst)
	}
	sort.Strings(names)
	errs := []error{eval.CheckInstances(builtin)}
	for _, name := range names {
		errs = append(errs, reg.Grader(name).Check(byFamily[name]))
	}
	return errors.Join(errs...)
}
