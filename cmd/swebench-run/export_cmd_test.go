package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/export"
	"github.com/swebench-run/swebench-run/export/exporttest"
)

// exportOut is the file of one format in dir.
func exportOut(dir string, f export.Format) string {
	if f == export.Parquet {
		return filepath.Join(dir, string(f), "trajs.parquet")
	}
	return filepath.Join(dir, string(f), "trajs.jsonl")
}

// checkExport reads a written file with its format's independent reader: the number of
// trajectories, and the rows of a Parquet file.
func checkExport(t *testing.T, f export.Format, path string) (int, []export.Row) {
	t.Helper()
	switch f {
	case export.OpenAI:
		n, err := exporttest.CheckOpenAI(path)
		if err != nil {
			t.Fatal(err)
		}
		return n, nil
	case export.ShareGPT:
		n, err := exporttest.CheckShareGPT(path)
		if err != nil {
			t.Fatal(err)
		}
		return n, nil
	case export.Parquet:
		rows, err := exporttest.ReadParquet(path)
		if err != nil {
			t.Fatal(err)
		}
		return len(rows), rows
	}
	lines, err := exporttest.Lines(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(lines), nil
}

// A demo run (the scripted model, tool calls, evaluated) and a text-mode run of a mini-swe-agent
// 1.x config export in every format, each read back by its format's reader.
func TestExportDemoRun(t *testing.T) {
	split, _ := demoInstances(t)
	runs := t.TempDir()
	tools, text := filepath.Join(runs, "demo"), filepath.Join(runs, "demo-v1")
	if code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "3", "-o", tools, "--eval", "--progress", "none"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "2", "-o", text, "-c", "swebench_v1.yaml",
		"--filter", "demo__(date|money)", "--progress", "none"); code != 0 {
		t.Fatalf("run (1.x config): exit %d\n%s", code, stderr)
	}
	out := t.TempDir()
	for _, f := range export.Formats {
		for _, c := range []struct {
			run         string
			n           int
			toolCalling bool
			extra       []string
		}{{tools, 6, true, []string{"--resolved"}}, {text, 2, false, nil}} {
			path := exportOut(filepath.Join(out, filepath.Base(c.run)), f)
			os.MkdirAll(filepath.Dir(path), 0o755)
			args := append([]string{"export", c.run, "-o", path, "--format", string(f), "--progress", "lines"}, c.extra...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, stderr)
			}
			if !strings.HasPrefix(stdout, path+"\n") || !strings.Contains(stderr, "kept $0.0000") {
				t.Errorf("%s: stdout %q, stderr:\n%s", f, stdout, stderr)
			}
			n, rows := checkExport(t, f, path)
			if n != c.n {
				t.Errorf("%s of %s: %d trajectories, want %d", f, c.run, n, c.n)
			}
			for _, r := range rows {
				if r.ToolCalling != c.toolCalling || r.Model != "scripted" || r.Family != "" || r.Dataset != "dataset.jsonl" || r.DatasetRevision == "" {
					t.Errorf("%s: tool calling %v, model %q, family %q, dataset %q %q", r.InstanceID, r.ToolCalling, r.Model, r.Family, r.Dataset, r.DatasetRevision)
				}
				if c.toolCalling && (r.Resolved == nil || !*r.Resolved) {
					t.Errorf("%s: resolved %v, want true (the demo's evaluation)", r.InstanceID, r.Resolved)
				}
				if !c.toolCalling && r.Resolved != nil {
					t.Errorf("%s: resolved %v without an evaluation", r.InstanceID, *r.Resolved)
				}
			}
		}
	}
}

// A sweep from the command line: --resolved --exclude-flagged --per-instance best, split by
// repository; the JSON summary names the files.
func TestExportSweep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nightly")
	yes := exporttest.Bool(true)
	cells := []exporttest.Cell{
		{Name: "m-r1", Variant: "m", Repeat: 1, Run: exporttest.Run{Instances: []exporttest.Instance{
			{ID: "a__x-1", Steps: 4, Resolved: yes}, {ID: "b__y-1", Steps: 3, Resolved: yes, Commands: []string{"git fetch origin"}}, {ID: "c__z-1", Steps: 3, Resolved: exporttest.Bool(false)},
		}}},
		{Name: "m-r2", Variant: "m", Repeat: 2, Run: exporttest.Run{Instances: []exporttest.Instance{
			{ID: "a__x-1", Steps: 2, Resolved: yes}, {ID: "b__y-1", Steps: 5, Resolved: yes}, {ID: "c__z-1", Steps: 3, Resolved: yes},
		}}},
	}
	if err := exporttest.WriteSweep(dir, "nightly", cells); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "t.jsonl")
	code, stdout, stderr := runCLI(t, "export", dir, "-o", out, "--format", "openai", "--resolved", "--exclude-flagged", "--per-instance", "best",
		"--val-fraction", "0.34", "--seed", "3", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var sum export.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if sum.Written != 3 || len(sum.Files) != 2 || sum.Skipped[export.OutcomeFlagged] != 1 || sum.Skipped[export.OutcomeUnresolved] != 1 {
		t.Errorf("summary %+v", sum)
	}
	n := 0
	for _, f := range sum.Files {
		k, _ := checkExport(t, export.OpenAI, f.Path)
		n += k
	}
	if n != 3 || !strings.HasSuffix(sum.Files[0].Path, "t.train.jsonl") || !strings.HasSuffix(sum.Files[1].Path, "t.validation.jsonl") {
		t.Errorf("%d trajectories in %+v", n, sum.Files)
	}
}

