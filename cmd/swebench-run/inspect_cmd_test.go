package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

func fixtureDir(t *testing.T, parts ...string) string {
	t.Helper()
	return testenv.Fixtures(t, parts...)
}

func TestInspectTrajectories(t *testing.T) {
	run := fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output")
	trajs := fixtureDir(t, "trajectories")
	tests := []struct {
		name  string
		args  []string
		want  []string
		steps int
	}{
		{
			name: "mini-swe-agent v2 tool calling",
			args: []string{filepath.Join(run, "pvlib__pvlib-python-1072", "pvlib__pvlib-python-1072.traj.json")},
			want: []string{
				"instance     pvlib__pvlib-python-1072\n",
				"model        deepseek/deepseek-chat\n",
				"written by   mini-swe-agent 2.2.7\n",
				"exit status  Submitted\n",
				"model calls  59\n",
				"━━ step 1  ($0.",
				"  → returncode 0\n",
				"lines elided (--full shows them)",
				"━━ exit: Submitted ━━\n  submission (",
			},
			steps: 59,
		},
		{
			name:  "timed-out command shows its exception",
			args:  []string{filepath.Join(run, "pyvista__pyvista-4315", "pyvista__pyvista-4315.traj.json")},
			want:  []string{"→ returncode -1  (An error occurred while executing the command:"},
			steps: 84,
		},
		{
			name:  "mini-swe-agent v1 bare message list",
			args:  []string{"--system", filepath.Join(trajs, "local.traj.json")},
			want:  []string{"instance     local\n", "── system ──\nYou are a helpful assistant", "  $ echo 'hello world'\n", "  → returncode 0\n"},
			steps: 2,
		},
		{
			name:  "full output",
			args:  []string{"--full", filepath.Join(trajs, "github_issue.traj.json")},
			want:  []string{"  $ echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached\n"},
			steps: 10,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := execCLI(append([]string{"inspect"}, tt.args...), &out, &errOut); err != nil {
				t.Fatalf("inspect: %v (stderr %s)", err, errOut.String())
			}
			got := out.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			if n := len(regexp.MustCompile(`(?m)^━━ step \d+`).FindAllString(got, -1)); n != tt.steps {
				t.Errorf("shows %d steps, want %d", n, tt.steps)
			}
			if strings.Contains(got, "\x1b[") {
				t.Error("output has terminal escapes; it must read well in a pager")
			}
			if strings.Contains(strings.Join(tt.args, " "), "--full") && strings.Contains(got, "lines elided") {
				t.Error("--full still truncates")
			}
		})
	}
}

func TestInspectRunDir(t *testing.T) {
	var out bytes.Buffer
	if err := execCLI([]string{"inspect", fixtureDir(t, "runs", "deepseek-chat-lite-dev", "output")}, &out, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if n := strings.Count(got, "Submitted"); n != 23 {
		t.Errorf("%d Submitted rows, want 23:\n%s", n, got)
	}
	if !strings.Contains(got, "23 trajectories") {
		t.Errorf("no total line:\n%s", got)
	}
}

func TestInspectErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.traj.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		wantUsage bool
		want      string
	}{
		{"no argument", nil, true, ""},
		{"two arguments", []string{"a", "b"}, true, ""},
		{"missing file", []string{filepath.Join(dir, "missing.json")}, false, "missing.json"},
		{"not a trajectory", []string{bad}, false, "is not a trajectory"},
		{"empty directory", []string{dir}, false, "no trajectories"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := execCLI(append([]string{"inspect"}, tt.args...), &out, &out)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, errUsage); got != tt.wantUsage {
				t.Errorf("usage error = %v, want %v (%v)", got, tt.wantUsage, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}
