package multiswebench

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

// serveHub serves files as the HuggingFace hub serves a dataset repository at one commit (the
// info API listing siblings, resolve URLs with the bytes).
func serveHub(t *testing.T, repo, sha string, files map[string][]byte) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/datasets/"+repo, func(w http.ResponseWriter, r *http.Request) {
		type sib struct {
			RFilename string `json:"rfilename"`
			Size      int64  `json:"size"`
		}
		info := struct {
			SHA      string `json:"sha"`
			Siblings []sib  `json:"siblings"`
		}{SHA: sha}
		for p, b := range files {
			info.Siblings = append(info.Siblings, sib{p, int64(len(b))})
		}
		json.NewEncoder(w).Encode(info)
	})
	mux.HandleFunc("GET /datasets/"+repo+"/resolve/"+sha+"/{path...}", func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.PathValue("path")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestNamedDatasetFromHub loads --split multi-swe-bench from a hub serving the corpus's real
// Java rows in Multi-SWE-bench's layout (one JSONL per repository under a language folder, a
// python/ folder that is not part of it) and checks what the family makes of them.
func TestNamedDatasetFromHub(t *testing.T) {
	files := map[string][]byte{
		"README.md":                           []byte("# Multi-SWE-bench\n"),
		"python/multi_swe_bench_python.jsonl": []byte(`{"instance_id": "x__y-1"}` + "\n"),
	}
	want := 0
	for _, name := range []string{"google__gson_dataset.jsonl", "mockito__mockito_dataset.jsonl"} {
		b, err := os.ReadFile(fixturePath(t, name))
		if err != nil {
			t.Fatal(err)
		}
		files["java/"+name] = b
		want += strings.Count(strings.TrimSpace(string(b)), "\n") + 1
	}
	t.Setenv("HF_ENDPOINT", serveHub(t, "ByteDance-Seed/Multi-SWE-bench", strings.Repeat("a", 40), files))
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	named := Profile{}.Datasets()
	for k := range named {
		named[k].Family = FamilyName
	}
	l, err := dataset.Load(context.Background(), "multi-swe-bench", dataset.LoadOptions{Families: []dataset.Family{Profile{}}, Named: named})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Instances) != want {
		t.Fatalf("got %d instances, want the %d rows of the two Java files", len(l.Instances), want)
	}
	var gson *dataset.Instance
	for k := range l.Instances {
		if l.Instances[k].InstanceID == "google__gson-1787" {
			gson = &l.Instances[k]
		}
	}
	if gson == nil {
		t.Fatal("google__gson-1787 not loaded")
	}
	if gson.Family != FamilyName || gson.Repo != "google/gson" || gson.Image != "mswebench/google_m_gson:pr-1787" ||
		gson.WorkDir != "/home/gson" || gson.BaseCommit != "e614e71ee43ca7bc1cb466bd1eaf4d85499900d9" || gson.Patch == "" ||
		!strings.HasPrefix(gson.TaskText(), "TypeAdapterRuntimeTypeWrapper prefers cyclic adapter for base type over reflective adapter for sub type\nThe internal class") {
		t.Errorf("instance: family %q repo %q image %q workdir %q base %q task %.80q", gson.Family, gson.Repo, gson.Image, gson.WorkDir, gson.BaseCommit, gson.TaskText())
	}
	if len(gson.FailToPass)+len(gson.PassToPass) == 0 || len(gson.PreAgentCommands) != 1 {
		t.Errorf("tests %d/%d, pre-agent commands %q", len(gson.FailToPass), len(gson.PassToPass), gson.PreAgentCommands)
	}
	// `datasets` lists the columns from the hub cache.
	d, _ := dataset.LookupNamed(named, "multi-swe-bench")
	cols, _, err := dataset.CachedColumns(d, dataset.LoadOptions{})
	if err != nil || !strings.Contains(strings.Join(cols, ","), "org,repo,number") || !strings.Contains(strings.Join(cols, ","), "run_result") {
		t.Errorf("cached columns %q: %v", cols, err)
	}
	if err := (grader{}).Check(l.Instances); err != nil {
		t.Errorf("Check: %v", err)
	}
	// The rows keep what grading needs: the gold run of each is resolved.
	for _, inst := range l.Instances {
		row, err := rowOf(&inst)
		if err != nil {
			t.Fatal(err)
		}
		if ev := Judge(row, row.FixPatchResult); !ev.Resolved {
			t.Errorf("%s: gold run not resolved: %s", inst.InstanceID, ev.Reason)
		}
	}
}

