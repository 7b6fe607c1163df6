package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
)

func newMergeCmd() *cobra.Command {
	var (
		out   string
		force bool
		wait  bool
	)
	cmd := &cobra.Command{
		Use:     "merge OUT_1 OUT_2 … -o OUT",
		Short:   "combine output directories (shards) into one",
		GroupID: groupBatch,
		Long: `Combines output directories (e.g. the --shard I/N parts of one run, run on several machines)
into one: ledgers, trajectories, predictions and evaluations. Refuses directories of different
models, configs or datasets (unless --force); reports duplicates, missing shards and unfinished
instances.`,
		Example: `  # the four shards of a run, into one directory
  swebench-run merge runs/lite-1 runs/lite-2 runs/lite-3 runs/lite-4 -o runs/lite
  swebench-run merge runs/shard-* -o runs/all`,
		Args: func(cmd *cobra.Command, args []string) error {
			if out == "" || len(args) < 2 {
				return fmt.Errorf("%w: merge needs at least two output directories and -o OUT", errUsage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, srcs []string) error {
			lock, err := lockOutput(cmd.Context(), out, wait, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer lock.Unlock()
			return mergeDirs(srcs, out, force, cmd.OutOrStdout())
		},
		ValidArgsFunction: completeDirs,
	}
	fs := cmd.Flags()
	fs.StringVarP(&out, "output", "o", "", "output directory of the merged run (must not exist or be empty)")
	fs.BoolVar(&force, "force", false, "merge although models, configs or datasets differ")
	waitFlag(fs, &wait)
	metavar(fs, "output", "DIR")
	completeFlags(cmd, map[string]cobra.CompletionFunc{"output": completeDirs})
	return cmd
}

// mergeDirs merges the output directories srcs into out.
func mergeDirs(srcs []string, out string, force bool, stdout io.Writer) error {
	var mans []*results.Manifest
	for _, s := range srcs {
		m, err := results.ReadManifest(s)
		if err != nil {
			return err
		}
		if m == nil {
			return fmt.Errorf("%s has no %s: not a swebench-run output directory", s, results.ManifestFile)
		}
		mans = append(mans, m)
	}
	for i := 1; i < len(mans); i++ {
		if diff := incompatible(mans[0], mans[i]); diff != "" && !force {
			return fmt.Errorf("%s and %s differ in %s; they are not parts of one run (use --force to merge anyway)", srcs[0], srcs[i], diff)
		}
	}
	merged := *mans[0]
	merged.Instances = 0
	for _, m := range mans {
		merged.Instances += m.Instances
	}
	merged.Updated = time.Now().UTC()
	rep, err := results.Merge(srcs, out, &merged)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d directories into %s: %d instances\n", len(srcs), out, rep.Instances)
	if len(rep.Duplicates) > 0 {
		fmt.Fprintf(stdout, "finished in more than one directory (the latest kept): %s\n", strings.Join(rep.Duplicates, ", "))
	}
	if len(rep.Unfinished) > 0 {
		fmt.Fprintf(stdout, "%d instances ended with infrastructure failures; resume the merged run to retry them\n", len(rep.Unfinished))
	}
	if missing := missingShards(mans); missing != "" {
		fmt.Fprintf(stdout, "missing shards: %s\n", missing)
	}
	if rep.Instances < merged.Instances {
		fmt.Fprintf(stdout, "%d of %d selected instances have no record yet\n", merged.Instances-rep.Instances, merged.Instances)
	}
	return nil
}

// missingShards lists the shards I/N absent from the manifests, when they are shards of N.
func missingShards(mans []*results.Manifest) string {
	have := map[int]bool{}
	n := 0
	for _, m := range mans {
		var dm dataset.Manifest
		if json.Unmarshal(m.Dataset, &dm) != nil || dm.Selection == nil || dm.Selection.Shard == "" {
			return ""
		}
		i, k, err := dataset.ParseShard(dm.Selection.Shard)
		if err != nil || n != 0 && k != n {
			return ""
		}
		n = k
		have[i] = true
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !have[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	sort.Strings(missing)
	return strings.Join(missing, ", ")
}
