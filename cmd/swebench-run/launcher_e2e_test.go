package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/launcher/launchertest"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// useLauncher gives the backends this checkout's launcher for t.
func useLauncher(t *testing.T) {
	t.Helper()
	prev := launcherBinaries
	launcherBinaries = launchertest.Binaries(t)
	t.Cleanup(func() { launcherBinaries = prev })
}

// durations are what test runners print of their own run time ("4 passed in 0.20s").
var durations = regexp.MustCompile(`\b\d+\.\d+s\b`)

// scrub replaces the durations in the strings of v.
func scrub(v any) any {
	switch x := v.(type) {
	case string:
		return durations.ReplaceAllString(x, "N.NNs")
	case map[string]any:
		for k, e := range x {
			x[k] = scrub(e)
		}
	case []any:
		for i, e := range x {
			x[i] = scrub(e)
		}
	}
	return v
}

// messages returns the messages of every trajectory of out, by instance, without their
// timestamps and with the durations they print scrubbed.
func messages(t *testing.T, out string) map[string][]map[string]any {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(out, "*", "*.traj.json"))
	got := map[string][]map[string]any{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var traj struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal(data, &traj); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, m := range traj.Messages {
			delete(m, "timestamp")
			if extra, ok := m["extra"].(map[string]any); ok {
				delete(extra, "timestamp")
			}
			scrub(m)
		}
		got[filepath.Base(filepath.Dir(p))] = traj.Messages
	}
	return got
}

// launchersStarted counts the "launcher started" lines of a run's log.
func launchersStarted(t *testing.T, out string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "swebench-run.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), `"msg":"launcher started"`)
}

// compareRuns compares the messages of the runs without the launcher ("off", "off again") and
// with it ("auto"), message by message: each must equal the one without the launcher wherever
// the two runs without it agree (outputs that change from run to run, such as test durations,
// are left out). It returns how many messages it compared.
func compareRuns(t *testing.T, runs map[string]map[string][]map[string]any, want int) int {
	t.Helper()
	if len(runs["off"]) != want || len(runs["auto"]) != want {
		t.Fatalf("trajectories: %d without the launcher, %d with it, want %d", len(runs["off"]), len(runs["auto"]), want)
	}
	compared, unstable := 0, 0
	for id, off := range runs["off"] {
		again, on := runs["off again"][id], runs["auto"][id]
		if len(off) != len(on) || len(off) != len(again) {
			t.Errorf("%s: %d messages without the launcher (%d the second time), %d with it", id, len(off), len(again), len(on))
			continue
		}
		for i := range off {
			if !reflect.DeepEqual(off[i], again[i]) {
				unstable++
				continue
			}
			compared++
			if !reflect.DeepEqual(off[i], on[i]) {
				a, _ := json.Marshal(off[i])
				b, _ := json.Marshal(on[i])
				t.Errorf("%s, message %d differs with the launcher:\n without: %.1500s\n    with: %.1500s", id, i, a, b)
			}
		}
	}
	t.Logf("%d messages compared, %d left out (they differ between two runs without the launcher)", compared, unstable)
	return compared
}

// The demo's trajectories are the same with the launcher and without: every message the model
// saw, observations included. run.json records the setting.
func TestLauncherDemoTrajectories(t *testing.T) {
	split, insts := demoInstances(t)
	useLauncher(t)
	runs := map[string]map[string][]map[string]any{}
	for _, name := range []string{"off", "off again", "auto"} {
		mode, _, _ := strings.Cut(name, " ")
		out := t.TempDir()
		code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "2", "-o", out, "--progress", "none", "-c", "environment.launcher="+mode)
		if code != 0 {
			t.Fatalf("%s: exit code %d, stderr:\n%s", name, code, stderr)
		}
		runs[name] = messages(t, out)
		man, err := results.ReadManifest(out)
		if err != nil || man == nil {
			t.Fatal(err)
		}
		if env, _ := man.Config["environment"].(map[string]any); env["launcher"] != mode {
			t.Errorf("run.json's environment.launcher = %v, want %s", env["launcher"], mode)
		}
		want := 0
		if mode == "auto" {
			want = len(insts)
		}
		if n := launchersStarted(t, out); n != want {
			t.Errorf("launcher %s: %d launchers started, want %d", mode, n, want)
		}
		assertNoContainers(t, man.RunID)
	}
	if n := compareRuns(t, runs, len(insts)); n < 5*len(insts) {
		t.Errorf("only %d messages compared", n)
	}
}

// Real trajectories (mini-swe-agent's deepseek run on SWE-bench Lite dev, replayed on a demo
// image) observe the same with the launcher as without (see compareRuns).
func TestLauncherReplayedTrajectories(t *testing.T) {
	e := testenv.Docker(t)
	image := "swebench-run-demo/sweb.eval.x86_64.demo_1776_slugkit-23:latest"
	testenv.RequireImage(t, e, image)
	trajs := fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output")
	split := fixtureDir(t, "datasets", "SWE-bench_Lite.dev.parquet")
	useLauncher(t)
	ids := "pydicom__pydicom-901|pvlib__pvlib-python-1072"
	runs := map[string]map[string][]map[string]any{}
	for _, name := range []string{"off", "off again", "auto"} {
		mode, _, _ := strings.Cut(name, " ")
		out := t.TempDir()
		code, _, stderr := runCLI(t, "run", "--split", split, "--filter", ids, "--model", "replay:"+trajs, "--image-template", image,
			"--pull", "never", "--workers", "2", "-o", out, "--progress", "none", "-c", "environment.launcher="+mode)
		if code != 0 && code != 3 {
			t.Fatalf("%s: exit code %d, stderr:\n%s", name, code, stderr)
		}
		runs[name] = messages(t, out)
		if mode == "auto" && launchersStarted(t, out) != 2 {
			t.Errorf("launcher auto: %d launchers started, want 2", launchersStarted(t, out))
		}
	}
	if n := compareRuns(t, runs, 2); n < 100 {
		t.Errorf("only %d messages compared", n)
	}
}
