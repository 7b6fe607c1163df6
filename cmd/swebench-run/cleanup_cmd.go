package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/sandbox"
)

func newCleanupCmd() *cobra.Command {
	var (
		all         bool
		runID, host string
	)
	cmd := &cobra.Command{
		Use:     "cleanup [--all | --run-id ID]",
		Short:   "remove containers this tool left behind",
		GroupID: groupSetup,
		Long: `Removes containers left by runs of this tool whose process is gone (crash, kill -9). Runs
remove their own containers, and sweep those of dead runs when they start; this is for the rest.`,
		Example: `  # containers of runs whose process is gone
  swebench-run cleanup
  # every container of one run
  swebench-run cleanup --run-id 20250101-120000-abc123`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cleanup(cmd.Context(), all, runID, host, cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&all, "all", false, "remove every container of this tool, including those of runs still going on")
	fs.StringVar(&runID, "run-id", "", "remove only the containers of this run")
	fs.StringVar(&host, "docker-host", "", "Docker engine address (default DOCKER_HOST or the local socket)")
	metavar(fs, "run-id", "ID")
	metavar(fs, "docker-host", "URL")
	return cmd
}

func cleanup(ctx context.Context, all bool, runID, host string, stdout io.Writer) error {
	engine, err := dockerenv.Connect(ctx, host)
	if err != nil {
		return err
	}
	defer engine.Close()
	sel := sandbox.Selector{Orphaned: true}
	switch {
	case all:
		sel = sandbox.Selector{All: true}
	case runID != "":
		sel = sandbox.Selector{RunID: runID}
	}
	n, err := engine.Sweep(ctx, sel)
	fmt.Fprintf(stdout, "removed %d containers\n", n)
	return err
}
