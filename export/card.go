package export

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/internal/atomicfile"
)

// The dataset card: README.md beside the Parquet files, with the front matter the HuggingFace
// hub reads (https://huggingface.co/docs/hub/datasets-cards; configs with data_files per split,
// dataset_info with the features) and a description of the columns.

// cardMarker is in every card export writes: a README.md without it is not replaced.
const cardMarker = "<!-- written by swebench-run export -->"

// checkCardPath refuses to replace a README.md that export did not write.
func checkCardPath(p string) error {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("export: dataset card: %w", err)
	}
	if !bytes.Contains(data, []byte(cardMarker)) {
		return fmt.Errorf("export: %s exists and was not written by export: the dataset card goes there; move it away or write the Parquet file into another folder", p)
	}
	return nil
}

// cardFeatures is the Row schema in the card's dataset_info.features syntax.
const cardFeatures = `  features:
  - name: instance_id
    dtype: string
  - name: repo
    dtype: string
  - name: dataset
    dtype: string
  - name: dataset_revision
    dtype: string
  - name: family
    dtype: string
  - name: model
    dtype: string
  - name: config_hash
    dtype: string
  - name: run
    dtype: string
  - name: cell
    dtype: string
  - name: repeat
    dtype: int32
  - name: trajectory_format
    dtype: string
  - name: tool_calling
    dtype: bool
  - name: tools
    dtype: string
  - name: exit_status
    dtype: string
  - name: resolved
    dtype: bool
  - name: verdict
    dtype: string
  - name: cost
    dtype: float64
  - name: input_tokens
    dtype: int64
  - name: output_tokens
    dtype: int64
  - name: steps
    dtype: int32
  - name: format_errors
    dtype: int32
  - name: flags
    sequence: string
  - name: flag_revealed
    dtype: bool
  - name: submission
    dtype: string
  - name: messages
    list:
    - name: role
      dtype: string
    - name: kind
      dtype: string
    - name: content
      dtype: string
    - name: tool_calls
      list:
      - name: id
        dtype: string
      - name: name
        dtype: string
      - name: arguments
        dtype: string
    - name: tool_call_id
      dtype: string
    - name: reasoning
      dtype: string
    - name: trainable
      dtype: bool
`

// cardColumns describes the columns in the card's text.
const cardColumns = `| column | what it holds |
|---|---|
| instance_id, repo | the task, and the repository its id names |
| dataset, dataset_revision, family | the dataset the run was made on, its revision (commit or file sha256) and its family, when the run recorded them |
| model, config_hash | the model, and the hash of the run's resolved config (the same hash ` + "`swebench-run compare`" + ` shows) |
| run, cell, repeat | the run (its folder's name, or the sweep cell's), the sweep cell and repeat |
| trajectory_format, tool_calling, tools | the trajectory's layout; whether the model called tools, and the tool definitions it was offered (JSON, OpenAI chat form) |
| exit_status, resolved, verdict | how the agent ended; whether the evaluation resolved the task (null: not evaluated) and its verdict |
| cost, input_tokens, output_tokens, steps | dollars, tokens and model calls of the trajectory (null: not recorded) |
| format_errors | format-error messages in the trajectory |
| flags, flag_revealed | classes of commands that reached beyond the task's start (history, git-internals, network), and whether one revealed something |
| submission | the patch the agent submitted |
| messages | the conversation as the model saw it: role (system, user, assistant, tool), kind (system, task, reply, observation, format_error, interrupt), content as sent (observations truncated as sent), tool calls with their ids and JSON arguments, the id of the call an observation answers, the reply's reasoning when returned as text, and whether a reply is trainable |
`