func fixturePath(t *testing.T, name string) string {
	t.Helper()
	for _, r := range javaRows {
		if r == name {
			return fixtureFile(t, name)
		}
	}
	t.Fatalf("%s is not one of the corpus's Java rows", name)
	return ""
}

// TestPrepareRefusesOtherRows: a SWE-bench row is not Multi-SWE-bench's, and a Multi-SWE-bench row
// read as one names what it lacks.
func TestPrepareRefusesOtherRows(t *testing.T) {
	swe := &dataset.Instance{InstanceID: "a__b-1", ProblemStatement: "x"}
	if (Profile{}).Match(swe) {
		t.Error("a SWE-bench row matched")
	}
	inst := &dataset.Instance{InstanceID: "o__r-1", Repo: "r", Extra: map[string]any{"org": "o", "number": 1.0, "resolved_issues": []any{}}}
	err := (Profile{}).Prepare(inst)
	var fe *dataset.FieldError
	if !asFieldError(err, &fe) || fe.Field != "state" {
		t.Fatalf("got %v, want a FieldError naming the first missing column", err)
	}
}

func asFieldError(err error, fe **dataset.FieldError) bool {
	f, ok := err.(*dataset.FieldError)
	*fe = f
	return ok
}

func TestPredictionsRoundTrip(t *testing.T) {
	patch := "diff --git a/x b/x\n"
	name, data, err := (Profile{}).ExportPredictions([]family.Prediction{{InstanceID: "sharkdp__fd-1540", ModelPatch: &patch}, {InstanceID: "tokio-rs__tokio-6229"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"org":"sharkdp","repo":"fd","number":1540,"fix_patch":"diff --git a/x b/x\n"}` + "\n" + `{"org":"tokio-rs","repo":"tokio","number":6229,"fix_patch":""}` + "\n"
	if name != "multi_swe_bench_patches.jsonl" || string(data) != want {
		t.Errorf("got %s:\n%s", name, data)
	}
	preds, ok, err := (Profile{}).ReadPredictions("p.jsonl", data)
	if err != nil || !ok || len(preds) != 2 || preds["sharkdp__fd-1540"].Patch() != patch {
		t.Errorf("read back: %v %v %+v", ok, err, preds)
	}
	if _, ok, _ := (Profile{}).ReadPredictions("preds.json", []byte(`{"a__b-1": {"model_patch": "x"}}`)); ok {
		t.Error("a preds.json was taken for a patch file")
	}
	if _, _, err := (Profile{}).ExportPredictions([]family.Prediction{{InstanceID: "django__django-1"}, {InstanceID: "nodash"}}); err == nil {
		t.Error("an id without org__repo-number exported")
	}
}

// TestFinalReportReadBack writes final_report.json from verdicts and reads it back as compare
// does.
func TestFinalReportReadBack(t *testing.T) {
	dir := t.TempDir()
	err := (grader{}).Finish(dir, nil, map[string]family.Verdict{
		"cli__cli-1": {Outcome: family.Resolved}, "cli__cli-2": {Outcome: family.Unresolved},
		"cli__cli-3": {Outcome: family.EmptyPatch}, "cli__cli-4": {Outcome: family.Error, ErrorKind: family.KindGrading},
	})
	if err != nil {
		t.Fatal(err)
	}
	fv, ok, err := (reports{}).ReadEvalFolder(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	got := map[string]family.Outcome{}
	for id, v := range fv.Verdicts {
		got[id] = v.Outcome
	}
	want := map[string]family.Outcome{"cli__cli-1": family.Resolved, "cli__cli-2": family.Unresolved, "cli__cli-3": family.Unresolved, "cli__cli-4": family.Error}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for id, o := range want {
		if got[id] != o {
			t.Errorf("%s: got %s, want %s", id, got[id], o)
		}
	}
	if _, ok, _ := (reports{}).ReadReportFile("x.json", []byte(`{"resolved": 1}`)); ok {
		t.Error("another JSON file taken for final_report.json")
	}
	if _, err := os.Stat(filepath.Join(dir, "final_report.json")); err != nil {
		t.Error(err)
	}
}

// TestGraderWithoutContainers grades the demo rows through the grader with a fake sandbox whose
// fix run prints a given log: the verdict, the harness's files, reuse and the error kinds.
func TestGraderWithoutContainers(t *testing.T) {
	l, err := dataset.Load(context.Background(), filepath.Join("testdata", "demo", "dataset.jsonl"), dataset.LoadOptions{Families: []dataset.Family{Profile{}}})
	if err != nil {
		t.Fatal(err)
	}
	inst := l.Instances[0] // jqlang__jq-990001
	patch := inst.Patch
	pred := family.Prediction{InstanceID: inst.InstanceID, ModelPatch: &patch}
	g := Profile{}.Grader()
	for _, c := range []struct {
		name     string
		box      *fakeBox
		outcome  family.Outcome
		kind     family.ErrorKind
		reportOK bool
	}{
		{"resolved", &fakeBox{out: "PASS: tests/identity\nPASS: tests/keys\nPASS: tests/keys_sorted\nPASS: tests/length\n"}, family.Resolved, "", true},
		{"unresolved", &fakeBox{out: "PASS: tests/identity\nPASS: tests/keys\nFAIL: tests/keys_sorted\nPASS: tests/length\n"}, family.Unresolved, "", true},
		{"unreadable log", &fakeBox{out: "PASS: tests/keys\nFAIL: tests/keys\n"}, family.Error, family.KindGrading, false},
		{"timeout", &fakeBox{out: "PASS: tests/keys\n", timedOut: true}, family.Error, family.KindTimeout, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.box.written = map[string]string{}
			dir := t.TempDir()
			v, err := g.Grade(context.Background(), family.GradeEnv{}, c.box, inst, pred, dir)
			if err != nil {
				t.Fatal(err)
			}
			if v.Outcome != c.outcome || v.ErrorKind != c.kind {
				t.Fatalf("got %s %s (%s), want %s %s", v.Outcome, v.ErrorKind, v.Reason, c.outcome, c.kind)
			}
			if log, err := os.ReadFile(filepath.Join(dir, "fix-patch-run.log")); err != nil || string(log) != c.box.out {
				t.Errorf("fix-patch-run.log: %q %v", log, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "report.json")); (err == nil) != c.reportOK {
				t.Errorf("report.json present = %v, want %v", err == nil, c.reportOK)
			}
			if c.outcome == family.Error {
				return
			}
			again, ok := g.Reuse(inst, pred, dir)
			if !ok || again.Outcome != v.Outcome {
				t.Errorf("reuse: %v %s", ok, again.Outcome)
			}
			other := "diff --git a/x b/x\n"
			if _, ok := g.Reuse(inst, family.Prediction{InstanceID: inst.InstanceID, ModelPatch: &other}, dir); ok {
				t.Error("reused the verdict of another patch")
			}
		})
	}
}

// TestPrepareUnknownRepository: a row of a repository the harness has no parser for is refused
// for that one reason, its instance otherwise complete (no missing FAIL_TO_PASS or PASS_TO_PASS
// besides).
func TestPrepareUnknownRepository(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "demo", "dataset.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var row map[string]any
	if err := json.Unmarshal(data[:bytes.IndexByte(data, '\n')], &row); err != nil {
		t.Fatal(err)
	}
	row["org"] = "nobody"
	data, err = json.Marshal([]any{row})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rows.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = dataset.Load(context.Background(), path, dataset.LoadOptions{Families: []dataset.Family{Profile{}}})
	if err == nil {
		t.Fatal("a row of nobody/jq loaded")
	}
	msg := err.Error()
	if !strings.Contains(msg, `field "repo": nobody/jq is not a repository of Multi-SWE-bench`) || strings.Contains(msg, "FAIL_TO_PASS") || strings.Contains(msg, "PASS_TO_PASS") {
		t.Errorf("got %v, want only the repository named", err)
	}
}
