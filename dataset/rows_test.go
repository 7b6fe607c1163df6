package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTestListForms(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		want    []string
		wantErr string
	}{
		{name: "list", in: []any{"a", "b"}, want: []string{"a", "b"}},
		{name: "JSON string", in: `["a", "b"]`, want: []string{"a", "b"}},
		{name: "empty string", in: "", want: []string{}},
		{name: "empty JSON list", in: "[]", want: []string{}},
		{name: "null", in: nil, want: nil},
		{name: "not JSON", in: "test_a, test_b", wantErr: "does not parse"},
		{name: "number", in: int64(3), wantErr: "got a number"},
		{name: "list of numbers", in: []any{"a", int64(1)}, wantErr: "element 1: want a string, got a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := testList(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
}

func TestJSONLRowsAndErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		req     Requirement
		check   func(t *testing.T, insts []Instance)
		wantErr []string
	}{
		{
			name: "F2P as list and as string, unknown columns kept, numeric version and created_at",
			content: `{"instance_id":"a__b-1","problem_statement":"fix","FAIL_TO_PASS":["t1","t2"],"PASS_TO_PASS":"[\"t3\"]","version":0.2,"created_at":1609298073000,"custom":{"k":1},"n":7}` + "\n\n" +
				`{"instance_id":"a__b-2","problem_statement":"fix","image_name":"reg/img:2","docker_image":"other/img:2"}` + "\n",
			req: RequireRun,
			check: func(t *testing.T, insts []Instance) {
				if !reflect.DeepEqual(insts[0].FailToPass, []string{"t1", "t2"}) || !reflect.DeepEqual(insts[0].PassToPass, []string{"t3"}) {
					t.Errorf("got %q / %q", insts[0].FailToPass, insts[0].PassToPass)
				}
				if insts[0].Version != "0.2" || insts[0].CreatedAt != "1609298073000" {
					t.Errorf("got version %q, created_at %q, want the numbers' literal text, 0.2 and 1609298073000", insts[0].Version, insts[0].CreatedAt)
				}
				vars := insts[0].TemplateVars()
				if vars["custom"].(map[string]any)["k"] == nil || vars["n"] == nil || vars["problem_statement"] != "fix" {
					t.Errorf("got template vars %v", vars)
				}
				if insts[1].Image != "reg/img:2" {
					t.Errorf("got image %q, want image_name to win over docker_image", insts[1].Image)
				}
				if insts[1].FailToPass != nil {
					t.Errorf("got FAIL_TO_PASS %#v for a row without the column, want nil", insts[1].FailToPass)
				}
			},
		},
		{
			name:    "wrong type names file, line, instance and field",
			content: `{"instance_id":"a__b-1","problem_statement":"x"}` + "\n" + `{"instance_id":"a__b-2","problem_statement":"x","FAIL_TO_PASS":5}` + "\n",
			wantErr: []string{"data.jsonl: line 2 (instance a__b-2): field \"FAIL_TO_PASS\": want a list of strings"},
		},
		{
			name:    "missing problem statement for a run",
			content: `{"instance_id":"a__b-1"}` + "\n",
			req:     RequireRun,
			wantErr: []string{"line 1 (instance a__b-1): field \"problem_statement\": missing or empty"},
		},
		{
			name:    "eval needs the test fields",
			content: `{"instance_id":"a__b-1","problem_statement":"x"}` + "\n",
			req:     RequireEval,
			wantErr: []string{`field "FAIL_TO_PASS": missing`, `field "PASS_TO_PASS": missing`},
		},
		{
			name:    "missing id",
			content: `{"problem_statement":"x"}` + "\n",
			wantErr: []string{"data.jsonl: line 1: field \"instance_id\": missing or empty"},
		},
		{
			name:    "id of the wrong type",
			content: `{"instance_id":12}` + "\n",
			wantErr: []string{"line 1: field \"instance_id\": want a string, got a number"},
		},
		{
			name:    "not an object",
			content: `{"instance_id":"a"}` + "\n" + `[1,2]` + "\n",
			wantErr: []string{"line 2: not a JSON object"},
		},
		{
			name:    "duplicates listed",
			content: strings.Repeat(`{"instance_id":"x__y-1","problem_statement":"p"}`+"\n", 3) + `{"instance_id":"x__y-2"}` + "\n" + `{"instance_id":"x__y-2"}` + "\n",
			wantErr: []string{"2 duplicated instance_id(s): x__y-1 (rows 1, 2, 3); x__y-2 (rows 4, 5)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, "data.jsonl", []byte(tt.content))
			l, err := Load(context.Background(), p, LoadOptions{Require: tt.req})
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("got %d instances, want an error", len(l.Instances))
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("got %q, want it to contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, l.Instances)
		})
	}
}

