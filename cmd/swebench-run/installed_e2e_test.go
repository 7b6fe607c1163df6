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

// testAgentInstall builds the test agent static into an install folder and returns it with its
// checksum.
func testAgentInstall(t *testing.T) (string, string) {
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
	return dir, sum
}

// A sweep of our loop against the installed test agent over the demo, compared with paired
// statistics: both variants resolve every instance, so the pair has no flip.
func TestSweepLoopAgainstInstalledAgent(t *testing.T) {
	split, insts := demoInstances(t)
	dir, sum := testAgentInstall(t)
	tmp := t.TempDir()
	agentCfg := filepath.Join(tmp, "testagent.yaml")
	y := "agent:\n  kind: installed\n  installed:\n    name: custom\n    command: \"{install_dir}/bin/testagent -wire chat -task {task_file}\"\n" +
		"    install: {path: " + dir + ", sha256: " + sum + "}\n"
	if err := os.WriteFile(agentCfg, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "sweeps")
	file := filepath.Join(tmp, "sweep.yaml")
	sw := "name: loop-vs-agent\noutput: " + out + "\ndatasets: [" + split + "]\nmodels:\n  - {name: loop, model: scripted}\n" +
		"  - {name: testagent, model: scripted, config: [swebench.yaml, " + agentCfg + "]}\nworkers: 3\neval: true\nbaseline: loop\n"
	if err := os.WriteFile(file, []byte(sw), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "sweep", "-c", file, "--progress", "none")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	folder := sweepFolder(t, out)
	res := readCompareJSON(t, folder)
	if len(res.Pairs) != 1 {
		t.Fatalf("pairs %+v", res.Pairs)
	}
	p := res.Pairs[0]
	if p.Common != len(insts) || p.ResolvedA != float64(len(insts)) || p.ResolvedB != float64(len(insts)) || len(p.Newly)+len(p.Regressed) != 0 {
		t.Errorf("pair %+v: want both variants resolving all %d instances", p, len(insts))
	}
	if _, err := os.Stat(filepath.Join(folder, "testagent", insts[0].InstanceID, "agent", "proxy.jsonl")); err != nil {
		t.Errorf("the installed cell has no proxy record: %v", err)
	}
	if _, err := os.Stat(filepath.Join(folder, "loop", insts[0].InstanceID, "agent")); err == nil {
		t.Error("the loop's cell has an agent/ folder")
	}
}

func runInstalledAgentDemo(t *testing.T, split string, n int, extra ...string) {
	t.Helper()
	dir, sum := testAgentInstall(t)
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
