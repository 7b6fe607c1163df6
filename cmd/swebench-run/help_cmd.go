package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// newHelpCmd is `swebench-run help [COMMAND]...`. Ours rather than cobra's, so that an unknown
// topic is a usage error with suggestions instead of the root's help.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]...",
		Short: "show the help of a command",
		Long:  "Shows the help of a command: the same as COMMAND --help.",
		Example: `  swebench-run help run
  swebench-run help config show`,
		RunE: func(cmd *cobra.Command, args []string) error {
			target := cmd.Root()
			for _, name := range args {
				next := subcommand(target, name)
				if next == nil {
					return unknownCommandError(target, name)
				}
				target = next
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target := cmd.Root()
			for _, name := range args {
				if target = subcommand(target, name); target == nil {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
			}
			var names []cobra.Completion
			for _, c := range target.Commands() {
				if c.IsAvailableCommand() && strings.HasPrefix(c.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(c.Name(), c.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
	}
}

// subcommand returns the available subcommand of cmd called name (or an alias), or nil.
func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if (c.IsAvailableCommand() || c.Name() == "help") && (c.Name() == name || c.HasAlias(name)) {
			return c
		}
	}
	return nil
}
