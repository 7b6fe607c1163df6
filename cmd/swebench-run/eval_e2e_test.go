package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/eval"
)

// The demo instances evaluated for real: gold patches resolve, an empty patch is counted and not
// run, a broken patch is an apply failure, and a wrong fix is unresolved.
func TestEvalDemo(t *testing.T) {
	split, insts := demoInstances(t)
	dir := t.TempDir()

	gold := filepath.Join(dir, "gold")
	code, stdout, stderr := runCLI(t, "eval", "--predictions", "gold", "--split", split, "--workers", "3", "-o", gold, "--run-id", "gold-check")
	if code != 0 {
		t.Fatalf("gold eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	rep := readRunReport(t, filepath.Join(gold, "gold.gold-check.json"))
	if rep.ResolvedInstances != len(insts) || rep.SchemaVersion != 2 {
		t.Errorf("gold: %d of %d resolved (schema %d)", rep.ResolvedInstances, len(insts), rep.SchemaVersion)
	}
	if !strings.Contains(stdout, "resolved rate: 100.0%") {
		t.Errorf("gold summary lacks the resolved rate:\n%s", stdout)
	}

	// A predictions file with one case of each kind.
	a, b, c, d := insts[0], insts[1], insts[2], insts[3]
	unhelpful := "diff --git a/NOTES.txt b/NOTES.txt\nnew file mode 100644\n--- /dev/null\n+++ b/NOTES.txt\n@@ -0,0 +1 @@\n+applies, fixes nothing\n"
	broken := "diff --git a/nope.py b/nope.py\n--- a/nope.py\n+++ b/nope.py\n@@ -1,3 +1,3 @@\n-this line\n+is not there\n context\n"
	preds := map[string]map[string]any{
		a.InstanceID: {"model_name_or_path": "m/x", "instance_id": a.InstanceID, "model_patch": a.Patch},
		b.InstanceID: {"model_name_or_path": "m/x", "instance_id": b.InstanceID, "model_patch": ""},
		c.InstanceID: {"model_name_or_path": "m/x", "instance_id": c.InstanceID, "model_patch": broken},
		d.InstanceID: {"model_name_or_path": "m/x", "instance_id": d.InstanceID, "model_patch": unhelpful},
	}
	data, _ := json.Marshal(preds)
	predsPath := filepath.Join(dir, "preds.json")
	if err := os.WriteFile(predsPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "eval", "--predictions", predsPath, "--split", split, "--workers", "2", "--run-id", "mixed")
	if code != exitFailedInsts {
		t.Errorf("mixed eval: exit %d, want %d (an apply failure is an error instance)\n%s\n%s", code, exitFailedInsts, stdout, stderr)
	}
	rep = readRunReport(t, filepath.Join(dir, "eval", "m__x.mixed.json"))
	if got := strings.Join(rep.ResolvedIDs, ","); got != a.InstanceID {
		t.Errorf("resolved = %s, want %s", got, a.InstanceID)
	}
	if got := strings.Join(rep.EmptyPatchIDs, ","); got != b.InstanceID {
		t.Errorf("empty patches = %s, want %s", got, b.InstanceID)
	}
	if got := strings.Join(rep.ErrorIDs, ","); got != c.InstanceID {
		t.Errorf("errors = %s, want %s", got, c.InstanceID)
	}
	if reason := rep.ErrorReasons[c.InstanceID]; !strings.Contains(reason, string(eval.KindPatchApplyFailed)) {
		t.Errorf("broken patch reason = %q, want a patch apply failure", reason)
	}
	if got := strings.Join(rep.UnresolvedIDs, ","); got != d.InstanceID {
		t.Errorf("unresolved = %s, want %s", got, d.InstanceID)
	}
	if rep.TotalInstances != len(insts) || rep.SubmittedInstances != 4 {
		t.Errorf("total %d submitted %d, want %d and 4", rep.TotalInstances, rep.SubmittedInstances, len(insts))
	}
	for _, f := range []string{"patch.diff", "eval.sh", "test_output.txt", "report.json"} {
		if _, err := os.Stat(filepath.Join(dir, "eval", a.InstanceID, f)); err != nil {
			t.Errorf("eval/%s/%s: %v", a.InstanceID, f, err)
		}
	}

	// Regrading the logs just written, without containers, gives the same verdicts.
	code, _, stderr = runCLI(t, "eval", "--predictions", predsPath, "--split", split, "--from-logs", filepath.Join(dir, "eval"), "-o", filepath.Join(dir, "regraded"), "--run-id", "mixed")
	re := readRunReport(t, filepath.Join(dir, "regraded", "m__x.mixed.json"))
	if strings.Join(re.ResolvedIDs, ",") != a.InstanceID {
		t.Errorf("regrade: resolved %v (exit %d, %s)", re.ResolvedIDs, code, stderr)
	}
}

func readRunReport(t *testing.T, path string) eval.RunReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep eval.RunReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rep
}
