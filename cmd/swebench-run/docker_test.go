package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dockerenv"
)

func listContainers(t *testing.T, runID string) []string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label="+dockerenv.LabelRun+"="+runID).CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v: %s", err, out)
	}
	return strings.Fields(string(out))
}

func assertNoContainers(t *testing.T, runID string) {
	t.Helper()
	if ids := listContainers(t, runID); len(ids) != 0 {
		t.Errorf("%d containers of run %s left behind: %v", len(ids), runID, ids)
	}
}
