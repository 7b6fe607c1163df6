package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func loadFixture(t *testing.T, rel string) *Loaded {
	t.Helper()
	l, err := Load(context.Background(), fixture(t, rel), LoadOptions{})
	if err != nil {
		t.Fatalf("load %s: %v", rel, err)
	}
	return l
}

func TestFixtureDatasets(t *testing.T) {
	tests := []struct {
		file      string
		rows      int
		firstID   string
		lastID    string
		check     func(t *testing.T, insts []Instance)
		forRun    bool // every row passes ValidateForRun
		forEval   bool // every row passes ValidateForEval
		hasImages bool // every row names its image
	}{
		{file: "SWE-bench_Verified.test.parquet", rows: 500, firstID: "astropy__astropy-12907", forRun: true, forEval: true, hasImages: true,
			check: func(t *testing.T, insts []Instance) {
				i := insts[0]
				want := []string{"astropy/modeling/tests/test_separable.py::test_separable[compound_model6-result6]", "astropy/modeling/tests/test_separable.py::test_separable[compound_model9-result9]"}
				if !reflect.DeepEqual(i.FailToPass, want) {
					t.Errorf("got FAIL_TO_PASS %q, want %q", i.FailToPass, want)
				}
				checkStrings(t, map[string][2]string{
					"repo":       {i.Repo, "astropy/astropy"},
					"version":    {i.Version, "4.3"},
					"base":       {i.BaseCommit, "d16bfe05a744909de4b27f5875fe0d4ed41ce607"},
					"log_parser": {i.LogParser, "parse_log_astropy"},
					"eval_type":  {i.EvalType, "pass_and_fail"},
					"image":      {i.Image, "swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest"},
					"difficulty": {i.Extra["difficulty"].(string), "15 min - 1 hour"},
					"created_at": {i.CreatedAt, "2022-03-03T15:14:54Z"},
				})
				if len(i.PassToPass) != 13 || !strings.HasPrefix(i.EvalScript, "#!/bin/bash\nset -uxo pipefail") {
					t.Errorf("got %d PASS_TO_PASS, eval_script %.30q", len(i.PassToPass), i.EvalScript)
				}
			}},
		{file: "SWE-bench_Verified.test.2026-02-16.parquet", rows: 500, firstID: "astropy__astropy-12907", forRun: true, forEval: true, hasImages: true},
		{file: "SWE-bench_Verified.first50.hf-layout.parquet", rows: 50, firstID: "astropy__astropy-12907", forRun: true, forEval: true,
			check: func(t *testing.T, insts []Instance) {
				i := insts[0]
				if i.Image != "" || i.EvalScript != "" || len(i.Extra) != 1 {
					t.Errorf("got image %q, eval_script %d bytes, extra %v; want none of the v5 columns and only difficulty", i.Image, len(i.EvalScript), i.Extra)
				}
				img, err := i.ImageName("")
				if want := "docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest"; err != nil || img != want {
					t.Errorf("got image %q, %v; want %q", img, err, want)
				}
			}},
		{file: "SWE-bench_Lite.test.parquet", rows: 300, firstID: "astropy__astropy-12907", forRun: true, forEval: true, hasImages: true},
		{file: "SWE-bench_Lite.dev.parquet", rows: 23, firstID: "sqlfluff__sqlfluff-1625", lastID: "pydicom__pydicom-1256", forRun: true, forEval: true, hasImages: true,
			check: func(t *testing.T, insts []Instance) {
				i := insts[22]
				if i.Version != "2.1" || i.LogParser != "parse_log_pydicom" || len(i.PassToPass) != 22 {
					t.Errorf("got version %q, log_parser %q, %d PASS_TO_PASS; want 2.1, parse_log_pydicom, 22", i.Version, i.LogParser, len(i.PassToPass))
				}
			}},
		{file: "SWE-bench_Lite.dev.jsonl", rows: 23, firstID: "sqlfluff__sqlfluff-1625", lastID: "pydicom__pydicom-1256", forRun: true, forEval: true, hasImages: true},
		{file: "SWE-bench.dev.parquet", rows: 225, firstID: "sqlfluff__sqlfluff-4764", forRun: true, forEval: true, hasImages: true},
		{file: "SWE-bench_Multilingual.test.parquet", rows: 300, firstID: "apache__druid-13704", forRun: true, forEval: true, hasImages: true,
			check: func(t *testing.T, insts []Instance) {
				i := insts[0]
				want := []string{"org.apache.druid.query.aggregation.post.ArithmeticPostAggregatorTest#testPow"}
				if !reflect.DeepEqual(i.FailToPass, want) || len(i.PassToPass) == 0 {
					t.Errorf("got FAIL_TO_PASS %q (want %q), %d PASS_TO_PASS", i.FailToPass, want, len(i.PassToPass))
				}
				if i.EnvironmentSetupCommit != "" || i.Version != "13704" || i.LogParser != "parse_log_maven" {
					t.Errorf("got environment_setup_commit %q, version %q, log_parser %q", i.EnvironmentSetupCommit, i.Version, i.LogParser)
				}
				repos := map[string]bool{}
				for _, i := range insts {
					repos[i.Repo] = true
				}
				if len(repos) != 41 {
					t.Errorf("got %d repos, want 41", len(repos))
				}
			}},
		{file: "SWE-bench_Multimodal.dev.parquet", rows: 102, firstID: "chartjs__Chart.js-10301", forRun: true, forEval: true, hasImages: true,
			check: func(t *testing.T, insts []Instance) {
				failOnly := 0
				for _, i := range insts {
					if i.EvalType == "fail_only" {
						failOnly++
					}
					assets, ok := i.Extra["image_assets"].(string)
					if !ok || !json.Valid([]byte(assets)) {
						t.Fatalf("%s: got image_assets %T, want a JSON string", i.InstanceID, i.Extra["image_assets"])
					}
				}
				if failOnly != 54 {
					t.Errorf("got %d fail_only rows, want 54", failOnly)
				}
				if got := insts[0].TemplateVars()["image_assets"]; got == nil {
					t.Errorf("image_assets missing from the template variables")
				}
			}},
		{file: "json-edge-cases/debug_20240322.json", rows: 5, firstID: "scikit-learn__scikit-learn-11574", lastID: "django__django-13251", forRun: true, forEval: true,
			check: func(t *testing.T, insts []Instance) {
				if got := insts[0].FailToPass; !reflect.DeepEqual(got, []string{"sklearn/ensemble/tests/test_iforest.py::test_deprecation"}) {
					t.Errorf("got FAIL_TO_PASS %q", got)
				}
				if insts[0].Version != "0.20" {
					t.Errorf("got version %q, want 0.20", insts[0].Version)
				}
			}},
		{file: "json-edge-cases/human_eval.json", rows: 5, firstID: "swe-bench__humaneval-30", forRun: true, forEval: true,
			check: func(t *testing.T, insts []Instance) {
				i := insts[0]
				if i.CreatedAt != "2023110716" || i.HintsText != "" || i.EnvironmentSetupCommit != "" {
					t.Errorf("got created_at %q, hints_text %q, environment_setup_commit %q", i.CreatedAt, i.HintsText, i.EnvironmentSetupCommit)
				}
				if i.FailToPass == nil || len(i.FailToPass) != 0 {
					t.Errorf("got FAIL_TO_PASS %#v, want an empty (not absent) list", i.FailToPass)
				}
				if _, ok := i.Extra["base_commit_with_tests"].(string); !ok {
					t.Errorf("unknown column base_commit_with_tests not kept: %v", i.Extra)
				}
			}},
		{file: "json-edge-cases/swe-bench-dev-easy_first_only.json", rows: 1, firstID: "pydicom__pydicom-1458", forRun: true, forEval: true,
			check: func(t *testing.T, insts []Instance) {
				vars := insts[0].TemplateVars()
				if _, ok := vars["query"].(string); !ok {
					t.Errorf("extra column query not in the template variables")
				}
				if _, ok := vars["task_id"]; !ok {
					t.Errorf("extra column task_id not in the template variables")
				}
			}},
		{file: "json-edge-cases/swe-bench-lite-test.json", rows: 5, firstID: "django__django-16255", lastID: "django__django-15781", forRun: true, forEval: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			l := loadFixture(t, "datasets/"+tt.file)
			insts := l.Instances
			if len(insts) != tt.rows || l.Source.Rows != tt.rows {
				t.Fatalf("got %d instances (%d rows), want %d", len(insts), l.Source.Rows, tt.rows)
			}
			if insts[0].InstanceID != tt.firstID {
				t.Errorf("got first id %q, want %q", insts[0].InstanceID, tt.firstID)
			}
			if tt.lastID != "" && insts[len(insts)-1].InstanceID != tt.lastID {
				t.Errorf("got last id %q, want %q", insts[len(insts)-1].InstanceID, tt.lastID)
			}
			data, err := os.ReadFile(fixture(t, "datasets/"+tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if f := l.Source.Files; len(f) != 1 || f[0].SHA256 != sha256hex(data) || f[0].Size != int64(len(data)) || f[0].Rows != tt.rows || l.Source.Kind != "file" {
				t.Errorf("got source %+v", l.Source)
			}
			for _, i := range insts {
				if err := i.ValidateForRun(); tt.forRun && err != nil {
					t.Errorf("%s: %v", i.InstanceID, err)
				}
				if err := i.ValidateForEval(); tt.forEval && err != nil {
					t.Errorf("%s: %v", i.InstanceID, err)
				}
				if tt.hasImages && !strings.HasPrefix(i.Image, "swebench/sweb.eval.x86_64.") {
					t.Errorf("%s: got image %q", i.InstanceID, i.Image)
				}
			}
			if tt.check != nil {
				tt.check(t, insts)
			}
		})
	}
}

func TestFixtureJSONLMatchesParquet(t *testing.T) {
	pq := loadFixture(t, "datasets/SWE-bench_Lite.dev.parquet")
	jl := loadFixture(t, "datasets/SWE-bench_Lite.dev.jsonl")
	if !reflect.DeepEqual(pq.Instances, jl.Instances) {
		t.Errorf("the JSON lines conversion decodes differently from the parquet file")
	}
}

func TestFixtureDuplicatedIDs(t *testing.T) {
	_, err := Load(context.Background(), fixture(t, "datasets/json-edge-cases/swe-bench-dev-easy.json"), LoadOptions{})
	var de *DuplicateIDsError
	if !errors.As(err, &de) {
		t.Fatalf("got %v, want a *DuplicateIDsError", err)
	}
	if got, want := de.Rows, map[string][]int{"pylint-dev__astroid-1268": {2, 4}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, want := range []string{"swe-bench-dev-easy.json", "pylint-dev__astroid-1268 (rows 2, 4)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to contain %q", err, want)
		}
	}
}

func checkStrings(t *testing.T, m map[string][2]string) {
	t.Helper()
	for name, gw := range m {
		if gw[0] != gw[1] {
			t.Errorf("%s: got %q, want %q", name, gw[0], gw[1])
		}
	}
}
