package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
)

// Resume is the time from the start of a resumed run to its first new container.
type Resume struct {
	Finished  int
	ToStart   time.Duration // process start → the `starting` event of the unfinished instance
	Total     time.Duration // the whole resumed run (one instance without model time)
	MaxRSSKiB int64
	After     string // the error of the rest of the run, if any
}

// MeasureResume writes an output directory with finished instances (ledger records and
// predictions, no trajectories) and a dataset of finished+1 instances, then resumes it with
// `--progress json` and times the first `starting` event on stderr.
func MeasureResume(ctx context.Context, bin, tmp string, finished int) (Resume, error) {
	dir := filepath.Join(tmp, fmt.Sprintf("resume-%d", finished))
	ids := ScaleIDs(finished + 1)
	last := ids[finished]
	ds, script, err := WriteDataset(dir, ids, map[string][]model.ScriptedTurn{last: Turns(0)})
	if err != nil {
		return Resume{}, err
	}
	out := filepath.Join(dir, "out")
	os.RemoveAll(out)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Resume{}, err
	}
	ledger, err := os.Create(filepath.Join(out, results.LedgerFile))
	if err != nil {
		return Resume{}, err
	}
	w := bufio.NewWriter(ledger)
	preds := map[string]results.Prediction{}
	now := float64(time.Now().Unix())
	for _, id := range ids[:finished] {
		rec := results.Record{InstanceID: id, Attempt: 1, ExitStatus: "Submitted", Category: results.CategoryModel, ModelName: "scripted",
			APICalls: Steps, Steps: Steps, PatchBytes: 120, Queued: now - 60, ImageReady: now - 59, FirstStep: now - 57, End: now - 50,
			Host: "default", Image: BaseImage}
		line, _ := json.Marshal(rec)
		w.Write(append(line, '\n'))
		preds[id] = results.Prediction{ModelNameOrPath: "scripted", InstanceID: id, ModelPatch: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}
	}
	if err := w.Flush(); err != nil {
		return Resume{}, err
	}
	ledger.Close()
	pj, _ := json.MarshalIndent(preds, "", "  ")
	if err := os.WriteFile(filepath.Join(out, results.PredsFile), pj, 0o644); err != nil {
		return Resume{}, err
	}

	res := Resume{Finished: finished}
	args := append([]string{"run", "--split", ds, "--model", "scripted:" + script, "-o", out, "--progress", "json"}, RunArgs(4)...)
	u, err := TimeBinary(ctx, bin, args, func(line string, since time.Duration) {
		if res.ToStart == 0 && strings.Contains(line, `"phase":"starting"`) {
			res.ToStart = since
		}
	})
	if err != nil && res.ToStart == 0 {
		return res, err
	}
	if err != nil {
		// The measurement ends at the starting event; what happens to the container after it
		// is reported, not fatal.
		res.After = err.Error()
	}
	if res.ToStart == 0 {
		return res, fmt.Errorf("resume: no starting event on stderr")
	}
	res.Total, res.MaxRSSKiB = u.Wall, u.MaxRSSKiB
	return res, nil
}

func (r Resume) baseRows() []Row {
	return []Row{{What: fmt.Sprintf("resume over %d finished instances", r.Finished),
		Measured: fmt.Sprintf("%s to the first new container (whole run %s, peak RSS %.1f MB)", r.ToStart.Round(time.Millisecond), r.Total.Round(time.Millisecond), float64(r.MaxRSSKiB)/1024),
		Goal:     "< 2 s", Pass: r.ToStart < 2*time.Second}}
}

// Rows renders the result.
func (r Resume) Rows() []Row {
	rows := r.baseRows()
	if r.After != "" {
		rows[0].Measured += "; afterwards the run failed: " + r.After
	}
	return rows
}
