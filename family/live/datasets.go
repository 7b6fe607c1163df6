package live

import "github.com/swebench-run/swebench-run/dataset"

// Datasets implements family.Profile: the named datasets of SWE-bench-Live.
func (*Profile) Datasets() []dataset.NamedDataset {
	return []dataset.NamedDataset{
		{Name: "live", HFRepo: "SWE-bench-Live/SWE-bench-Live", Split: "full", Description: "SWE-bench-Live: Python tasks from recent issues, 50 more every month (rows carry test_cmds; SWE-bench's pytest parser)"},
		{Name: "live-lite", HFRepo: "SWE-bench-Live/SWE-bench-Live", Split: "lite", Description: "SWE-bench-Live lite split (frozen, for leaderboards)"},
		{Name: "live-verified", HFRepo: "SWE-bench-Live/SWE-bench-Live", Split: "verified", Rows: 500, Description: "SWE-bench-Live verified split: 500 LLM-filtered tasks (frozen)"},
		{Name: "live-multilang-c", HFRepo: "SWE-bench-Live/MultiLang", Split: "c", Description: "SWE-bench-Live MultiLang, C tasks (rows carry their commands and a Python log parser)"},
		{Name: "live-multilang-cpp", HFRepo: "SWE-bench-Live/MultiLang", Split: "cpp", Description: "SWE-bench-Live MultiLang, C++ tasks (rows carry their commands and a Python log parser)"},
		{Name: "live-multilang-cs", HFRepo: "SWE-bench-Live/MultiLang", Split: "cs", Description: "SWE-bench-Live MultiLang, C# tasks (rows carry their commands and a Python log parser)"},
		{Name: "live-multilang-go", HFRepo: "SWE-bench-Live/MultiLang", Split: "go", Description: "SWE-bench-Live MultiLang, Go tasks (rows carry their commands and a Python log parser)"},
		{Name: "live-multilang-java", HFRepo: "SWE-bench-Live/MultiLang", Split: "java", Description: "SWE-bench-Live MultiLang, Java tasks (rows carry their commands and a Python log parser)"},
		{Name: "live-multilang-js", HFRepo: "SWE-bench-Live/MultiLang", Split: "js", Description: "SWE-bench-Live MultiLang, JavaScript tasks (rows carry their commands and a Python log parser)"},
		{Name: "live-multilang-rust", HFRepo: "SWE-bench-Live/MultiLang", Split: "rust", Description: "SWE-bench-Live MultiLang, Rust tasks (rows carry their commands and a Python log parser)"},
		{Name: "live-multilang-ts", HFRepo: "SWE-bench-Live/MultiLang", Split: "ts", Description: "SWE-bench-Live MultiLang, TypeScript tasks (rows carry their commands and a Python log parser)"},
	}
}
