package pro

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Tags as the harness's helper_code/image_uri.py names them. The qutebrowser and NodeBB ones are
// the image_name values of scaleapi/mini-swe-agent's data/swebench_pro_mini_example_instances.yaml
// (commit 545b97e2ac39f29e72d5e26efdf8ff2256cd1180), which that script made: the first shows the
// cut at 128 characters.
func TestDockerHubTag(t *testing.T) {
	cases := []struct{ id, repo, want string }{
		{"instance_qutebrowser__qutebrowser-f91ace96223cac8161c16dd061907e138fe85111-v059c6fdc75567943479b23ebca7c07b5e9a7f34c", "qutebrowser/qutebrowser",
			"qutebrowser.qutebrowser-qutebrowser__qutebrowser-f91ace96223cac8161c16dd061907e138fe85111-v059c6fdc75567943479b23ebca7c07b5e9a7f"},
		{"instance_NodeBB__NodeBB-04998908ba6721d64eba79ae3b65a351dcfbc5b5-vnan", "NodeBB/NodeBB",
			"nodebb.nodebb-NodeBB__NodeBB-04998908ba6721d64eba79ae3b65a351dcfbc5b5"},
		{"instance_element-hq__element-web-ec0f940ef0e8e3b61078f145f34dc40d1938e6c5-vnan", "element-hq/element-web",
			"element-hq.element-web-element-hq__element-web-ec0f940ef0e8e3b61078f145f34dc40d1938e6c5-vnan"},
		{"instance_element-hq__element-web-1234-vnan", "element-hq/element-web", "element-hq.element-element-hq__element-web-1234"},
		{"instance_ansible__ansible-abc-v390e", "ansible/ansible", "ansible.ansible-ansible__ansible-abc-v390e"},
	}
	for _, tc := range cases {
		if got := DockerHubTag(tc.id, tc.repo); got != tc.want {
			t.Errorf("DockerHubTag(%s):\n got %s\nwant %s", tc.id, got, tc.want)
		}
	}
	if got := Image(strings.Repeat("a", 130)); got != "jefzda/sweap-images:"+strings.Repeat("a", 128) {
		t.Errorf("Image does not cut at 128: %s", got)
	}
}

