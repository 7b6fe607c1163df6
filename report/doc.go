// Package report draws runs as HTML: a static, self-contained site (Write) and a local server
// of the same pages over live output folders (Server, the `view` command).
//
// # Reading
//
// Load reads its inputs through compare (every form compare reads: run directories, sweep
// folders, mini-swe-agent output with its harness logs, harness and sb-cli reports, report.json
// folders, experiments results) and compares them; for each run it also finds where its
// trajectories (<dir>/<id>/<id>.traj.json, read with results.ReadTrajectory in every layout),
// predictions, and evaluation logs (<logs>/<id>/{report.json,test_output.txt,patch.diff}) live,
// the statistics `stats` prints for run directories, and the problem statements of the datasets
// run.json names (local files and the hub cache only) or Options.Dataset.
//
// # The site
//
//	index.html, assets/app.js, assets/app.css   the pages (embedded; no library, no network)
//	data/summary.js                              SR.summary({...}): the comparison, per run its
//	                                             failures and one compact cell per instance
//	data/i/<run>/<id>.js                         SR.inst(run, id, data): one instance of one run,
//	                                             loaded when its page opens (gzip, base64)
//	data/search/<key>.js                         SR.shard(key, lines): the search index, in
//	                                             shards by a word's first two letters
//	.swebench-run-report, .nojekyll              markers
//
// Data arrives as scripts because a page opened from file:// may not read local files with
// fetch. The pages route by the URL's fragment (#/, #/instances?…, #/i/<id>?r=…, #/compare), so
// every view has a link. The search index (search.go) holds the words of every problem statement
// and of every trajectory's replies, commands and outputs.
//
// # Secrets
//
// Nothing shown may hold a secret: configs (run.json's and each trajectory's info.config) go
// through redact.Redactor.Value (internal/redact, the redaction export uses too), which blanks
// the string value of every key named like a key, token, secret, password or authorization and
// cuts credentials and secret parameters out of URLs; every generated file also has the values
// of this process's secret-looking environment variables replaced (Redactor.Text).
//
// # The server
//
// Server re-reads the inputs when its summary is older than MaxAge (so a run in progress shows
// its counts growing; the pages poll), reads an instance on each request, and rebuilds the search
// index when a trajectory changed. It serves the embedded pages, the generated data and, for known
// instances only, their trajectory (redacted) and evaluation files: a path with a ".." segment,
// encoded or not, is 403; any other path 404. Bound to a loopback address it refuses other Host
// names (DNS rebinding).
package report
