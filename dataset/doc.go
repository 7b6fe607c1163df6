// Package dataset reads SWE-bench-style datasets (parquet, JSONL, JSON, the HuggingFace hub) into
// Instances and selects the ones a run works on.
//
// # Sources
//
// Load takes one spec:
//
//   - a named dataset (LoadOptions.Named: the families declare them, each its own, and cmd hands
//     them all to Load; `swebench-run datasets` lists them). Each is a HuggingFace repository and
//     split (or its data files, NamedDataset.Files), fetched like hf: below, and read as its
//     family's rows (NamedDataset.Family).
//   - hf:ORG/NAME[:SPLIT][@REVISION]: any HuggingFace dataset. SPLIT defaults to test and may be
//     CONFIG/SPLIT; REVISION (branch, tag or commit) defaults to main. The revision is resolved
//     to a commit sha with GET {endpoint}/api/datasets/{repo}[/revision/{rev}]?blobs=true, the
//     split's files are the siblings data/{split}-*.parquet (data/{split}.parquet also counts; for
//     a config other than default, {config}/ or data/{config}/), fetched from
//     {endpoint}/datasets/{repo}/resolve/{sha}/{file}. With no such files, the auto-converted
//     parquet listing {endpoint}/api/datasets/{repo}/parquet/{config}/{split} is used.
//   - a local path: a .parquet file, a directory of .parquet shards (read in name order), a .jsonl
//     file, or a .json file holding a list of rows or an object of rows keyed by instance_id.
//     Any of them may be gzip-compressed (recognised by content, e.g. data.jsonl.gz). Parquet is
//     recognised by its magic bytes, whatever the name.
//
// # Rows
//
// The known columns fill Instance's fields (log_parser is also kept raw in Extra, so that an
// empty column is told from an absent one); every other column is kept in Extra under its
// original name (parquet lists become []any, numbers int64/float64, structs map[string]any; JSON
// numbers are json.Number). FAIL_TO_PASS and PASS_TO_PASS may be lists or JSON strings holding a
// list; an empty string is an empty list; an absent column leaves the field nil. A row's image
// comes from image, else image_name, else docker_image. Null strings are empty strings.
// Duplicated instance ids are an error (*DuplicateIDsError) listing every id and its rows. Field
// errors are *RowError values naming the file, row (or line), instance and field.
// LoadOptions.Require checks the fields a run (ValidateForRun) or an evaluation
// (ValidateForEval, or the row's family's own rule when it is an EvalValidator) needs.
//
// # Families
//
// A row belongs to a dataset family (LoadOptions.Families, the profiles of package family; this
// package knows none of them): a named dataset's rows to its NamedDataset.Family (a row lacking
// one of the family's columns is refused, naming it), other rows to the first family whose Match
// takes them, else to none (Instance.Family "": the row is used as it is). The family prepares
// the row: Instance.Task (the agent's task, when it is not problem_statement), WorkDir (the
// repository in the image, when not /testbed), Image and PreAgentCommands (run before the agent
// starts). A family whose rows may name their instance by other columns than instance_id is an
// IDNamer.
//
// # Completing rows for an evaluation
//
// With LoadOptions.Complete, each family that is a Completer fills in what grading needs in its
// rows from other datasets, loaded through the same hub and cache (so HF_HUB_OFFLINE works once
// they are cached): the SWE-bench family takes the harness-v5 columns of rows without an
// eval_script from the official SWE-bench datasets. Source.Completed records each source at its
// commit (run.json), Progress says what was taken, and rows that still cannot be graded make Load
// fail, naming them, before anything runs.
//
// # Selection
//
// Selection (filter, slice, shuffle, instance ids, exclusions, shard) is documented on its type.
// Passed as LoadOptions.Selection it is applied while loading, so only the selected rows are
// decoded; Selection.Apply does the same on instances already loaded.
//
// # Cache
//
// Downloads go under {cache}/swebench-run/datasets/, where {cache} is LoadOptions.CacheDir, else
// $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub. The layout is ours (it does not touch huggingface_hub's own entries):
//
//	{cache}/swebench-run/datasets/{org}--{name}/
//	    refs/{revision}                          commit sha the revision last resolved to
//	    snapshots/{sha}/{config}--{split}.json   the split's files with their sizes and sha256s
//	    snapshots/{sha}/files/{path in repo}     the files (auto-converted ones under parquet/)
//
// Files are written to {file}.incomplete (kept between attempts and runs, so a broken transfer
// resumes with an HTTP Range request), checked against the size and sha256 the hub lists, fsynced
// and renamed: a file under its final name is always complete. A per-file lock ({file}.lock,
// flock) makes processes sharing the cache (shards started together) download each file once.
// Every cache hit re-hashes the files against the snapshot record; a changed file is downloaded
// again. A spec pinned to a commit sha that is cached needs no network at all.
//
// # Environment
//
//	HF_ENDPOINT      hub URL (default https://huggingface.co)
//	HF_TOKEN         sent as "Authorization: Bearer" to the hub's own host only (not to the
//	                 storage hosts it redirects to); never written to logs, errors or the manifest
//	HF_HUB_CACHE     cache directory; HF_HOME/hub when unset
//	HF_HUB_OFFLINE   1 (or true/yes/on): use the cache only; a missing entry is an error (ErrNotCached)
//
// Network errors, 429 (honouring Retry-After) and 5xx are retried with exponential backoff
// (LoadOptions.Retries); 401/403 (ErrUnauthorized) and 404 (ErrNotFound) are not.
//
// # Manifest
//
// Loaded.Source records the spec, kind, HuggingFace repo, split, requested revision, resolved
// commit sha, and every file's path, sha256, size and row count. Loaded.Manifest adds the
// selection, the number of instances and a sha256 of the selected ids; Manifest.Comparable tells
// whether two runs used the same data and instances.
package dataset
