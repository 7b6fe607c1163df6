package main

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/results"
)

// printV1 shows a trajectory in mini-swe-agent 1.x's layout (1.x's own, a run of a 1.x config,
// or a bare message list): its user messages carry no marks, so results' message kinds tell
// observations, format errors and the exit apart, and the commands are the fenced blocks its
// action regex finds.
func (p *trajPrinter) printV1(t *results.Trajectory) error {
	info := t.Info
	p.printf("instance     %s\n", t.InstanceID)
	if name := t.ModelName(); name != "" {
		p.printf("model        %s\n", name)
	}
	switch {
	case info.SwebenchRun != nil:
		p.printf("written by   swebench-run %s (mini-swe-agent %s semantics)\n", info.SwebenchRun.Version, info.MiniVersion)
	case info.MiniVersion != "":
		p.printf("written by   mini-swe-agent %s\n", info.MiniVersion)
	case t.TrajectoryFormat == "":
		p.printf("written by   mini-swe-agent (a bare message list)\n")
	}
	p.printf("exit status  %s\n", orDash(info.ExitStatus))
	p.printf("model calls  %d\n", max(info.ModelStats.APICalls, countRole(t.Messages, "assistant")))
	p.printf("cost         $%.4f\n", info.ModelStats.InstanceCost)
	if r := info.SwebenchRun; r != nil && (r.Tokens.Input > 0 || r.Tokens.Output > 0) {
		p.printf("tokens       %d in, %d out\n", r.Tokens.Input, r.Tokens.Output)
	}
	p.printf("messages     %d\n", len(t.Messages))

	re, _ := pyre.Compile(t.ActionRegex()) // nil: show replies whole
	step := 0
	for i, m := range t.Messages {
		text := results.MessageText(m)
		role, _ := m["role"].(string)
		switch kind := t.Kinds()[i]; kind {
		case results.KindSystem, results.KindTask:
			if p.system {
				p.printf("\n── %s ──\n", role)
				p.block(text, "", "")
			}
		case results.KindReply:
			step++
			p.printf("\n━━ step %d ━━\n", step)
			cmds := t.Commands(i)
			if len(cmds) == 1 && re != nil {
				text = re.ReplaceAllString(text, "") // the command is shown on its own
			}
			if text = strings.TrimSpace(text); text != "" {
				p.block(text, "  ", "  ")
			}
			for _, cmd := range cmds {
				p.block(cmd, "  $ ", "    ")
			}
		case results.KindObservation:
			rc := "?"
			if n, ok := t.ReturnCode(i); ok {
				rc = strconv.Itoa(n)
			}
			p.printf("  → returncode %s\n", rc)
			out := strings.TrimRight(returnCodeElem.ReplaceAllString(text, ""), "\n")
			if strings.TrimSpace(out) != "" {
				p.block(out, "    ", "    ")
			}
		case results.KindFormatError:
			p.printf("  → format error (not one command)\n")
			p.block(strings.TrimSpace(text), "    ", "    ")
		case results.KindExit:
			p.printf("\n━━ exit: %s ━━\n", orDash(info.ExitStatus))
			if info.ExitStatus == "Submitted" || info.ExitStatus == "" && t.TrajectoryFormat == "" {
				if strings.TrimSpace(text) == "" {
					p.printf("  submission: empty\n")
				} else {
					p.printf("  submission (%d lines):\n", strings.Count(strings.TrimRight(text, "\n"), "\n")+1)
				}
			}
			if strings.TrimSpace(text) != "" {
				p.block(strings.TrimRight(text, "\n"), "    ", "    ")
			}
		default:
			p.printf("\n── %s ──\n", role)
			p.block(text, "  ", "  ")
		}
	}
	return p.err
}

// returnCodeElem is the <returncode> element 1.x's observations start with (shown on the arrow
// line instead).
var returnCodeElem = regexp.MustCompile(`\A\s*<returncode>-?\d+</returncode>\n?`)