func TestParsePyList(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{`['a::b[x-1]', "c 'd'", 'e\'f', "g\\h", 'i\nj', '\x41\u00e9']`, []string{"a::b[x-1]", "c 'd'", "e'f", `g\h`, "i\nj", "Aé"}, false},
		{`["json", "list"]`, []string{"json", "list"}, false},
		{"[\n  'trailing',\n]", []string{"trailing"}, false},
		{`[]`, []string{}, false},
		{`['adjacent' 'literals']`, []string{"adjacentliterals"}, false},
		{`[r'raw\d']`, []string{`raw\d`}, false},
		{`['unterminated]`, nil, true},
		{`['a'] tail`, nil, true},
		{`[1, 2]`, nil, true},
		{`not a list`, nil, true},
	}
	for _, tc := range cases {
		got, err := pytext.LiteralStrings(tc.in)
		if (err != nil) != tc.err || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) && !tc.err {
			t.Errorf("LiteralStrings(%s) = %q, %v; want %q (error %t)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func proRow() *dataset.Instance {
	return &dataset.Instance{
		InstanceID: "instance_org__repo-abc-vnan", Repo: "org/repo", BaseCommit: strings.Repeat("b", 40),
		ProblemStatement: "Fix the thing.",
		Extra: map[string]any{
			"requirements": "- It must work.", "interface": "No new interfaces are introduced",
			"fail_to_pass": "['t.py::test_a']", "pass_to_pass": `["t.py::test_b"]`,
			"selected_test_files_to_run": "['t.py']", "before_repo_set_cmd": "git checkout x -- t.py",
			"dockerhub_tag": "org.repo-org__repo-abc",
		},
	}
}

func TestPrepare(t *testing.T) {
	p := New(Options{})
	inst := proRow()
	if !p.Match(inst) {
		t.Fatal("a Pro row is not matched")
	}
	if err := p.Prepare(inst); err != nil {
		t.Fatal(err)
	}
	if inst.Image != "jefzda/sweap-images:org.repo-org__repo-abc" || inst.WorkDir != "/app" ||
		inst.Task != "Fix the thing.\n\nRequirements:\n- It must work.\n\nNew interfaces introduced:\nNo new interfaces are introduced" ||
		fmt.Sprint(inst.FailToPass, inst.PassToPass) != "[t.py::test_a] [t.py::test_b]" {
		t.Errorf("prepared: %+v", inst)
	}
	inst = proRow()
	delete(inst.Extra, "dockerhub_tag")
	if err := p.Prepare(inst); err != nil || inst.Image != "jefzda/sweap-images:org.repo-org__repo-abc" {
		t.Errorf("without dockerhub_tag: %v, %s", err, inst.Image)
	}

	// A SWE-bench row read as a Pro row is refused, naming every missing column.
	swe := &dataset.Instance{InstanceID: "django__django-1", Repo: "django/django", BaseCommit: "c", ProblemStatement: "x",
		FailToPass: []string{"a"}, PassToPass: []string{}, Extra: map[string]any{"eval_script": "..."}}
	if p.Match(swe) {
		t.Error("a SWE-bench row is matched")
	}
	err := p.Prepare(swe)
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *dataset.FieldError
		if errors.As(e, &fe) {
			fields = append(fields, fe.Field)
		}
	}
	if fmt.Sprint(fields) != "[before_repo_set_cmd selected_test_files_to_run requirements interface]" || !strings.Contains(err.Error(), "SWE-bench Pro row") {
		t.Errorf("fields %v: %v", fields, err)
	}
	bad := proRow()
	bad.Extra["fail_to_pass"] = "['unterminated"
	if err := p.Prepare(bad); err == nil || !strings.Contains(err.Error(), "fail_to_pass") {
		t.Errorf("a bad test list: %v", err)
	}
}

func TestStripBinaryHunks(t *testing.T) {
	text := "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
	bin := "diff --git a/i.png b/i.png\nindex 1..2 100644\nGIT binary patch\nliteral 3\nabc\n\n"
	bin2 := "diff --git a/j.png b/j.png\nBinary files a/j.png and b/j.png differ\n"
	if got := StripBinaryHunks(text + bin + text + bin2); got != text+text {
		t.Errorf("got %q", got)
	}
	if got := StripBinaryHunks("From abc\n" + text); got != "From abc\n"+text {
		t.Errorf("a leading header is kept: %q", got)
	}
	if got := StripBinaryHunks("  \n" + text); got != text {
		t.Errorf("a blank lead is dropped: %q", got)
	}
}

// Resolved iff fail_to_pass ∪ pass_to_pass ⊆ PASSED.
func TestGrade(t *testing.T) {
	inst := dataset.Instance{FailToPass: []string{"a", "b"}, PassToPass: []string{"c"}}
	cases := []struct {
		output string
		want   family.Outcome
	}{
		{`{"tests": [{"name": "a", "status": "PASSED"}, {"name": "b", "status": "PASSED"}, {"name": "c", "status": "PASSED"}, {"name": "d", "status": "FAILED"}]}`, family.Resolved},
		{`{"tests": [{"name": "a", "status": "PASSED"}, {"name": "b", "status": "PASSED"}, {"name": "c", "status": "SKIPPED"}]}`, family.Unresolved},
		{`{"tests": [{"name": "a", "status": "PASSED"}, {"name": "c", "status": "PASSED"}]}`, family.Unresolved},
		{`{"tests": [{"name": "a", "status": "FAILED"}, {"name": "a", "status": "PASSED"}, {"name": "b", "status": "PASSED"}, {"name": "c", "status": "PASSED"}]}`, family.Resolved},
		{`{"tests": []}`, family.Unresolved},
		{`{"results": []}`, family.Error},
		{`{"tests": [{"status": "PASSED"}]}`, family.Error},
		{`[]`, family.Error},
	}
	for _, tc := range cases {
		if got := Grade(inst, []byte(tc.output)); got.Outcome != tc.want {
			t.Errorf("Grade(%s) = %s (%s), want %s", tc.output, got.Outcome, got.Reason, tc.want)
		}
	}
}

