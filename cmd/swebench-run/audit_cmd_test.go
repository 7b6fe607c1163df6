package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/audit"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// audit on a published mini-swe-agent run (mini-swe-agent PR 816's deepseek run on Lite dev):
// one command reached beyond HEAD's ancestry, and its output showed the commits it found.
func TestAuditPublishedRun(t *testing.T) {
	dir := testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output")
	code, stdout, stderr := runCLI(t, "audit", dir)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "INSTANCE                 STEP  CLASS    REVEALED  COMMAND\n" +
		"sqlfluff__sqlfluff-1625  22    history  yes       cd /testbed && git log --all --grep=\"L031\" -p | head -200\n\n" +
		"23 instances scanned, 1 flagged (1 flags), 1 revealed; history: not recorded\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}

	code, stdout, stderr = runCLI(t, "audit", "--json", dir)
	if code != 0 || !strings.HasPrefix(stderr, "23 instances scanned, 1 flagged") {
		t.Fatalf("--json: exit %d, stderr %q", code, stderr)
	}
	var f audit.Flag
	if err := json.Unmarshal([]byte(stdout), &f); err != nil || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("--json stdout %q: %v, want one object", stdout, err)
	}
	if f.Instance != "sqlfluff__sqlfluff-1625" || f.Step != 22 || f.Class != audit.ClassHistory || !f.Revealed || !strings.Contains(f.Command, "--all") {
		t.Errorf("--json flag %+v", f)
	}

	if code, _, _ = runCLI(t, "audit", "--fail-on-flag", dir); code != exitFlagged {
		t.Errorf("--fail-on-flag: exit %d, want %d", code, exitFlagged)
	}

	// With the dataset (Lite dev): the same flag.
	code, stdout, stderr = runCLI(t, "audit", "--split", testenv.Fixtures(t, "datasets", "SWE-bench_Lite.dev.parquet"), dir)
	if code != 0 || !strings.HasSuffix(stdout, "23 instances scanned, 1 flagged (1 flags), 1 revealed; history: not recorded\n") {
		t.Errorf("--split: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestAuditOtherForms(t *testing.T) {
	tests := []struct {
		name    string
		path    func(t *testing.T) string
		summary string
	}{
		{"SWE-agent trajectories folder", func(t *testing.T) string {
			return testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "trajectories")
		}, "2 instances scanned, 0 flagged (0 flags), 0 revealed; history: not recorded\n"},
		{"OpenHands output.jsonl", func(t *testing.T) string {
			return testenv.Fixtures(t, "trajectories", "openhands", "multi-swe-bench-examples", "output.jsonl")
		}, "3 instances scanned, 0 flagged (0 flags), 0 revealed; history: not recorded\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "audit", tt.path(t))
			if code != 0 || stderr != "" || stdout != tt.summary {
				t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, tt.summary)
			}
		})
	}
	code, _, stderr := runCLI(t, "audit", t.TempDir())
	if code != exitFailure || !strings.Contains(stderr, "holds no trajectories") {
		t.Errorf("an empty folder: exit %d, stderr %q", code, stderr)
	}
}

// stats counts the flags of a run (the same scanner as audit).
func TestStatsShowsFlags(t *testing.T) {
	dir := testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output")
	code, stdout, stderr := runCLI(t, "stats", dir)
	want := "flags: 1 of 23 instances flagged (history 1), 1 revealed; history: not recorded (swebench-run audit " + dir + " lists them)\n"
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, stderr %q; stdout lacks %q:\n%s", code, stderr, want, stdout)
	}
	code, stdout, _ = runCLI(t, "stats", "--json", dir)
	var st struct {
		Flags struct {
			Scanned, Flagged, Revealed int
			ByClass                    map[string]int `json:"by_class"`
			Instances                  []string       `json:"flagged_instances"`
		} `json:"flags"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if f := st.Flags; f.Scanned != 23 || f.Flagged != 1 || f.Revealed != 1 || f.ByClass["history"] != 1 || len(f.Instances) != 1 || f.Instances[0] != "sqlfluff__sqlfluff-1625" {
		t.Errorf("--json flags %+v", f)
	}
}
