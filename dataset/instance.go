package dataset

import (
	"errors"
	"fmt"
	"strings"
)

// Instance is one dataset row. The well-known columns have fields; every other column is kept in
// Extra under its original name, with its decoded JSON/parquet value (log_parser is kept there
// too, raw, so that an empty column can be told from an absent one).
type Instance struct {
	InstanceID             string   `json:"instance_id"`
	Repo                   string   `json:"repo"`
	BaseCommit             string   `json:"base_commit"`
	Patch                  string   `json:"patch"`
	TestPatch              string   `json:"test_patch"`
	ProblemStatement       string   `json:"problem_statement"`
	HintsText              string   `json:"hints_text"`
	CreatedAt              string   `json:"created_at"`
	Version                string   `json:"version"`
	EnvironmentSetupCommit string   `json:"environment_setup_commit"`
	FailToPass             []string `json:"FAIL_TO_PASS"` // nil when the column is absent
	PassToPass             []string `json:"PASS_TO_PASS"` // nil when the column is absent

	// Harness-v5 columns.
	Image      string `json:"image"`       // also read from image_name / docker_image
	EvalScript string `json:"eval_script"` // a complete bash script
	LogParser  string `json:"log_parser"`  // e.g. "parse_log_pytest"
	EvalType   string `json:"eval_type"`   // "pass_and_fail" or "fail_only"

	// What the row's dataset family (see Family) set when it prepared the row; empty for a row
	// no family took, which is used as it is (the default family's, the SWE-bench harness's).
	Family  string `json:"family,omitempty"`  // the family's name; "" when no family took the row
	Task    string `json:"task,omitempty"`    // the agent's task when it is not problem_statement
	WorkDir string `json:"workdir,omitempty"` // the repository in the image; "" is the config's cwd (/testbed)
	// PreAgentCommands run in the agent's container, in order, after it starts and before the
	// agent's first command (e.g. checking out the branch that holds the bug); each must exit 0.
	PreAgentCommands []string `json:"pre_agent_commands,omitempty"`

	Extra map[string]any `json:"-"`
}

// TaskText returns what the agent is asked to do: the family's task text when it set one (e.g.
// the problem statement with the requirements its harness adds), else the problem statement.
func (i *Instance) TaskText() string {
	if i.Task != "" {
		return i.Task
	}
	return i.ProblemStatement
}

// WorkingDir returns the directory commands run in: the family's working directory when it set
// one (the repository in its images, e.g. /app), else def (the config's cwd).
func (i *Instance) WorkingDir(def string) string {
	if i.WorkDir != "" {
		return i.WorkDir
	}
	return def
}

// Image template placeholders, for ImageName and DefaultImageTemplate:
//
//	{instance_id}  the id with "__" replaced by "_1776_", lower-cased (Docker Hub naming)
//	{id}           the id exactly as in the dataset (Epoch's registry keeps "__")
//	{arch}         the architecture, always "x86_64" (the only one SWE-bench images exist for)
//	{repo}         the row's repo column, as is
//
// Any other {name} is an error, so a typo in a template fails before a container starts.
const DefaultImageTemplate = "docker.io/swebench/sweb.eval.x86_64.{instance_id}:latest"

// EpochImageTemplate is the image template of Epoch Research's SWE-bench registry.
const EpochImageTemplate = "ghcr.io/epoch-research/swe-bench.eval.{arch}.{id}:latest"

// imageColumns are the columns a row may name its image in, by priority.
var imageColumns = []string{"image", "image_name", "docker_image"}

// ImageName returns the container image for the instance: the row's image/image_name/docker_image
// column verbatim when set, else template ("" means DefaultImageTemplate) expanded for this row.
func (i *Instance) ImageName(template string) (string, error) {
	if i.Image != "" {
		return i.Image, nil
	}
	for _, col := range imageColumns[1:] {
		if s, ok := i.Extra[col].(string); ok && s != "" {
			return s, nil
		}
	}
	return ExpandImageTemplate(template, i.InstanceID, i.Repo)
}

// ApplyImageTemplate gives every instance the image of template, over the row's own image
// column: what an explicitly given --image-template means (a registry mirror, images built
// elsewhere). Without it, the template only names the images of rows that have none.
func ApplyImageTemplate(insts []Instance, template string) error {
	for i := range insts {
		img, err := ExpandImageTemplate(template, insts[i].InstanceID, insts[i].Repo)
		if err != nil {
			return fmt.Errorf("--image-template %q, instance %s: %w", template, insts[i].InstanceID, err)
		}
		insts[i].Image = img
	}
	return nil
}

