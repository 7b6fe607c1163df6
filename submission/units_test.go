package submission

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
)

// Rates print as Python prints round(x * 100. / n, 2).
func TestPyRate(t *testing.T) {
	tests := []struct {
		n, total int
		want     string
	}{
		{6, 23, "26.09"}, {2, 2, "100.0"}, {0, 5, "0.0"}, {1, 8, "12.5"}, {2, 3, "66.67"}, {1, 3, "33.33"},
		{197, 300, "65.67"}, {1, 500, "0.2"}, {333, 500, "66.6"}, {1, 0, "0.0"},
	}
	for _, tt := range tests {
		if got := pyRate(tt.n, tt.total); got != tt.want {
			t.Errorf("pyRate(%d, %d) = %s, want %s", tt.n, tt.total, got, tt.want)
		}
	}
}

// JSON as Python's json.dump(indent=2) writes it: ASCII only, no trailing newline, no HTML
// escapes.
func TestPythonJSON(t *testing.T) {
	got, err := pythonJSON(map[string]Count{"a<b>&c": {1, 2}, "é😀": {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a<b>&c\": {\n    \"resolved\": 1,\n    \"total\": 2\n  },\n  \"\\u00e9\\ud83d\\ude00\": {\n    \"resolved\": 0,\n    \"total\": 1\n  }\n}"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got, _ = pythonJSON(Results{NoGeneration: []string{}, NoLogs: []string{}, Resolved: []string{}})
	if want := "{\n  \"no_generation\": [],\n  \"no_logs\": [],\n  \"resolved\": []\n}"; string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCreatedYear(t *testing.T) {
	for in, want := range map[string]string{"2023-06-05T13:19:51Z": "2023", "2017-05-16 12:00:00": "2017", "2020-01-01": "2020", "2019": "2019"} {
		if got, err := createdYear(in); err != nil || got != want {
			t.Errorf("createdYear(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "yesterday", "20230605"} {
		if _, err := createdYear(bad); err == nil {
			t.Errorf("createdYear(%q) gave no error", bad)
		}
	}
}

func TestPatchFiles(t *testing.T) {
	diff := "diff --git a/src/x.py b/src/x.py\nindex 1..2 100644\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/old.py b/new.py\nrename from old.py\nrename to new.py\n" +
		"--- /dev/null\n+++ b/tests/test_new.py\t2024-01-01\n@@ -0,0 +1 @@\n+x\n"
	want := []string{"src/x.py", "old.py", "new.py", "tests/test_new.py"}
	if got := patchFiles(diff); !reflect.DeepEqual(got, want) {
		t.Errorf("patchFiles = %v, want %v", got, want)
	}
}

func TestLooksLikeTest(t *testing.T) {
	for p, want := range map[string]bool{
		"tests/test_x.py": true, "pkg/testing/util.py": true, "test_repro.py": true, "src/x_test.go": true,
		"web/app.spec.ts": true, "src/FooTest.java": true, "lib/__tests__/a.js": true,
		"src/x.py": false, "docs/testimony.md": false, "contest.py": false, "src/latest.py": false,
	} {
		if got := looksLikeTest(p); got != want {
			t.Errorf("looksLikeTest(%q) = %t, want %t", p, got, want)
		}
	}
}

func TestLookupSplit(t *testing.T) {
	tests := []struct {
		name      string
		custom    bool
		wantRepo  string
		wantError string
	}{
		{"verified", false, "SWE-bench/SWE-bench_Verified", ""},
		{"bash-only", false, "SWE-bench/SWE-bench_Verified", ""},
		{"lite", false, "SWE-bench/SWE-bench_Lite", ""},
		{"test", false, "SWE-bench/SWE-bench", ""},
		{"lite-dev", false, "SWE-bench/SWE-bench_Lite", ""},
		{"demo", true, "", ""},
		{"demo", false, "", "not a leaderboard split"},
		{"multimodal", true, "", "sb-cli submit swe-bench-m test"},
		{"../x", true, "", "folder name"},
	}
	for _, tt := range tests {
		s, err := LookupSplit(tt.name, tt.custom)
		switch {
		case tt.wantError != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("LookupSplit(%q) = %v, want an error with %q", tt.name, err, tt.wantError)
			}
		case err != nil || s.HFRepo != tt.wantRepo:
			t.Errorf("LookupSplit(%q) = %+v, %v", tt.name, s, err)
		}
	}
	if s, _ := LookupSplit("bash-only", false); s.SBCLISubset != "swe-bench_verified" || s.SBCLISplit != "test" || !s.Leaderboard {
		t.Errorf("bash-only = %+v", s)
	}
}

// A metadata file to start from keeps the keys we do not know; its fields are read whatever the
// spelling others use.
func TestReadMetadata(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.yaml")
	writeFile(t, p, "# ours\ninfo:\n  name: Agent\n  authors: Ada\n  logo: https://example.org/logo.png\ntags:\n  model_display: Fancy\n  system:\n    attempts: 1\n  os_model: true\n")
	m, err := ReadMetadata(p)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "Agent" || !reflect.DeepEqual(m.Authors, []string{"Ada"}) || m.Attempts != AttemptsOne || !m.OSModel || m.Logo == "" {
		t.Errorf("read %+v", m)
	}
	m.Report, m.Models, m.Orgs = "https://example.org/r", []string{"gpt-5"}, []string{"Example"}
	data, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"model_display: Fancy", "report: https://example.org/r", `attempts: "1"`, "- gpt-5"} {
		if !strings.Contains(string(data), s) {
			t.Errorf("marshalled metadata lacks %q:\n%s", s, data)
		}
	}
	writeFile(t, p, "tags:\n  os_model: maybe\n  system:\n    attempts: three\n")
	if _, err := ReadMetadata(p); err == nil || !strings.Contains(err.Error(), "tags.os_model is not true or false") || !strings.Contains(err.Error(), "tags.system.attempts") {
		t.Errorf("ReadMetadata(bad) = %v", err)
	}
}

func TestCheckMetadata(t *testing.T) {
	good := "info:\n  name: A\n  site: https://a\n  report: https://a/r\n  authors: [A]\nassets:\n  logs: s3://x/logs\n  trajs: s3://x/trajs\ntags:\n  checked: false\n  model: [m]\n  org: [o]\n  os_model: false\n  os_system: true\n  system:\n    attempts: \"2+\"\n"
	if fs := checkMetadata([]byte(good), "metadata.yaml"); len(fs) != 0 {
		t.Errorf("a complete file: %v", fs)
	}
	tests := []struct {
		from, to string
		sev      Severity
		mention  string
	}{
		{"  name: A\n", "", Fail, "info.name"},
		{"  model: [m]\n", "  model: []\n", Fail, "tags.model is empty"},
		{"  os_system: true\n", "  os_system: sure\n", Fail, "tags.os_system is \"sure\""},
		{"  checked: false\n", "", Fail, "tags.checked is missing"},
		{"  site: https://a\n", "", Warn, "info.site"},
		{"  authors: [A]\n", "", Warn, "info.authors"},
		{"  org: [o]\n", "", Warn, "tags.org"},
		{"  trajs: s3://x/trajs\n", "", Warn, "assets.trajs"},
		{"assets:\n  logs: s3://x/logs\n  trajs: s3://x/trajs\n", "", Fail, "no assets: section"},
	}
	for _, tt := range tests {
		fs := checkMetadata([]byte(strings.Replace(good, tt.from, tt.to, 1)), "metadata.yaml")
		f, ok := find(fs, CheckMetadata, tt.sev)
		if !ok || !strings.Contains(f.Message, tt.mention) {
			t.Errorf("without %q: %v; want a %s naming %q", tt.from, fs, tt.sev, tt.mention)
		}
	}
}

// Templates: a variable anywhere in a template counts, an attribute of the same name does not;
// 1.x configs and the startup command are looked at too.
func TestCheckTemplates(t *testing.T) {
	cfg := func(key, tmpl string) []namedConfig {
		parts := strings.Split(key, ".")
		c := map[string]any{parts[1]: tmpl}
		return []namedConfig{{Source: "run.json", Config: map[string]any{parts[0]: c}}}
	}
	tests := []struct {
		key, tmpl string
		bad       string // "" when the template is fine
	}{
		{"agent.instance_template", "Solve: {{task}}", ""},
		{"agent.instance_template", "{{ output.patch }} {{ x.hints_text }}", ""},
		{"agent.instance_template", "{% for t in PASS_TO_PASS %}{{t}}{% endfor %}", "PASS_TO_PASS"},
		{"agent.action_observation_template", "{{ test_patch }}", "test_patch"},
		{"agent.timeout_template", "{{ eval_script }}", "eval_script"},
		{"run.env_startup_command", "echo {{hints_text}}", "hints_text"},
		{"agent.step_limit_note", "{{hints_text}}", ""}, // not a template key
	}
	for _, tt := range tests {
		fs := checkTemplates(cfg(tt.key, tt.tmpl), "")
		f, failed := find(fs, CheckTemplates, Fail)
		switch {
		case tt.bad == "" && failed:
			t.Errorf("%s %q: %v", tt.key, tt.tmpl, f)
		case tt.bad != "" && (!failed || !strings.Contains(f.Message, tt.key+" uses {{"+tt.bad+"}}")):
			t.Errorf("%s %q: %v; want a failure naming %s", tt.key, tt.tmpl, fs, tt.bad)
		}
	}
	if f, ok := find(checkTemplates(nil, "no run.json"), CheckTemplates, Warn); !ok || !strings.Contains(f.Message, "no run.json") {
		t.Errorf("no config: %v", f)
	}
}

// The dataset check: a run on an older revision of Verified, whose rows differ for two
// instances (their PASS_TO_PASS), names exactly the instances it predicted that differ.
func TestCheckDatasetRevision(t *testing.T) {
	graded := loadDataset(t, fixture(t, "datasets/SWE-bench_Verified.test.parquet"))
	oldPath := fixture(t, "datasets/SWE-bench_Verified.test.2026-02-16.parquet")
	old := loadDataset(t, oldPath)
	// The instances whose rows differ, found independently.
	oldByID := map[string]dataset.Instance{}
	for _, inst := range old.Instances {
		oldByID[inst.InstanceID] = inst
	}
	var differ []string
	for _, inst := range graded.Instances {
		a, _ := json.Marshal(oldByID[inst.InstanceID].PassToPass)
		b, _ := json.Marshal(inst.PassToPass)
		if string(a) != string(b) {
			differ = append(differ, inst.InstanceID)
		}
	}
	if len(differ) != 2 {
		t.Fatalf("%d rows differ between the Verified fixtures, want 2", len(differ))
	}
	split := mustSplit(t, "verified", false)
	dm, _ := json.Marshal(dataset.Manifest{Source: old.Source})
	patch := "diff --git a/x b/x\n"
	in := &Input{Kind: InputRun, Manifest: &results.Manifest{Dataset: dm}, preds: &predFile{}}
	for _, id := range []string{differ[0], graded.Instances[0].InstanceID, differ[1]} {
		in.preds.Entries = append(in.preds.Entries, entry{})
		in.preds.Entries[len(in.preds.Entries)-1].InstanceID = id
		in.preds.Entries[len(in.preds.Entries)-1].ModelNameOrPath = "m"
		in.preds.Entries[len(in.preds.Entries)-1].ModelPatch = &patch
	}
	fs := checkDataset(context.Background(), in, split, graded, localLoad)
	f, ok := find(fs, CheckDataset, Warn)
	if !ok || !reflect.DeepEqual(f.IDs, differ) || !strings.Contains(f.Message, "(PASS_TO_PASS)") {
		t.Errorf("findings %v; want a warning naming %v", fs, differ)
	}

	// The same revision is the official one.
	dm, _ = json.Marshal(dataset.Manifest{Source: graded.Source})
	in.Manifest.Dataset = dm
	if fs := checkDataset(context.Background(), in, split, graded, localLoad); fs.Worst() != Note {
		t.Errorf("the graded dataset itself: %v", fs)
	}
	// A run whose rows cannot be read any more is a warning.
	gone := old.Source
	gone.Files = append([]dataset.File(nil), gone.Files...)
	gone.Files[0].Path = filepath.Join(t.TempDir(), "gone.parquet")
	dm, _ = json.Marshal(dataset.Manifest{Source: gone})
	in.Manifest.Dataset = dm
	if f, ok := find(checkDataset(context.Background(), in, split, graded, localLoad), CheckDataset, Warn); !ok || !strings.Contains(f.Message, "could not be read") {
		t.Errorf("a run whose file is gone: %v", f)
	}
}

func TestSBCLICommand(t *testing.T) {
	s := mustSplit(t, "verified", false)
	if got, want := SBCLICommand(s, "/tmp/my run/preds.json", "20260102_x"), "sb-cli submit swe-bench_verified test --predictions_path '/tmp/my run/preds.json' --run_id 20260102_x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := Build(context.Background(), &Input{preds: &predFile{}}, t.TempDir(), Options{Split: mustSplit(t, "test", false), Name: "x", Date: "20260102", SBCLI: true}); err == nil || !strings.Contains(err.Error(), "sb-cli does not grade split test") {
		t.Errorf("--sb-cli for the full test split: %v", err)
	}
}

func TestFolderName(t *testing.T) {
	if got, err := FolderName("20260102", "mini-v2_claude-4.5+tools"); err != nil || got != "20260102_mini-v2_claude-4.5+tools" {
		t.Errorf("FolderName = %q, %v", got, err)
	}
	for _, tt := range [][2]string{{"2026-01-02", "x"}, {"20261302", "x"}, {"20260102", "a/b"}, {"20260102", ""}, {"20260102", ".hidden"}} {
		if _, err := FolderName(tt[0], tt[1]); err == nil {
			t.Errorf("FolderName(%q, %q) gave no error", tt[0], tt[1])
		}
	}
}