func strp(s string) *string { return &s }

func TestPredictionsRoundTrip(t *testing.T) {
	p := New(Options{})
	name, data, err := p.ExportPredictions([]family.Prediction{
		{InstanceID: "instance_a", ModelNameOrPath: "openai/gpt-5", ModelPatch: strp("diff --git a/é b/é\n")},
		{InstanceID: "instance_b", ModelNameOrPath: "openai/gpt-5", ModelPatch: nil},
	})
	if err != nil || name != PatchesFile {
		t.Fatal(name, err)
	}
	want := "[\n  {\n    \"instance_id\": \"instance_a\",\n    \"patch\": \"diff --git a/\\u00e9 b/\\u00e9\\n\",\n    \"prefix\": \"openai__gpt-5\"\n  },\n" +
		"  {\n    \"instance_id\": \"instance_b\",\n    \"patch\": \"\",\n    \"prefix\": \"openai__gpt-5\"\n  }\n]"
	if string(data) != want {
		t.Errorf("export:\n%s\nwant\n%s", data, want)
	}
	preds, ok, err := p.ReadPredictions("x/sample1_patches.json", data)
	if err != nil || !ok || preds["instance_a"].Patch() != "diff --git a/é b/é\n" || preds["instance_a"].ModelNameOrPath != "openai__gpt-5" || !preds["instance_b"].Empty() {
		t.Errorf("read back: %+v, %v, %v", preds, ok, err)
	}
	// model_patch wins over patch, as in the harness; no prefix: the file's name.
	preds, ok, err = p.ReadPredictions("x/sample1.json", []byte(`[{"instance_id": "i", "patch": "p", "model_patch": "m"}]`))
	if err != nil || !ok || preds["i"].Patch() != "m" || preds["i"].ModelNameOrPath != "sample1" {
		t.Errorf("model_patch: %+v, %v, %v", preds, ok, err)
	}
	for _, notOurs := range []string{`[{"instance_id": "i", "model_name_or_path": "m", "model_patch": "p"}]`, `[{"instance_id": "i", "model_patch": "p"}]`, `{"i": {}}`, `[]`} {
		if _, ok, err := p.ReadPredictions("x.json", []byte(notOurs)); ok || err != nil {
			t.Errorf("%s read as the harness's: %v", notOurs, err)
		}
	}
	if _, _, err := p.ReadPredictions("x.json", []byte(`[{"instance_id": "i", "patch": "a"}, {"instance_id": "i", "patch": "b"}]`)); err == nil {
		t.Error("a duplicated id was accepted")
	}
}

// eval_results.json: graded predictions only, merged with an earlier file; read back, an
// instance whose folder has no output.json is an error.
func TestEvalResults(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, EvalResultsFile), []byte(`{"instance_old": true}`), 0o644)
	g := &grader{}
	preds := map[string]family.Prediction{"instance_r": {}, "instance_u": {}, "instance_e": {}, "instance_empty": {}}
	verdicts := map[string]family.Verdict{
		"instance_r": {Outcome: family.Resolved}, "instance_u": {Outcome: family.Unresolved},
		"instance_e": {Outcome: family.Error}, "instance_empty": {Outcome: family.EmptyPatch},
	}
	if err := g.Finish(dir, preds, verdicts); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, EvalResultsFile))
	if want := `{"instance_e": false, "instance_old": true, "instance_r": true, "instance_u": false}`; string(data) != want {
		t.Errorf("eval_results.json %s, want %s", data, want)
	}
	os.MkdirAll(filepath.Join(dir, "instance_e"), 0o755)
	os.WriteFile(filepath.Join(dir, "instance_e", "m_stderr.log"), []byte("boom"), 0o644)
	os.MkdirAll(filepath.Join(dir, "instance_u"), 0o755)
	os.WriteFile(filepath.Join(dir, "instance_u", "m_output.json"), []byte(`{"tests": []}`), 0o644)
	fv, ok, err := reports{}.ReadEvalFolder(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	got := fmt.Sprintf("%s %s %s %s %d", fv.Verdicts["instance_r"].Outcome, fv.Verdicts["instance_u"].Outcome, fv.Verdicts["instance_e"].Outcome, fv.Verdicts["instance_old"].Outcome, len(fv.Verdicts))
	if got != "resolved unresolved error resolved 4" {
		t.Errorf("read back: %s", got)
	}
	if _, ok, _ := (reports{}).ReadEvalFolder(t.TempDir()); ok {
		t.Error("a folder without eval_results.json was read")
	}
	if _, ok, _ := (reports{}).ReadReportFile("x.json", []byte(`{"a": 1}`)); ok {
		t.Error("an object of numbers was read as eval_results")
	}
}

