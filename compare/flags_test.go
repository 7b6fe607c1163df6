package compare

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A mini-swe-agent run's flags, and which of the flagged instances resolved: the real deepseek
// run on Lite dev (its one flagged instance, sqlfluff-1625, unresolved by the harness), and the
// same trajectory graded resolved.
func TestRunFlags(t *testing.T) {
	out := fixture(t, "runs/deepseek-chat-lite-dev/output")
	r := readOne(t, Source{Path: out, EvalLogs: fixture(t, "runs/deepseek-chat-lite-dev/eval-logs")})
	want := &Flags{Scanned: 23, Flagged: []string{"sqlfluff__sqlfluff-1625"}, Revealed: []string{"sqlfluff__sqlfluff-1625"}, FlaggedResolved: []string{}}
	if !reflect.DeepEqual(r.Flags, want) {
		t.Errorf("flags %+v, want %+v", r.Flags, want)
	}

	const id = "sqlfluff__sqlfluff-1625"
	dir := t.TempDir()
	mini, logs := filepath.Join(dir, "out"), filepath.Join(dir, "logs")
	data, err := os.ReadFile(filepath.Join(out, id, id+".traj.json"))
	if err != nil {
		t.Fatal(err)
	}
	for p, content := range map[string]string{
		filepath.Join(mini, id, id+".traj.json"): string(data),
		filepath.Join(mini, "preds.json"):        `{"` + id + `": {"model_name_or_path": "m", "instance_id": "` + id + `", "model_patch": "diff --git a/x b/x"}}`,
		filepath.Join(logs, id, "report.json"):   `{"` + id + `": {"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": true}}`,
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := ReadAll([]Source{{Label: "a", Path: mini, EvalLogs: logs}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f := runs[0].Flags; f == nil || !reflect.DeepEqual(f.FlaggedResolved, []string{id}) {
		t.Fatalf("flags %+v, want %s flagged and resolved", f, id)
	}
	res, err := Compare(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text, md, js bytes.Buffer
	if err := WriteText(&text, res); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	line := "a: 1 of 1 instances flagged, 1 of them resolved, 1 revealed (resolved: " + id + ")"
	if !strings.Contains(text.String(), "\n  "+line+"\n") || !strings.Contains(md.String(), "\n- "+line+"\n") {
		t.Errorf("text or Markdown lacks %q:\n%s\n%s", line, text.String(), md.String())
	}
	var doc struct {
		Inputs []struct {
			Runs []struct {
				Flags *Flags `json:"flags"`
			} `json:"runs"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc.Inputs[0].Runs[0].Flags == nil || len(doc.Inputs[0].Runs[0].Flags.FlaggedResolved) != 1 {
		t.Errorf("JSON flags: %v\n%s", err, js.String())
	}
}
