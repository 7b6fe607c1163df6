package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// Annotations read by the help renderer. pflag has no flag groups and cobra's help shows one
// flat list, so flags carry their section and the name of their value, and commands their extra
// usage lines and exit codes.
const (
	annGroup     = "swebench-run/group"      // flag: help section title
	annMetavar   = "swebench-run/metavar"    // flag: name of its value in help (DIR, N, …)
	annUsage     = "swebench-run/usage"      // command: usage lines replacing the generated one
	annExitCodes = "swebench-run/exit-codes" // command: the "Exit codes:" section
)

// flagGroup puts the named flags in the help section titled title, in the order given.
func flagGroup(fs *pflag.FlagSet, title string, names ...string) {
	for _, n := range names {
		mustAnnotate(fs, n, annGroup, title)
	}
}

// metavar names the value of a flag in its help line (--split DATASET).
func metavar(fs *pflag.FlagSet, name, value string) { mustAnnotate(fs, name, annMetavar, value) }

func mustAnnotate(fs *pflag.FlagSet, name, key, value string) {
	if err := fs.SetAnnotation(name, key, []string{value}); err != nil {
		panic(fmt.Sprintf("annotating flag --%s: %v", name, err)) // a typo in a flag name of this package
	}
}

// helpWidth is the width help text is wrapped to: the terminal's (within 60–120 columns), or
// 100 when the help does not go to a terminal (pipes, files and the golden tests).
func helpWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return min(max(cols, 60), 120)
		}
	}
	return 100
}

// printHelp is every command's help: the description, then the usage.
func printHelp(cmd *cobra.Command, _ []string) {
	w := cmd.OutOrStdout()
	desc := cmd.Long
	if desc == "" {
		desc = cmd.Short
	}
	if desc = strings.TrimSpace(desc); desc != "" {
		fmt.Fprintf(w, "%s\n\n", desc)
	}
	writeUsage(w, cmd, helpWidth(w))
}

// writeUsage writes the usage lines, examples, subcommands, flags by section and exit codes.
func writeUsage(w io.Writer, cmd *cobra.Command, width int) {
	fmt.Fprintln(w, "Usage:")
	if lines, ok := cmd.Annotations[annUsage]; ok {
		for _, l := range strings.Split(lines, "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
	} else {
		if cmd.Runnable() {
			fmt.Fprintf(w, "  %s\n", cmd.UseLine())
		}
		if cmd.HasAvailableSubCommands() {
			fmt.Fprintf(w, "  %s COMMAND\n", cmd.CommandPath())
		}
	}
	if cmd.HasExample() {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(cmd.Example, "\n"))
	}
	if cmd.HasAvailableSubCommands() {
		writeCommands(w, cmd)
	}
	writeFlags(w, cmd, width)
	if codes, ok := cmd.Annotations[annExitCodes]; ok {
		fmt.Fprintf(w, "\nExit codes:\n%s\n", strings.TrimRight(codes, "\n"))
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nRun '%s COMMAND --help' for the flags and examples of a command.\n", cmd.CommandPath())
	}
}

// writeCommands lists the subcommands, by command group when the command has groups.
func writeCommands(w io.Writer, cmd *cobra.Command) {
	var subs []*cobra.Command
	pad := 0
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			subs = append(subs, c)
			pad = max(pad, len(c.Name()))
		}
	}
	section := func(title, groupID string) {
		var lines []string
		for _, c := range subs {
			if c.GroupID == groupID {
				lines = append(lines, fmt.Sprintf("  %-*s  %s", pad, c.Name(), c.Short))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n%s:\n%s\n", title, strings.Join(lines, "\n"))
		}
	}
	for _, g := range cmd.Groups() {
		section(g.Title, g.ID)
	}
	title := "Commands"
	if len(cmd.Groups()) > 0 {
		title = "Other commands"
	}
	section(title, "")
}

// writeFlags writes the command's flags: one section per flag group in order of first use,
// then the ungrouped ones, all in one column layout.
func writeFlags(w io.Writer, cmd *cobra.Command, width int) {
	var order []string
	byGroup := map[string][]*pflag.Flag{}
	add := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		g := "Flags"
		if v := f.Annotations[annGroup]; len(v) > 0 {
			g = v[0]
		}
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], f)
	}
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	if len(order) == 0 {
		return
	}
	// Ungrouped flags (--help among them) come last, as "Other flags" when there are groups.
	if _, ok := byGroup["Flags"]; ok && len(order) > 1 {
		byGroup["Other flags"] = byGroup["Flags"]
		delete(byGroup, "Flags")
		for i, g := range order {
			if g == "Flags" {
				order = append(order[:i], order[i+1:]...)
				break
			}
		}
		order = append(order, "Other flags")
	}
	col := 0
	for _, g := range order {
		for _, f := range byGroup[g] {
			col = max(col, len(flagLeft(f)))
		}
	}
	col = min(col, 32) + 3
	for _, g := range order {
		fmt.Fprintf(w, "\n%s:\n", g)
		for _, f := range byGroup[g] {
			writeFlag(w, f, col, width)
		}
	}
}

// flagLeft is the left column of a flag's help line: "  -o, --output DIR".
func flagLeft(f *pflag.Flag) string {
	s := "      --" + f.Name
	if f.Shorthand != "" {
		s = "  -" + f.Shorthand + ", --" + f.Name
	}
	if f.NoOptDefVal == "" {
		s += " " + flagMetavar(f)
	}
	return s
}

func flagMetavar(f *pflag.Flag) string {
	if v := f.Annotations[annMetavar]; len(v) > 0 {
		return v[0]
	}
	switch f.Value.Type() {
	case "int", "int64":
		return "N"
	case "float64":
		return "NUMBER"
	case "duration":
		return "DURATION"
	default:
		return "VALUE"
	}
}

// writeFlag writes one flag: its left column, then its description wrapped to width, starting
// on the next line when the left column is wider than col.
func writeFlag(w io.Writer, f *pflag.Flag, col, width int) {
	desc := f.Usage
	if def, ok := flagDefault(f); ok {
		desc += " (default " + def + ")"
	}
	if f.Value.Type() == "stringArray" {
		desc += " [repeatable]"
	}
	left := flagLeft(f)
	lines := wrap(desc, max(width-col, 30))
	if len(left) > col-2 {
		fmt.Fprintln(w, left)
		left = ""
	}
	for i, l := range lines {
		if i > 0 {
			left = ""
		}
		fmt.Fprintf(w, "%-*s%s\n", col, left, l)
	}
}

// flagDefault is the default shown in help, if the flag's default is not its type's zero value.
func flagDefault(f *pflag.Flag) (string, bool) {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return "", false
	}
	return f.DefValue, true
}

// wrap breaks text into lines of at most width characters at spaces (longer words stand alone).
func wrap(text string, width int) []string {
	var lines []string
	var line strings.Builder
	n := 0 // characters in line
	for _, word := range strings.Fields(text) {
		wn := utf8.RuneCountInString(word)
		if n > 0 && n+1+wn > width {
			lines = append(lines, line.String())
			line.Reset()
			n = 0
		}
		if n > 0 {
			line.WriteByte(' ')
			n++
		}
		line.WriteString(word)
		n += wn
	}
	if n > 0 || len(lines) == 0 {
		lines = append(lines, line.String())
	}
	return lines
}
