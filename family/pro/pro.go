// Package pro is the profile of SWE-bench Pro (Scale AI; ScaleAI/SWE-bench_Pro on the hub, its
// harness github.com/scaleapi/SWE-bench_Pro-os), run and graded as that harness does.
//
// Rows: dockerhub_tag (the image jefzda/sweap-images:{dockerhub_tag}; without it, the tag the
// harness's helper_code/image_uri.py makes from instance_id and repo, cut at 128 characters),
// base_commit, before_repo_set_cmd, selected_test_files_to_run, fail_to_pass and pass_to_pass
// (strings holding Python list literals, read as the harness's eval() reads them; FAIL_TO_PASS
// and PASS_TO_PASS are taken too), problem_statement, requirements and interface. The agent works
// in /app, on the task the harness's helper_code/create_problem_statement.py composes:
// the problem statement, "Requirements:" and "New interfaces introduced:".
//
// Grading is swe_bench_pro_eval.py's: in a fresh container of the instance's image, the files
// /workspace/{patch.diff,run_script.sh,parser.py,entryscript.sh} and `bash
// /workspace/entryscript.sh`, which resets /app to the base commit, applies the patch (binary
// hunks stripped) with `git apply -v`, runs the last line of before_repo_set_cmd, runs
// `bash /workspace/run_script.sh <selected test files joined by ",">` with stdout and stderr
// into two files, and `python /workspace/parser.py` on them, which writes output.json
// ({"tests": [{"name", "status"}]}). The instance is resolved iff every fail_to_pass and
// pass_to_pass test is PASSED there. run_script.sh and parser.py are the harness's
// run_scripts/<instance_id>/ files at a pinned commit (run_scripts.manifest), downloaded and
// cached with their checksums (family.AssetStore), or a local folder's (Options.ScriptsDir).
//
// Files per instance are the harness's, named after the prediction's prefix (the model name
// with "/" → "__"): <prefix>_patch.diff, <prefix>_entryscript.sh, <prefix>_stdout.log,
// <prefix>_stderr.log, <prefix>_output.json; the run's verdicts are eval_results.json
// ({instance_id: bool}) beside the instance folders. Predictions are exported as the harness
// takes them ([{"instance_id", "patch", "prefix"}], swe_bench_pro_patches.json).
package pro

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

// Name is the family's name (dataset.NamedDataset.Family, dataset.Instance.Family).
const Name = "pro"

// WorkDir is where the repository is in SWE-bench Pro's images.
const WorkDir = "/app"

// Columns of a SWE-bench Pro row beyond the SWE-bench ones.
const (
	ColDockerHubTag     = "dockerhub_tag"
	ColBeforeRepoSetCmd = "before_repo_set_cmd"
	ColSelectedTests    = "selected_test_files_to_run"
	ColFailToPass       = "fail_to_pass"
	ColPassToPass       = "pass_to_pass"
	ColRequirements     = "requirements"
	ColInterface        = "interface"
)

// PatchesFile is the name of the exported predictions, in the harness's --patch_path format.
const PatchesFile = "swe_bench_pro_patches.json"

// Options configure the profile; those with a yaml key are the family's options a user sets in
// the run config (families.pro.<key>).
type Options struct {
	// Assets fetches run_scripts files of the pinned commit.
	Assets *family.AssetStore `yaml:"-"`
	// ScriptsDir, when set, holds run_scripts/<instance_id>/{run_script.sh,parser.py} (the
	// harness's --scripts_dir: a checkout's run_scripts folder), used instead of the pinned
	// commit's files, unchecked. Default: the pinned commit's files, downloaded and cached.
	ScriptsDir string `yaml:"scripts_dir"`
}

// Profile is SWE-bench Pro's family.
type Profile struct {
	opts    Options
	scripts *scripts
}

var (
	_ family.Profile          = (*Profile)(nil)
	_ family.PredictionReader = (*Profile)(nil)
	_ family.RepoNamer        = (*Profile)(nil)
)

