package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./compare -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./compare -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// sweepResult is a comparison of a sweep with repeats against last night's, with history.
func sweepResult(t *testing.T) *Result {
	t.Helper()
	R, U, E, N := Resolved, Unresolved, Error, NotSubmitted
	base := cells("n1", "gpt", map[string]Verdict{"django__django-1": R, "django__django-2": R, "sympy__sympy-3": U, "sympy__sympy-4": R, "sympy__sympy-5": U})
	gpt := cells("n2", "gpt",
		map[string]Verdict{"django__django-1": R, "django__django-2": U, "sympy__sympy-3": U, "sympy__sympy-4": R, "sympy__sympy-5": E},
		map[string]Verdict{"django__django-1": R, "django__django-2": U, "sympy__sympy-3": R, "sympy__sympy-4": R, "sympy__sympy-5": N},
	)
	claude := cells("n2", "claude",
		map[string]Verdict{"django__django-1": R, "django__django-2": R, "sympy__sympy-3": R, "sympy__sympy-4": U, "sympy__sympy-5": U},
		map[string]Verdict{"django__django-1": R, "django__django-2": R, "sympy__sympy-3": R, "sympy__sympy-4": U, "sympy__sympy-5": R},
	)
	for _, r := range append(append([]*Run(nil), gpt...), claude...) {
		r.HasCost, r.HasSteps = true, true
		for k := range r.Instances {
			r.Instances[k].Cost, r.Instances[k].Steps, r.Instances[k].ExitStatus = some(0.5), some(10+k), "Submitted"
		}
	}
	runs := append(append(base, gpt...), claude...)
	// Two earlier nights of the same model, config and dataset revision; on 2026-08-11
	// sympy-5 was resolved, which makes it flaky.
	all := []string{"django__django-1", "django__django-2", "sympy__sympy-3", "sympy__sympy-4", "sympy__sympy-5"}
	history := []HistoryEntry{entry("gpt", "2026-08-10", "hash-gpt", 3, 5), entry("gpt", "2026-08-11", "hash-gpt", 4, 5)}
	history[0].ResolvedIDs, history[1].ResolvedIDs = all[:3], []string{all[0], all[1], all[3], all[4]}
	for k := range history {
		history[k].Model, history[k].DatasetRevision, history[k].EvaluatedIDs = "m-gpt", "rev1", all
	}
	res, err := Compare(runs, Options{Baseline: "n1", History: history, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	res.Trend = Trend(history, 5)
	return res
}

// threeResult compares three single runs without a baseline.
func threeResult(t *testing.T) *Result {
	t.Helper()
	R, U, N := Resolved, Unresolved, NotSubmitted
	a := synth("alpha", map[string]Verdict{"astropy__astropy-1": R, "astropy__astropy-2": U, "django__django-3": R, "django__django-4": U})
	b := synth("beta", map[string]Verdict{"astropy__astropy-1": R, "astropy__astropy-2": R, "django__django-3": R, "django__django-4": U})
	c := synth("gamma", map[string]Verdict{"astropy__astropy-1": U, "astropy__astropy-2": N, "django__django-3": R, "django__django-4": R})
	res, err := Compare([]*Run{a, b, c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// datasetsResult is a sweep of three models with two repeats over two datasets (the demo's
// six instances, SWE-smith's two) against the baseline good: mixed loses the demo and gains
// on smith, half resolves half of the demo.
func datasetsResult(t *testing.T) *Result {
	t.Helper()
	R, U := Resolved, Unresolved
	demo := []string{"demo__confparse-31", "demo__datekit-12", "demo__moneyfmt-7", "demo__pagination-1", "demo__queuekit-4", "demo__slugkit-23"}
	smith := []string{"mewwts__addict.75284f95.func_pm_ctrl_invert_if__demo2", "mewwts__addict.75284f95.func_pm_op_swap__demo1"}
	var runs []*Run
	for _, m := range []string{"good", "mixed", "half"} {
		for _, ds := range []string{"demo", "smith"} {
			for rep := 1; rep <= 2; rep++ {
				v := map[string]Verdict{}
				ids := demo
				if ds == "smith" {
					ids = smith
				}
				for k, id := range ids {
					switch {
					case ds == "demo" && m == "mixed", ds == "demo" && m == "half" && k%2 == 1:
						v[id] = U
					case ds == "smith" && m != "mixed" && k == 0:
						v[id] = U
					default:
						v[id] = R
					}
				}
				r := synth(fmt.Sprintf("%s-%s#%d", m, ds, rep), v)
				r.Kind, r.Sweep, r.SweepDir, r.Cell = KindSweepCell, "nightly", "/sweeps/nightly", fmt.Sprintf("%s-%s-r%d", m, ds, rep)
				r.Variant, r.Group, r.Repeat, r.DatasetName = m, m, rep, ds
				r.Model, r.ConfigHash, r.Dataset, r.DatasetRevision = "scripted", "hash-"+m, "dataset.jsonl", "sha256:"+ds+"0123456789"
				runs = append(runs, r)
			}
		}
	}
	res, err := Compare(runs, Options{Baseline: "good", Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRenderGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		res  func(*testing.T) *Result
	}{{"sweep", sweepResult}, {"three", threeResult}, {"datasets", datasetsResult}} {
		t.Run(c.name, func(t *testing.T) {
			res := c.res(t)
			var text, md, js, cs bytes.Buffer
			if err := WriteText(&text, res); err != nil {
				t.Fatal(err)
			}
			if err := WriteMarkdown(&md, res); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, res); err != nil {
				t.Fatal(err)
			}
			if err := WriteCSV(&cs, res); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".txt", text.Bytes())
			golden(t, c.name+".md", md.Bytes())
			golden(t, c.name+".json", js.Bytes())
			golden(t, c.name+".csv", cs.Bytes())
		})
	}
}

func TestJSONSchema(t *testing.T) {
	res := sweepResult(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.SchemaVersion != SchemaVersion || len(back.Inputs) != 3 || len(back.Rows) != 5 || back.Gate == nil || len(back.Trend) != 1 {
		t.Errorf("decoded: schema %d, %d inputs, %d rows, gate %v, trend %d", back.SchemaVersion, len(back.Inputs), len(back.Rows), back.Gate, len(back.Trend))
	}
	// Every top-level key JSON.md documents is present, and no other.
	var top map[string]json.RawMessage
	json.Unmarshal(buf.Bytes(), &top)
	doc, err := os.ReadFile("JSON.md")
	if err != nil {
		t.Fatal(err)
	}
	for k := range top {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("top-level key %q is not documented in JSON.md", k)
		}
	}
	for _, k := range []string{"schema_version", "inputs", "pairs", "gate", "instance_verdicts", "warnings", "methods"} {
		if _, ok := top[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
}

func TestCSV(t *testing.T) {
	res := sweepResult(t)
	var buf bytes.Buffer
	if err := WriteCSV(&buf, res); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs[0], CSVHeader) {
		t.Errorf("header = %v", recs[0])
	}
	// 5 instances × (1 baseline run + 2 + 2 repeats).
	if len(recs) != 1+25 {
		t.Errorf("%d rows, want 25", len(recs)-1)
	}
	row := recs[1]
	if row[0] != "django__django-1" || row[2] != "n1/gpt" || row[5] != "resolved" || row[8] != "" {
		t.Errorf("first row = %v (the baseline records no cost)", row)
	}
}
