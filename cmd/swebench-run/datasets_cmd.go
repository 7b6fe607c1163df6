package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/dataset"
)

func newDatasetsCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "datasets",
		Short:   "list the named datasets",
		GroupID: groupSetup,
		Long: `Lists the named datasets that --split accepts, with their HuggingFace ids, splits and sizes.
--split also takes hf:ORG/NAME[:SPLIT][@REVISION] and local .parquet/.jsonl/.json files.`,
		Example: `  swebench-run datasets
  swebench-run --split lite-dev --model openai/gpt-5 --dry-run`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%w: datasets takes no arguments", errUsage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return listDatasets(cmd.OutOrStdout()) },
	}
}

func listDatasets(stdout io.Writer) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFAMILY\tHUGGINGFACE ID\tSPLIT\tROWS\tCOLUMNS BEYOND THE STANDARD ONES (HUB CACHE)\tDESCRIPTION")
	reg := families()
	for _, d := range reg.Named() {
		rows := "?"
		if d.Rows > 0 {
			rows = fmt.Sprint(d.Rows)
		}
		fam := "-"
		if p, ok := reg.Lookup(d.Family); ok {
			fam = p.Title()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, fam, d.HFRepo, d.Split, rows, cachedColumns(d), d.Description)
	}
	return tw.Flush()
}

// cachedColumns describes the columns of a named dataset as last downloaded, from the hub cache.
func cachedColumns(d dataset.NamedDataset) string {
	cols, sha, err := dataset.CachedColumns(d, dataset.LoadOptions{})
	switch {
	case errors.Is(err, dataset.ErrNotCached):
		return "not downloaded"
	case err != nil:
		return "unreadable cache: " + err.Error()
	}
	extra := dataset.ExtraColumns(cols)
	if len(extra) == 0 {
		extra = []string{"none"}
	}
	return strings.Join(extra, ",") + " @" + sha[:min(12, len(sha))]
}
