package gym

import "github.com/swebench-run/swebench-run/dataset"

// Datasets implements family.Profile: the named datasets of SWE-Gym.
func (Profile) Datasets() []dataset.NamedDataset {
	return []dataset.NamedDataset{
		{Name: "gym", HFRepo: "SWE-Gym/SWE-Gym", Split: "train", Description: "SWE-Gym: about 2,400 Python training tasks from 11 repositories (graded by SWE-Gym's harness fork)"},
		{Name: "gym-lite", HFRepo: "SWE-Gym/SWE-Gym-Lite", Split: "train", Description: "SWE-Gym Lite: about 230 easier SWE-Gym tasks"},
	}
}
