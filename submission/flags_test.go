package submission

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// Resolved instances whose trajectory reached beyond the task's start are listed: a warning when
// a command revealed something (the real sqlfluff-1625 trajectory of mini-swe-agent PR 816's
// deepseek run: git log --all --grep printed commits), a note when the run was behind the guard.
func TestCheckFlags(t *testing.T) {
	out := testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output")
	trajs := t.TempDir()
	found := map[string]folderTraj{}
	for _, id := range []string{"sqlfluff__sqlfluff-1625", "sqlfluff__sqlfluff-1733"} {
		data, err := os.ReadFile(filepath.Join(out, id, id+".traj.json"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(trajs, id+".traj.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		found[id] = folderTraj{path: p}
	}
	fs := checkFlags(found, []string{"sqlfluff__sqlfluff-1625", "sqlfluff__sqlfluff-1733"})
	if len(fs) != 1 || fs[0].Check != CheckFlags || fs[0].Severity != Warn || !reflect.DeepEqual(fs[0].IDs, []string{"sqlfluff__sqlfluff-1625"}) {
		t.Fatalf("findings %+v, want one warning naming sqlfluff__sqlfluff-1625", fs)
	}
	if fs := checkFlags(found, []string{"sqlfluff__sqlfluff-1733"}); len(fs) != 0 {
		t.Errorf("an unflagged resolved instance: %+v", fs)
	}

	guarded := filepath.Join(trajs, "o__r-1.traj.json")
	traj := `{"trajectory_format":"mini-swe-agent-1.1","instance_id":"o__r-1","info":{"exit_status":"Submitted","config":{"environment":{"history":"past"}}},"messages":[
{"role":"system","content":"s"},{"role":"user","content":"fix it"},
{"role":"assistant","content":"","extra":{"actions":[{"command":"git log --all --oneline"}]}},
{"role":"tool","content":"abc1234 start","extra":{"returncode":0,"raw_output":"abc1234 start"}}]}`
	if err := os.WriteFile(guarded, []byte(traj), 0o644); err != nil {
		t.Fatal(err)
	}
	fs = checkFlags(map[string]folderTraj{"o__r-1": {path: guarded}}, []string{"o__r-1"})
	if len(fs) != 1 || fs[0].Severity != Note {
		t.Errorf("behind the guard: %+v, want a note", fs)
	}
}