// --from-logs on the harness's output folder: <id>/<prefix>_output.json of another prefix.
func TestRegrade(t *testing.T) {
	logs, dst := t.TempDir(), t.TempDir()
	inst := dataset.Instance{InstanceID: "instance_a", FailToPass: []string{"t1"}, PassToPass: []string{}}
	src := filepath.Join(logs, "instance_a")
	os.MkdirAll(src, 0o755)
	// As the harness writes it: json.dump(output) of the parser's output.
	os.WriteFile(filepath.Join(src, "sample1_output.json"), []byte(`{"tests": [{"name": "t1", "status": "PASSED"}]}`), 0o644)
	os.WriteFile(filepath.Join(src, "sample1_stdout.log"), []byte("ok\n"), 0o644)
	g := &grader{}
	pred := family.Prediction{InstanceID: "instance_a", ModelNameOrPath: "my/model", ModelPatch: strp("diff")}
	v, found, err := g.Regrade(inst, pred, []string{filepath.Join(logs, "nope"), logs}, dst)
	if err != nil || !found || v.Outcome != family.Resolved {
		t.Fatalf("regrade: %+v, %v, %v", v, found, err)
	}
	for _, f := range []string{"my__model_output.json", "my__model_stdout.log", "my__model_patch.diff"} {
		if _, err := os.Stat(filepath.Join(dst, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if v, ok := g.Reuse(inst, pred, dst); !ok || v.Outcome != family.Resolved {
		t.Errorf("reuse of the regraded folder: %+v, %v", v, ok)
	}
	os.Remove(filepath.Join(src, "sample1_output.json"))
	if v, found, _ := g.Regrade(inst, pred, []string{logs}, t.TempDir()); !found || v.ErrorKind != family.KindNoTestOutput {
		t.Errorf("logs without output.json: %+v, %v", v, found)
	}
	if _, found, _ := g.Regrade(dataset.Instance{InstanceID: "instance_z"}, pred, []string{logs}, t.TempDir()); found {
		t.Error("an instance without logs was found")
	}
}

func TestRepoOf(t *testing.T) {
	p := New(Options{})
	for id, want := range map[string]string{
		"instance_NodeBB__NodeBB-00c70ce7b0541cfc94afe567921d7668cdc8f4ac-vnan":                                              "NodeBB/NodeBB",
		"instance_element-hq__element-web-ec0f940ef0e8e3b61078f145f34dc40d1938e6c5-vnan":                                     "element-hq/element-web",
		"instance_future-architect__vuls-abc0000000000000000000000000000000000001-v1151a6325649aaf997cd541ebe533b53fddf1b07": "future-architect/vuls",
		"instance_flipt-io__flipt-abc0000000000000000000000000000000000001":                                                  "flipt-io/flipt",
		"django__django-11099":        "",
		"instance_x__y-notahash-vnan": "",
	} {
		got, ok := p.RepoOf(id)
		if got != want || ok != (want != "") {
			t.Errorf("RepoOf(%s) = %q, %v; want %q", id, got, ok, want)
		}
	}
}
