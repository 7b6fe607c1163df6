package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/audit"
)

// Trajectory flags: every trajectory form the commands that look at runs read — ours and
// mini-swe-agent's (1.x and 2.x, tool calls and text), SWE-agent's .traj files, OpenHands'
// output.jsonl records and its completion logs — becomes the commands it ran with their
// outputs (AgentRun), scanned by the one scanner, audit.Scan.

// AgentRun is one instance's trajectory in any form: the commands it ran with their outputs, and
// what the trajectory tells of the task's start.
type AgentRun struct {
	InstanceID string
	Format     string // "mini-swe-agent-1.1", "mini-swe-agent-1", "swe-agent", "openhands", "openhands-completions"
	Path       string
	Steps      []audit.Step
	Task       audit.Task
}

// Flags scans r with the one scanner.
func (r *AgentRun) Flags() []audit.Flag { return audit.Scan(r.InstanceID, r.Task, r.Steps) }

// Audit is the flags of a run's trajectories.
type Audit struct {
	Instances int                     // trajectories scanned
	Flags     []audit.Flag            // in instance order, then step order
	ByID      map[string][]audit.Flag // the flagged instances' flags
	History   string                  // the run's environment.history when one mode was recorded ("" unknown or mixed)
	modes     map[string]bool         // while scanning: the history modes seen
}

// Flagged lists the flagged instances, sorted.
func (a *Audit) Flagged() []string { return a.ids(func(fs []audit.Flag) bool { return true }) }

// Revealing lists the instances with a flag whose output revealed something, sorted.
func (a *Audit) Revealing() []string {
	return a.ids(func(fs []audit.Flag) bool {
		for _, f := range fs {
			if f.Revealed {
				return true
			}
		}
		return false
	})
}

