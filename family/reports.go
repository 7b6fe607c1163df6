package family

// InstanceVerdict is one instance's verdict as a harness's verdict file gives it.
type InstanceVerdict struct {
	Outcome Outcome // Resolved, Unresolved, Error or EmptyPatch
	Detail  string  // why, for an Error
	// Tests are the test names the verdict file lists, by the harness's groups (FAIL_TO_PASS,
	// PASS_TO_PASS, …, or "tests" when it does not group them); nil when it lists none. The
	// report shows them on the instance's page.
	Tests map[string]TestGroup
	// Log is the file holding the output of the instance's test run, when the folder has one
	// (the report shows it as the test output).
	Log string
}

// TestGroup is one group of tests of a verdict file: those that passed and those that failed.
type TestGroup struct {
	Success []string `json:"success"`
	Failure []string `json:"failure"`
}

// Group returns the TestGroup of success and failure, empty lists for nil ones.
func Group(success, failure []string) TestGroup {
	if success == nil {
		success = []string{}
	}
	if failure == nil {
		failure = []string{}
	}
	return TestGroup{Success: success, Failure: failure}
}

// FolderVerdicts are the verdicts an evaluation folder (<dir>/<instance_id>/… and the harness's
// run-level files beside them) holds in one harness's format.
type FolderVerdicts struct {
	// Format names the layout read, as the commands show it and docs/per-instance-reports.md
	// lists it: the family and the harness's folder or file ("Multi-SWE-bench workdir", "SWE-bench
	// Pro eval_results.json").
	Format   string
	Verdicts map[string]InstanceVerdict // by instance id
}

// ReportReader reads the verdict files of one family's harness, for compare, report, stats and
// submission --check.
// Package family/all puts the readers of every family behind one function per form
// (all.ReadEvalFolder, all.ReadReportFile).
type ReportReader interface {
	// ReadEvalFolder reads the verdicts of a folder laid out as the harness writes it, as its
	// leaderboard publishes it, or as this tool's eval for the family lays it out; ok is false
	// when dir holds nothing of the family's. An instance folder that shows an evaluation which
	// produced no verdict is an Error; a folder that is no instance's is never counted as one.
	ReadEvalFolder(dir string) (fv FolderVerdicts, ok bool, err error)
	// ReadReportFile reads one verdict file given on its own (data is the content of path),
	// such as a run-level summary; ok is false when it is not of the harness's format, so that
	// another reader is tried. Readers are asked before SWE-bench's forms are, so a reader takes
	// no file of SWE-bench's.
	ReadReportFile(path string, data []byte) (fv FolderVerdicts, ok bool, err error)
}
