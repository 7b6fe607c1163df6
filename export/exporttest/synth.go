package exporttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/results"
)

// Synthetic runs in our output directory's layout, for the tests and the benchmark: run.json,
// status.jsonl, preds.json, eval/<id>/report.json (the harness's layout) and
// <id>/<id>.traj.json in mini-swe-agent-1.1 tool-calling layout, as our loop writes them.

// Instance is one instance of a synthetic run.
type Instance struct {
	ID    string
	Steps int // replies; the last submits (default 3)
	Cost  float64
	// Resolved is the evaluation's verdict; nil: the instance has no report.
	Resolved *bool
	// Commands are the replies' commands, one per reply before the submission (default "ls").
	Commands   []string
	ExitStatus string // default Submitted
	Output     string // every observation's output (default a short listing)
}

// Run is a synthetic run.
type Run struct {
	Model     string // default openai/gpt-5
	Config    map[string]any
	Instances []Instance
}

// Bool returns a pointer to b.
func Bool(b bool) *bool { return &b }

// WriteRun writes run into dir (created).
func WriteRun(dir string, run Run) error {
	if run.Model == "" {
		run.Model = "openai/gpt-5"
	}
	if run.Config == nil {
		run.Config = map[string]any{"model": map[string]any{"model_name": run.Model}, "agent": map[string]any{"step_limit": 250.0}}
	}
	if err := os.MkdirAll(filepath.Join(dir, "eval"), 0o755); err != nil {
		return err
	}
	dataset, _ := json.Marshal(map[string]any{"source": map[string]any{"spec": "verified", "kind": "named", "name": "verified",
		"hf_repo": "SWE-bench/SWE-bench_Verified", "split": "test", "resolved_sha": strings.Repeat("ab", 20), "files": []any{}, "rows": 500},
		"instances": len(run.Instances)})
	man := results.Manifest{Tool: "swebench-run", Version: "test", RunID: "run-" + filepath.Base(dir), Created: time.Unix(1.8e9, 0).UTC(),
		Model: run.Model, Dataset: dataset, Instances: len(run.Instances), Config: run.Config}
	if err := writeJSON(filepath.Join(dir, results.ManifestFile), man); err != nil {
		return err
	}
	ledger, err := os.Create(filepath.Join(dir, results.LedgerFile))
	if err != nil {
		return err
	}
	lw := bufio.NewWriter(ledger)
	preds := map[string]results.Prediction{}
	for _, in := range run.Instances {
		if in.Steps == 0 {
			in.Steps = 3
		}
		if in.ExitStatus == "" {
			in.ExitStatus = "Submitted"
		}
		patch := fmt.Sprintf("diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-x = 1\n+x = 2  # %s\n", in.ID)
		rec := results.Record{InstanceID: in.ID, Attempt: 1, ExitStatus: in.ExitStatus, Category: results.CategoryModel, ModelName: run.Model,
			Cost: in.Cost, APICalls: in.Steps, Steps: in.Steps, Tokens: results.Tokens{Input: 1000 * in.Steps, Output: 100 * in.Steps},
			PatchBytes: len(patch), Queued: 1.8e9, End: 1.8e9 + 60}
		line, _ := json.Marshal(rec)
		lw.Write(append(line, '\n'))
		preds[in.ID] = results.Prediction{ModelNameOrPath: run.Model, InstanceID: in.ID, ModelPatch: patch}
		if in.Resolved != nil {
			rep := map[string]any{in.ID: map[string]any{"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": *in.Resolved,
				"tests_status": map[string]any{"FAIL_TO_PASS": map[string]any{"success": []any{}, "failure": []any{}}, "PASS_TO_PASS": map[string]any{"success": []any{}, "failure": []any{}}}}}
			if err := os.MkdirAll(filepath.Join(dir, "eval", in.ID), 0o755); err != nil {
				return err
			}
			if err := writeJSON(filepath.Join(dir, "eval", in.ID, "report.json"), rep); err != nil {
				return err
			}
		}
		if err := WriteTrajectory(filepath.Join(dir, in.ID), in, run, patch); err != nil {
			return err
		}
	}
	if err := lw.Flush(); err != nil {
		return err
	}
	if err := ledger.Close(); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, results.PredsFile), preds)
}

