package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sweep"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// writeSweepFile writes a sweep file whose datasets: is the demo dataset (so that a dry run
// needs neither network nor Docker) and returns its path.
func writeSweepFile(t *testing.T, body string) string {
	t.Helper()
	demo := filepath.Join(testenv.RepoRoot(t), "demo", "dataset.jsonl")
	path := filepath.Join(t.TempDir(), "nightly.yaml")
	body = strings.ReplaceAll(body, "DEMO", demo)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A bad sweep is refused before anything runs, naming the file, the line and the key: the
// sweep's own checks (package sweep, tested there) as usage errors or not, and what the command
// checks itself (configs, models, the backend, flags).
func TestSweepFileErrors(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testAPIKey)
	tests := []struct {
		name  string
		file  string
		flags []string
		want  []string // in the error, with FILE for the path
		usage bool
	}{
		{"unknown top-level key", `name: n
datasets: [DEMO]
workres: 2
models: [scripted]
`, nil, []string{`FILE:3: unknown key "workres" (did you mean workers?); known keys:`}, false},
		{"a model without a price", `datasets: [DEMO]
models:
  - name: gold
    model: scripted
  - name: mine
    model: openai/my-unpriced-model
`, nil, []string{`FILE:5: models[1] (mine): model "openai/my-unpriced-model": unknown model price`, "model.prices"}, false},
		{"duplicate model names", `datasets: [DEMO]
models:
  - name: a
    model: scripted
  - name: a
    model: scripted
    config: [agent.step_limit=5]
`, nil, []string{`FILE:5: models[1]: duplicate name "a" (also models[0] on line 3)`}, true},
		{"a bad config of a model", `datasets: [DEMO]
models:
  - name: a
    model: scripted
    config: [agent.no_such_key=1]
`, nil, []string{`FILE:3: models[0] (a):`, "no_such_key"}, false},
		{"a bad families section", `datasets: [DEMO]
models:
  - name: a
    model: scripted
    config: [families.pro.script_dir=/x]
`, nil, []string{`FILE:3: models[0] (a):`, "unknown key families.pro.script_dir"}, false},
		{"families sections that differ", `datasets: [DEMO]
models:
  - name: a
    model: scripted
  - name: b
    model: scripted
    config: [families.live.python_image=python:3.13]
`, nil, []string{`FILE:5: models[1] (b): its config's families section differs from models[0]'s`}, false},
		{"another backend", `datasets: [DEMO]
models: [scripted]
backend: nomad
`, nil, []string{`FILE:3: backend "nomad"`}, false},
		{"an unknown pull policy", `datasets: [DEMO]
models: [scripted]
pull: sometimes
`, nil, []string{`FILE:3: pull "sometimes": want missing, always or never`}, true},
		{"no models", `datasets: [DEMO]
`, nil, []string{`FILE: the sweep has no models`}, true},
		{"repeats below 1 from a flag", `datasets: [DEMO]
models: [scripted]
`, []string{"--repeats", "0"}, []string{"repeats 0: want at least 1"}, true},
		{"a negative backend wait", `datasets: [DEMO]
models: [scripted]
backend_wait: -5m
`, nil, []string{`FILE:3: backend_wait must not be negative`}, true},
		{"a negative backend wait from a flag over the file's", `datasets: [DEMO]
models: [scripted]
backend_wait: 30m
`, []string{"--backend-wait", "-1s"}, []string{`FILE:3: backend_wait must not be negative`}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeSweepFile(t, tt.file)
			var stdout, stderr bytes.Buffer
			err := execCLI(append([]string{"sweep", "-c", path, "--dry-run", "-o", t.TempDir()}, tt.flags...), &stdout, &stderr)
			if err == nil {
				t.Fatalf("no error; stdout:\n%s", stdout.String())
			}
			for _, w := range tt.want {
				if w = strings.ReplaceAll(w, "FILE", path); !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if got := errors.Is(err, errUsage); got != tt.usage {
				t.Errorf("usage error = %v, want %v (%v)", got, tt.usage, err)
			}
		})
	}
}

