package report

import (
	"github.com/swebench-run/swebench-run/audit"
	"github.com/swebench-run/swebench-run/results"
)

// Trajectory flags on the pages: a badge and a filter on the instance list (cell flags
// flagFlagged, flagRevealed, from compare's run flags), and on the instance page the flags
// listed at the top and their commands marked in their steps (the one scanner, audit, over the
// trajectory shown).

// Cell flags of a flagged instance.
const (
	flagFlagged  = 8  // a command of its trajectory reached beyond the task's start
	flagRevealed = 16 // and its output revealed something
)

// runFlagCells returns the cell flags of rd's flagged instances, by id.
func runFlagCells(rd *runData) map[string]int {
	if rd.Flags == nil || len(rd.Flags.Flagged) == 0 {
		return nil
	}
	out := map[string]int{}
	for _, id := range rd.Flags.Flagged {
		out[id] |= flagFlagged
	}
	for _, id := range rd.Flags.Revealed {
		out[id] |= flagRevealed
	}
	return out
}

// pageFlag is a flag as the instance page lists it.
type pageFlag struct {
	Step     int    `json:"step"`
	Class    string `json:"class"`
	Reason   string `json:"reason"`
	Command  string `json:"command"`
	Revealed bool   `json:"revealed"`
}

// markFlags scans t and marks the flagged commands in d's steps (by step number and order).
func (r *Report) markFlags(d *instanceData, t *results.Trajectory, path string) {
	run := t.AgentRun(path)
	if p, ok := r.problems[d.ID]; ok {
		run.Task.Text = p
	}
	flags := run.Flags()
	if len(flags) == 0 {
		return
	}
	// The k-th command of step n, for every flag.
	type at struct{ step, k int }
	where := map[at]audit.Flag{}
	nth := map[int]int{}
	fi := 0
	for _, s := range run.Steps {
		k := nth[s.Step]
		nth[s.Step]++
		if fi < len(flags) && flags[fi].Step == s.Step && flags[fi].Command == s.Command {
			where[at{s.Step, k}] = flags[fi]
			fi++
		}
	}
	red := r.opts.Redactor
	for _, f := range flags {
		cmd, _ := clip(red.Text(toValidUTF8(f.Command)), maxOutput, maxOutput/2)
		d.Flags = append(d.Flags, pageFlag{Step: f.Step, Class: string(f.Class), Reason: red.Text(f.Reason), Command: cmd, Revealed: f.Revealed})
	}
	for i := range d.Steps {
		st := &d.Steps[i]
		for k := range st.Calls {
			if f, ok := where[at{st.N, k}]; ok && st.Kind == "reply" {
				st.Calls[k].Flag, st.Calls[k].FlagWhy, st.Calls[k].Revealed = string(f.Class), red.Text(f.Reason), f.Revealed
			}
		}
	}
}
