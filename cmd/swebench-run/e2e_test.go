package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// demoInstances loads the project's demo dataset and checks its images are built.
func demoInstances(t *testing.T) (string, []dataset.Instance) {
	t.Helper()
	e := testenv.Docker(t)
	path := filepath.Join(testenv.RepoRoot(t), "demo", "dataset.jsonl")
	loaded, err := dataset.Load(context.Background(), path, dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range loaded.Instances {
		testenv.RequireImage(t, e, loaded.Instances[i].Image)
	}
	return path, loaded.Instances
}

// execCLI runs a command line through the command tree and returns the command's error rather
// than the exit code.
func execCLI(args []string, stdout, stderr io.Writer) error {
	_, err := execute(context.Background(), nil, args, stdout, stderr)
	return err
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func readLedger(t *testing.T, out string) []results.Record {
	t.Helper()
	f, err := os.Open(filepath.Join(out, results.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []results.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r results.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("ledger line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// The full demo with 2 workers, checked file by file; then a resume that skips everything, and
// a --redo-existing that runs everything again.
func TestDemoRun(t *testing.T) {
	split, insts := demoInstances(t)
	out := t.TempDir()
	code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "2", "-o", out, "--progress", "lines")
	if code != 0 {
		t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
	}

	// preds.json: one entry per instance, the gold patch, mini-swe-agent's shape.
	var preds map[string]results.Prediction
	data, err := os.ReadFile(filepath.Join(out, "preds.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &preds); err != nil {
		t.Fatalf("preds.json: %v", err)
	}
	if len(preds) != len(insts) {
		t.Errorf("preds.json has %d entries, want %d", len(preds), len(insts))
	}
	for _, inst := range insts {
		p, ok := preds[inst.InstanceID]
		if !ok {
			t.Errorf("preds.json lacks %s", inst.InstanceID)
			continue
		}
		if p.ModelPatch != inst.Patch {
			t.Errorf("%s: model_patch differs from the gold patch:\n%s\nwant:\n%s", inst.InstanceID, p.ModelPatch, inst.Patch)
		}
		if p.InstanceID != inst.InstanceID || p.ModelNameOrPath != "scripted" {
			t.Errorf("%s: prediction = %+v", inst.InstanceID, p)
		}

		// The trajectory: mini-swe-agent-1.1 layout, ending in the submission.
		var traj struct {
			Info struct {
				ExitStatus string `json:"exit_status"`
				Submission string `json:"submission"`
				ModelStats struct {
					APICalls int `json:"api_calls"`
				} `json:"model_stats"`
				Config map[string]any `json:"config"`
			} `json:"info"`
			Messages         []map[string]any `json:"messages"`
			TrajectoryFormat string           `json:"trajectory_format"`
			InstanceID       string           `json:"instance_id"`
		}
		data, err := os.ReadFile(filepath.Join(out, inst.InstanceID, inst.InstanceID+".traj.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &traj); err != nil {
			t.Fatalf("%s trajectory: %v", inst.InstanceID, err)
		}
		if traj.TrajectoryFormat != "mini-swe-agent-1.1" || traj.InstanceID != inst.InstanceID {
			t.Errorf("%s: format %q id %q", inst.InstanceID, traj.TrajectoryFormat, traj.InstanceID)
		}
		if traj.Info.ExitStatus != "Submitted" || traj.Info.Submission != inst.Patch {
			t.Errorf("%s: exit %q, submission matches gold: %v", inst.InstanceID, traj.Info.ExitStatus, traj.Info.Submission == inst.Patch)
		}
		n := len(traj.Messages)
		if n < 4 || traj.Messages[0]["role"] != "system" || traj.Messages[1]["role"] != "user" || traj.Messages[n-1]["role"] != "exit" {
			t.Errorf("%s: unexpected message roles", inst.InstanceID)
		}
		if !strings.Contains(traj.Messages[1]["content"].(string), inst.ProblemStatement[:20]) {
			t.Errorf("%s: the instance message lacks the problem statement", inst.InstanceID)
		}
		if traj.Info.Config["agent"] == nil {
			t.Errorf("%s: info.config lacks the agent section", inst.InstanceID)
		}
	}

	// status.jsonl: one model-category record per instance.
	recs := readLedger(t, out)
	if len(recs) != len(insts) {
		t.Errorf("ledger has %d records, want %d", len(recs), len(insts))
	}
	for _, r := range recs {
		if r.ExitStatus != "Submitted" || r.Category != results.CategoryModel || r.Attempt != 1 || r.ImageID == "" || r.End == 0 {
			t.Errorf("ledger record %+v", r)
		}
	}

	// exit_statuses_<time>.yaml in mini-swe-agent's shape.
	matches, _ := filepath.Glob(filepath.Join(out, "exit_statuses_*.yaml"))
	if len(matches) != 1 {
		t.Fatalf("exit status files: %v", matches)
	}
	var es struct {
		ByStatus map[string][]string `yaml:"instances_by_exit_status"`
	}
	data, _ = os.ReadFile(matches[0])
	if err := yaml.Unmarshal(data, &es); err != nil {
		t.Fatal(err)
	}
	if got := len(es.ByStatus["Submitted"]); got != len(insts) {
		t.Errorf("exit statuses list %d Submitted, want %d", got, len(insts))
	}

	// run.json, and no container of the run left behind.
	man, err := results.ReadManifest(out)
	if err != nil || man == nil {
		t.Fatalf("run.json: %v", err)
	}
	if man.Instances != len(insts) || man.Model != "scripted" || man.RunID == "" {
		t.Errorf("manifest = %+v", man)
	}
	assertNoContainers(t, man.RunID)

	// Resume: everything finished, nothing runs.
	code, _, stderr = runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "2", "-o", out, "--progress", "lines")
	if code != 0 {
		t.Fatalf("resume: exit code %d, stderr:\n%s", code, stderr)
	}
	if got := len(readLedger(t, out)); got != len(insts) {
		t.Errorf("resume ran instances again: %d ledger records", got)
	}
	if !strings.Contains(stderr, "0 ran") {
		t.Errorf("resume summary does not say 0 ran:\n%s", stderr)
	}

	// A different model on the same directory is refused.
	code, _, stderr = runCLI(t, "run", "--split", split, "--model", "scripted:"+filepath.Join(filepath.Dir(split), "scripted.yaml"), "-o", out, "-c", "agent.step_limit=5")
	if code != 1 || !strings.Contains(stderr, "config") {
		t.Errorf("resume with another config: exit %d, stderr %s", code, stderr)
	}

	// --redo-existing runs everything again; each instance gets attempt 2.
	code, _, stderr = runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "3", "-o", out, "--redo-existing", "--filter", "demo__(pag|slug)", "--progress", "lines")
	if code != 0 {
		t.Fatalf("redo: exit code %d, stderr:\n%s", code, stderr)
	}
	recs = readLedger(t, out)
	if got, want := len(recs), len(insts)+2; got != want {
		t.Errorf("after redo of 2: %d ledger records, want %d", got, want)
	}
	if last := recs[len(recs)-1]; last.Attempt != 2 {
		t.Errorf("redo record attempt = %d, want 2", last.Attempt)
	}
}

// Cancelling a run removes every container it started, and the instances it cut short are
// retried by the next run.
func TestCancelRemovesContainers(t *testing.T) {
	split, insts := demoInstances(t)
	dir := t.TempDir()
	// A slow script: every instance waits in its first turn, with its container running.
	script := filepath.Join(dir, "slow.yaml")
	var sb strings.Builder
	for _, inst := range insts {
		sb.WriteString(inst.InstanceID + ":\n  - commands: [\"ls\"]\n    delay: 30s\n")
	}
	if err := os.WriteFile(script, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		_, err := execute(ctx, stop, []string{"run", "--split", split, "--model", "scripted:" + script, "--workers", "3", "-o", out, "--progress", "none"}, &bytes.Buffer{}, &stderr)
		done <- err
	}()
	// Wait until containers are running, then cancel (the second Ctrl-C).
	deadline := time.Now().Add(60 * time.Second)
	var runID string
	for time.Now().Before(deadline) {
		if man, _ := results.ReadManifest(out); man != nil {
			runID = man.RunID
			if len(listContainers(t, runID)) == 3 {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if runID == "" || len(listContainers(t, runID)) != 3 {
		cancel()
		<-done
		t.Fatalf("containers never started; stderr:\n%s", stderr.String())
	}
	close(stop)
	cancel()
	err := <-done
	if code := exitCode(err, &bytes.Buffer{}); code != exitInterrupted {
		t.Errorf("exit code %d (%v), want %d", code, err, exitInterrupted)
	}
	assertNoContainers(t, runID)
	for _, r := range readLedger(t, out) {
		if r.Category != results.CategoryInfrastructure {
			t.Errorf("cut-short instance recorded as %+v, want an infrastructure failure", r)
		}
	}
}