// ExpandImageTemplate expands an image template (see DefaultImageTemplate for the placeholders)
// for one instance id. An empty template means DefaultImageTemplate.
func ExpandImageTemplate(template, instanceID, repo string) (string, error) {
	if template == "" {
		template = DefaultImageTemplate
	}
	if instanceID == "" {
		return "", errors.New("image name: instance has no instance_id")
	}
	var b strings.Builder
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("image template %q: unclosed '{'", template)
		}
		b.WriteString(rest[:open])
		name := rest[open+1 : open+end]
		switch name {
		case "instance_id":
			b.WriteString(strings.ToLower(strings.ReplaceAll(instanceID, "__", "_1776_")))
		case "id":
			b.WriteString(instanceID)
		case "arch":
			b.WriteString("x86_64")
		case "repo":
			b.WriteString(repo)
		default:
			return "", fmt.Errorf("image template %q: unknown placeholder {%s}; use {instance_id}, {id}, {arch} or {repo}", template, name)
		}
		rest = rest[open+end+1:]
	}
	return b.String(), nil
}

// QualifyImage prefixes docker.io/ to a reference with no registry host
// ("swebench/sweb.eval…" → "docker.io/swebench/sweb.eval…"); Podman's short-name resolution fails
// on unqualified names. ImageName returns row images verbatim; callers that talk to Podman may
// apply this.
func QualifyImage(ref string) string {
	first, _, found := strings.Cut(ref, "/")
	if !found {
		return "docker.io/library/" + ref
	}
	if strings.ContainsAny(first, ".:") || first == "localhost" {
		return ref
	}
	return "docker.io/" + ref
}

// TemplateVars returns every column of the row under its original name (the known fields and
// Extra), with FAIL_TO_PASS and PASS_TO_PASS as lists of strings, for prompt templates
// ({{ repo }}, {{ hints_text }}, …). Absent known columns are present as empty values.
func (i *Instance) TemplateVars() map[string]any {
	m := make(map[string]any, 16+len(i.Extra))
	for k, v := range i.Extra {
		m[k] = v
	}
	m["instance_id"] = i.InstanceID
	m["repo"] = i.Repo
	m["base_commit"] = i.BaseCommit
	m["patch"] = i.Patch
	m["test_patch"] = i.TestPatch
	m["problem_statement"] = i.ProblemStatement
	m["hints_text"] = i.HintsText
	m["created_at"] = i.CreatedAt
	m["version"] = i.Version
	m["environment_setup_commit"] = i.EnvironmentSetupCommit
	m["FAIL_TO_PASS"] = nonNil(i.FailToPass)
	m["PASS_TO_PASS"] = nonNil(i.PassToPass)
	m["image"] = i.Image
	m["eval_script"] = i.EvalScript
	m["log_parser"] = i.LogParser
	m["eval_type"] = i.EvalType
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// FieldError is a missing or invalid field of one instance.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Reason) }

// ValidateForRun checks what running an agent on the instance needs: an instance_id, a
// problem_statement and a way to name its image (always true: a row without an image column uses
// the image template).
func (i *Instance) ValidateForRun() error {
	var errs []error
	if i.InstanceID == "" {
		errs = append(errs, &FieldError{"instance_id", "missing or empty"})
	}
	if strings.TrimSpace(i.TaskText()) == "" {
		errs = append(errs, &FieldError{"problem_statement", "missing or empty: the agent has no task"})
	}
	return errors.Join(errs...)
}

// ValidateForEval checks the fields grading a patch needs: FAIL_TO_PASS and PASS_TO_PASS present
// (as lists, possibly empty; PASS_TO_PASS may be absent for fail_only rows) and a known
// eval_type. Whether the row says how to grade it at all is its family's to check (the family's
// Prepare, its grader's Check, LoadOptions.Complete).
func (i *Instance) ValidateForEval() error {
	var errs []error
	if i.InstanceID == "" {
		errs = append(errs, &FieldError{"instance_id", "missing or empty"})
	}
	// An empty FAIL_TO_PASS is valid (SWE-bench Multilingual has such a row): only absence is an error.
	if i.FailToPass == nil {
		errs = append(errs, &FieldError{"FAIL_TO_PASS", "missing: evaluation needs the tests the fix must make pass"})
	}
	if i.PassToPass == nil && i.EvalType != "fail_only" {
		errs = append(errs, &FieldError{"PASS_TO_PASS", "missing: evaluation needs it (an empty list is fine)"})
	}
	switch i.EvalType {
	case "", "pass_and_fail", "fail_only":
	default:
		errs = append(errs, &FieldError{"eval_type", fmt.Sprintf("%q is not one of pass_and_fail, fail_only", i.EvalType)})
	}
	return errors.Join(errs...)
}
