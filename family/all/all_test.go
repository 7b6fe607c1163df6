package all

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/swebench"
)

func TestRegistry(t *testing.T) {
	r := New(Options{AssetCache: t.TempDir()})
	for name, title := range map[string]string{"": "SWE-bench", "swebench": "SWE-bench", "pro": "SWE-bench Pro"} {
		p, ok := r.Lookup(name)
		if !ok || p.Title() != title {
			t.Errorf("Lookup(%q) = %v, %v; want %s", name, p, ok, title)
		}
	}
	if _, ok := r.Lookup("nope"); ok {
		t.Error("an unknown family was found")
	}
	if r.Grader("swebench") != nil || r.Grader("") != nil || r.Grader("nope") != nil {
		t.Error("SWE-bench rows must be graded by eval's built-in grading")
	}
	if r.Grader("pro") == nil {
		t.Error("no grader for pro")
	}
	pro := &dataset.Instance{Extra: map[string]any{"dockerhub_tag": "x"}}
	swe := &dataset.Instance{Extra: map[string]any{"eval_script": "x"}}
	if r.Detect(pro).Name() != "pro" || r.Detect(swe).Name() != swebench.Name {
		t.Errorf("Detect: %s, %s", r.Detect(pro).Name(), r.Detect(swe).Name())
	}
}

// Every family declares its named datasets; they are listed SWE-bench's first, each name once,
// with the family that declared it.
func TestNamedDatasets(t *testing.T) {
	r := New(Options{AssetCache: t.TempDir()})
	named := r.Named()
	seen := map[string]bool{}
	families := map[string]bool{}
	for _, d := range named {
		if seen[d.Name] {
			t.Errorf("named dataset %s is declared twice", d.Name)
		}
		seen[d.Name] = true
		families[d.Family] = true
		p, ok := r.Lookup(d.Family)
		if !ok {
			t.Errorf("named dataset %s: family %q is not registered", d.Name, d.Family)
			continue
		}
		if !slices.ContainsFunc(p.Datasets(), func(o dataset.NamedDataset) bool { return o.Name == d.Name }) {
			t.Errorf("named dataset %s is listed as %s's, which does not declare it", d.Name, d.Family)
		}
		if d.HFRepo == "" || d.Split == "" || d.Description == "" {
			t.Errorf("named dataset %s: %+v", d.Name, d)
		}
	}
	for _, p := range r.Profiles() {
		if !families[p.Name()] {
			t.Errorf("family %s declares no named dataset", p.Name())
		}
		if !slices.Contains(namedOrder, p.Name()) {
			t.Errorf("family %s is not in namedOrder", p.Name())
		}
	}
	if len(named) == 0 || named[0].Name != "verified" {
		t.Errorf("the first named dataset is %v, want verified", named[:1])
	}
	if got := Named(); !reflect.DeepEqual(got, named) {
		t.Errorf("Named() differs from the registry's")
	}
}

func strp(s string) *string { return &s }

func TestPredictionsBothWays(t *testing.T) {
	r := New(Options{AssetCache: t.TempDir()})
	dir := t.TempDir()
	insts := []dataset.Instance{
		{InstanceID: "instance_a__b-0000000000000000000000000000000000000001-vnan", Family: "pro"},
		{InstanceID: "django__django-1"},
	}
	preds := map[string]family.Prediction{
		insts[0].InstanceID: {InstanceID: insts[0].InstanceID, ModelNameOrPath: "org/m", ModelPatch: strp("diff a")},
		insts[1].InstanceID: {InstanceID: insts[1].InstanceID, ModelNameOrPath: "org/m", ModelPatch: strp("diff b")},
	}
	files, err := r.ExportPredictions(dir, insts, preds)
	if err != nil || len(files) != 1 || filepath.Base(files[0]) != "swe_bench_pro_patches.json" {
		t.Fatalf("export: %v, %v", files, err)
	}
	data, _ := os.ReadFile(files[0])
	if strings.Contains(string(data), "django") || !strings.Contains(string(data), `"prefix": "org__m"`) {
		t.Errorf("the Pro file holds:\n%s", data)
	}
	// The harness's patches file and a preds.json are both read.
	got, err := r.LoadPredictions(files[0])
	if err != nil || len(got) != 1 || got[insts[0].InstanceID].Patch() != "diff a" {
		t.Errorf("patches file: %v, %v", got, err)
	}
	predsJSON := filepath.Join(dir, "preds.json")
	os.WriteFile(predsJSON, []byte(`{"django__django-1": {"instance_id": "django__django-1", "model_name_or_path": "org/m", "model_patch": "diff b"}}`), 0o644)
	if got, err := r.LoadPredictions(predsJSON); err != nil || got["django__django-1"].ModelNameOrPath != "org/m" {
		t.Errorf("preds.json: %v, %v", got, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"instance_id": "x"}]`), 0o644)
	if _, err := r.LoadPredictions(bad); err == nil {
		t.Error("a list without patches was accepted")
	}
}

func TestReadEvalFolder(t *testing.T) {
	dir := t.TempDir()
	if fvs, err := ReadEvalFolder(filepath.Join(dir, "missing")); err != nil || fvs != nil {
		t.Errorf("a missing folder: %v, %v", fvs, err)
	}
	if fvs, err := ReadEvalFolder(dir); err != nil || fvs != nil {
		t.Errorf("an empty folder: %v, %v", fvs, err)
	}
	os.WriteFile(filepath.Join(dir, "eval_results.json"), []byte(`{"instance_a": true}`), 0o644)
	fvs, err := ReadEvalFolder(dir)
	if err != nil || len(fvs) != 1 || fvs[0].Verdicts["instance_a"].Outcome != family.Resolved {
		t.Errorf("eval_results.json: %+v, %v", fvs, err)
	}
	if _, ok, _ := ReadReportFile("x.json", []byte(`{"total_instances": 1, "resolved_ids": []}`)); ok {
		t.Error("a run report was read as another family's")
	}
	if repo, ok := RepoOf("instance_NodeBB__NodeBB-00c70ce7b0541cfc94afe567921d7668cdc8f4ac-vnan"); !ok || repo != "NodeBB/NodeBB" {
		t.Errorf("RepoOf: %s, %v", repo, ok)
	}
	if _, ok := RepoOf("django__django-1"); ok {
		t.Error("a SWE-bench id was named by a family")
	}
}
