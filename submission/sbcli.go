package submission

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
)

// SBCLIDir is the folder, beside evaluation/, that receives the predictions files for sb-cli.
const SBCLIDir = "sb-cli"

// writeSBCLI writes the predictions file sb-cli submits, <root>/sb-cli/<folder>/preds.json, and
// returns it with the command line that submits it. sb-cli reads a .json file as an object keyed
// by instance id (or a list), any other name as JSON lines; it wants one model name in the file
// and each id once, and sends model_patch as it is, so a null patch is written as "". The
// folder is named after the submission so that sb-cli's default run id (PARENT: the folder the
// file is in) is the submission's name too; the command gives it explicitly anyway.
func writeSBCLI(root, folder string, split Split, preds map[string]eval.Prediction) (string, string, error) {
	type line struct {
		InstanceID      string `json:"instance_id"`
		ModelNameOrPath string `json:"model_name_or_path"`
		ModelPatch      string `json:"model_patch"`
	}
	obj := make(map[string]line, len(preds))
	for id, p := range preds {
		obj[id] = line{id, p.ModelNameOrPath, p.Patch()}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(obj); err != nil {
		return "", "", err
	}
	dir := filepath.Join(root, SBCLIDir, folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	file := filepath.Join(dir, "preds.json")
	if err := results.WriteFileAtomic(file, buf.Bytes(), 0o644); err != nil {
		return "", "", err
	}
	return file, SBCLICommand(split, file, folder), nil
}

// SBCLICommand is the sb-cli command line that submits a predictions file for a split.
func SBCLICommand(split Split, file, runID string) string {
	return strings.Join([]string{"sb-cli", "submit", split.SBCLISubset, split.SBCLISplit,
		"--predictions_path", shellQuote(file), "--run_id", shellQuote(runID)}, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9@%_+=:,./-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
