package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/swebench-run/swebench-run/results"
)

// waitFlag registers --wait on the commands that write an output directory.
func waitFlag(fs *pflag.FlagSet, wait *bool) {
	fs.BoolVar(wait, "wait", false, "when another process holds the output directory, wait for it to finish instead of stopping")
}

// lockOutput takes the output directory's lock for the command's whole life: a second process
// on the same directory stops at once naming the holder, or waits with --wait.
func lockOutput(ctx context.Context, dir string, wait bool, stderr io.Writer) (*results.Lock, error) {
	return results.LockDir(ctx, dir, results.LockOptions{
		Wait: wait,
		OnWait: func(h results.Holder) {
			fmt.Fprintf(stderr, "swebench-run: %s is in use by %s; waiting for it to finish (Ctrl-C to give up)\n", dir, h)
		},
		Warn: func(msg string) { fmt.Fprintln(stderr, "swebench-run: warning:", msg) },
	})
}
