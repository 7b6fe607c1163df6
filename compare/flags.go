package compare

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/results"
)

// Flags are a run's trajectory flags (the one scanner, audit, through results.AuditPath): the
// instances with a command that reached beyond the task's start, and those of them resolved.
type Flags struct {
	Scanned         int      `json:"scanned"`          // trajectories scanned
	Flagged         []string `json:"flagged"`          // instances with a flag
	Revealed        []string `json:"revealed"`         // of those, with a flag whose output revealed something
	FlaggedResolved []string `json:"flagged_resolved"` // of those, resolved
	History         string   `json:"history,omitempty"`
}

// readFlags scans the trajectories of a run of ours or mini-swe-agent's (a sweep cell
// included); nil for forms without trajectories and folders that hold none.
func readFlags(r *Run) (*Flags, error) {
	switch r.Kind {
	case KindRunDir, KindSweepCell, KindMini:
	default:
		return nil, nil
	}
	if _, err := os.Stat(r.Path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // a cell that has not started
	}
	a, err := results.AuditPath(r.Path, nil)
	if errors.Is(err, results.ErrNoTrajectories) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("input %s: flags: %w", r.Path, err)
	}
	f := &Flags{Scanned: a.Instances, Flagged: a.Flagged(), Revealed: a.Revealing(), FlaggedResolved: []string{}, History: a.History}
	if f.Flagged == nil {
		f.Flagged = []string{}
	}
	if f.Revealed == nil {
		f.Revealed = []string{}
	}
	for _, id := range f.Flagged {
		if in, ok := r.Get(id); ok && in.Verdict == Resolved {
			f.FlaggedResolved = append(f.FlaggedResolved, id)
		}
	}
	sort.Strings(f.FlaggedResolved)
	return f, nil
}

// flagLines are one line per run with flags known: how many flagged, how many of them resolved.
func flagLines(res *Result) []string {
	var lines []string
	for _, in := range res.Inputs {
		for _, ri := range in.Runs {
			f := ri.Flags
			if f == nil {
				continue
			}
			line := fmt.Sprintf("%s: %d of %d instances flagged, %d of them resolved, %d revealed", ri.Label, len(f.Flagged), f.Scanned, len(f.FlaggedResolved), len(f.Revealed))
			if len(f.FlaggedResolved) > 0 {
				line += " (resolved: " + listSome(f.FlaggedResolved) + ")"
			}
			lines = append(lines, line)
		}
	}
	return lines
}

func listSome(ids []string) string {
	if len(ids) <= maxListed {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:maxListed], ", ") + fmt.Sprintf(", … %d more", len(ids)-maxListed)
}

// writeFlagsText writes the runs' flags, when any run has them, and reports whether it did.
func writeFlagsText(w io.Writer, res *Result, bullet string) bool {
	lines := flagLines(res)
	if len(lines) == 0 {
		return false
	}
	fmt.Fprintln(w, "flags (commands reaching beyond the task's start; swebench-run audit RUN lists them)")
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s\n", bullet, l)
	}
	return true
}
