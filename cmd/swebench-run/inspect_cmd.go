package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/results"
)

func newInspectCmd() *cobra.Command {
	var (
		full, system bool
		lines        int
	)
	cmd := &cobra.Command{
		Use:     "inspect [flags] TRAJ.traj.json | RUN_DIR",
		Short:   "show a trajectory (or a run's trajectories) in the terminal",
		GroupID: groupResults,
		Long: `Shows a trajectory (ours or mini-swe-agent's) step by step: the model's reasoning, the commands,
their return codes and outputs (truncated unless --full), cost and exit status, as plain text
that reads well in a pager. Given a run directory, lists its trajectories.`,
		Example: `  swebench-run inspect runs/sonnet/django__django-11099/django__django-11099.traj.json | less
  # every message and output in full, with the system and instance messages
  swebench-run inspect --full --system runs/sonnet/django__django-11099/django__django-11099.traj.json
  # the trajectories of a run: status, steps, cost
  swebench-run inspect runs/sonnet`,
		Args: argsRange(1, 1, "one trajectory file or run directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if lines < 2 {
				return fmt.Errorf("%w: --lines must be at least 2", errUsage)
			}
			limit := lines
			if full {
				limit = 0
			}
			return inspectPath(args[0], limit, system, cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&full, "full", false, "show messages and outputs in full, without truncation")
	fs.IntVar(&lines, "lines", 20, "lines shown of each output and message (first and last halves)")
	fs.BoolVar(&system, "system", false, "also show the system and instance messages")
	return cmd
}

// inspectPath shows the trajectory at path, or lists the trajectories of the run directory path;
// limit is the number of lines shown of each output (0: all).
func inspectPath(path string, limit int, system bool, stdout io.Writer) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	if st.IsDir() {
		return inspectDir(path, stdout)
	}
	p := &trajPrinter{w: stdout, limit: limit, system: system}
	t, err := readInspectTrajectory(path)
	if err != nil {
		return err
	}
	if t.IsV1() {
		return p.printV1(t)
	}
	return p.print(t)
}

// readInspectTrajectory reads a trajectory of any layout (results.ReadTrajectory).
func readInspectTrajectory(path string) (*results.Trajectory, error) {
	t, err := results.ReadTrajectory(path)
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	return t, nil
}

type trajPrinter struct {
	w      io.Writer
	limit  int
	system bool
	err    error
}

func (p *trajPrinter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *trajPrinter) print(t *results.Trajectory) error {
	info := t.Info
	p.printf("instance     %s\n", t.InstanceID)
	if name := t.ModelName(); name != "" {
		p.printf("model        %s\n", name)
	}
	switch {
	case info.SwebenchRun != nil:
		p.printf("written by   swebench-run %s\n", info.SwebenchRun.Version)
	case info.MiniVersion != "":
		p.printf("written by   mini-swe-agent %s\n", info.MiniVersion)
	}
	if r := info.SwebenchRun; r != nil && r.Agent != nil { // an installed agent (docs/agents.md)
		a := r.Agent
		ended := ""
		if a.Ended != "" {
			ended = ", ended by " + a.Ended
		}
		p.printf("agent        %s (installed, %s wire): exit code %d%s; proxy record %s\n", strings.TrimSpace(a.Name+" "+a.Version), a.Wire, a.ExitCode, ended, a.Record)
	}
	p.printf("exit status  %s\n", orDash(info.ExitStatus))
	p.printf("model calls  %d\n", max(info.ModelStats.APICalls, countRole(t.Messages, "assistant")))
	p.printf("cost         $%.4f\n", info.ModelStats.InstanceCost)
	if r := info.SwebenchRun; r != nil && (r.Tokens.Input > 0 || r.Tokens.Output > 0) {
		p.printf("tokens       %d in, %d out\n", r.Tokens.Input, r.Tokens.Output)
	}
	p.printf("messages     %d\n", len(t.Messages))

	step := 0
	for i, m := range t.Messages {
		role := agent.Message(m).Role()
		extra, _ := m["extra"].(map[string]any)
		switch {
		case role == "system" || (role == "user" && i == 1 && extra == nil && step == 0):
			if p.system {
				p.printf("\n── %s ──\n", role)
				p.block(messageText(m), "", "")
			}
		case role == "assistant":
			step++
			cost := ""
			if c, ok := extra["cost"].(float64); ok {
				cost = fmt.Sprintf("  ($%.4f)", c)
			}
			p.printf("\n━━ step %d%s ━━\n", step, cost)
			if text := strings.TrimSpace(messageText(m)); text != "" {
				p.block(text, "  ", "  ")
			}
			for _, cmd := range t.Commands(i) {
				p.block(cmd, "  $ ", "    ")
			}
		case role == "tool" || role == "user" && extra["interrupt_type"] == nil:
			out, rc := observation(m)
			p.printf("  → returncode %s", rc)
			if ei, _ := extra["exception_info"].(string); ei != "" {
				p.printf("  (%s)", oneLine(ei, 160))
			}
			p.printf("\n")
			if strings.TrimSpace(out) != "" {
				p.block(strings.TrimRight(out, "\n"), "    ", "    ")
			}
		case role == "user":
			step++
			p.printf("\n━━ step %d: %s ━━\n", step, extra["interrupt_type"])
			p.block(strings.TrimSpace(messageText(m)), "  ", "  ")
		case role == "exit":
			st, _ := extra["exit_status"].(string)
			p.printf("\n━━ exit: %s ━━\n", st)
			text := messageText(m)
			if sub, _ := extra["submission"].(string); sub != "" {
				p.printf("  submission (%d lines):\n", strings.Count(sub, "\n")+1)
				text = sub
			}
			if strings.TrimSpace(text) != "" {
				p.block(strings.TrimRight(text, "\n"), "    ", "    ")
			}
		default:
			p.printf("\n── %s ──\n", role)
			p.block(messageText(m), "  ", "  ")
		}
	}
	return p.err
}

