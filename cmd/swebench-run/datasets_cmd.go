package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/swebench-run/swebench-run/dataset"
)

func datasetsCommand(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: datasets takes no arguments", errUsage)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tHUGGINGFACE ID\tSPLIT\tROWS\tDESCRIPTION")
	for _, d := range dataset.Named() {
		rows := "?"
		if d.Rows > 0 {
			rows = fmt.Sprint(d.Rows)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Name, d.HFRepo, d.Split, rows, d.Description)
	}
	return tw.Flush()
}
