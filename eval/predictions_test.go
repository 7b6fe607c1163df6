package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
)

func TestLoadPredictionsFixtures(t *testing.T) {
	tests := []struct {
		file      string
		wantCount int
		wantModel string
		wantID    string
	}{
		{"runs/deepseek-chat-lite-dev/output/preds.json", 23, "deepseek/deepseek-chat", "sqlfluff__sqlfluff-2419"},
		{"predictions/preds_sbl.json", 300, "gold", "django__django-15202"},
		{"predictions/check-harness.jsonl", 126, "gold", "astropy__astropy-7858"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			preds, err := LoadPredictions(fixture(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(preds); got != tt.wantCount {
				t.Errorf("got %d predictions, want %d", got, tt.wantCount)
			}
			p, ok := preds[tt.wantID]
			if !ok {
				t.Fatalf("no prediction for %s", tt.wantID)
			}
			if p.ModelNameOrPath != tt.wantModel || p.InstanceID != tt.wantID || !strings.HasPrefix(p.Patch(), "diff --git") {
				t.Errorf("got %+v", p)
			}
		})
	}
}

func TestLoadPredictionsShapesAndErrors(t *testing.T) {
	tests := []struct {
		name      string
		content   string
		wantIDs   []string
		wantEmpty []string // ids whose patch is empty or null
		wantErr   []string
	}{
		{name: "object keyed by id", content: `{"a__b-1": {"model_name_or_path": "m", "instance_id": "a__b-1", "model_patch": "diff"}, "a__b-2": {"model_name_or_path": "m", "model_patch": null}}`,
			wantIDs: []string{"a__b-1", "a__b-2"}, wantEmpty: []string{"a__b-2"}},
		{name: "list", content: `[{"model_name_or_path": "m", "instance_id": "a__b-1", "model_patch": ""}]`, wantIDs: []string{"a__b-1"}, wantEmpty: []string{"a__b-1"}},
		{name: "json lines with blank lines", content: "{\"model_name_or_path\": \"m\", \"instance_id\": \"a__b-1\", \"model_patch\": \"d\"}\n\n{\"model_name_or_path\": \"m\", \"instance_id\": \"a__b-2\", \"model_patch\": \"d\"}\n",
			wantIDs: []string{"a__b-1", "a__b-2"}},
		{name: "one prediction object", content: `{"model_name_or_path": "m", "instance_id": "a__b-1", "model_patch": "d"}`, wantIDs: []string{"a__b-1"}},
		{name: "empty file", content: "  \n", wantErr: []string{"empty"}},
		{name: "not json", content: "diff --git a/x b/x", wantErr: []string{"expected a JSON object"}},
		{name: "bad json line", content: "{\"model_name_or_path\": \"m\", \"instance_id\": \"a\", \"model_patch\": \"d\"}\n{oops\n", wantErr: []string{":2:"}},
		{name: "duplicate id in list", content: `[{"model_name_or_path": "m", "instance_id": "a", "model_patch": "d"}, {"model_name_or_path": "m", "instance_id": "a", "model_patch": "e"}]`,
			wantErr: []string{"item 1", `"a" appears more than once`}},
		{name: "missing model_patch", content: `[{"model_name_or_path": "m", "instance_id": "a"}]`, wantErr: []string{"item 0", "missing model_patch"}},
		{name: "missing model name", content: `[{"instance_id": "a", "model_patch": "d"}]`, wantErr: []string{"model_name_or_path"}},
		{name: "missing instance id", content: `[{"model_name_or_path": "m", "model_patch": "d"}]`, wantErr: []string{"missing instance_id"}},
		{name: "key and id differ", content: `{"a": {"model_name_or_path": "m", "instance_id": "b", "model_patch": "d"}}`, wantErr: []string{`entry "a"`, "differs"}},
		{name: "patch not a string", content: `[{"model_name_or_path": "m", "instance_id": "a", "model_patch": 3}]`, wantErr: []string{"not a string"}},
		{name: "list of non-objects", content: `["a"]`, wantErr: []string{"not a prediction object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "preds.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			preds, err := LoadPredictions(path)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("got %v, want an error", preds)
				}
				for _, w := range append(tt.wantErr, path) {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(preds) != len(tt.wantIDs) {
				t.Errorf("got %d predictions, want %d", len(preds), len(tt.wantIDs))
			}
			empty := map[string]bool{}
			for _, id := range tt.wantEmpty {
				empty[id] = true
			}
			for _, id := range tt.wantIDs {
				p, ok := preds[id]
				if !ok {
					t.Errorf("no prediction for %s", id)
					continue
				}
				if p.Empty() != empty[id] {
					t.Errorf("%s: got Empty()=%t, want %t", id, p.Empty(), empty[id])
				}
			}
		})
	}
}

func TestGoldPredictions(t *testing.T) {
	insts := []dataset.Instance{{InstanceID: "a__b-1", Patch: "diff --git a/x b/x"}, {InstanceID: "a__b-2"}}
	got := GoldPredictions(insts)
	if len(got) != 2 || got["a__b-1"].Patch() != "diff --git a/x b/x" || got["a__b-1"].ModelNameOrPath != "gold" || !got["a__b-2"].Empty() {
		t.Errorf("got %+v", got)
	}
	if name := RunReportName(ModelName(got), "r1"); name != "gold.r1.json" {
		t.Errorf("got run report name %q, want gold.r1.json", name)
	}
	if name := RunReportName("org/model", "r1"); name != "org__model.r1.json" {
		t.Errorf("got run report name %q, want org__model.r1.json", name)
	}
}

func TestDefaultImage(t *testing.T) {
	tests := []struct {
		inst dataset.Instance
		want string
	}{
		{dataset.Instance{InstanceID: "swe-agent__test-repo__1"}, "docker.io/swebench/sweb.eval.x86_64.swe-agent_1776_test-repo_1776_1:latest"},
		{dataset.Instance{InstanceID: "Django__Django-1"}, "docker.io/swebench/sweb.eval.x86_64.django_1776_django-1:latest"},
		{dataset.Instance{InstanceID: "a__b-1", Image: "ghcr.io/x/y:1"}, "ghcr.io/x/y:1"},
		{dataset.Instance{InstanceID: "a__b-1", Extra: map[string]any{"image_name": "jyangballin/swesmith.x:1"}}, "jyangballin/swesmith.x:1"},
	}
	for _, tt := range tests {
		got, err := DefaultImage(tt.inst)
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.inst.InstanceID, got, err, tt.want)
		}
	}
}