// block prints text with the first line after first and the others after rest, keeping the
// first and last limit/2 lines when it is longer.
func (p *trajPrinter) block(text, first, rest string) {
	lines := strings.Split(text, "\n")
	if p.limit > 0 && len(lines) > p.limit {
		head, tail := p.limit/2, p.limit-p.limit/2
		elided := len(lines) - head - tail
		lines = append(append(lines[:head:head], fmt.Sprintf("… %d lines elided (--full shows them) …", elided)), lines[len(lines)-tail:]...)
	}
	for i, l := range lines {
		prefix := rest
		if i == 0 {
			prefix = first
		}
		p.printf("%s%s\n", prefix, l)
	}
}

// messageText returns a message's text: a string content, or the text and thinking blocks of a
// list content; of the OpenAI Responses API's shapes what results.MessageText reads.
func messageText(m map[string]any) string {
	if m["object"] == "response" || m["type"] == "function_call_output" {
		return results.MessageText(m)
	}
	switch c := m["content"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			bm, _ := b.(map[string]any)
			if s, ok := bm["text"].(string); ok {
				parts = append(parts, s)
			} else if s, ok := bm["thinking"].(string); ok {
				parts = append(parts, "[thinking] "+s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// observation returns a command's output and return code: from extra when recorded, else the
// rendered message.
func observation(m map[string]any) (string, string) {
	extra, _ := m["extra"].(map[string]any)
	out, ok := extra["raw_output"].(string)
	if !ok {
		out = messageText(m)
	}
	rc := "?"
	if v, ok := extra["returncode"]; ok && v != nil {
		rc = fmt.Sprint(v)
	}
	return out, rc
}

func countRole(msgs []map[string]any, role string) int {
	n := 0
	for _, m := range msgs {
		if agent.Message(m).Role() == role {
			n++
		}
	}
	return n
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// inspectDir lists the trajectories of a run directory (<dir>/<id>/<id>.traj.json).
func inspectDir(dir string, stdout io.Writer) error {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.traj.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("inspect: no trajectories (<id>/<id>.traj.json) in %s", dir)
	}
	sort.Strings(files)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "INSTANCE\tEXIT STATUS\tCALLS\tCOST\tPATCH LINES")
	var total float64
	for _, f := range files {
		t, err := readInspectTrajectory(f)
		if err != nil {
			fmt.Fprintf(tw, "%s\t(unreadable: %v)\t\t\t\n", filepath.Base(filepath.Dir(f)), err)
			continue
		}
		patch := 0
		if s := t.Info.Submission; s != "" {
			patch = strings.Count(s, "\n")
		}
		total += t.Info.ModelStats.InstanceCost
		fmt.Fprintf(tw, "%s\t%s\t%d\t$%.4f\t%d\n", t.InstanceID, orDash(t.Info.ExitStatus), t.Info.ModelStats.APICalls, t.Info.ModelStats.InstanceCost, patch)
	}
	fmt.Fprintf(tw, "%d trajectories\t\t\t$%.4f\t\n", len(files), total)
	return tw.Flush()
}
