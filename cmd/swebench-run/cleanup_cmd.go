package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/sandbox"
)

func cleanupCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cleanup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	all := fs.Bool("all", false, "remove every container of this tool, including those of runs still going on")
	runID := fs.String("run-id", "", "remove only the containers of this run")
	host := fs.String("docker-host", "", "Docker engine address (default DOCKER_HOST or the local socket)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: swebench-run cleanup [--all | --run-id ID]\n\nRemoves containers left by runs of this tool whose process is gone (crash, kill -9).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitStatusError{code: exitUsage}
	}
	engine, err := dockerenv.Connect(ctx, *host)
	if err != nil {
		return err
	}
	defer engine.Close()
	sel := sandbox.Selector{Orphaned: true}
	switch {
	case *all:
		sel = sandbox.Selector{All: true}
	case *runID != "":
		sel = sandbox.Selector{RunID: *runID}
	}
	n, err := engine.Sweep(ctx, sel)
	fmt.Fprintf(stdout, "removed %d containers\n", n)
	return err
}
