package swebench

import "github.com/swebench-run/swebench-run/dataset"

// Datasets implements family.Profile: the SWE-bench datasets, resolved like the SWE-bench harness
// 5.x CLI (verified, full, multilingual, multimodal; lite as its loader does) to the SWE-bench/*
// repositories, which carry the harness-v5 columns; princeton-nlp/* ids are older copies of the
// same datasets (see CanonicalRepo).
func (Profile) Datasets() []dataset.NamedDataset {
	return []dataset.NamedDataset{
		{Name: "verified", HFRepo: "SWE-bench/SWE-bench_Verified", Split: "test", Rows: 500, Description: "SWE-bench Verified: 500 human-validated Python tasks"},
		{Name: "lite", HFRepo: "SWE-bench/SWE-bench_Lite", Split: "test", Rows: 300, Description: "SWE-bench Lite test split: 300 self-contained tasks"},
		{Name: "lite-dev", HFRepo: "SWE-bench/SWE-bench_Lite", Split: "dev", Rows: 23, Description: "SWE-bench Lite dev split: 23 tasks, for trying things out"},
		{Name: "full", HFRepo: "SWE-bench/SWE-bench", Split: "test", Rows: 2294, Description: "SWE-bench test split: all 2,294 tasks"},
		{Name: "dev", HFRepo: "SWE-bench/SWE-bench", Split: "dev", Rows: 225, Description: "SWE-bench dev split: 225 tasks"},
		{Name: "multimodal", HFRepo: "SWE-bench/SWE-bench_Multimodal", Split: "dev", Rows: 102, Description: "SWE-bench Multimodal dev split: JavaScript tasks with images"},
		{Name: "multilingual", HFRepo: "SWE-bench/SWE-bench_Multilingual", Split: "test", Rows: 300, Description: "SWE-bench Multilingual: 300 tasks in 9 languages, 41 repositories"},
	}
}
