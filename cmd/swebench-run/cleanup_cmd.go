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
		be          backendFlags
	)
	cmd := &cobra.Command{
		Use:     "cleanup [--all | --run-id ID]",
		Short:   "remove containers this tool left behind",
		GroupID: groupSetup,
		Long: `Removes containers left by runs of this tool whose process is gone (crash, kill -9). Runs
remove their own containers, and sweep those of dead runs when they start; this is for the rest.
With --backend kubernetes it deletes the pods, in the namespace, of runs whose process is gone:
of this machine, or anywhere when their heartbeat (renewed every minute by the run) is older than
kubernetes.stale_after (default 5 minutes) — safe to run from a nightly job on any machine.`,
		Example: `  # containers of runs whose process is gone
  swebench-run cleanup
  # every container of one run
  swebench-run cleanup --run-id 20250101-120000-abc123
  # pods of dead runs in a cluster
  swebench-run cleanup --backend kubernetes --namespace swebench`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := be.check(cmd.Flags(), "docker-host"); err != nil {
				return err
			}
			return cleanup(cmd.Context(), &be, all, runID, host, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&all, "all", false, "remove every container of this tool, including those of runs still going on")
	fs.StringVar(&runID, "run-id", "", "remove only the containers of this run")
	fs.StringVar(&host, "docker-host", "", "Docker engine address (default DOCKER_HOST or the local socket)")
	metavar(fs, "run-id", "ID")
	metavar(fs, "docker-host", "URL")
	be.register(cmd, fs)
	return cmd
}

func cleanup(ctx context.Context, be *backendFlags, all bool, runID, host string, stdout, stderr io.Writer) error {
	engine, closeBackend, err := be.openSimple(ctx, 1, "", stderr, func() (evalBackend, func(), error) {
		e, err := dockerenv.Connect(ctx, host)
		if err != nil {
			return nil, nil, err
		}
		return e, func() { e.Close() }, nil
	})
	if err != nil {
		return err
	}
	defer closeBackend()
	sel := sandbox.Selector{Orphaned: true}
	switch {
	case all:
		sel = sandbox.Selector{All: true}
	case runID != "":
		sel = sandbox.Selector{RunID: runID}
	}
	n, err := engine.Sweep(ctx, sel)
	what := "containers"
	if be.backend == backendKubernetes {
		what = "pods"
	}
	fmt.Fprintf(stdout, "removed %d %s\n", n, what)
	return err
}
