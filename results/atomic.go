// Package results owns the output directory of a run: predictions, trajectories, the status
// ledger, exit-status summaries and the run manifest. Every file is written atomically, so a
// crash at any moment leaves either the old or the new version of a file, never a torn one.
package results

import (
	"os"

	"github.com/swebench-run/swebench-run/internal/atomicfile"
)

// WriteFileAtomic writes data to path through a temporary file in the same directory, fsyncs it
// and renames it over path, then fsyncs the directory.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return atomicfile.Write(path, data, perm)
}
