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

// run executes the command line args and returns the process's exit code.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop, cancel := signalContext()
	defer cancel()
	cmd, err := execute(ctx, stop, args, stdout, stderr)
	code := exitCode(err, stderr)
	if code == exitUsage && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
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
