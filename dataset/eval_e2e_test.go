package dataset_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family/swebench"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// scriptedSandbox is a container whose eval script prints a canned test log; it keeps the files
// written into it. Patch commands succeed.
type scriptedSandbox struct {
	log   string
	mu    *sync.Mutex
	files map[string]string
}

func (s *scriptedSandbox) Exec(_ context.Context, cmd string, _ time.Duration) (string, int, bool, error) {
	if cmd == "/bin/bash /eval.sh" {
		return s.log, 0, false, nil
	}
	return "", 0, false, nil
}

func (s *scriptedSandbox) WriteFile(_ context.Context, path string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = string(data)
	return nil
}

func (s *scriptedSandbox) Close(context.Context) error { return nil }

// passingStarter starts sandboxes whose log reports every FAIL_TO_PASS and PASS_TO_PASS test of
// the row as PASSED, in pytest's summary format, and keeps them by instance id.
type passingStarter struct {
	mu    sync.Mutex
	boxes map[string]*scriptedSandbox
}

func (p *passingStarter) Start(_ context.Context, inst dataset.Instance, _ string) (eval.Sandbox, error) {
	var b strings.Builder
	b.WriteString("+ : '>>>>> Start Test Output'\n")
	for _, t := range append(append([]string{}, inst.FailToPass...), inst.PassToPass...) {
		fmt.Fprintf(&b, "PASSED %s\n", t)
	}
	b.WriteString("+ : '>>>>> End Test Output'\n>>>>> Test Exit Code: 0\n")
	sb := &scriptedSandbox{log: b.String(), mu: &p.mu, files: map[string]string{}}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.boxes == nil {
		p.boxes = map[string]*scriptedSandbox{}
	}
	p.boxes[inst.InstanceID] = sb
	return sb, nil
}

// TestVerifiedAndItsOlderCopyGradeAlike is the acceptance check of named datasets and column
// completion: the hub serves SWE-bench/SWE-bench_Verified with the harness-v5 columns and
// princeton-nlp/SWE-bench_Verified without them. Loaded for an evaluation, `verified` and
// `hf:princeton-nlp/SWE-bench_Verified` give the same eval script for every row, the fixture
// parquet's eval_script byte for byte, and both grade.
func TestVerifiedAndItsOlderCopyGradeAlike(t *testing.T) {
	fixtures := testenv.Fixtures(t, "datasets")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	hub := dataset.NewTestHub(t)
	hub.Publish("SWE-bench/SWE-bench_Verified", "2222222222222222222222222222222222222222",
		map[string][]byte{"data/test-00000-of-00001.parquet": read("SWE-bench_Verified.test.parquet")})
	hub.Publish("princeton-nlp/SWE-bench_Verified", "1111111111111111111111111111111111111111",
		map[string][]byte{"data/test-00000-of-00001.parquet": read("SWE-bench_Verified.first50.hf-layout.parquet")})
	ref, err := dataset.Load(context.Background(), filepath.Join(fixtures, "SWE-bench_Verified.test.parquet"), dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fixtureScript := map[string]string{}
	for _, inst := range ref.Instances {
		fixtureScript[inst.InstanceID] = inst.EvalScript
	}

	opts := dataset.LoadOptions{HFEndpoint: hub.Endpoint(), CacheDir: t.TempDir(), Require: dataset.RequireRun | dataset.RequireEval, Complete: true,
		Named: swebench.Profile{}.Datasets(), Families: []dataset.Family{swebench.Profile{}}}
	byName := map[string]map[string]dataset.Instance{}
	for _, spec := range []string{"verified", "hf:princeton-nlp/SWE-bench_Verified"} {
		l, err := dataset.Load(context.Background(), spec, opts)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if err := eval.CheckInstances(l.Instances); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		byName[spec] = map[string]dataset.Instance{}
		for _, inst := range l.Instances {
			byName[spec][inst.InstanceID] = inst
		}
	}
	named, old := byName["verified"], byName["hf:princeton-nlp/SWE-bench_Verified"]
	if len(named) != 500 || len(old) != 50 {
		t.Fatalf("got %d and %d rows, want 500 and 50", len(named), len(old))
	}
	for id, inst := range old {
		if inst.EvalScript != fixtureScript[id] || named[id].EvalScript != fixtureScript[id] {
			t.Errorf("%s: eval_script differs from the fixture's", id)
		}
		a, errA := eval.Script(named[id])
		b, errB := eval.Script(inst)
		if errA != nil || errB != nil || a != b || a != eval.EvalScript(fixtureScript[id]) {
			t.Errorf("%s: the scripts to run differ (%v, %v)", id, errA, errB)
		}
	}

	// Both grade: the rows of pytest-style parsers, evaluated with a sandbox whose tests all pass.
	graded := 0
	for spec, rows := range byName {
		starter := &passingStarter{}
		out := t.TempDir()
		ev, err := eval.New(eval.Options{OutDir: out, RunID: "alike", Starter: starter})
		if err != nil {
			t.Fatal(err)
		}
		for id := range old {
			inst := rows[id]
			if !strings.HasPrefix(inst.LogParser, "parse_log_astropy") && inst.LogParser != "parse_log_pytest" {
				continue
			}
			patch := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
			res, err := ev.Evaluate(context.Background(), inst, eval.Prediction{InstanceID: id, ModelNameOrPath: "m", ModelPatch: &patch})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != eval.Resolved {
				t.Errorf("%s %s: got %s (%s), want resolved", spec, id, res.Outcome, res.Reason)
			}
			written, _ := os.ReadFile(filepath.Join(out, id, "eval.sh"))
			if string(written) != eval.EvalScript(fixtureScript[id]) || starter.boxes[id].files["/eval.sh"] != string(written) {
				t.Errorf("%s %s: eval.sh differs from the fixture's eval_script prepared for the harness", spec, id)
			}
			graded++
		}
	}
	if graded < 10 {
		t.Errorf("only %d evaluations ran; the fixture's first 50 rows have more astropy rows than that", graded)
	}
}