func TestJSONForms(t *testing.T) {
	rows := `{"instance_id":"o__r-1","problem_statement":"p1"},{"instance_id":"o__r-2","problem_statement":"p2"}`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("[" + rows + "]"))
	zw.Close()
	tests := []struct {
		name, file, content string
		wantIDs             []string
		wantErr             string
	}{
		{name: "list", file: "d.json", content: "[" + rows + "]", wantIDs: []string{"o__r-1", "o__r-2"}},
		{name: "object keyed by id", file: "d.json", content: `{"o__r-2":{"problem_statement":"p"},"o__r-1":{"instance_id":"o__r-1","problem_statement":"p"}}`, wantIDs: []string{"o__r-2", "o__r-1"}},
		{name: "JSON lines named .json", file: "d.json", content: strings.ReplaceAll(rows, "},{", "}\n{"), wantIDs: []string{"o__r-1", "o__r-2"}},
		{name: "gzip list", file: "d.json.gz", content: gz.String(), wantIDs: []string{"o__r-1", "o__r-2"}},
		{name: "key and id disagree", file: "d.json", content: `{"o__r-1":{"instance_id":"o__r-9"}}`, wantErr: `row 1 (instance o__r-1): field "instance_id": "o__r-9" differs from the row's key`},
		{name: "truncated gzip", file: "d.jsonl.gz", content: gz.String()[:gz.Len()/2], wantErr: "corrupt or truncated gzip"},
		{name: "invalid JSON", file: "d.json", content: `[{"instance_id": "a"`, wantErr: "invalid JSON list of rows"},
		{name: "scalar", file: "d.json", content: `"hello"`, wantErr: "does not start with '[' or '{'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, tt.file, []byte(tt.content))
			l, err := Load(context.Background(), p, LoadOptions{Require: RequireRun})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.file) {
					t.Fatalf("got %v, want an error naming %s and containing %q", err, tt.file, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, i := range l.Instances {
				got = append(got, i.InstanceID)
			}
			if !reflect.DeepEqual(got, tt.wantIDs) {
				t.Errorf("got ids %v, want %v", got, tt.wantIDs)
			}
		})
	}
}

