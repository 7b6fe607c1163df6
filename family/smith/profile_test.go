package smith

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

func TestProfileRows(t *testing.T) {
	p := FamilyProfile{}
	bug := "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-good\n+bad\n"
	inst := dataset.Instance{InstanceID: "mewwts__addict.75284f95.x", Repo: "swesmith/mewwts__addict.75284f95", Patch: bug, Image: "swesmith.x86_64.mewwts__addict.75284f95"}
	if !p.Match(&inst) || p.Match(&dataset.Instance{Repo: "a/b"}) {
		t.Error("Match")
	}
	if !p.Match(&dataset.Instance{Image: "jyangballin/swesmith.x86_64.x"}) {
		t.Error("Match by image_name")
	}
	if err := p.Prepare(&inst); err != nil {
		t.Fatal(err)
	}
	if inst.Image != "swebench/swesmith.x86_64.mewwts_1776_addict.75284f95" || inst.WorkDir != "/testbed" ||
		len(inst.PreAgentCommands) != 1 || !strings.Contains(inst.PreAgentCommands[0], "git checkout -q 'mewwts__addict.75284f95.x'") {
		t.Errorf("Prepare: %+v", inst)
	}
	if !strings.Contains(inst.Patch, "-bad\n+good") || inst.Extra[BugPatchColumn] != bug {
		t.Errorf("Prepare: the patch is not the fix: %q", inst.Patch)
	}
	if err := p.Prepare(&inst); err != nil || !strings.Contains(inst.Patch, "-bad\n+good") {
		t.Errorf("a second Prepare reverses the patch again: %v %q", err, inst.Patch)
	}
	if err := p.Prepare(&dataset.Instance{InstanceID: "acme__acme.12345678.x"}); err == nil || !strings.Contains(err.Error(), "repo") {
		t.Errorf("Prepare of an instance without a profile: %v", err)
	}
}

func TestReportReaders(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/report.json", `{"patch_exists": true, "resolved": true, "tests_status": {}}`)
	write("b/report.json", `{"timed_out": true, "timeout": 90}`)
	write("c/report.json", `{"c": {"resolved": true}}`) // SWE-bench's, not SWE-smith's
	write("report.json", `{"resolved": 1, "unresolved": 2, "total": 3, "ids_resolved": ["a"], "ids_unresolved": ["b", "d"]}`)
	fv, ok, err := reports{}.ReadEvalFolder(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := map[string]family.Outcome{"a": family.Resolved, "b": family.Unresolved, "d": family.Unresolved}
	if len(fv.Verdicts) != len(want) {
		t.Errorf("got %+v", fv.Verdicts)
	}
	for id, o := range want {
		if fv.Verdicts[id].Outcome != o {
			t.Errorf("%s: %+v, want %s", id, fv.Verdicts[id], o)
		}
	}
	if _, ok, _ := (reports{}).ReadReportFile("x.json", []byte(`{"resolved": true}`)); ok {
		t.Error("ReadReportFile took an instance report for a run report")
	}
}
