package main

import (
	"fmt"
	"io"
	"os"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/results"
)

// envProScripts names a local copy of SWE-bench Pro's run_scripts/ (the harness's --scripts_dir),
// used instead of the files of the pinned commit.
const envProScripts = "SWEBENCH_RUN_PRO_SCRIPTS"

// envPythonImage names the image SWE-bench-Live's Python log parsers run in.
const envPythonImage = "SWEBENCH_RUN_PYTHON_IMAGE"

// families returns the registry of dataset families, configured from the environment.
func families() *all.Registry {
	return all.New(all.Options{ProScripts: os.Getenv(envProScripts), PythonImage: os.Getenv(envPythonImage)})
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
