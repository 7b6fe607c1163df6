package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/agent/installed"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The offline demo with an installed agent, as a user runs it: the test agent through the
// custom profile, the scripted model served behind the model proxy. A missing pin stops the
// run before anything is written, naming the checksum; pinned, the agent solves all six
// instances, graded by the evaluation, each with its cost and its proxy record.
func TestRunInstalledAgentDemo(t *testing.T) {
	split, insts := demoInstances(t)
	runInstalledAgentDemo(t, split, len(insts))
}

// The same on the Kubernetes test cluster: the pods reach the proxy at this host's address.
func TestRunInstalledAgentDemoKube(t *testing.T) {
	_, split := kubeDemo(t)
	runInstalledAgentDemo(t, split, 6, "--backend", "kubernetes")
}

func runInstalledAgentDemo(t *testing.T, split string, n int, extra ...string) {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "testagent"), "./agent/installed/testagent")
	build.Dir = testenv.RepoRoot(t)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the test agent: %v\n%s", err, out)
	}
	sum, err := installed.Checksum(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "testagent.yaml")
	write := func(pin string) {
		y := "agent:\n  kind: installed\n  installed:\n    name: custom\n    command: \"{install_dir}/bin/testagent -wire chat -task {task_file}\"\n" +
			"    install: {path: " + dir + ", sha256: \"" + pin + "\"}\n"
		if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	write("")
	code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "-c", "swebench.yaml", "-c", cfg, "-o", out, "--progress", "none")
	if code == 0 || !strings.Contains(stderr, "has sha256 "+sum) {
		t.Fatalf("an unpinned install: exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "run.json")); err == nil {
		t.Error("an unpinned install left a run.json behind")
	}
	write(sum)
	code, stdout, stderr := runCLI(t, append([]string{"run", "--split", split, "--model", "scripted", "-c", "swebench.yaml", "-c", cfg, "-o", out, "--workers", "3", "--eval", "--progress", "none"}, extra...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "6 resolved") {
		t.Errorf("want 6 resolved:\n%s\n%s", stdout, stderr)
	}
	recs := readLedger(t, out)
	if len(recs) != n {
		t.Fatalf("%d ledger records, want %d", len(recs), n)
	}
	code, stdout, _ = runCLI(t, "inspect", filepath.Join(out, recs[0].InstanceID, recs[0].InstanceID+".traj.json"))
	if code != 0 || !strings.Contains(stdout, "agent        custom (installed, any wire): exit code 0") || !strings.Contains(stdout, "$ git ls-files") {
		t.Errorf("inspect: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, "stats", out)
	if code != 0 || !strings.Contains(stdout, "resolved: 6 of 6") {
		t.Errorf("stats: exit %d\n%s", code, stdout)
	}
	for _, r := range recs {
		if r.ExitStatus != "Submitted" || r.Cost <= 0 || r.APICalls < 5 {
			t.Errorf("%s: %s, $%v, %d calls", r.InstanceID, r.ExitStatus, r.Cost, r.APICalls)
		}
		data, err := os.ReadFile(filepath.Join(out, r.InstanceID, "agent", "proxy.jsonl"))
		if err != nil || strings.Count(string(data), "\n") != r.APICalls {
			t.Errorf("%s: proxy record of %d lines for %d calls (%v)", r.InstanceID, strings.Count(string(data), "\n"), r.APICalls, err)
		}
		var traj struct {
			Info struct {
				SwebenchRun struct {
					Agent struct {
						Name     string `json:"name"`
						ExitCode int    `json:"exit_code"`
					} `json:"agent"`
				} `json:"swebench_run"`
			} `json:"info"`
		}
		b, _ := os.ReadFile(filepath.Join(out, r.InstanceID, r.InstanceID+".traj.json"))
		if err := json.Unmarshal(b, &traj); err != nil || traj.Info.SwebenchRun.Agent.Name != "custom" {
			t.Errorf("%s: trajectory's agent info %+v (%v)", r.InstanceID, traj.Info.SwebenchRun.Agent, err)
		}
	}
}
