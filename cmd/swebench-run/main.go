// Command swebench-run runs coding agents over SWE-bench-style datasets, one Docker container per
// instance, and writes trajectories and a predictions file the SWE-bench harness accepts.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitFailedInsts = 3
	exitInterrupted = 130
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `swebench-run runs coding agents over SWE-bench-style datasets in Docker containers.

Usage:
  swebench-run [run] --split DATASET --model MODEL [flags]   run a batch (the default command)
  swebench-run eval --predictions PATH|gold --split DATASET   grade predictions like the SWE-bench harness
  swebench-run stats [--json] [--rebuild] OUTPUT_DIR           statuses, cost, steps, tokens, durations, resolved
  swebench-run inspect TRAJ|OUTPUT_DIR                       show a trajectory (or a run's trajectories) in the terminal
  swebench-run config show|list [-c …]                       print the resolved config, or the shipped configs
  swebench-run merge OUT_1 OUT_2 … -o OUT                    combine output directories (shards) into one
  swebench-run cleanup [--all]                               remove containers this tool left behind
  swebench-run datasets                                      list the named datasets
  swebench-run version                                       print the version

Run 'swebench-run run -h' for the flags of a batch.

Exit codes:
  0    every selected instance finished
  1    the run failed (bad input, Docker unreachable, output not writable, fatal model error)
  2    bad command line
  3    the run finished, but some instances ended with infrastructure failures
       (image, container, daemon, API): rerun the same command to retry them
  130  interrupted (Ctrl-C / SIGTERM); rerun the same command to resume
`

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")

func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop, cancel := signalContext()
	defer cancel()

	cmd := "run"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "run":
		err = runCommand(ctx, stop, args, stdout, stderr)
	case "eval":
		err = evalCommand(ctx, stop, args, stdout, stderr)
	case "inspect":
		err = inspectCommand(args, stdout, stderr)
	case "config":
		err = configCommand(args, stdout, stderr)
	case "stats":
		err = statsCommand(args, stdout, stderr)
	case "merge":
		err = mergeCommand(args, stdout, stderr)
	case "cleanup":
		err = cleanupCommand(ctx, args, stdout, stderr)
	case "datasets":
		err = datasetsCommand(args, stdout)
	case "version":
		fmt.Fprintln(stdout, "swebench-run", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "swebench-run: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
	return exitCode(err, stderr)
}

// exitStatusError carries an exit code chosen by a command.
type exitStatusError struct {
	code int
	msg  string
}

func (e *exitStatusError) Error() string { return e.msg }

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var es *exitStatusError
	if errors.As(err, &es) {
		if es.msg != "" {
			fmt.Fprintln(stderr, "swebench-run:", es.msg)
		}
		return es.code
	}
	if errors.Is(err, errUsage) {
		fmt.Fprintln(stderr, "swebench-run:", err)
		return exitUsage
	}
	fmt.Fprintln(stderr, "swebench-run:", err)
	return exitFailure
}

// signalContext returns a context cancelled on the second SIGINT/SIGTERM/SIGHUP and a channel closed on
// the first: the first asks for a graceful stop, the second cancels everything.
func signalContext() (context.Context, <-chan struct{}, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		n := 0
		for {
			select {
			case <-sigs:
				n++
				if n == 1 {
					fmt.Fprintln(os.Stderr, "\nswebench-run: stopping: no new instances start; running ones finish their current step. Press Ctrl-C again to cancel them now.")
					close(stop)
				} else {
					fmt.Fprintln(os.Stderr, "\nswebench-run: cancelling running instances and removing their containers…")
					cancel()
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return ctx, stop, func() { signal.Stop(sigs); cancel() }
}
