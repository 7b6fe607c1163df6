package polybench

import "github.com/swebench-run/swebench-run/dataset"

// Datasets implements family.Profile: the named datasets of SWE-PolyBench.
func (Profile) Datasets() []dataset.NamedDataset {
	return []dataset.NamedDataset{
		{Name: "polybench", HFRepo: "AmazonScience/SWE-PolyBench", Split: "test", Rows: 2110, Description: "SWE-PolyBench: 2,110 tasks in Java, JavaScript, TypeScript and Python"},
		{Name: "polybench-500", HFRepo: "AmazonScience/SWE-PolyBench_500", Split: "test", Rows: 500, Description: "SWE-PolyBench 500: a stratified subset"},
		{Name: "polybench-verified", HFRepo: "AmazonScience/SWE-PolyBench_Verified", Split: "test", Rows: 382, Description: "SWE-PolyBench Verified: 382 validated tasks"},
	}
}
