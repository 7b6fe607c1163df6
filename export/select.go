package export

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path"
	"slices"
	"sort"
	"strings"
)

// Record is one trajectory to write: its conversation and what its run and evaluation tell.
type Record struct {
	Run             string        `json:"run"`
	Cell            string        `json:"cell,omitempty"`
	Repeat          int           `json:"repeat,omitempty"`
	Repo            string        `json:"repo"`
	Dataset         string        `json:"dataset,omitempty"`
	DatasetRevision string        `json:"dataset_revision,omitempty"`
	Family          string        `json:"family,omitempty"`
	Model           string        `json:"model,omitempty"`
	ConfigHash      string        `json:"config_hash,omitempty"`
	Resolved        *bool         `json:"resolved,omitempty"`
	Verdict         string        `json:"verdict,omitempty"`
	Conversation    *Conversation `json:"conversation"`
}

// selectsRun reports whether the run-level filters keep a run.
func (f *Filter) selectsRun(u *unit) bool {
	if len(f.Models) > 0 && !slices.ContainsFunc(f.Models, func(m string) bool { return m == u.variant || m == u.model }) {
		return false
	}
	if len(f.ConfigHashes) > 0 && !slices.ContainsFunc(f.ConfigHashes, func(h string) bool {
		return u.configHash != "" && len(h) >= 6 && strings.HasPrefix(u.configHash, h)
	}) {
		return false
	}
	if len(f.Datasets) > 0 && !slices.ContainsFunc(f.Datasets, func(d string) bool {
		name, _, _ := strings.Cut(u.dataset, ":")
		return d == u.dataset || d == name || d == path.Base(name) || d == path.Base(u.dataset)
	}) {
		return false
	}
	if len(f.Repeats) > 0 && !slices.Contains(f.Repeats, u.repeat) {
		return false
	}
	return true
}

// rejects is why the trajectory-level filters leave c out ("" when they keep it).
func (f *Filter) rejects(c *Conversation) string {
	switch {
	case len(f.Statuses) > 0 && !slices.Contains(f.Statuses, c.ExitStatus):
		return OutcomeStatus
	case f.MinSteps != nil && c.Steps < *f.MinSteps, f.MaxSteps != nil && c.Steps > *f.MaxSteps:
		return OutcomeSteps
	case (f.MinCost != nil || f.MaxCost != nil) && c.Cost == nil,
		f.MinCost != nil && *c.Cost < *f.MinCost, f.MaxCost != nil && *c.Cost > *f.MaxCost:
		return OutcomeCost
	case f.ExcludeFlagged && c.Flagged():
		return OutcomeFlagged
	}
	return ""
}

// choose keeps one trajectory per instance (FirstTrajectory, BestTrajectory) and returns how
// many it left out.
func choose(entries []entry, how PerInstance) int {
	if how == AllTrajectories {
		return 0
	}
	best := map[string]int{} // instance → index of its chosen entry
	for i := range entries {
		b, ok := best[entries[i].id]
		if !ok || how == BestTrajectory && better(&entries[i], &entries[b]) {
			best[entries[i].id] = i
		}
	}
	left := 0
	for i := range entries {
		entries[i].chosen = best[entries[i].id] == i
		if !entries[i].chosen {
			left++
		}
	}
	return left
}

// better reports whether a ranks before b (BestTrajectory); on a tie the earlier one stays.
func better(a, b *entry) bool {
	if a.resolved != b.resolved {
		return a.resolved > b.resolved
	}
	if a.steps != b.steps {
		return a.steps < b.steps
	}
	if a.hasCost != b.hasCost {
		return a.hasCost
	}
	return a.hasCost && a.cost < b.cost
}

// splitByRepo puts the chosen trajectories of about fraction of the repositories' trajectories
// into validation: the repositories in an order drawn from seed (over their sorted names), each
// going to validation when that brings the validation count closer to fraction × the total. No
// repository is in both; each split has one at least.
func splitByRepo(entries []entry, fraction float64, seed uint64) error {
	count := map[string]int{}
	total := 0
	for _, e := range entries {
		if e.chosen {
			count[e.repo]++
			total++
		}
	}
	repos := make([]string, 0, len(count))
	for r := range count {
		repos = append(repos, r)
	}
	sort.Strings(repos)
	if len(repos) < 2 {
		return fmt.Errorf("export: a split by repository needs trajectories of two repositories or more; the selection has %d (%s)", len(repos), strings.Join(repos, ", "))
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	rng.Shuffle(len(repos), func(i, j int) { repos[i], repos[j] = repos[j], repos[i] })
	target := fraction * float64(total)
	val := map[string]bool{}
	n := 0
	for _, r := range repos {
		if math.Abs(float64(n+count[r])-target) < math.Abs(float64(n)-target) {
			val[r] = true
			n += count[r]
		}
	}
	if len(val) == 0 {
		val[repos[0]] = true
	}
	if len(val) == len(repos) {
		delete(val, repos[len(repos)-1])
	}
	for i := range entries {
		if val[entries[i].repo] {
			entries[i].split = 1
		}
	}
	return nil
}
