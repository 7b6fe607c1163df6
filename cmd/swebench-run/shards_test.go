package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/results"
)

// Two shards of the demo run on their own, merged into one run whose predictions, ledger and
// stats cover every instance; a third directory with another model is refused.
func TestShardsMergeStats(t *testing.T) {
	split, insts := demoInstances(t)
	dir := t.TempDir()
	var outs []string
	for _, shard := range []string{"1/2", "2/2"} {
		out := filepath.Join(dir, "shard-"+shard[:1])
		outs = append(outs, out)
		code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "3", "-o", out, "--shard", shard, "--progress", "none")
		if code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", shard, code, stderr)
		}
	}
	merged := filepath.Join(dir, "all")
	code, stdout, stderr := runCLI(t, append([]string{"merge"}, append(outs, "-o", merged)...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "6 instances") || strings.Contains(stdout, "missing shards") {
		t.Errorf("merge report:\n%s", stdout)
	}
	var preds map[string]results.Prediction
	data, _ := os.ReadFile(filepath.Join(merged, "preds.json"))
	if err := json.Unmarshal(data, &preds); err != nil {
		t.Fatal(err)
	}
	for _, inst := range insts {
		if preds[inst.InstanceID].ModelPatch != inst.Patch {
			t.Errorf("merged preds: %s lacks its patch", inst.InstanceID)
		}
		if _, err := os.Stat(filepath.Join(merged, inst.InstanceID, inst.InstanceID+".traj.json")); err != nil {
			t.Errorf("merged trajectory: %v", err)
		}
	}

	// Stats of the merged run, as JSON.
	code, stdout, stderr = runCLI(t, "stats", "--json", merged)
	if code != 0 {
		t.Fatalf("stats: exit %d\n%s", code, stderr)
	}
	var st results.Stats
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, stdout)
	}
	if st.Instances != len(insts) || st.ByStatus["Submitted"] != len(insts) || st.Steps.Mean != 5 {
		t.Errorf("stats = %+v", st)
	}

	// --rebuild regenerates preds.json from the ledger and the trajectories.
	os.Remove(filepath.Join(merged, "preds.json"))
	if code, _, stderr = runCLI(t, "stats", "--rebuild", merged); code != 0 {
		t.Fatalf("stats --rebuild: exit %d\n%s", code, stderr)
	}
	data, _ = os.ReadFile(filepath.Join(merged, "preds.json"))
	var rebuilt map[string]results.Prediction
	if err := json.Unmarshal(data, &rebuilt); err != nil || len(rebuilt) != len(insts) || rebuilt[insts[0].InstanceID].ModelPatch != insts[0].Patch {
		t.Errorf("rebuilt preds: %v, %d entries", err, len(rebuilt))
	}

	// A shard missing is reported; a run of another config is refused.
	code, stdout, _ = runCLI(t, "merge", outs[0], outs[0], "-o", filepath.Join(dir, "half"))
	if code != 0 || !strings.Contains(stdout, "missing shards: 2/2") {
		t.Errorf("merge of one shard twice: exit %d\n%s", code, stdout)
	}
	other := filepath.Join(dir, "other")
	if code, _, stderr = runCLI(t, "run", "--split", split, "--model", "scripted", "-o", other, "--shard", "1/2", "-c", "agent.step_limit=9", "--progress", "none"); code != 0 {
		t.Fatalf("other run: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, "merge", outs[0], other, "-o", filepath.Join(dir, "bad"))
	if code != 1 || !strings.Contains(stderr, "config") {
		t.Errorf("merge of different configs: exit %d, %s", code, stderr)
	}
}

// --max-duration cancels a run that would take too long: exit 130, the instances it cut short
// are infrastructure failures (retried on resume), and no container is left.
func TestMaxDuration(t *testing.T) {
	split, insts := demoInstances(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "slow.yaml")
	var sb strings.Builder
	for _, inst := range insts {
		sb.WriteString(inst.InstanceID + ":\n  - commands: [\"ls\"]\n    delay: 60s\n")
	}
	os.WriteFile(script, []byte(sb.String()), 0o644)
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted:"+script, "--workers", "6", "-o", out, "--max-duration", "8s", "--progress", "none")
	if code != exitInterrupted || !strings.Contains(stderr, "--max-duration") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, r := range readLedger(t, out) {
		if r.Category != results.CategoryInfrastructure {
			t.Errorf("record %+v, want an infrastructure failure", r)
		}
	}
	assertNoContainers(t, runID(t, out))
}
