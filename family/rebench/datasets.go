package rebench

import "github.com/swebench-run/swebench-run/dataset"

// Datasets implements family.Profile: the named datasets of SWE-rebench.
func (Profile) Datasets() []dataset.NamedDataset {
	return []dataset.NamedDataset{
		{Name: "rebench", HFRepo: "nebius/SWE-rebench", Split: "test", Description: "SWE-rebench: about 21,000 continuously collected tasks (rows carry install_config and docker_image)"},
	}
}