// New returns the profile.
func New(o Options) *Profile {
	return &Profile{opts: o, scripts: newScripts(o)}
}

// Name implements dataset.Family.
func (*Profile) Name() string { return Name }

// Title implements family.Profile.
func (*Profile) Title() string { return "SWE-bench Pro" }

// Match implements dataset.Family: a row with a dockerhub_tag, or with before_repo_set_cmd and
// selected_test_files_to_run, is SWE-bench Pro's.
func (*Profile) Match(inst *dataset.Instance) bool {
	has := func(c string) bool { _, ok := inst.Extra[c]; return ok }
	return has(ColDockerHubTag) || has(ColBeforeRepoSetCmd) && has(ColSelectedTests)
}

// Prepare implements dataset.Family.
func (*Profile) Prepare(inst *dataset.Instance) error {
	var errs []error
	missing := func(col, why string) {
		errs = append(errs, &dataset.FieldError{Field: col, Reason: "missing: a SWE-bench Pro row has it (" + why + "); is this a SWE-bench Pro dataset?"})
	}
	str := func(col, why string) string {
		v, ok := inst.Extra[col]
		if !ok {
			missing(col, why)
			return ""
		}
		s, ok := v.(string)
		if v != nil && !ok {
			errs = append(errs, &dataset.FieldError{Field: col, Reason: fmt.Sprintf("want a string, got %T", v)})
		}
		return s
	}
	if inst.Repo == "" {
		missing("repo", "it names the repository and the image")
	}
	if inst.BaseCommit == "" {
		missing("base_commit", "grading resets /app to it")
	}
	str(ColBeforeRepoSetCmd, "grading runs its last line before the tests")
	if v, ok := inst.Extra[ColSelectedTests]; !ok {
		missing(ColSelectedTests, "the test files grading runs")
	} else if _, err := stringList(v); err != nil {
		errs = append(errs, &dataset.FieldError{Field: ColSelectedTests, Reason: err.Error()})
	}
	for _, tl := range []struct {
		lower string
		dst   *[]string
	}{{ColFailToPass, &inst.FailToPass}, {ColPassToPass, &inst.PassToPass}} {
		if v, ok := inst.Extra[tl.lower]; ok {
			l, err := stringList(v)
			if err != nil {
				errs = append(errs, &dataset.FieldError{Field: tl.lower, Reason: err.Error()})
			}
			*tl.dst = l
		} else if *tl.dst == nil {
			missing(tl.lower, "the tests that must pass")
		}
	}
	req := str(ColRequirements, "part of the task")
	iface := str(ColInterface, "part of the task")
	tag := ""
	if v, ok := inst.Extra[ColDockerHubTag]; ok {
		s, isStr := v.(string)
		if v != nil && !isStr {
			errs = append(errs, &dataset.FieldError{Field: ColDockerHubTag, Reason: fmt.Sprintf("want a string, got %T", v)})
		}
		tag = s
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	switch {
	case tag != "":
		inst.Image = Image(tag)
	case inst.Image == "":
		inst.Image = Image(DockerHubTag(inst.InstanceID, inst.Repo))
	}
	inst.WorkDir = WorkDir
	inst.Task = Task(inst.ProblemStatement, req, iface)
	return nil
}

// Task composes the agent's task as the harness's create_problem_statement does.
func Task(problem, requirements, iface string) string {
	return problem + "\n\nRequirements:\n" + requirements + "\n\nNew interfaces introduced:\n" + iface
}

// Grader implements family.Profile.
func (p *Profile) Grader() family.Grader { return &grader{scripts: p.scripts} }

// Reports implements family.Profile.
func (*Profile) Reports() family.ReportReader { return reports{} }

// patchEntry is one prediction of the harness's --patch_path file.
type patchEntry struct {
	InstanceID string `json:"instance_id"`
	Patch      string `json:"patch"`
	Prefix     string `json:"prefix"`
}

// Prefix is the harness's prefix of a prediction's files: its model name with "/" → "__".
func Prefix(pred family.Prediction) string { return family.FileSafeModel(pred.ModelNameOrPath) }

// ExportPredictions implements family.Profile: the harness's patches file, as its
// helper_code/gather_patches.py writes it (a JSON list, indent 2), prefix the model name.
func (*Profile) ExportPredictions(preds []family.Prediction) (string, []byte, error) {
	list := make([]patchEntry, 0, len(preds))
	for _, p := range preds {
		list = append(list, patchEntry{InstanceID: p.InstanceID, Patch: p.Patch(), Prefix: Prefix(p)})
	}
	data, err := family.MarshalPython(list, 2)
	return PatchesFile, data, err
}

// ReadPredictions implements family.PredictionReader: the harness's patches file, a JSON list
// of {"instance_id", "patch" (or "model_patch", which wins, as in the harness), "prefix"}
// without model_name_or_path (items with model_patch alone need a prefix). The prefix is the
// model name; without one, the file's name.
func (*Profile) ReadPredictions(path string, data []byte) (map[string]family.Prediction, bool, error) {
	var list []map[string]json.RawMessage
	if json.Unmarshal(data, &list) != nil || len(list) == 0 {
		return nil, false, nil
	}
	for _, e := range list {
		// The harness's files have "patch" (or "model_patch") and a "prefix"; a list of
		// SWE-bench predictions has model_name_or_path, and one without it is left to the
		// SWE-bench reader to refuse.
		_, hasPatch := e["patch"]
		_, hasModelPatch := e["model_patch"]
		_, hasPrefix := e["prefix"]
		if _, hasModel := e["model_name_or_path"]; hasModel || !(hasPatch || hasModelPatch && hasPrefix) {
			return nil, false, nil
		}
	}
	fallback := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	out := make(map[string]family.Prediction, len(list))
	for k, e := range list {
		var id, patch, prefix string
		for key, dst := range map[string]*string{"instance_id": &id, "prefix": &prefix} {
			if raw, ok := e[key]; ok && string(raw) != "null" {
				if err := json.Unmarshal(raw, dst); err != nil {
					return nil, true, fmt.Errorf("predictions %s: item %d: %s is not a string", path, k, key)
				}
			}
		}
		key := "patch"
		if _, ok := e["model_patch"]; ok {
			key = "model_patch"
		}
		if string(e[key]) != "null" {
			if err := json.Unmarshal(e[key], &patch); err != nil {
				return nil, true, fmt.Errorf("predictions %s: item %d: %s is not a string", path, k, key)
			}
		}
		if id == "" {
			return nil, true, fmt.Errorf("predictions %s: item %d: missing instance_id", path, k)
		}
		if _, dup := out[id]; dup {
			return nil, true, fmt.Errorf("predictions %s: item %d: instance_id %q appears more than once; keep one prediction per instance", path, k, id)
		}
		if prefix == "" {
			prefix = fallback
		}
		out[id] = family.Prediction{InstanceID: id, ModelNameOrPath: prefix, ModelPatch: &patch}
	}
	return out, true, nil
}

// idShape is a SWE-bench Pro instance id: instance_{owner}__{name}-{commit}[-v{hash or nan}].
var idShape = regexp.MustCompile(`^instance_([^_]+(?:_[^_]+)*?)__(.+)-[0-9a-f]{40}(?:-v[0-9a-z]+)?$`)

// RepoOf implements family.RepoNamer.
func (*Profile) RepoOf(id string) (string, bool) {
	g := idShape.FindStringSubmatch(id)
	if g == nil {
		return "", false
	}
	return g[1] + "/" + g[2], true
}

// selectedTests returns the row's test files as the harness passes them to run_script.sh.
func selectedTests(inst dataset.Instance) ([]string, error) {
	return stringList(inst.Extra[ColSelectedTests])
}

// sortedKeys returns m's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
