package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swebench-run/swebench-run/model"
)

// FloodBytes is the output of the flood command: 1 GiB.
const FloodBytes = 1 << 30

// keptOutput is what Exec keeps of a long output (dockerenv's default MaxOutput).
const keptOutput = 1 << 20

// Flood compares the runner's peak RSS over one instance whose command prints FloodBytes with
// the same instance printing nothing, and checks the observation in the trajectory.
type Flood struct {
	Base, Flood Usage
	Bytes       int64  // printed by the flood command
	Elided      int64  // output_bytes_elided recorded for the flood command
	RawLen      int    // length of the kept raw output
	Problem     string // what is wrong with the observation, "" when it is right
}

func (f Flood) Growth() float64 { return float64(f.Flood.MaxRSSKiB-f.Base.MaxRSSKiB) / 1024 }

// MeasureFlood runs the two instances through the binary.
func MeasureFlood(ctx context.Context, bin, tmp string, bytes int64) (Flood, error) {
	run := func(name, command string) (Usage, string, error) {
		dir := filepath.Join(tmp, "flood-"+name)
		id := "bench__flood-" + name
		turns := []model.ScriptedTurn{
			{Content: "print", Commands: []string{command}},
			{Content: "submit", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}},
		}
		ds, script, err := WriteDataset(dir, []string{id}, map[string][]model.ScriptedTurn{id: turns})
		if err != nil {
			return Usage{}, "", err
		}
		out := filepath.Join(dir, "out")
		os.RemoveAll(out)
		args := append([]string{"run", "--split", ds, "--model", "scripted:" + script, "-o", out, "--progress", "none", "-c", "environment.timeout=900"}, RunArgs(1)...)
		u, err := TimeBinary(ctx, bin, args, nil)
		return u, filepath.Join(out, id, id+".traj.json"), err
	}
	base, _, err := run("base", "true")
	if err != nil {
		return Flood{}, err
	}
	fl, traj, err := run("flood", fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x", bytes))
	if err != nil {
		return Flood{}, err
	}
	f := Flood{Base: base, Flood: fl, Bytes: bytes}
	f.Elided, f.RawLen, f.Problem = checkFloodTrajectory(traj, bytes)
	return f, nil
}

// checkFloodTrajectory finds the observation of the flood command: its raw output must be the
// first and last 512 KiB of x's around the elision note, the bytes elided must add up, and the
// message shown to the model must use the long-output template.
func checkFloodTrajectory(path string, total int64) (elided int64, rawLen int, problem string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err.Error()
	}
	var traj struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(data, &traj); err != nil {
		return 0, 0, err.Error()
	}
	for _, m := range traj.Messages {
		extra, _ := m["extra"].(map[string]any)
		raw, ok := extra["raw_output"].(string)
		if !ok || len(raw) < 1000 {
			continue
		}
		e, _ := extra["output_bytes_elided"].(float64)
		elided, rawLen = int64(e), len(raw)
		want := total - keptOutput
		if total <= keptOutput {
			want = 0
		}
		note := fmt.Sprintf("\n[swebench-run: %d bytes of output elided]\n", want)
		half := strings.Repeat("x", keptOutput/2)
		content, _ := m["content"].(string)
		switch {
		case elided != want:
			return elided, rawLen, fmt.Sprintf("output_bytes_elided = %d, want %d", elided, want)
		case raw != half+note+half:
			return elided, rawLen, "raw_output is not head 512 KiB + note + tail 512 KiB"
		case !strings.Contains(content, "characters elided") || len(content) > 20000:
			return elided, rawLen, fmt.Sprintf("observation shown to the model (%d chars) does not use the long-output template", len(content))
		}
		return elided, rawLen, ""
	}
	return 0, 0, "no observation with the flood output in " + path
}

func (f Flood) Rows() []Row {
	g := f.Growth()
	ok := f.Problem == ""
	state := "observation truncated correctly (head 512 KiB + note + tail 512 KiB; model sees 10,000 chars)"
	if !ok {
		state = "observation WRONG: " + f.Problem
	}
	return []Row{{What: fmt.Sprintf("output flood: one command printing %d MiB", f.Bytes>>20),
		Measured: fmt.Sprintf("peak RSS %.1f MB vs %.1f MB without the flood: +%.1f MB; %s; %d bytes elided; run took %s",
			float64(f.Flood.MaxRSSKiB)/1024, float64(f.Base.MaxRSSKiB)/1024, g, state, f.Elided, f.Flood.Wall.Round(100*1e6)),
		Goal: "RSS grows < 64 MB; truncated correctly", Pass: g < 64 && ok}}
}
