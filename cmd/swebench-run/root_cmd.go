package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exitCodesHelp is the "Exit codes:" section of the root's and run's help.
const exitCodesHelp = `  0    every selected instance finished
  1    the run failed (bad input, the backend away longer than --backend-wait, output not
       writable, fatal model error)
  2    bad command line
  3    the run finished, but infrastructure failures (image, container, daemon, API) remain
       after the retries within the run: rerun the same command to retry them
  130  interrupted (Ctrl-C, SIGTERM, SIGHUP or --max-duration): rerun the same command to resume`

// Command groups of the root's help.
const (
	groupBatch   = "batch"
	groupResults = "results"
	groupSetup   = "setup"
)

// newRootCmd builds the command tree. stop is closed on the first Ctrl-C (stop scheduling); the
// context given to Execute is cancelled on the second. A new command is a constructor in its own
// file and one line here.
func newRootCmd(stop <-chan struct{}) *cobra.Command {
	root := &cobra.Command{
		Use:   "swebench-run",
		Short: "run coding agents over SWE-bench-style datasets",
		Long: `swebench-run runs coding agents over SWE-bench-style datasets, one Docker container per
instance, and writes trajectories and a preds.json that the SWE-bench harness and sb-cli accept.
run is the default command: flags without a command run a batch.`,
		Example: `  # a batch: the first 20 instances of SWE-bench Lite, 4 at a time
  swebench-run --split lite --model openai/gpt-5 --slice 0:20 --workers 4 -o runs/gpt5
  # the offline demo (no API key): the scripted model on the project's demo dataset
  swebench-run --split demo/dataset.jsonl --model scripted -o runs/demo --eval
  # grade the predictions, then look at the run
  swebench-run eval --predictions runs/gpt5/preds.json --split lite
  swebench-run stats runs/gpt5`,
		Annotations: map[string]string{
			annUsage: "swebench-run COMMAND [flags]\n" +
				"swebench-run [run] --split DATASET --model MODEL [flags]",
			annExitCodes: exitCodesHelp,
		},
		Version:       version,
		Args:          rootArgs,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		SilenceErrors: true, // run prints errors and maps them to exit codes
		SilenceUsage:  true, // a usage error prints a one-line hint, not the whole help
		CompletionOptions: cobra.CompletionOptions{
			DisableDefaultCmd: true, // ours has examples and usage errors like the rest
		},
	}
	root.SetVersionTemplate("swebench-run {{.Version}}\n")
	root.SetHelpFunc(printHelp)
	root.SetFlagErrorFunc(flagError)
	root.AddGroup(
		&cobra.Group{ID: groupBatch, Title: "Run and grade"},
		&cobra.Group{ID: groupResults, Title: "Look at results"},
		&cobra.Group{ID: groupSetup, Title: "Configure and maintain"},
	)
	root.AddCommand(
		newRunCmd(stop),
		newSweepCmd(stop),
		newEvalCmd(stop),
		newValidateCmd(stop),
		newMergeCmd(),
		newStatsCmd(),
		newCompareCmd(),
		newReportCmd(),
		newViewCmd(stop),
		newSubmissionCmd(stop),
		newInspectCmd(),
		newAuditCmd(),
		newExportCmd(stop),
		newConfigCmd(),
		newDatasetsCmd(),
		newModelsCmd(),
		newCleanupCmd(),
		newCompletionCmd(),
		newVersionCmd(),
	)
	root.SetHelpCommand(newHelpCmd())
	// Declared now rather than at Execute, so that the default command can tell them apart.
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	return root
}

// rootArgs rejects a word that is no command (swebench-run stat), with suggestions.
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommandError(cmd, args[0])
	}
	return nil
}

// execute runs the command line args and returns the command that ran (or failed) and its error.
func execute(ctx context.Context, stop <-chan struct{}, args []string, stdout, stderr io.Writer) (*cobra.Command, error) {
	root := newRootCmd(stop)
	root.SetOut(stdout)
	root.SetErr(stderr)
	args = withDefaultCommand(root, args)
	// Never nil: cobra reads os.Args when the args are nil.
	root.SetArgs(append([]string{}, args...))
	if cmd, rest, err := root.Find(args); err == nil {
		cmd.InitDefaultHelpFlag()
		if err := checkSingleDash(cmd, rest); err != nil {
			return cmd, err
		}
	}
	return root.ExecuteContextC(ctx)
}

// withDefaultCommand makes run the default command: a command line that starts with a flag the
// root does not have (--split …) is a batch. The same goes for the command lines that the
// completion scripts ask to complete (__complete --split …).
func withDefaultCommand(root *cobra.Command, args []string) []string {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		// The last word is the one being completed: --ver is on its way to the root's --version.
		if len(args) == 2 && len(args[1]) > 2 && hasFlagWithPrefix(root, strings.TrimPrefix(args[1], "--")) {
			return args
		}
		return append([]string{args[0]}, withDefaultCommand(root, args[1:])...)
	}
	if len(args) == 0 || len(args[0]) < 2 || args[0][0] != '-' {
		return args
	}
	name, _, _ := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
	if strings.HasPrefix(args[0], "--") && name != "" && root.Flags().Lookup(name) != nil ||
		!strings.HasPrefix(args[0], "--") && len(name) == 1 && root.Flags().ShorthandLookup(name) != nil {
		return args
	}
	return append([]string{"run"}, args...)
}

func hasFlagWithPrefix(cmd *cobra.Command, prefix string) bool {
	found := false
	cmd.Flags().VisitAll(func(f *pflag.Flag) { found = found || strings.HasPrefix(f.Name, prefix) })
	return found
}

func init() {
	// Commands are listed in the order they are added (run first), not by name.
	cobra.EnableCommandSorting = false
}
