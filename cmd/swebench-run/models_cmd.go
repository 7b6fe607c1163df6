package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/model"
)

// newModelsCmd is `swebench-run models`: the price table, or the prices of some model names.
func newModelsCmd() *cobra.Command {
	var (
		cfgArgs  []string
		provider string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:     "models [MODEL]... [--provider PROVIDER] [-c FILE|KEY=VALUE]... [--json]",
		Short:   "list the priced models, or the price each model name gets",
		GroupID: groupSetup,
		Long: `Lists the models with a known price, in USD per million tokens: the shipped table, then the
litellm table of model.prices_file and the model.prices of the -c configs, which win in that
order (SOURCE). CACHE READ and CACHE WRITE are "-" where those tokens cost the input price,
REASONING where reasoning tokens cost the output price; LONG CONTEXT is the input/output price of
a call whose prompt is longer than the size shown. With model names, prints the entry that
prices each one (model.price_as applies) and fails for a name without a price. docs/prices.md
tells how names are looked up and how to update the prices.`,
		Example: `  swebench-run models --provider gemini
  # the price a run of these models would use, and where it comes from
  swebench-run models bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0 vertex_ai/claude-opus-4-5@20251101
  # with a newer litellm table, as JSON
  swebench-run models -c model.prices_file=model_prices_and_context_window.json --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if provider != "" && len(args) > 0 {
				return fmt.Errorf("%w: --provider lists the models of a provider: leave it out when naming models", errUsage)
			}
			return showModels(cfgArgs, provider, args, asJSON, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&provider, "provider", "", "only the models of this provider (the prefix of its model names: gemini, bedrock, vertex_ai, …)")
	fs.StringArrayVarP(&cfgArgs, "config", "c", nil, "config file or shipped config name, or key.path=value override, whose model.prices and model.prices_file count (later wins)")
	fs.BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	metavar(fs, "provider", "PROVIDER")
	metavar(fs, "config", "FILE|KEY=VALUE")
	completeFlags(cmd, map[string]cobra.CompletionFunc{"config": completeConfig, "provider": completeProvider})
	return cmd
}

// modelPrice is a row of `models MODEL...`: the name asked for and the entry that prices it.
type modelPrice struct {
	Model string `json:"model"`
	model.PricedModel
}

// showModels prints the price table of the configs cfgArgs (the models of provider, or all),
// or, given names, the entry that prices each name.
func showModels(cfgArgs []string, provider string, names []string, asJSON bool, stdout, stderr io.Writer) error {
	files, overrides := splitConfigArgs(cfgArgs)
	cfg, err := configs.Load(files, overrides)
	if err != nil {
		return err
	}
	mc, err := modelConfig(cfg, cfg.Model.ModelName)
	if err != nil {
		return err
	}
	if len(names) > 0 {
		return showModelPrices(mc, names, asJSON, stdout)
	}
	table, err := model.NewPriceTable(mc)
	if err != nil {
		return err
	}
	all := table.Models()
	rows := all
	if provider != "" {
		rows = slices.DeleteFunc(slices.Clone(all), func(m model.PricedModel) bool { return m.Provider != provider })
		if len(rows) == 0 {
			return fmt.Errorf("%w: --provider %s: no priced model has this provider; the providers are %s", errUsage, provider, strings.Join(providersOf(all), ", "))
		}
	}
	if asJSON {
		return writeJSON(stdout, rows)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPROVIDER\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE\tREASONING\tLONG CONTEXT\tSOURCE")
	for _, m := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Name, m.Provider, priceColumns(m))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d priced models (USD per million tokens)\n", len(rows))
	return nil
}

// showModelPrices prints the entry that prices each of names, and fails naming the names
// that have none.
func showModelPrices(mc model.Config, names []string, asJSON bool, stdout io.Writer) error {
	var rows []modelPrice
	var missing []string
	for _, n := range names {
		m, ok, err := model.LookupPrice(mc, n)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, n)
			continue
		}
		rows = append(rows, modelPrice{Model: n, PricedModel: m})
	}
	if asJSON {
		if err := writeJSON(stdout, rows); err != nil {
			return err
		}
	} else if len(rows) > 0 {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "MODEL\tPRICED AS\tPROVIDER\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE\tREASONING\tLONG CONTEXT\tSOURCE")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Model, r.Name, r.Provider, priceColumns(r.PricedModel))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no price for %s: add it under model.prices, give a litellm price table with model.prices_file, or bill it as a priced model with model.price_as (docs/prices.md)", strings.Join(missing, ", "))
	}
	return nil
}

// priceColumns formats the prices of m as the tab-separated columns INPUT … SOURCE.
func priceColumns(m model.PricedModel) string {
	var tiers []string
	for _, t := range m.Tiers {
		in, out := t.Input, t.Output
		if in == 0 {
			in = m.Input
		}
		if out == 0 {
			out = m.Output
		}
		tiers = append(tiers, fmt.Sprintf(">%s %s/%s", tokenCount(t.AboveInputTokens), usd(in), usd(out)))
	}
	return strings.Join([]string{usd(m.Input), usd(m.Output), usdOrDash(m.CacheRead), usdOrDash(m.CacheWrite),
		usdOrDash(m.Reasoning), orDash(strings.Join(tiers, ", ")), m.Source}, "\t")
}

func usd(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func usdOrDash(v float64) string {
	if v == 0 {
		return "-"
	}
	return usd(v)
}

// tokenCount writes a tier threshold as the pricing pages do: 200k, 1M.
func tokenCount(n int) string {
	switch {
	case n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

func providersOf(models []model.PricedModel) []string {
	var out []string
	for _, m := range models {
		if !slices.Contains(out, m.Provider) {
			out = append(out, m.Provider)
		}
	}
	slices.Sort(out)
	return out
}

func completeProvider(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	table, err := model.NewPriceTable(model.Config{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return providersOf(table.Models()), cobra.ShellCompDirectiveNoFileComp
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
