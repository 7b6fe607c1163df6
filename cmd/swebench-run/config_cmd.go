package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/model"
)

// newConfigCmd is `swebench-run config show|list`.
func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "config show|list",
		Short:   "print the resolved config, or the shipped configs",
		GroupID: groupSetup,
		Long: `Configs use mini-swe-agent v2's layout (agent, environment, model, run), with this tool's
kubernetes and families sections. Precedence: the shipped swebench.yaml < -c files <
-c key.path=value overrides < flags.`,
		Example: `  swebench-run config show -c swebench_backticks.yaml -c agent.step_limit=100
  swebench-run config list`,
		Annotations: map[string]string{
			annUsage: "swebench-run config show [-c FILE|KEY=VALUE]... [--model MODEL] [--json]\n" +
				"swebench-run config list",
		},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("%w: config needs a command: show or list", errUsage)
			}
			return unknownCommandError(cmd, args[0])
		},
		// Runnable only to report a missing or unknown subcommand as a usage error.
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(newConfigShowCmd(), newConfigListCmd())
	return cmd
}

func newConfigShowCmd() *cobra.Command {
	var (
		cfgArgs   []string
		modelName string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "show [-c FILE|KEY=VALUE]... [--model MODEL] [--json]",
		Short: "print the fully resolved config",
		Long: `Prints the fully resolved config: shipped defaults, -c files and overrides merged, defaults
filled in, secrets removed. It is what a run with the same -c and --model would use and save.`,
		Example: `  # the default config
  swebench-run config show
  # a mini-swe-agent config file with an override, for a model, as JSON
  swebench-run config show -c my-mini-config.yaml -c agent.cost_limit=0.5 --model openai/gpt-5 --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%w: unexpected argument %q (config files go with -c)", errUsage, args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return showConfig(cfgArgs, modelName, asJSON, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringArrayVarP(&cfgArgs, "config", "c", nil, "config file or shipped config name, or key.path=value override (later wins)")
	fs.StringVar(&modelName, "model", "", "model name, as --model of run")
	fs.BoolVar(&asJSON, "json", false, "print JSON instead of YAML")
	metavar(fs, "config", "FILE|KEY=VALUE")
	metavar(fs, "model", "MODEL")
	completeFlags(cmd, map[string]cobra.CompletionFunc{"config": completeConfig})
	return cmd
}

func newConfigListCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "list the configs shipped in the binary (usable by name with -c)",
		Example: "  swebench-run config list",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%w: config list takes no arguments", errUsage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range configs.Shipped() {
				marker := ""
				if name == configs.DefaultName {
					marker = "\t(default)"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s%s\n", name, marker)
			}
			return nil
		},
	}
}

// describeModel prints how the config's model would be called: provider and API, endpoint,
// where the key or credentials come from (never the secret), streaming and price.
func describeModel(cfg *configs.Config, w io.Writer) error {
	name := cfg.Model.ModelName
	if name == "scripted" || strings.HasPrefix(name, "scripted:") {
		fmt.Fprintf(w, "swebench-run: model %s: the scripted demo model (no API)\n", name)
		return nil
	}
	mc, err := modelConfig(cfg, cfg.Model.ModelName)
	if err != nil {
		return err
	}
	d, err := model.Describe(mc, os.Getenv)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "swebench-run: model %s\n", d.Model)
	fmt.Fprintf(w, "  provider:    %s, %s\n", d.Provider, d.API)
	endpoint := d.Endpoint
	if d.EndpointSet != "" {
		endpoint += " (from " + d.EndpointSet + ")"
	}
	fmt.Fprintf(w, "  endpoint:    %s\n", endpoint)
	fmt.Fprintf(w, "  credentials: %s\n", d.Credentials)
	if d.Stream {
		fmt.Fprintf(w, "  streaming:   yes (model_kwargs.stream)\n")
	}
	if d.HavePrice {
		fmt.Fprintf(w, "  price:       %s\n", formatPrice(d.Price))
	} else {
		fmt.Fprintf(w, "  price:       unknown (add it under model.prices, or set model.cost_tracking: ignore_errors)\n")
	}
	return nil
}

// formatPrice renders a price in USD per million tokens.
func formatPrice(p model.Price) string {
	s := fmt.Sprintf("$%.4g in, $%.4g out per million tokens", p.Input, p.Output)
	if p.CacheRead != 0 {
		s += fmt.Sprintf(", cache read $%.4g", p.CacheRead)
	}
	if p.CacheWrite != 0 {
		s += fmt.Sprintf(", cache write $%.4g", p.CacheWrite)
	}
	return s
}

// showConfig prints the config that the -c arguments cfgArgs and the model name make.
func showConfig(cfgArgs []string, modelName string, asJSON bool, stdout, stderr io.Writer) error {
	files, overrides := splitConfigArgs(cfgArgs)
	cfg, err := configs.Load(files, overrides)
	if err != nil {
		return err
	}
	if _, err := all.DecodeSettings(cfg.Families); err != nil {
		return err
	}
	if modelName != "" {
		cfg.Model.ModelName = modelName
		cfg.Set("model.model_name", modelName)
	}
	for _, k := range cfg.Ignored {
		fmt.Fprintf(stderr, "swebench-run: config key %s has no meaning here and is ignored\n", k)
	}
	fmt.Fprintf(stderr, "swebench-run: config layout: %s\n", cfg.LayoutNote())
	if modelName != "" {
		if err := describeModel(cfg, stderr); err != nil {
			return err
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(cfg.Dump())
	}
	enc := yaml.NewEncoder(stdout)
	enc.SetIndent(2)
	if err := enc.Encode(cfg.Dump()); err != nil {
		return err
	}
	return enc.Close()
}
