package family

import "github.com/swebench-run/swebench-run/dataset"

// History is what a family's images need of the history guard (package runner/historyguard),
// which reduces an instance's repository to the task's start before the agent's first command.
type History struct {
	// Repo is the repository's working directory in the sandbox; "" is the instance's working
	// directory (its WorkDir, else the config's cwd).
	Repo string
	// PastIsAnswer: HEAD's ancestors hold the fix (SWE-smith's instance branch, whose HEAD~2 is
	// the clean code the bug was made from), so environment.history past keeps none of them:
	// the agent starts from one root commit of HEAD's tree, as with none.
	PastIsAnswer bool
}

// HistoryLayout is implemented by profiles whose images need more of the history guard than the
// default: the instance's working directory, HEAD's past kept with past.
type HistoryLayout interface {
	HistoryLayout(inst dataset.Instance) History
}

// HistoryOf is p's History for inst: p's own when it implements HistoryLayout, else the default.
func HistoryOf(p Profile, inst dataset.Instance) History {
	if l, ok := p.(HistoryLayout); ok {
		return l.HistoryLayout(inst)
	}
	return History{}
}