func (a *Audit) ids(keep func([]audit.Flag) bool) []string {
	var out []string
	for id, fs := range a.ByID {
		if keep(fs) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// ErrNoTrajectories is wrapped by the error of a folder that holds no trajectory.
var ErrNoTrajectories = errors.New("no trajectories")

// FlagStats count a run's flags: the instances scanned, flagged, flagged with a revealing
// output, and flagged per class.
type FlagStats struct {
	Scanned   int            `json:"scanned"`
	Flagged   int            `json:"flagged"`
	Revealed  int            `json:"revealed"`
	ByClass   map[string]int `json:"by_class"` // flagged instances per class
	History   string         `json:"history,omitempty"`
	Instances []string       `json:"flagged_instances"`
}

// Stats counts a's flags.
func (a *Audit) Stats() *FlagStats {
	st := &FlagStats{Scanned: a.Instances, Flagged: len(a.ByID), Revealed: len(a.Revealing()), ByClass: map[string]int{}, History: a.History, Instances: a.Flagged()}
	for _, fl := range a.ByID {
		seen := map[audit.Class]bool{}
		for _, f := range fl {
			if !seen[f.Class] {
				seen[f.Class] = true
				st.ByClass[string(f.Class)]++
			}
		}
	}
	if st.Instances == nil {
		st.Instances = []string{}
	}
	return st
}

// TaskOf gives what a dataset knows of an instance's start (base commit, problem statement,
// repository, version); nil, or a zero Task, leaves the trajectory's own.
type TaskOf func(instanceID string) audit.Task

// AuditPath scans every trajectory at path: an output directory of ours or mini-swe-agent
// (<id>/<id>.traj.json), one trajectory file of any form, a folder of SWE-agent .traj files,
// an OpenHands output.jsonl (or a folder holding one, or holding llm_completions/<id>/). The
// history mode comes from run.json (config environment.history) or each trajectory's config.
// Trajectories are read and scanned one at a time: only their flags are kept.
func AuditPath(path string, taskOf TaskOf) (*Audit, error) {
	a := newAudit()
	err := WalkAgentRuns(path, func(r *AgentRun) error {
		a.add(r, taskOf)
		return nil
	})
	if err != nil {
		return nil, err
	}
	a.finish()
	return a, nil
}

// AuditRuns scans runs with the one scanner.
func AuditRuns(runs []*AgentRun, taskOf TaskOf) *Audit {
	a := newAudit()
	for _, r := range runs {
		a.add(r, taskOf)
	}
	a.finish()
	return a
}

func newAudit() *Audit {
	return &Audit{ByID: map[string][]audit.Flag{}, modes: map[string]bool{}}
}

// add scans one run.
func (a *Audit) add(r *AgentRun, taskOf TaskOf) {
	a.Instances++
	if taskOf != nil {
		r.Task = mergeTask(r.Task, taskOf(r.InstanceID))
	}
	a.modes[r.Task.History] = true
	if fl := r.Flags(); len(fl) > 0 {
		a.ByID[r.InstanceID] = append(a.ByID[r.InstanceID], fl...)
		a.Flags = append(a.Flags, fl...)
	}
}

// finish orders the flags by instance (then step, as scanned) and sets the history mode.
func (a *Audit) finish() {
	sort.SliceStable(a.Flags, func(i, j int) bool { return a.Flags[i].Instance < a.Flags[j].Instance })
	if len(a.modes) == 1 {
		for m := range a.modes {
			a.History = m
		}
	}
	a.modes = nil
}

// mergeTask fills what the trajectory did not tell from the dataset's task.
func mergeTask(t, d audit.Task) audit.Task {
	if d.BaseCommit != "" {
		t.BaseCommit = d.BaseCommit
	}
	if d.Text != "" {
		t.Text = d.Text
	}
	if d.Repo != "" {
		t.Repo = d.Repo
	}
	if d.Version != "" {
		t.Version = d.Version
	}
	if len(d.Packages) > 0 {
		t.Packages = d.Packages
	}
	if d.History != "" && t.History == "" {
		t.History = d.History
	}
	return t
}

// ReadAgentRuns reads every trajectory at path (see AuditPath), sorted by instance.
func ReadAgentRuns(path string) ([]*AgentRun, error) {
	var runs []*AgentRun
	err := WalkAgentRuns(path, func(r *AgentRun) error {
		runs = append(runs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].InstanceID < runs[j].InstanceID })
	return runs, nil
}

// WalkAgentRuns reads the trajectories at path (see AuditPath) one at a time, in the order of
// their files, and calls fn with each; an error of fn stops the walk and is returned. A folder
// without trajectories is an error wrapping ErrNoTrajectories.
func WalkAgentRuns(path string, fn func(*AgentRun) error) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return walkAgentFile(path, fn)
	}
	mode := ""
	if man, err := ReadManifest(path); err == nil && man != nil {
		mode = HistoryMode(man.Config)
	}
	n := 0
	err = walkAgentDir(path, func(r *AgentRun) error {
		n++
		if r.Task.History == "" {
			r.Task.History = mode
		}
		return fn(r)
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("%s holds no trajectories: expected <id>/<id>.traj.json (swebench-run, mini-swe-agent), *.traj (SWE-agent), output.jsonl or llm_completions/<id>/*.json (OpenHands): %w", path, ErrNoTrajectories)
	}
	return err
}

// TrajectoryFiles lists the trajectory files of a folder that keeps one file per instance, in
// the order of their paths: ours and mini-swe-agent's <id>/<id>.traj.json, else SWE-agent's
// *.traj anywhere below (trajectories/<user>/<run>/<id>/<id>.traj). A folder of neither form
// (OpenHands' output among them) gives none.
func TrajectoryFiles(dir string) ([]string, error) {
	if paths := miniTrajectoryFiles(dir); len(paths) > 0 {
		return paths, nil
	}
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".traj") {
			paths = append(paths, p)
		}
		return nil
	})
	return paths, err
}

// miniTrajectoryFiles are the <id>/<id>.traj.json files of dir.
func miniTrajectoryFiles(dir string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.traj.json"))
	kept := paths[:0]
	for _, p := range paths {
		if strings.TrimSuffix(filepath.Base(p), ".traj.json") == filepath.Base(filepath.Dir(p)) {
			kept = append(kept, p)
		}
	}
	return kept
}

