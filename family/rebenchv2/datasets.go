package rebenchv2

import "github.com/swebench-run/swebench-run/dataset"

// Datasets implements family.Profile: the named datasets of SWE-rebench-V2.
func (Profile) Datasets() []dataset.NamedDataset {
	return []dataset.NamedDataset{
		{Name: "rebench-v2", HFRepo: "nebius/SWE-rebench-V2", Split: "train", Description: "SWE-rebench-V2: about 32,000 tasks in 20 languages (rows carry install_config and image_name)"},
	}
}
