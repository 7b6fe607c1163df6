package family

import (
	"context"
	"fmt"
	"io"
	"time"
)

// PatchApply says how a harness applies a patch already written into the sandbox: the commands
// it tries in order, the command that resets the tree between attempts, and (optionally) a
// command whose success shows the patch is already applied when every attempt failed.
type PatchApply struct {
	Commands     []string
	Reset        string
	ReverseCheck string        // "" for none
	Timeout      time.Duration // of each command
}

// ApplyPatch applies a patch with a harness's fallbacks: each command of pa in turn, resetting
// the tree before every attempt but the first (a failed `git apply --reject` leaves partial
// changes behind), then, when all failed, the reverse check (the chain may leave the patch fully
// applied while every command exited non-zero). It reports whether the patch is applied and the
// output of the last attempt, and logs every attempt to log; the error is for sandbox failures.
func ApplyPatch(ctx context.Context, sb Sandbox, pa PatchApply, log io.Writer) (bool, string, error) {
	var last string
	for i, cmd := range pa.Commands {
		if i > 0 && pa.Reset != "" {
			if _, _, _, err := sb.Exec(ctx, pa.Reset, pa.Timeout); err != nil {
				return false, last, err
			}
		}
		out, code, timedOut, err := sb.Exec(ctx, cmd, pa.Timeout)
		if err != nil {
			return false, out, err
		}
		last = out
		if code == 0 && !timedOut {
			fmt.Fprintf(log, ">>>>> Applied Patch (%s):\n%s\n", cmd, out)
			return true, out, nil
		}
		fmt.Fprintf(log, "Failed to apply patch to container (exit %d): %s\n%s\n", code, cmd, out)
	}
	if pa.ReverseCheck == "" {
		return false, last, nil
	}
	_, code, _, err := sb.Exec(ctx, pa.ReverseCheck, pa.Timeout)
	if err != nil {
		return false, last, err
	}
	if code == 0 {
		fmt.Fprintf(log, ">>>>> Applied Patch: verified already applied\n")
		return true, last, nil
	}
	return false, last, nil
}