func walkAgentDir(dir string, fn func(*AgentRun) error) error {
	// Ours and mini-swe-agent's: <id>/<id>.traj.json.
	if paths := miniTrajectoryFiles(dir); len(paths) > 0 {
		for _, p := range paths {
			t, err := ReadTrajectory(p)
			if err != nil {
				return err
			}
			if err := fn(t.AgentRun(p)); err != nil {
				return err
			}
		}
		return nil
	}
	if p := filepath.Join(dir, "output.jsonl"); fileExists(p) {
		return walkOpenHandsOutput(p, fn)
	}
	if d := filepath.Join(dir, "llm_completions"); fileExists(d) {
		return walkCompletionDirs(d, fn)
	}
	paths, err := TrajectoryFiles(dir)
	if err != nil {
		return err
	}
	for _, p := range paths {
		r, err := ReadSWEAgentTrajectory(p)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func walkAgentFile(p string, fn func(*AgentRun) error) error {
	switch {
	case strings.HasSuffix(p, ".traj"):
		r, err := ReadSWEAgentTrajectory(p)
		if err != nil {
			return err
		}
		return fn(r)
	case strings.HasSuffix(p, ".jsonl"):
		return walkOpenHandsOutput(p, fn)
	}
	if r, ok, err := readCompletionFile(p); ok || err != nil {
		if err != nil {
			return err
		}
		return fn(r)
	}
	t, err := ReadTrajectory(p)
	if err != nil {
		return err
	}
	return fn(t.AgentRun(p))
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// AgentRun is the commands t ran with their observations; step n is its n-th model reply.
func (t *Trajectory) AgentRun(path string) *AgentRun {
	r := &AgentRun{InstanceID: t.InstanceID, Format: t.TrajectoryFormat, Path: path}
	if r.Format == "" {
		r.Format = TrajectoryFormatV1
	}
	r.Task.History = HistoryMode(t.Info.Config)
	if ri := t.Info.SwebenchRun; r.Task.History == "" && ri != nil && ri.History != nil {
		r.Task.History = ri.History.Mode // a 1.x config records no environment.history
	}
	r.Task.Repo = RepoOfInstance(t.InstanceID)
	kinds := t.Kinds()
	reply := 0
	var pending []int // indices into r.Steps of the current reply's commands without output yet
	for i, m := range t.Messages {
		switch kinds[i] {
		case KindTask:
			if r.Task.Text == "" {
				r.Task.Text = MessageText(m)
			}
		case KindReply:
			reply++
			pending = pending[:0]
			for _, c := range t.Commands(i) {
				pending = append(pending, len(r.Steps))
				r.Steps = append(r.Steps, audit.Step{Step: reply, Command: c})
			}
		case KindObservation:
			if len(pending) == 0 {
				continue
			}
			st := &r.Steps[pending[0]]
			pending = pending[1:]
			extra, _ := m["extra"].(map[string]any)
			st.Output = MessageText(m)
			if raw, ok := extra["raw_output"].(string); ok {
				st.Output = raw
			}
			st.ExitCode, st.HasExit = t.ReturnCode(i)
		}
	}
	return r
}

// HistoryMode is config's environment.history ("" when not recorded).
func HistoryMode(config any) string {
	cfg, _ := config.(map[string]any)
	env, _ := cfg["environment"].(map[string]any)
	s, _ := env["history"].(string)
	return s
}

var (
	instanceNumber = regexp.MustCompile(`-(\d+|[0-9a-f]{7,40}.*)$`)
	smithSuffix    = regexp.MustCompile(`\.[0-9a-f]{8}(\..*)?$`)
)

// RepoOfInstance is the owner/name an instance id names by the SWE-bench convention
// (django__django-11099 → django/django; SWE-smith's pandas-dev__pandas.95280573.pr_53652 →
// pandas-dev/pandas; SWE-bench Pro's instance_org__repo-<hash>… → org/repo); "" otherwise.
func RepoOfInstance(id string) string {
	id = strings.TrimPrefix(id, "instance_")
	owner, rest, ok := strings.Cut(id, "__")
	if !ok || owner == "" {
		return ""
	}
	rest = smithSuffix.ReplaceAllString(rest, "")
	rest = instanceNumber.ReplaceAllString(rest, "")
	if rest == "" {
		return ""
	}
	return owner + "/" + rest
}
