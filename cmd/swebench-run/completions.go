package main

import (
	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/configs"
)

// Completion of flag values, for the scripts of `swebench-run completion`.

// completeFlags registers the completion of each named flag of cmd.
func completeFlags(cmd *cobra.Command, funcs map[string]cobra.CompletionFunc) {
	for name, f := range funcs {
		if err := cmd.RegisterFlagCompletionFunc(name, f); err != nil {
			panic(err) // a flag name of this package is wrong
		}
	}
}

// oneOf completes a flag that takes one of a few words.
func oneOf(words ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp)
}

// completeDataset offers the named datasets, and files when none matches.
func completeDataset(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var names []cobra.Completion
	for _, d := range families().Named() {
		names = append(names, cobra.CompletionWithDesc(d.Name, d.Description))
	}
	return names, cobra.ShellCompDirectiveDefault
}

// completeConfig offers the shipped configs, and files when none matches.
func completeConfig(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return configs.Shipped(), cobra.ShellCompDirectiveDefault
}

// completeDirs completes directories only.
func completeDirs(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}