// --system-prompt takes a text file, or the system template of a SWE-agent or mini-swe-agent
// config.
func TestExportSystemPrompt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if err := exporttest.WriteRun(dir, exporttest.Run{Instances: []exporttest.Instance{{ID: "a__x-1"}}}); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	files := map[string]string{
		"p.txt":          "Plain prompt.\n",
		"swe-agent.yaml": "agent:\n  templates:\n    system_template: |-\n      SWE-agent prompt.\n",
		"mini.yaml":      "agent:\n  system_template: Mini prompt.\n",
	}
	want := map[string]string{"p.txt": "Plain prompt.\n", "swe-agent.yaml": "SWE-agent prompt.", "mini.yaml": "Mini prompt."}
	for name, content := range files {
		p := filepath.Join(tmp, name)
		os.WriteFile(p, []byte(content), 0o644)
		out := filepath.Join(tmp, name+".jsonl")
		if code, _, stderr := runCLI(t, "export", dir, "-o", out, "--format", "swesmith", "--system-prompt", p, "--quiet"); code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		lines, _ := exporttest.Lines(out)
		msgs := lines[0]["messages"].([]any)
		if got := msgs[0].(map[string]any)["content"]; got != want[name] {
			t.Errorf("%s: system prompt %q, want %q", name, got, want[name])
		}
	}
	bad := filepath.Join(tmp, "empty.yaml")
	os.WriteFile(bad, []byte("agent: {}\n"), 0o644)
	if code, _, stderr := runCLI(t, "export", dir, "-o", filepath.Join(tmp, "x.jsonl"), "--format", "openai", "--system-prompt", bad); code != 1 || !strings.Contains(stderr, "no agent.templates.system_template") {
		t.Errorf("a config without a system template: exit %d\n%s", code, stderr)
	}
}

// Ctrl-C stops an export at once: exit 130, nothing written.
func TestExportInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if err := exporttest.WriteRun(dir, exporttest.Run{Instances: []exporttest.Instance{{ID: "a__x-1"}}}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "o.jsonl")
	stop := make(chan struct{})
	close(stop)
	var stderr bytes.Buffer
	_, err := execute(context.Background(), stop, []string{"export", dir, "-o", out, "--format", "openai", "--quiet"}, &bytes.Buffer{}, &stderr)
	if code := exitCode(err, &stderr); code != exitInterrupted || !strings.Contains(stderr.String(), "nothing was written") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// Bad command lines exit 2 with a message naming the flag; an empty selection exits 1.
func TestExportUsageErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if err := exporttest.WriteRun(dir, exporttest.Run{Instances: []exporttest.Instance{{ID: "a__x-1"}}}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "o.jsonl")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", dir}, 2, "needs -o FILE"},
		{[]string{"export", "-o", out, "--format", "openai"}, 2, "at least one run"},
		{[]string{"export", dir, "-o", out}, 2, "needs --format"},
		{[]string{"export", dir, "-o", out, "--format", "alpaca"}, 2, "--format alpaca"},
		{[]string{"export", dir, "-o", out, "--format", "openai", "--per-instance", "worst"}, 2, "--per-instance worst"},
		{[]string{"export", dir, "-o", out, "--format", "openai", "--val-fraction", "1"}, 2, "--val-fraction 1"},
		{[]string{"export", dir, "-o", out, "--format", "openai", "--config-hash", "abc"}, 2, "6 digits"},
		{[]string{"export", dir, "-o", out, "--format", "openai", "--val-fraction", "0.5"}, 1, "two repositories or more"},
		{[]string{"export", dir, "-o", out, "--format", "openai", "--resolved"}, 1, "no trajectory of the 1 found passed the filters (not evaluated: 1)"},
		{[]string{"export", filepath.Join(dir, "nope"), "-o", out, "--format", "openai"}, 1, "no such file"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args[1:], code, stderr, tt.code, tt.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written by a failed export", out)
	}
}
