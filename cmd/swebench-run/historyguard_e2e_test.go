package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// plantedRun is one family's planted image (scripts/build-planted-image.sh) and the demo row it
// was planted from.
type plantedRun struct {
	family, dataset, imageColumn string
}

// plantedDataset writes the first row of the family's demo dataset with its image replaced by
// the planted one, and the exploit turns (demo/exploit/turns.yaml) for it as scripted.yaml
// beside it. It returns the dataset's path and the instance id.
func plantedDataset(t *testing.T, p plantedRun) (string, string) {
	t.Helper()
	root := testenv.RepoRoot(t)
	f, err := os.Open(filepath.Join(root, p.dataset))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	if !sc.Scan() {
		t.Fatalf("%s: no row", p.dataset)
	}
	var row map[string]any
	if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
		t.Fatal(err)
	}
	row[p.imageColumn] = "swebench-run-planted/" + p.family + ":1"
	id, _ := row["instance_id"].(string)
	dir := t.TempDir()
	data, _ := json.Marshal(row)
	path := filepath.Join(dir, "dataset.jsonl")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	turnsData, err := os.ReadFile(filepath.Join(root, "demo", "exploit", "turns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var turns []model.ScriptedTurn
	if err := yaml.Unmarshal(turnsData, &turns); err != nil {
		t.Fatal(err)
	}
	script, _ := yaml.Marshal(map[string][]model.ScriptedTurn{id: turns})
	if err := os.WriteFile(filepath.Join(dir, "scripted.yaml"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, id
}

// The exploit chain of mini-swe-agent issue #787 on planted images: behind the guard (past,
// none) it finds nothing, submits nothing and does not resolve; with as-is it reads the fix,
// submits it and resolves. Its trajectory is flagged either way, as revealing only with as-is.
// On the SWE-smith image the agent starts on the bug, and git diff HEAD~1/HEAD~2 and the
// branches show nothing of the fix behind the guard.
func TestHistoryGuardExploit(t *testing.T) {
	e := testenv.Docker(t)
	for _, p := range []plantedRun{
		{"swebench", "demo/dataset.jsonl", "image"},
		{"smith", "demo/smith/dataset.jsonl", "image_name"},
	} {
		for _, mode := range []string{"past", "none", "as-is"} {
			t.Run(p.family+"/"+mode, func(t *testing.T) {
				testenv.RequireImage(t, e, "swebench-run-planted/"+p.family+":1")
				split, id := plantedDataset(t, p)
				out := t.TempDir()
				code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "1", "-o", out, "--progress", "none", "--eval",
					"-c", "environment.history="+mode)
				if code != 0 {
					t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
				}
				recs := readLedger(t, out)
				if len(recs) != 1 || recs[0].ExitStatus != "Submitted" {
					t.Fatalf("ledger %+v", recs)
				}
				applied := mode
				if p.family == "smith" && mode == "past" {
					applied = "none" // SWE-smith's past is the answer
				}
				if recs[0].History != applied {
					t.Errorf("status.jsonl history %q, want %q", recs[0].History, applied)
				}
				traj, err := results.ReadTrajectory(filepath.Join(out, id, id+".traj.json"))
				if err != nil {
					t.Fatal(err)
				}
				first := ""
				for _, m := range traj.Messages {
					if m["role"] == "tool" {
						first, _ = m["content"].(string)
						break
					}
				}
				guarded := mode != "as-is"
				if strings.Contains(first, "planted") != !guarded {
					t.Errorf("%s: the first command's output:\n%s", mode, first)
				}
				if p.family == "smith" {
					if guarded && (strings.Contains(first, "addict/__init__.py") || strings.Contains(first, "main")) {
						t.Errorf("git diff HEAD~1/HEAD~2 or the branches show the fix behind the guard:\n%s", first)
					}
					if !guarded && !strings.Contains(first, "addict/__init__.py") {
						t.Errorf("as-is: git diff HEAD~2 shows nothing:\n%s", first)
					}
				}
				pred := traj.Info.Submission
				if guarded != (strings.TrimSpace(pred) == "") {
					t.Errorf("%s: the exploit submitted %q", mode, pred)
				}
				man, err := results.ReadManifest(out)
				if err != nil || man == nil {
					t.Fatal(err)
				}
				if results.HistoryMode(man.Config) != mode {
					t.Errorf("run.json records history %q", results.HistoryMode(man.Config))
				}
				report, _ := filepath.Glob(filepath.Join(out, "eval", id, "report.json"))
				resolved := false
				for _, r := range report {
					data, _ := os.ReadFile(r)
					resolved = resolved || strings.Contains(string(data), `"resolved": true`)
				}
				if len(report) == 0 && !guarded {
					t.Fatalf("no report.json under %s/eval", out)
				} // behind the guard the patch is empty: an empty patch is not graded
				if resolved == guarded {
					t.Errorf("%s: resolved %v", mode, resolved)
				}
				code, stdout, stderr := runCLI(t, "audit", out, "--json")
				if code != 0 && code != 3 {
					t.Fatalf("audit: exit code %d: %s", code, stderr)
				}
				flags, revealed := 0, 0
				for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
					var f struct {
						Instance string `json:"instance"`
						Revealed bool   `json:"revealed"`
					}
					if json.Unmarshal([]byte(line), &f) == nil && f.Instance == id {
						flags++
						if f.Revealed {
							revealed++
						}
					}
				}
				if flags == 0 || (revealed > 0) == guarded {
					t.Errorf("%s: audit found %d flags, %d revealing:\n%s", mode, flags, revealed, stdout)
				}
				assertNoContainers(t, man.RunID)
			})
		}
	}
}