// writeCard writes the dataset card of the Parquet files written.
func writeCard(p string, o Options, sum *Summary) error {
	var b strings.Builder
	b.WriteString("---\n")
	b.WriteString("# The license of these trajectories: set it before publishing (see https://huggingface.co/docs/hub/repositories-licenses).\n")
	b.WriteString("license: other\n")
	b.WriteString("pretty_name: Agent trajectories\n")
	b.WriteString("tags:\n- swe-bench\n- agent-trajectories\n- swebench-run\n")
	b.WriteString("task_categories:\n- text-generation\n")
	b.WriteString("configs:\n- config_name: default\n  data_files:\n")
	for _, f := range sum.Files {
		fmt.Fprintf(&b, "  - split: %s\n    path: %s\n", f.Split, filepath.Base(f.Path))
	}
	b.WriteString("dataset_info:\n")
	b.WriteString(cardFeatures)
	b.WriteString("  splits:\n")
	for _, f := range sum.Files {
		fmt.Fprintf(&b, "  - name: %s\n    num_examples: %d\n", f.Split, f.Trajectories)
	}
	b.WriteString("---\n\n")
	b.WriteString(cardMarker + "\n\n")
	b.WriteString("# Agent trajectories\n\n")
	fmt.Fprintf(&b, "%d trajectories of coding agents on SWE-bench-style tasks, one row per trajectory, exported by swebench-run %s (`swebench-run export --format parquet`).", sum.Written, o.Version)
	var runs []string
	seen := map[string]bool{}
	for _, in := range o.Inputs {
		name := filepath.Base(filepath.Clean(in.Path))
		if !seen[name] {
			seen[name] = true
			runs = append(runs, "`"+name+"`")
		}
	}
	sort.Strings(runs)
	fmt.Fprintf(&b, " Inputs: %s.", strings.Join(runs, ", "))
	if sel := o.Filter.describe(o); sel != "" {
		fmt.Fprintf(&b, " Selection: %s.", sel)
	}
	b.WriteString("\n\n")
	if len(sum.Files) > 1 {
		fmt.Fprintf(&b, "The splits share no repository: %s.\n\n", splitsLine(sum.Files))
	}
	b.WriteString("Secrets (values of secret-looking environment variables, credentials in URLs) and paths of the machine that ran the export are replaced by `[redacted]` and `[host-path]`.\n\n")
	b.WriteString("## Columns\n\n")
	b.WriteString(cardColumns)
	b.WriteString("\n## License\n\nSet the `license` of the front matter: the tasks' repositories, the datasets and the models' terms of use may restrict how these trajectories are shared.\n")
	if err := atomicfile.Write(p, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("export: dataset card: %w", err)
	}
	return nil
}

func splitsLine(files []OutputFile) string {
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = fmt.Sprintf("%s %d trajectories of %d repositories", f.Split, f.Trajectories, f.Repos)
	}
	return strings.Join(parts, ", ")
}

// describe says in words what the filter and options selected.
func (f *Filter) describe(o Options) string {
	var parts []string
	if f.Resolved {
		parts = append(parts, "resolved only")
	}
	if len(f.Statuses) > 0 {
		parts = append(parts, "exit status "+strings.Join(f.Statuses, " or "))
	}
	if f.MinSteps != nil {
		parts = append(parts, fmt.Sprintf("at least %d steps", *f.MinSteps))
	}
	if f.MaxSteps != nil {
		parts = append(parts, fmt.Sprintf("at most %d steps", *f.MaxSteps))
	}
	if f.MinCost != nil {
		parts = append(parts, fmt.Sprintf("cost at least $%g", *f.MinCost))
	}
	if f.MaxCost != nil {
		parts = append(parts, fmt.Sprintf("cost at most $%g", *f.MaxCost))
	}
	if f.ExcludeFlagged {
		parts = append(parts, "no flagged trajectory")
	}
	if len(f.Models) > 0 {
		parts = append(parts, "models "+strings.Join(f.Models, ", "))
	}
	if o.PerInstance != AllTrajectories && o.PerInstance != "" {
		parts = append(parts, "the "+string(o.PerInstance)+" trajectory of each instance")
	}
	if o.DropFormatErrors {
		parts = append(parts, "format errors dropped")
	}
	return strings.Join(parts, ", ")
}
