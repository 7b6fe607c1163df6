package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/submission"
)

// The demo end to end: a run of the scripted model (not evaluated), then its submission folder,
// whose predictions are evaluated for real (fresh containers of the local demo images) into the
// run's eval/ folder. The demo dataset is no leaderboard split: the folder is named "demo" and
// graded against the dataset given with --dataset, as a dataset of one's own is.
func TestSubmissionDemo(t *testing.T) {
	split, insts := demoInstances(t)
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "3", "-o", out, "--progress", "none")
	if code != 0 {
		t.Fatalf("demo run: exit %d\n%s", code, stderr)
	}
	root := t.TempDir()
	args := []string{"submission", out, "-o", root, "--split", "demo", "--dataset", split, "--name", "scripted-demo", "--date", "20260102",
		"--site", "https://example.org", "--report", "https://example.org/report", "--author", "Ada Lovelace", "--org", "Example", "--os-system"}

	// Without evaluation the predictions have no log: the checks fail, naming them.
	code, stdout, stderr := runCLI(t, append(args, "--no-eval")...)
	if code != exitChecksFailed || !strings.Contains(stdout, "fail    logs: 6 predictions have no evaluation log") {
		t.Fatalf("--no-eval: exit %d\n%s\n%s", code, stdout, stderr)
	}

	code, stdout, stderr = runCLI(t, append(args, "--workers", "3")...)
	if code != 0 {
		t.Fatalf("submission: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	dir := filepath.Join(root, "evaluation", "demo", "20260102_scripted-demo")
	for _, s := range []string{"Resolved 6 instances (100.0%)", "wrote " + dir, "note    dataset: the run used the graded dataset itself", "demo is not a leaderboard split"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	if !strings.Contains(stderr, "evaluating 6 predictions that have no log yet") {
		t.Errorf("stderr does not say what was evaluated:\n%s", stderr)
	}

	var ids []string
	for _, inst := range insts {
		ids = append(ids, inst.InstanceID)
	}
	sort.Strings(ids)
	var res submission.Results
	data, err := os.ReadFile(filepath.Join(dir, "results", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Resolved, ids) || len(res.NoGeneration)+len(res.NoLogs) != 0 {
		t.Errorf("results.json = %+v, want every demo instance resolved", res)
	}
	for _, id := range ids {
		for _, p := range []string{
			filepath.Join(dir, "trajs", id+".traj.json"),
			filepath.Join(dir, "logs", id, "patch.diff"), filepath.Join(dir, "logs", id, "eval.sh"),
			filepath.Join(dir, "logs", id, "test_output.txt"), filepath.Join(dir, "logs", id, "report.json"),
			filepath.Join(out, "eval", id, "report.json"), // evaluated into the run
		} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%v", err)
			}
		}
	}
	meta, _ := os.ReadFile(filepath.Join(dir, "metadata.yaml"))
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.Contains(string(meta), `attempts: "1"`) || !strings.Contains(string(meta), "- scripted") {
		t.Errorf("metadata.yaml:\n%s", meta)
	}
	for _, s := range []string{"- [x] Is a pass@1 submission", "- [x] Does not use SWE-bench test knowledge", "- [x] Does not use the `hints` field",
		"| tool | swebench-run ", "`run.json`"} {
		if !strings.Contains(string(readme), s) {
			t.Errorf("README lacks %q:\n%s", s, readme)
		}
	}
	noLockFiles(t, root)
	noLockFiles(t, out)

	code, stdout, stderr = runCLI(t, "submission", "--check", dir, "--dataset", split)
	if code != 0 {
		t.Errorf("--check: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
