package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/audit"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
)

// exitFlagged is audit's exit code with --fail-on-flag when an instance is flagged.
const exitFlagged = 6

const auditExitCodes = `  0    scanned (flagged instances or not, unless --fail-on-flag)
  1    the input could not be read (the message names it and what was expected)
  2    bad command line
  6    --fail-on-flag: some instance is flagged`

func newAuditCmd() *cobra.Command {
	var asJSON, failOnFlag bool
	var split string
	cmd := &cobra.Command{
		Use:     "audit [--json] [--fail-on-flag] RUN|TRAJ|FOLDER",
		Short:   "the commands of a run's trajectories that reach beyond the task's start",
		GroupID: groupResults,
		Long: `Scans every trajectory of a run for commands that reach beyond the task's start, and prints
each one found: its instance, step, class, whether its output revealed anything, and the command.

Classes: history (git history beyond HEAD and its ancestors: --all, --branches, --remotes,
--tags, --reflog, git reflog, git fsck, cat-file --batch-all-objects, show, diff, checkout,
cherry-pick or log of commits and refs that are not the task's), git-internals (.git/objects,
refs, logs, packed-refs, … read by hand) and network (git fetch, clone, pull, ls-remote; curl or
wget of the project's hosting; pip, npm or go downloads of the project itself). Commands are
parsed as bash parses them (pipelines, &&, quoting, bash -c, here-documents), so git log -n 5,
git blame, git show HEAD~1 or text that only mentions git log --all are not flagged.

Revealed: the output showed something (not empty, not only errors, exit code 0 or unknown) and,
for history and git-internals, the run was not behind the history guard (environment.history
past or none, read from run.json or the trajectory): an empty git log --all is a try, not a leak.

RUN|TRAJ|FOLDER is our output directory or mini-swe-agent's (<id>/<id>.traj.json, 1.x or 2.x),
one trajectory file (.traj.json, SWE-agent .traj, OpenHands output.jsonl or completion log), a
folder of SWE-agent trajectories, or an OpenHands output folder (output.jsonl, or
llm_completions/<id>/). The last line sums up: instances scanned, flagged, revealed.

Without --split, what is known of each task comes from its trajectory (the task message, the
repository from the instance id); --split DATASET adds each row's base commit, problem
statement, repository and version, so that commits and tags the task names or predates are the
task's.`,
		Example: `  swebench-run audit runs/sonnet
  # a published mini-swe-agent run, a SWE-agent trajectories folder, an OpenHands output
  swebench-run audit ~/mini-output/deepseek_lite_dev
  swebench-run audit trajectories/alice/run-1
  swebench-run audit evaluation_outputs/outputs/…/output.jsonl
  # one JSON object per flag (the summary goes to stderr)
  swebench-run audit --json runs/sonnet | jq -r 'select(.revealed) | .instance'
  # the dataset's base commits, problem statements and versions
  swebench-run audit --split lite runs/sonnet
  # fail a pipeline when any instance is flagged
  swebench-run audit --fail-on-flag runs/nightly`,
		Annotations: map[string]string{annExitCodes: auditExitCodes},
		Args:        argsRange(1, 1, "one run, trajectory or folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAudit(cmd.Context(), args[0], split, asJSON, failOnFlag, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeDirs,
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per flag: instance, step, command, class, reason, revealed")
	cmd.Flags().BoolVar(&failOnFlag, "fail-on-flag", false, "exit 6 when some instance is flagged")
	cmd.Flags().StringVar(&split, "split", "", "the dataset the run was made on (a named dataset, hf:ID, or a file): its base commits, problem statements and versions")
	metavar(cmd.Flags(), "split", "DATASET")
	completeFlags(cmd, map[string]cobra.CompletionFunc{"split": completeDataset})
	return cmd
}

func runAudit(ctx context.Context, path, split string, asJSON, failOnFlag bool, stdout, stderr io.Writer) error {
	var taskOf results.TaskOf
	if split != "" {
		loaded, err := dataset.Load(ctx, split, dataset.LoadOptions{Progress: stderr, Families: families().Families()})
		if err != nil {
			return fmt.Errorf("audit: --split %s: %w", split, err)
		}
		tasks := make(map[string]audit.Task, len(loaded.Instances))
		for _, in := range loaded.Instances {
			tasks[in.InstanceID] = audit.Task{BaseCommit: in.BaseCommit, Text: in.ProblemStatement, Repo: in.Repo, Version: in.Version}
		}
		taskOf = func(id string) audit.Task { return tasks[id] }
	}
	a, err := results.AuditPath(path, taskOf)
	if err != nil {
		return fmt.Errorf("audit %s: %w", path, err)
	}
	summaryTo := stdout
	if asJSON {
		summaryTo = stderr
		enc := json.NewEncoder(stdout)
		for _, f := range a.Flags {
			if err := enc.Encode(f); err != nil {
				return err
			}
		}
	} else if len(a.Flags) > 0 {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "INSTANCE\tSTEP\tCLASS\tREVEALED\tCOMMAND")
		for _, f := range a.Flags {
			shown := "no"
			if f.Revealed {
				shown = "yes"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", f.Instance, f.Step, f.Class, shown, oneLine(f.Command, 100))
		}
		tw.Flush()
		fmt.Fprintln(stdout)
	}
	fmt.Fprintln(summaryTo, auditSummary(a))
	if failOnFlag && len(a.ByID) > 0 {
		return &exitStatusError{code: exitFlagged}
	}
	return nil
}

// auditSummary is the line that sums an audit up.
func auditSummary(a *results.Audit) string {
	history := a.History
	if history == "" {
		history = "not recorded"
	}
	return fmt.Sprintf("%d instances scanned, %d flagged (%d flags), %d revealed; history: %s",
		a.Instances, len(a.ByID), len(a.Flags), len(a.Revealing()), history)
}