// A good sweep file makes the cells of its matrix; flags override its values.
func TestSweepFileDryRun(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testAPIKey)
	path := writeSweepFile(t, `# the nightly sweep
name: nightly-{date}
datasets:
  - name: demo
    split: DEMO
    slice: "0:4"
models:
  - name: gold
    model: scripted
  - name: mini-t0
    model: openai/gpt-4o-mini
    config: [model.model_kwargs.temperature=0]
    max_cost: 5
  - name: mini-t1
    model: openai/gpt-4o-mini
    config: [model.model_kwargs.temperature=1]
repeats: 2
max_cost: 20
eval: true
baseline: gold
`)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := execCLI([]string{"sweep", "-c", path, "--dry-run", "-o", out}, &stdout, &stderr); err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr.String())
	}
	got := stdout.String()
	for _, want := range []string{"6 cells (3 models × 1 datasets × 2 repeats)", "gold-r1 ", "gold-r2 ", "mini-t0-r1", "mini-t1-r2", " 4\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("dry run lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "nightly")); err == nil || len(mustReadDir(t, out)) != 0 {
		t.Errorf("a dry run wrote into %s", out)
	}

	// Flags: --model replaces the models, --repeats and --slice override the file.
	stdout.Reset()
	if err := execCLI([]string{"sweep", "-c", path, "--dry-run", "-o", out, "--model", "only=scripted", "--repeats", "1", "--slice", "0:2", "--baseline", "only"}, &stdout, &stderr); err != nil {
		t.Fatalf("dry run with flags: %v", err)
	}
	if got := stdout.String(); !strings.Contains(got, "1 cells (1 models × 1 datasets × 1 repeats)") || !strings.Contains(got, "only ") || !strings.HasSuffix(strings.TrimSpace(got), "2") {
		t.Errorf("dry run with flags:\n%s", got)
	}

	// Without a file: --model and --split make the matrix.
	stdout.Reset()
	demo := filepath.Join(testenv.RepoRoot(t), "demo", "dataset.jsonl")
	if err := execCLI([]string{"sweep", "--model", "scripted", "--split", demo, "--split", demo, "--dry-run", "-o", out}, &stdout, &stderr); err == nil ||
		!strings.Contains(err.Error(), `duplicate`) && !strings.Contains(err.Error(), `also the name of datasets[0]`) {
		t.Errorf("two datasets of one name: %v", err)
	}
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// Budgets are restored from the ledgers of the cells they cover: a cell's own, its model's
// (over its cells) and the sweep's (over all), so that limits hold across resumes.
func TestSweepBudgetsRestoredFromLedgers(t *testing.T) {
	spent := map[string][]float64{"a-r1": {1, 2}, "a-r2": {4}, "b-r1": {8, 16}}
	st := &sweepState{sweepBudget: model.NewBudget(100)}
	models := []*sweep.Model{{Index: 0, Name: "a"}, {Index: 1, Name: "b"}}
	st.modelBudget = []*model.Budget{model.NewBudget(8, st.sweepBudget), model.NewBudget(0, st.sweepBudget)}
	for _, name := range []string{"a-r1", "a-r2", "b-r1"} {
		out, err := results.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { out.Close() })
		for k, cost := range spent[name] {
			id := name + "-inst-" + string(rune('0'+k))
			if err := out.Record(results.Record{InstanceID: id, Attempt: 1, ExitStatus: "Submitted", Category: results.CategoryModel, Cost: cost, APICalls: 2}, nil); err != nil {
				t.Fatal(err)
			}
		}
		m := models[0]
		if name[0] == 'b' {
			m = models[1]
		}
		st.cells = append(st.cells, &cellState{Cell: &sweep.Cell{Name: name, Model: m}, out: out,
			budget: model.NewBudget(0, st.modelBudget[m.Index])})
	}
	byModel := st.restoreBudgets(2)
	if byModel[0] != 7 || byModel[1] != 24 {
		t.Errorf("spent by model = %v, want [7 24]", byModel)
	}
	for k, want := range []float64{3, 4, 24} {
		if got := st.cells[k].budget.Spent(); got != want {
			t.Errorf("cell %s spent %v, want %v", st.cells[k].Name, got, want)
		}
	}
	if got := st.sweepBudget.Spent(); got != 31 {
		t.Errorf("sweep spent %v, want 31", got)
	}
	if got := st.sweepBudget.Calls(); got != 10 {
		t.Errorf("sweep calls %d, want 10", got)
	}
	// Model a spent $7 of its $8 in 6 calls: $1 left does not cover one more call at the mean
	// ($1.17), so its cells admit none; b has no limit of its own and the sweep $69 left.
	if left := st.modelBudget[0].Left(); left != 1 {
		t.Errorf("model a has $%v left, want $1", left)
	}
	if !st.cells[0].budget.Exhausted() || !st.cells[1].budget.Exhausted() {
		t.Errorf("the cells of model a admit calls beyond its limit")
	}
	if st.cells[2].budget.Exhausted() {
		t.Errorf("cell b-r1 is refused")
	}
}
