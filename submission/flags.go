package submission

import (
	"fmt"

	"github.com/swebench-run/swebench-run/results"
)

// checkFlags lists the resolved instances whose trajectory has a command reaching beyond the
// task's start (the one scanner, audit): a warning when one of those commands revealed
// something, a note when they were only tries (empty or failed output, or the run behind the
// history guard). Trajectories of a form the readers do not know are left out.
func checkFlags(trajs map[string]folderTraj, resolved []string) Findings {
	var flagged, revealed []string
	for _, id := range resolved {
		ft, ok := trajs[id]
		if !ok {
			continue
		}
		runs, err := results.ReadAgentRuns(ft.path)
		if err != nil || len(runs) != 1 {
			continue
		}
		runs[0].InstanceID = id
		fl := runs[0].Flags()
		if len(fl) == 0 {
			continue
		}
		flagged = append(flagged, id)
		for _, f := range fl {
			if f.Revealed {
				revealed = append(revealed, id)
				break
			}
		}
	}
	if len(flagged) == 0 {
		return nil
	}
	f := Finding{Check: CheckFlags, Severity: Note, IDs: flagged,
		Message: fmt.Sprintf("%d resolved instances ran commands that reach beyond the task's start (git history past HEAD, .git internals, the project's hosting): %s; %d of them revealed something (swebench-run audit %s lists every command)",
			len(flagged), idList(flagged, 10), len(revealed), TrajsDir+"/")}
	if len(revealed) > 0 {
		f.Severity = Warn
	}
	return Findings{f}
}
