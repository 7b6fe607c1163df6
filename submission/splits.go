package submission

import (
	"fmt"
	"regexp"
	"strings"
)

// Split is a folder under evaluation/ of the experiments repository and the dataset it is graded
// against.
type Split struct {
	// Name is the folder under evaluation/: lite, verified, bash-only, test, multilingual, or one
	// of our own (lite-dev, or any name given with an explicit dataset).
	Name string
	// Leaderboard reports whether the experiments repository grades this split (get_results
	// knows it). A folder of another split is for trying the pipeline, not for a pull request.
	Leaderboard bool
	// Dataset is the named dataset (one of the SWE-bench family's) the split is graded against;
	// empty for a split of our own, which needs an explicit dataset.
	Dataset string
	// HFRepo and HFSplit are the HuggingFace dataset get_results loads for the split.
	HFRepo, HFSplit string
	// SBCLISubset and SBCLISplit are sb-cli's names for the dataset; empty when sb-cli does not
	// grade it.
	SBCLISubset, SBCLISplit string
}

// Official reports whether the split names a dataset of its own (it is not a custom split).
func (s Split) Official() bool { return s.HFRepo != "" }

// DisplayName is the dataset the split is graded against, e.g. SWE-bench/SWE-bench_Lite:test.
func (s Split) DisplayName() string {
	if s.HFRepo == "" {
		return s.Name
	}
	return s.HFRepo + ":" + s.HFSplit
}

// splits are the splits we know. get_results (analysis/get_results.py of SWE-bench/experiments)
// grades lite against SWE-bench/SWE-bench_Lite, verified and bash-only against
// SWE-bench/SWE-bench_Verified and test against SWE-bench/SWE-bench, all on their test split;
// the leaderboard also lists multilingual (SWE-bench/SWE-bench_Multilingual, test). lite-dev is
// ours: the 23 instances of Lite's dev split, which sb-cli grades, for trying the whole pipeline
// cheaply.
var splits = []Split{
	{Name: "lite", Leaderboard: true, Dataset: "lite", HFRepo: "SWE-bench/SWE-bench_Lite", HFSplit: "test", SBCLISubset: "swe-bench_lite", SBCLISplit: "test"},
	{Name: "verified", Leaderboard: true, Dataset: "verified", HFRepo: "SWE-bench/SWE-bench_Verified", HFSplit: "test", SBCLISubset: "swe-bench_verified", SBCLISplit: "test"},
	{Name: "bash-only", Leaderboard: true, Dataset: "verified", HFRepo: "SWE-bench/SWE-bench_Verified", HFSplit: "test", SBCLISubset: "swe-bench_verified", SBCLISplit: "test"},
	{Name: "test", Leaderboard: true, Dataset: "full", HFRepo: "SWE-bench/SWE-bench", HFSplit: "test"},
	{Name: "multilingual", Leaderboard: true, Dataset: "multilingual", HFRepo: "SWE-bench/SWE-bench_Multilingual", HFSplit: "test"},
	{Name: "lite-dev", Dataset: "lite-dev", HFRepo: "SWE-bench/SWE-bench_Lite", HFSplit: "dev", SBCLISubset: "swe-bench_lite", SBCLISplit: "dev"},
}

// Splits returns the splits we know, leaderboard splits first.
func Splits() []Split { return append([]Split(nil), splits...) }

var splitNameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// LookupSplit returns the split called name. custom allows a name we do not know (the caller
// grades it against a dataset of its own); it must still be a plain folder name.
func LookupSplit(name string, custom bool) (Split, error) {
	for _, s := range splits {
		if s.Name == name {
			return s, nil
		}
	}
	if name == "multimodal" {
		return Split{}, fmt.Errorf("split multimodal: the Multimodal leaderboard is graded by sb-cli on the hidden test split, not from logs: " +
			"submit with `sb-cli submit swe-bench-m test --predictions_path preds.json --run_id ID`, then open a pull request with README.md and metadata.yaml " +
			"as sb-cli's \"Submit to Multimodal Leaderboard\" guide says")
	}
	if !splitNameRe.MatchString(name) {
		return Split{}, fmt.Errorf("split %q: a split is a folder name of lower-case letters, digits, '.', '_' and '-'", name)
	}
	if !custom {
		return Split{}, fmt.Errorf("split %q is not a leaderboard split (%s); to build a folder for a dataset of your own, name it with --dataset", name, strings.Join(splitNames(), ", "))
	}
	return Split{Name: name}, nil
}

func splitNames() []string {
	var out []string
	for _, s := range splits {
		out = append(out, s.Name)
	}
	return out
}
