package main

import (
	"cmp"
	"fmt"
	"io"
	"os"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/results"
)

// The families' options are set in the run config (families.<family>.<key>, all.Settings); these
// environment variables, which set them before there was a families section, are their
// fallbacks: a key the config sets wins.
const (
	// envProScripts is families.pro.scripts_dir: a local copy of SWE-bench Pro's run_scripts/
	// (the harness's --scripts_dir), used instead of the files of the pinned commit.
	envProScripts = "SWEBENCH_RUN_PRO_SCRIPTS"
	// envPythonImage is families.live.python_image: the image SWE-bench-Live's Python log
	// parsers run in.
	envPythonImage = "SWEBENCH_RUN_PYTHON_IMAGE"
)

// families returns the registry of dataset families for commands without a run config: each
// family's defaults, or their environment fallbacks.
func families() *all.Registry {
	return all.New(all.Options{Settings: withEnvFallbacks(all.Settings{})})
}

// familiesFor returns the registry of dataset families with the options of cfg's families
// section, over their environment fallbacks; a section that is not one of options the families
// have is an error naming the key.
func familiesFor(cfg *configs.Config) (*all.Registry, error) {
	s, err := all.DecodeSettings(cfg.Families)
	if err != nil {
		return nil, err
	}
	return all.New(all.Options{Settings: withEnvFallbacks(s)}), nil
}

// withEnvFallbacks fills the options s leaves unset from their environment variables.
func withEnvFallbacks(s all.Settings) all.Settings {
	s.Pro.ScriptsDir = cmp.Or(s.Pro.ScriptsDir, os.Getenv(envProScripts))
	s.Live.PythonImage = cmp.Or(s.Live.PythonImage, os.Getenv(envPythonImage))
	return s
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
