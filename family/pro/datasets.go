package pro

import "github.com/swebench-run/swebench-run/dataset"

// Datasets implements family.Profile: the named datasets of SWE-bench Pro.
func (*Profile) Datasets() []dataset.NamedDataset {
	return []dataset.NamedDataset{
		{Name: "pro", HFRepo: "ScaleAI/SWE-bench_Pro", Split: "test", Rows: 731, Description: "SWE-bench Pro (Scale AI): 731 long-horizon tasks in Python, Go, JavaScript and TypeScript, graded by its harness's per-instance scripts"},
	}
}
