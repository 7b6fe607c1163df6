package submission

import (
	"fmt"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/results"
)

// readmeData is what the README is written from.
type readmeData struct {
	Folder      string
	Split       Split
	Dataset     Dataset
	Meta        Metadata
	Input       *Input
	Computed    *Computed
	Findings    Findings
	Configs     []namedConfig
	Tool        string
	Verdicts    *compare.Run // the run read through compare: exit statuses, cost
	MiniVersion string       // info.mini_version of the trajectories, for mini-swe-agent runs
}

// Checklist items of the experiments repository's checklist.md, which a pull request copies.
const (
	itemPass1    = "Is a pass@1 submission (does not attempt the same task instance more than once)"
	itemTests    = "Does not use SWE-bench test knowledge (`PASS_TO_PASS`, `FAIL_TO_PASS`)"
	itemHints    = "Does not use the `hints` field in SWE-bench"
	itemBrowsing = "Does not have web-browsing OR has taken steps to prevent lookup of SWE-bench solutions via web-browsing"
)

func box(ok bool, item string) string {
	if ok {
		return "- [x] " + item
	}
	return "- [ ] " + item
}

// renderReadme writes README.md: the system, the get_results summary, the checklist filled in
// from what the checks established, how the run was made, and the findings (warnings accepted
// with --force are recorded in a marker line that --check reads).
func renderReadme(d readmeData) string {
	var b strings.Builder
	m := d.Meta
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	p("# %s", m.Name)
	p("")
	model := strings.Join(m.Models, ", ")
	p("%s on SWE-bench %s: %d of %d instances resolved.", m.Name, d.Split.Name, len(d.Computed.Results.Resolved), d.Computed.Total)
	p("")
	p("- Model: %s", model)
	p("- Report: %s", orTodo(m.Report, "add the technical report or blog post describing the system (the leaderboard requires one), also as info.report in metadata.yaml"))
	p("- Site: %s", orTodo(m.Site, "add the system's web site or repository"))
	p("- Authors: %s", orTodo(strings.Join(m.Authors, ", "), "add the people who made the submission, and the web site or LinkedIn profile of the first author"))
	p("")

	p("## Results")
	p("")
	p("`python -m analysis.get_results evaluation/%s/%s`, as `swebench-run submission` computed it (the files are in `results/`):", d.Split.Name, d.Folder)
	p("")
	p("```")
	b.WriteString(d.Computed.Summary(d.Folder, d.Split.Name))
	p("```")
	p("")
	p("no_generation: %d, no_logs: %d.", len(d.Computed.Results.NoGeneration), len(d.Computed.Results.NoLogs))
	p("")

	templatesOK, testsOK, hintsOK := len(d.Configs) > 0, true, true
	for _, f := range d.Findings {
		if f.Check != CheckTemplates {
			continue
		}
		templatesOK = false
		if strings.Contains(f.Message, "hints_text") {
			hintsOK = false
		} else {
			testsOK = false
		}
	}
	p("## Checklist")
	p("")
	p("%s", box(m.Attempts == AttemptsOne, itemPass1))
	p("%s", box(templatesOK && testsOK, itemTests))
	p("%s", box(templatesOK && hintsOK, itemHints))
	p("%s", box(false, itemBrowsing))
	p("")
	p("How the boxes were filled:")
	p("")
	if m.Attempts == AttemptsOne {
		p("- pass@1: one attempt of the model per instance (tags.system.attempts \"1\").")
	} else {
		p("- pass@1: no, some instances were attempted more than once and one attempt was kept (tags.system.attempts \"2+\"; see the findings).")
	}
	if templatesOK {
		var srcs []string
		for _, c := range d.Configs {
			srcs = append(srcs, "`"+c.Source+"`")
		}
		p("- Test knowledge and hints: no template of the config (%s) uses `FAIL_TO_PASS`, `PASS_TO_PASS`, `hints_text`, `patch`, `test_patch` or `eval_script`.", strings.Join(srcs, ", "))
	} else {
		p("- Test knowledge and hints: the templates could not be checked (see the findings); check the prompts and tick the boxes yourself.")
	}
	p("- Web browsing: not known to swebench-run (the agent's containers reach the network unless the run used `--network none`); say what the system does and tick the box yourself.")
	p("")

	p("## How the run was made")
	p("")
	p("| | |")
	p("|---|---|")
	in := d.Input
	switch {
	case in != nil && in.Manifest != nil:
		man := in.Manifest
		p("| tool | %s %s (run id `%s`) |", orDash(man.Tool), orDash(man.Version), man.RunID)
		p("| model | `%s` |", man.Model)
		if h := compare.ConfigHash(man.Config); h != "" {
			p("| config | hash `%s` (the resolved config is in `run.json` and in every trajectory's `info.config`) |", h)
		}
		switch results.HistoryMode(man.Config) {
		case "past":
			p("| history | `past`: the agent's repository held the task's starting commit and its ancestors, nothing else (swebench-run's history guard) |")
		case "none":
			p("| history | `none`: the agent's repository held one commit, the task's starting state, and no history (swebench-run's history guard) |")
		case "as-is":
			p("| history | `as-is`: the agent's repository was the image's, untouched (its other branches, tags and objects may hold the fix) |")
		default:
			p("| history | not recorded: the repository was the image's, as runs made before the history guard saw it |")
		}
	case in != nil:
		v := "mini-swe-agent"
		if d.MiniVersion != "" {
			v += " " + d.MiniVersion
		}
		p("| tool | %s |", v)
		p("| model | `%s` |", in.model())
	}
	p("| graded against | %s, %d instances |", describe(d.Dataset.Source), d.Computed.Total)
	if in != nil {
		preds := in.Predictions()
		p("| predictions | %d (`model_name_or_path` `%s`) |", len(preds), in.model())
	}
	p("| attempts | %s |", m.Attempts)
	if d.Tool != "" {
		p("| folder made by | %s |", d.Tool)
	}
	if r := d.Verdicts; r != nil {
		if r.HasCost {
			total, known := 0.0, 0
			for _, inst := range r.Instances {
				if inst.Cost != nil {
					total += *inst.Cost
					known++
				}
			}
			switch {
			case known == 0:
				p("| model cost | – (not known) |")
			case known < len(r.Instances):
				p("| model cost | $%.2f over the %d of %d instances whose cost is known |", total, known, len(r.Instances))
			default:
				p("| model cost | $%.2f |", total)
			}
		}
		statuses := map[string]int{}
		for _, inst := range r.Instances {
			if inst.ExitStatus != "" {
				statuses[inst.ExitStatus]++
			}
		}
		if len(statuses) > 0 {
			var parts []string
			for _, s := range sortedIDs(statuses) {
				parts = append(parts, fmt.Sprintf("%s %d", s, statuses[s]))
			}
			p("| exit statuses | %s |", strings.Join(parts, ", "))
		}
	}
	p("")

	warns, notes := d.Findings.Of(Warn), d.Findings.Of(Note)
	if len(warns) > 0 || len(notes) > 0 {
		p("## Findings")
		p("")
	}
	if len(warns) > 0 {
		p("Accepted with `--force`:")
		p("")
		for _, f := range warns {
			p("- **%s**: %s", f.Check, f.Message)
		}
		p("")
		checks := map[string]bool{}
		for _, f := range warns {
			checks[f.Check] = true
		}
		p("%s %s -->", acceptedMarker, strings.Join(sortedIDs(checks), ", "))
		p("")
	}
	if len(notes) > 0 {
		p("Notes:")
		p("")
		for _, f := range notes {
			p("- **%s**: %s", f.Check, f.Message)
		}
		p("")
	}
	p("## Files")
	p("")
	p("`all_preds.jsonl` (the predictions), `metadata.yaml`, `trajs/<instance_id>.traj.json` (one trajectory per prediction), `logs/<instance_id>/` (`patch.diff`, `eval.sh`, `test_output.txt`, `report.json` of the evaluation), `results/` (written as get_results writes it).")
	return b.String()
}

func orTodo(s, todo string) string {
	if strings.TrimSpace(s) == "" {
		return "TODO: " + todo
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// miniVersion is the mini_version the trajectories record (the most common one).
func miniVersion(trajs map[string]*results.Trajectory) string {
	count := map[string]int{}
	for _, t := range trajs {
		if t != nil && t.Info.MiniVersion != "" {
			count[t.Info.MiniVersion]++
		}
	}
	vs := sortedIDs(count)
	sort.SliceStable(vs, func(i, j int) bool { return count[vs[i]] > count[vs[j]] })
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}