func TestCorruptParquet(t *testing.T) {
	good, err := os.ReadFile(fixture(t, "datasets/SWE-bench_Lite.dev.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(good)
	for k := 4; k < len(flipped)/2; k += 7 {
		flipped[k] ^= 0x5a
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{name: "truncated", data: good[:len(good)/2], want: "not a readable parquet file"},
		{name: "magic only", data: []byte("PAR1garbagePAR1"), want: "not a readable parquet file"},
		{name: "pages scrambled", data: flipped, want: "corrupt"},
		{name: "empty", data: nil, want: "not a readable parquet file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, "bad.parquet", tt.data)
			_, err := Load(context.Background(), p, LoadOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("got %v, want an error naming %s and containing %q", err, p, tt.want)
			}
		})
	}
}

// TestParquetColumnTypes writes parquet files with parquet-go (lists, numbers, booleans, nulls,
// a struct column) and checks how each column decodes.
func TestParquetColumnTypes(t *testing.T) {
	type meta struct {
		Lang  string `parquet:"lang"`
		Stars int64  `parquet:"stars"`
	}
	type row struct {
		InstanceID       string   `parquet:"instance_id"`
		ProblemStatement *string  `parquet:"problem_statement,optional"`
		FailToPass       []string `parquet:"FAIL_TO_PASS,list"`
		PassToPass       []string `parquet:"PASS_TO_PASS,list"`
		Score            float64  `parquet:"score"`
		Count            int32    `parquet:"count"`
		OK               bool     `parquet:"ok"`
		Meta             meta     `parquet:"meta"`
	}
	ps := "the bug"
	rows := []row{
		{InstanceID: "a__b-1", ProblemStatement: &ps, FailToPass: []string{"t1", "t2"}, PassToPass: []string{}, Score: 0.5, Count: 3, OK: true, Meta: meta{"go", 10}},
		{InstanceID: "a__b-2", FailToPass: []string{"t3"}, PassToPass: []string{"t4"}, Meta: meta{"py", 2}},
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, "types.parquet", buf.Bytes())
	l, err := Load(context.Background(), p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := l.Instances[0], l.Instances[1]
	if a.ProblemStatement != "the bug" || b.ProblemStatement != "" {
		t.Errorf("got problem statements %q, %q", a.ProblemStatement, b.ProblemStatement)
	}
	if !reflect.DeepEqual(a.FailToPass, []string{"t1", "t2"}) || !reflect.DeepEqual(b.PassToPass, []string{"t4"}) || len(a.PassToPass) != 0 {
		t.Errorf("got lists %q %q %q", a.FailToPass, a.PassToPass, b.PassToPass)
	}
	wantExtra := map[string]any{"score": 0.5, "count": int64(3), "ok": true, "meta": map[string]any{"lang": "go", "stars": int64(10)}}
	if !reflect.DeepEqual(a.Extra, wantExtra) {
		t.Errorf("got extra %#v, want %#v", a.Extra, wantExtra)
	}
}

func TestParquetShardDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"SWE-bench_Lite.dev.parquet", "SWE-bench_Multimodal.dev.parquet"} {
		data, err := os.ReadFile(fixture(t, "datasets/"+f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "train-"+f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Load(context.Background(), dir, LoadOptions{Selection: &Selection{Filter: "chartjs|sqlfluff__sqlfluff-1625"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Source.Rows != 125 || len(l.Source.Files) != 2 || l.Source.Files[0].Rows != 23 || l.Source.Files[1].Rows != 102 {
		t.Errorf("got source %+v", l.Source)
	}
	if len(l.Instances) < 2 || l.Instances[0].InstanceID != "sqlfluff__sqlfluff-1625" || !strings.HasPrefix(l.Instances[1].InstanceID, "chartjs") {
		t.Errorf("got %d instances starting %v", len(l.Instances), l.Instances[0].InstanceID)
	}
	// The same file twice: duplicates across shards.
	data, _ := os.ReadFile(fixture(t, "datasets/SWE-bench_Lite.dev.parquet"))
	os.WriteFile(filepath.Join(dir, "zz-copy.parquet"), data, 0o644)
	var de *DuplicateIDsError
	if _, err := Load(context.Background(), dir, LoadOptions{}); !errors.As(err, &de) || len(de.IDs()) != 23 {
		t.Errorf("got %v, want 23 duplicated ids", err)
	}
}

func TestLoadBadSpecs(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"no/such/file.jsonl", "not a named dataset (verified, lite"},
		{"hf:justaname", "want hf:ORG/NAME"},
		{"hf:org/name@", "empty revision"},
		{t.TempDir(), "no .parquet files in it"},
	}
	for _, tt := range tests {
		_, err := Load(context.Background(), tt.spec, LoadOptions{Named: testNamed})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.spec, err, tt.want)
		}
	}
	// Without named datasets, a spec names a file or a hub dataset.
	if _, err := Load(context.Background(), "verified", LoadOptions{}); err == nil || !strings.Contains(err.Error(), `dataset "verified": no such file or directory, and not hf:ORG/NAME`) {
		t.Errorf("without named datasets: got %v", err)
	}
}

func TestParseHFSpec(t *testing.T) {
	tests := []struct{ spec, repo, config, split, rev string }{
		{"hf:org/name", "org/name", "default", "test", ""},
		{"hf:org/name:dev", "org/name", "default", "dev", ""},
		{"hf:org/name:dev@v1.0", "org/name", "default", "dev", "v1.0"},
		{"hf:org/name@" + shaOld, "org/name", "default", "test", shaOld},
		{"hf:org/name:lang-go/test", "org/name", "lang-go", "test", ""},
	}
	for _, tt := range tests {
		repo, config, split, rev, err := ParseHFSpec(tt.spec)
		if err != nil || repo != tt.repo || config != tt.config || split != tt.split || rev != tt.rev {
			t.Errorf("%s: got %q %q %q %q %v", tt.spec, repo, config, split, rev, err)
		}
	}
}

func TestImageName(t *testing.T) {
	tests := []struct {
		name, id, image, template, want, wantErr string
		extra                                    map[string]any
	}{
		{name: "reference example", id: "swe-agent__test-repo__1", want: "docker.io/swebench/sweb.eval.x86_64.swe-agent_1776_test-repo_1776_1:latest"},
		{name: "lower-cased", id: "chartjs__Chart.js-10301", want: "docker.io/swebench/sweb.eval.x86_64.chartjs_1776_chart.js-10301:latest"},
		{name: "django", id: "django__django-11099", want: "docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest"},
		{name: "row image verbatim", id: "a__b-1", image: "swebench/sweb.eval.x86_64.a_1776_b-1:latest", want: "swebench/sweb.eval.x86_64.a_1776_b-1:latest"},
		{name: "image_name", id: "a__b-1", extra: map[string]any{"image_name": "jyangballin/swesmith.x86_64.a:1"}, want: "jyangballin/swesmith.x86_64.a:1"},
		{name: "epoch keeps __", id: "django__django-11099", template: EpochImageTemplate, want: "ghcr.io/epoch-research/swe-bench.eval.x86_64.django__django-11099:latest"},
		{name: "unknown placeholder", id: "a__b-1", template: "reg/{instance}:latest", wantErr: "unknown placeholder {instance}"},
		{name: "unclosed", id: "a__b-1", template: "reg/{id:latest", wantErr: "unclosed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := &Instance{InstanceID: tt.id, Image: tt.image, Extra: tt.extra}
			got, err := i.ImageName(tt.template)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestQualifyImage(t *testing.T) {
	for in, want := range map[string]string{
		"swebench/sweb.eval.x86_64.a:latest":   "docker.io/swebench/sweb.eval.x86_64.a:latest",
		"docker.io/swebench/x:latest":          "docker.io/swebench/x:latest",
		"ghcr.io/epoch-research/x:latest":      "ghcr.io/epoch-research/x:latest",
		"localhost:5000/x:1":                   "localhost:5000/x:1",
		"ubuntu:22.04":                         "docker.io/library/ubuntu:22.04",
		"registry.example.com:5000/team/img:1": "registry.example.com:5000/team/img:1",
	} {
		if got := QualifyImage(in); got != want {
			t.Errorf("QualifyImage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseStringArrayMatchesJSON(t *testing.T) {
	for _, in := range []string{
		`[]`, ` [ ] `, `["a"]`, `["a", "b c"]`, "[\"a\",\n \"b\"]", `["tests/test_x.py::test[a-b]", "x"]`,
		`["esc\"aped"]`, `["\u00e9"]`, `["a",]`, `["a" "b"]`, `[1]`, `["a"]x`, `["unterminated]`, `[,]`, `["a\\b"]`,
	} {
		var want []string
		errWant := json.Unmarshal([]byte(strings.TrimSpace(in)), &want)
		got, err := testList(in)
		if (err != nil) != (errWant != nil) {
			t.Errorf("%q: got error %v, encoding/json says %v", in, err, errWant)
			continue
		}
		if errWant == nil && !reflect.DeepEqual(got, nonNil(want)) {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// A column holding an object is read from a parquet struct, a JSON object or a string holding
// one; anything else is an error naming the column.
func TestObjectColumn(t *testing.T) {
	tests := []struct {
		name    string
		value   any
		want    map[string]any
		wantOK  bool
		wantErr string
	}{
		{"absent", nil, nil, false, ""},
		{"empty string", "", nil, false, ""},
		{"object", map[string]any{"a": "b", "n": nil}, map[string]any{"a": "b", "n": nil}, true, ""},
		{"JSON string", `{"a": ["b"]}`, map[string]any{"a": []any{"b"}}, true, ""},
		{"bad JSON", "{not json", nil, true, "recipe: not a JSON object"},
		{"a list", []any{1}, nil, true, "recipe: want an object, got a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := Instance{Extra: map[string]any{}}
			if tt.value != nil {
				inst.Extra["recipe"] = tt.value
			}
			got, ok, err := inst.ObjectColumn("recipe")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !ok {
					t.Fatalf("got %v, %v; want the row to have it and an error containing %q", ok, err, tt.wantErr)
				}
				return
			}
			if err != nil || ok != tt.wantOK || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, %v, %v; want %v, %v", got, ok, err, tt.want, tt.wantOK)
			}
		})
	}
}
