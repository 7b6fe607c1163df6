package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swebench-run/swebench-run/internal/names"
)

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")

// flagError turns a pflag parse error into a usage error, with "did you mean" suggestions for
// an unknown flag (pflag has none). It is the root's FlagErrorFunc, inherited by every command.
func flagError(cmd *cobra.Command, err error) error {
	// A mistyped command followed by flags (swebench-run stat --json) fails on the flags first;
	// the command is the mistake to report.
	if !cmd.HasParent() && cmd.Flags().NArg() > 0 {
		return unknownCommandError(cmd, cmd.Flags().Arg(0))
	}
	var notExist *pflag.NotExistError
	if !errors.As(err, &notExist) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	typed := notExist.GetSpecifiedName()
	if shorts := notExist.GetSpecifiedShortnames(); shorts != "" {
		// -workers: a long flag with one dash, read by pflag as the shorthands -w -o -r …
		name, _, _ := strings.Cut(shorts, "=")
		if len(name) > 1 && cmd.Flags().Lookup(name) != nil {
			return singleDashError("-"+shorts, name)
		}
		typed = name
	}
	return fmt.Errorf("%w: %v%s", errUsage, err, didYouMean(flagSuggestions(cmd.Flags(), typed)))
}

func singleDashError(arg, name string) error {
	return fmt.Errorf("%w: %s: long flags take two dashes: --%s", errUsage, arg, name)
}

// flagSuggestions returns the flags of fs whose names are close to typed: within an edit
// distance of 2 (or a third of the name's length for long names), or starting with it; nearest
// first, at most 3.
func flagSuggestions(fs *pflag.FlagSet, typed string) []string {
	type candidate struct {
		name string
		dist int
	}
	var cands []candidate
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := names.Distance(typed, f.Name)
		limit := max(2, len(f.Name)/3)
		if len(typed) == 1 {
			limit = 0 // one letter is close to every short name
		}
		if d <= limit || len(typed) > 1 && strings.HasPrefix(f.Name, typed) || len(typed) == 1 && f.Name[:1] == typed {
			cands = append(cands, candidate{f.Name, d})
		}
	})
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < 3; i++ {
		out = append(out, "--"+cands[i].name)
	}
	return out
}

// unknownCommandError reports a word that is not a subcommand of cmd, with cobra's suggestions.
func unknownCommandError(cmd *cobra.Command, name string) error {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	return fmt.Errorf("%w: unknown command %q for %q%s", errUsage, name, cmd.CommandPath(), didYouMean(cmd.SuggestionsFor(name)))
}

func didYouMean(suggestions []string) string {
	if len(suggestions) == 0 {
		return ""
	}
	return "\n\nDid you mean this?\n\t" + strings.Join(suggestions, "\n\t") + "\n"
}

// checkSingleDash rejects long flags written with one dash (-workers 4, -output DIR) before
// pflag reads them as clusters of shorthands: -output would silently be -o utput.
func checkSingleDash(cmd *cobra.Command, args []string) error {
	fs := cmd.Flags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return nil
		case len(a) < 2 || a[0] != '-':
			continue
		case a[1] == '-':
			// --name VALUE: skip the value, which may start with a dash.
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				i++
			}
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if len(name) > 1 && fs.Lookup(name) != nil {
			return singleDashError(a, name)
		}
		// A cluster of shorthands: the first that takes a value takes the rest of the
		// argument, or the next argument when it is last.
		for j := 1; j < len(a) && a[j] != '='; j++ {
			f := fs.ShorthandLookup(a[j : j+1])
			if f == nil {
				break
			}
			if f.NoOptDefVal == "" {
				if j == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return nil
}

// Positional argument validators. Cobra's own return plain errors; these are usage errors
// (exit 2) that say what the command takes.

// noArgs accepts no positional arguments.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: unexpected argument %q: %s takes no arguments", errUsage, args[0], cmd.CommandPath())
	}
	return nil
}

// argsRange accepts between lo and hi positional arguments (hi < 0: no upper bound); what says
// what they are, for the error.
func argsRange(lo, hi int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || hi >= 0 && len(args) > hi {
			return fmt.Errorf("%w: %s takes %s (got %d arguments)", errUsage, cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}
