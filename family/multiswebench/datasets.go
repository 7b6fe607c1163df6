package multiswebench

import "github.com/swebench-run/swebench-run/dataset"

// Datasets implements family.Profile: the named datasets of Multi-SWE-bench.
func (Profile) Datasets() []dataset.NamedDataset {
	return []dataset.NamedDataset{
		{Name: "multi-swe-bench", HFRepo: "ByteDance-Seed/Multi-SWE-bench", Split: "test", Rows: 1632, Description: "Multi-SWE-bench (ByteDance): 1,632 tasks in Java, TypeScript, JavaScript, Go, Rust, C and C++, 39 repositories, graded by its harness's parsers",
			Files: []string{"java/*.jsonl", "ts/*.jsonl", "js/*.jsonl", "go/*.jsonl", "rust/*.jsonl", "c/*.jsonl", "cpp/*.jsonl"}},
		{Name: "multi-swe-bench-mini", HFRepo: "ByteDance-Seed/Multi-SWE-bench_mini", Split: "test", Rows: 400, Description: "Multi-SWE-bench mini: 400 tasks in 8 languages (Multi-SWE-bench's 7 and Python)",
			Files: []string{"*.jsonl"}},
		{Name: "multi-swe-bench-flash", HFRepo: "ByteDance-Seed/Multi-SWE-bench-flash", Split: "test", Rows: 300, Description: "Multi-SWE-bench flash: 300 tasks of Multi-SWE-bench for quick evaluation",
			Files: []string{"*.jsonl"}},
	}
}
