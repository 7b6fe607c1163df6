package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
)

// newCompletionCmd prints cobra's completion scripts. Ours rather than cobra's default command,
// so that it has examples and reports a wrong shell as a usage error like every other command.
func newCompletionCmd() *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "print a shell completion script",
		Long: `Prints the script that makes the shell complete swebench-run's commands, flags and flag values.
The script asks the binary itself what to complete, so it stays right when the binary changes.
Bash needs the bash-completion package.`,
		Example: `  # bash, in this shell
  source <(swebench-run completion bash)
  # bash, in every shell
  swebench-run completion bash > /etc/bash_completion.d/swebench-run
  # zsh (with compinit), in every shell
  swebench-run completion zsh > "${fpath[1]}/_swebench-run"
  # fish
  swebench-run completion fish > ~/.config/fish/completions/swebench-run.fish`,
		ValidArgs: shells,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || !slices.Contains(shells, args[0]) {
				return fmt.Errorf("%w: completion takes one shell: bash, zsh, fish or powershell", errUsage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, w := cmd.Root(), cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(w, true)
			case "zsh":
				return root.GenZshCompletion(w)
			case "fish":
				return root.GenFishCompletion(w, true)
			default:
				return root.GenPowerShellCompletionWithDesc(w)
			}
		},
	}
}
