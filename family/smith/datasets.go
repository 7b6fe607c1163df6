package smith

import "github.com/swebench-run/swebench-run/dataset"

// Datasets implements family.Profile: the named datasets of SWE-smith.
func (FamilyProfile) Datasets() []dataset.NamedDataset {
	return []dataset.NamedDataset{
		{Name: "smith", HFRepo: "SWE-bench/SWE-smith", Split: "train", Description: "SWE-smith: synthetic tasks in 543 repositories, the bug on a branch per instance"},
	}
}