// WriteTrajectory writes <dir>/<id>.traj.json: a system prompt, the task, in.Steps replies each
// calling the bash tool with its observation, the last submitting the patch, and the exit message.
func WriteTrajectory(dir string, in Instance, run Run, patch string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	output := in.Output
	if output == "" {
		output = "README.md\nsetup.py\nsrc\ntests\n"
	}
	msgs := []map[string]any{
		{"role": "system", "content": "You are a helpful assistant that can interact with a computer shell to solve programming tasks."},
		{"role": "user", "content": "<pr_description>\nFix the bug of " + in.ID + ".\n</pr_description>"},
	}
	for s := 1; s <= in.Steps; s++ {
		cmd := "ls"
		if s <= len(in.Commands) {
			cmd = in.Commands[s-1]
		}
		last := s == in.Steps
		if last {
			cmd = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"
		}
		id := fmt.Sprintf("call_%d_0", s)
		args, _ := json.Marshal(map[string]string{"command": cmd})
		msgs = append(msgs, map[string]any{
			"role": "assistant", "content": fmt.Sprintf("THOUGHT: step %d of %s.", s, in.ID),
			"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": string(args)}}},
			"extra":      map[string]any{"actions": []any{map[string]any{"command": cmd, "tool_call_id": id}}, "cost": in.Cost / float64(in.Steps)},
		})
		if last {
			break
		}
		msgs = append(msgs, map[string]any{
			"role": "tool", "tool_call_id": id, "content": "<returncode>0</returncode>\n<output>\n" + output + "</output>",
			"extra": map[string]any{"raw_output": output, "returncode": 0.0},
		})
	}
	msgs = append(msgs, map[string]any{"role": "exit", "content": patch, "extra": map[string]any{"exit_status": in.ExitStatus, "submission": patch}})
	t := results.Trajectory{
		Info: results.TrajectoryInfo{ModelStats: results.ModelStats{InstanceCost: in.Cost, APICalls: in.Steps}, Config: run.Config,
			ExitStatus: in.ExitStatus, Submission: patch,
			SwebenchRun: &results.RunInfo{Version: "test", Attempt: 1, Tokens: results.Tokens{Input: 1000 * in.Steps, Output: 100 * in.Steps}}},
		Messages: msgs, TrajectoryFormat: results.TrajectoryFormat, InstanceID: in.ID,
	}
	return writeJSON(filepath.Join(dir, in.ID+".traj.json"), t)
}

// Cell is one cell of a synthetic sweep.
type Cell struct {
	Name, Variant string
	Repeat        int
	Run           Run
}

// WriteSweep writes a sweep folder: sweep.json and one run directory per cell.
func WriteSweep(dir, name string, cells []Cell) error {
	s := compare.Sweep{SchemaVersion: compare.SweepSchemaVersion, Name: name, Created: time.Unix(1.8e9, 0).UTC()}
	for _, c := range cells {
		if c.Run.Model == "" {
			c.Run.Model = "openai/" + c.Variant
		}
		cfg := map[string]any{"model": map[string]any{"model_name": c.Run.Model}}
		c.Run.Config = cfg
		if err := WriteRun(filepath.Join(dir, c.Name), c.Run); err != nil {
			return err
		}
		s.Cells = append(s.Cells, compare.Cell{Name: c.Name, Variant: c.Variant, Dir: c.Name, Model: c.Run.Model, ConfigHash: compare.ConfigHash(cfg),
			Dataset: "SWE-bench/SWE-bench_Verified:test", DatasetRevision: strings.Repeat("ab", 20), Repeat: c.Repeat})
	}
	return writeJSON(filepath.Join(dir, compare.SweepFile), s)
}

func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
