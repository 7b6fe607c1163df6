package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/submission"
)

// noLockFiles fails when a lock file was left anywhere under dir.
func noLockFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == results.LockFile {
			t.Errorf("lock file left behind: %s", p)
		}
		return nil
	})
}

// The fixture run (mini-swe-agent output and the harness's logs) to a folder, then --check on it.
func TestSubmissionCommandFixture(t *testing.T) {
	out := fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output")
	logs := fixtureDir(t, "runs", "deepseek-chat-lite-dev", "eval-logs")
	ds := fixtureDir(t, "datasets", "SWE-bench_Lite.dev.parquet")
	root := t.TempDir()
	code, stdout, stderr := runCLI(t, "submission", out, "--eval-logs", logs, "-o", root, "--split", "lite-dev", "--dataset", ds,
		"--name", "deepseek-chat", "--date", "20260102", "--site", "https://example.org", "--report", "https://example.org/report",
		"--author", "Ada Lovelace", "--author", "Charles Babbage", "--org", "Example", "--os-system", "--sb-cli", "--no-eval")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	dir := filepath.Join(root, "evaluation", "lite-dev", "20260102_deepseek-chat")
	sbFile := filepath.Join(root, "sb-cli", "20260102_deepseek-chat", "preds.json")
	for _, s := range []string{
		"Resolved 6 instances (26.09%)", "wrote " + dir,
		"sb-cli submit swe-bench_lite dev --predictions_path " + sbFile + " --run_id 20260102_deepseek-chat",
		"note    attempts:",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	meta, err := os.ReadFile(filepath.Join(dir, "metadata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"- Ada Lovelace\n    - Charles Babbage", "os_system: true", "os_model: false", "- Example", "- deepseek-chat"} {
		if !strings.Contains(string(meta), s) {
			t.Errorf("metadata.yaml lacks %q:\n%s", s, meta)
		}
	}
	noLockFiles(t, root)

	code, stdout, stderr = runCLI(t, "submission", "--check", dir, "--dataset", ds)
	if code != 0 || !strings.Contains(stdout, dir+" passes the checks") {
		t.Errorf("--check: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A damaged folder fails the check with exit 5, naming what is wrong.
	var res submission.Results
	data, _ := os.ReadFile(filepath.Join(dir, "results", "results.json"))
	json.Unmarshal(data, &res)
	res.Resolved = append(res.Resolved, "pvlib__pvlib-python-1072")
	data, _ = json.Marshal(res)
	os.WriteFile(filepath.Join(dir, "results", "results.json"), data, 0o644)
	code, stdout, stderr = runCLI(t, "submission", "--check", dir, "--dataset", ds)
	if code != exitChecksFailed || !strings.Contains(stdout, "fail    results: results/results.json resolved lists 1 the recomputation does not (pvlib__pvlib-python-1072)") ||
		!strings.Contains(stderr, "does not pass") {
		t.Errorf("--check of a damaged folder: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// The folder exists: a new build needs --force.
	code, _, stderr = runCLI(t, "submission", out, "--eval-logs", logs, "-o", root, "--split", "lite-dev", "--dataset", ds, "--name", "deepseek-chat", "--date", "20260102", "--no-eval")
	if code != exitFailure || !strings.Contains(stderr, "--force") {
		t.Errorf("rebuilding without --force: exit %d\n%s", code, stderr)
	}
}

// Failed checks print every finding and exit 5; nothing is written.
func TestSubmissionCommandChecksFail(t *testing.T) {
	src := fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output")
	logs := fixtureDir(t, "runs", "deepseek-chat-lite-dev", "eval-logs")
	ds := fixtureDir(t, "datasets", "SWE-bench_Lite.dev.parquet")
	out := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(out, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	predsPath := filepath.Join(out, "preds.json")
	var preds map[string]map[string]any
	data, _ := os.ReadFile(predsPath)
	json.Unmarshal(data, &preds)
	preds["pydicom__pydicom-901"]["model_name_or_path"] = "openai/gpt-5"
	data, _ = json.Marshal(preds)
	os.Chmod(predsPath, 0o644)
	if err := os.WriteFile(predsPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	code, stdout, stderr := runCLI(t, "submission", out, "--eval-logs", logs, "-o", root, "--split", "lite-dev", "--dataset", ds, "--name", "x", "--no-eval", "--force")
	if code != exitChecksFailed || !strings.Contains(stdout, "fail    model-name:") || !strings.Contains(stdout, `"openai/gpt-5" (1: pydicom__pydicom-901)`) {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("a refused build left %v", entries)
	}
}

// Another process building into the same folder: the second stops at once, naming the holder.
func TestSubmissionCommandLocked(t *testing.T) {
	out := fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output")
	root := t.TempDir()
	lock, err := results.LockDir(context.Background(), root, results.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	code, _, stderr := runCLI(t, "submission", out, "-o", root, "--split", "lite-dev", "--dataset", "x.parquet", "--name", "x", "--no-eval")
	if code != exitFailure || !strings.Contains(stderr, "is in use by") || !strings.Contains(stderr, "--wait") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// Bad command lines are usage errors, before anything is read.
func TestSubmissionCommandUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"submission", "run", "--split", "lite", "--name", "x"}, "-o DIR"},
		{[]string{"submission", "run", "-o", "d", "--name", "x"}, "--split"},
		{[]string{"submission", "run", "-o", "d", "--split", "lite"}, "--name"},
		{[]string{"submission", "-o", "d", "--split", "lite", "--name", "x"}, "one run directory"},
		{[]string{"submission", "run", "-o", "d", "--split", "lite", "--name", "x", "--attempts", "3"}, "--attempts"},
		{[]string{"submission", "run", "-o", "d", "--split", "lite", "--name", "x", "--date", "2026-01-02"}, "--date"},
		{[]string{"submission", "run", "-o", "d", "--split", "lite", "--name", "a/b"}, "--name"},
		{[]string{"submission", "run", "-o", "d", "--split", "demo", "--name", "x"}, "--dataset"},
		{[]string{"submission", "run", "-o", "d", "--split", "multimodal", "--name", "x"}, "sb-cli submit swe-bench-m"},
		{[]string{"submission", "--check", "d", "extra"}, "unexpected argument"},
		{[]string{"submission", "run", "-o", "d", "--split", "lite", "--name", "x", "--pull", "often"}, "--pull"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming %q", code, stdout, stderr, tt.want)
			}
		})
	}
}
