package rebench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// rebenchDemoRows turns the project's demo instances into SWE-rebench rows, shaped like the rows
// of nebius/SWE-rebench: no eval_script, log_parser or eval_type columns, an install_config with
// test_cmd and log_parser, the image in docker_image. They are written as JSON lines and loaded
// like any dataset.
func rebenchDemoRows(t *testing.T, extraF2P map[string][]string) []dataset.Instance {
	t.Helper()
	demo, err := dataset.Load(context.Background(), filepath.Join(testenv.RepoRoot(t), "demo", "dataset.jsonl"), dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range demo.Instances {
		f2p, _ := json.Marshal(append(append([]string{}, d.FailToPass...), extraF2P[d.InstanceID]...))
		p2p, _ := json.Marshal(d.PassToPass)
		row := map[string]any{
			"instance_id": d.InstanceID, "repo": d.Repo, "base_commit": d.BaseCommit, "patch": d.Patch, "test_patch": d.TestPatch,
			"problem_statement": d.ProblemStatement, "hints_text": d.HintsText, "created_at": d.CreatedAt, "version": d.Version,
			"environment_setup_commit": d.EnvironmentSetupCommit, "FAIL_TO_PASS": string(f2p), "PASS_TO_PASS": string(p2p),
			"install_config": map[string]any{
				"python": "3.11", "packages": "requirements.txt", "install": "pip install -e .",
				"test_cmd":   "pytest --no-header -rA --tb=no -p no:cacheprovider",
				"log_parser": "parse_log_pytest", "pip_packages": []string{"pytest"}, "pre_install": nil, "reqs_path": nil,
				"env_yml_path": nil, "no_use_env": nil,
			},
			"meta":         map[string]any{"num_modified_files": 1, "has_test_patch": true, "is_lite": false},
			"license_name": "MIT License",
			"docker_image": d.Image,
		}
		line, _ := json.Marshal(row)
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "rebench.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := dataset.Load(context.Background(), path, dataset.LoadOptions{Require: dataset.RequireRun | dataset.RequireEval, Complete: true, Families: []dataset.Family{Profile{}}})
	if err != nil {
		t.Fatal(err)
	}
	return l.Instances
}

// TestRowsGradeInContainers evaluates SWE-rebench-shaped rows in real containers of the
// demo images, with the script and grading of SWE-rebench's harness fork: the gold patch
// resolves, a patch that fixes nothing does not, and a FAIL_TO_PASS test the suite does not have
// is a failure.
func TestRowsGradeInContainers(t *testing.T) {
	engine := testenv.Docker(t)
	const id = "demo__slugkit-23"
	missing := "tests/test_slugify.py::test_not_in_the_suite"
	rows := rebenchDemoRows(t, nil)
	withMissing := rebenchDemoRows(t, map[string][]string{id: {missing}})
	var inst, instMissing dataset.Instance
	for k := range rows {
		if rows[k].InstanceID == id {
			inst, instMissing = rows[k], withMissing[k]
		}
	}
	if inst.EvalScript != "" || inst.Family != Name || inst.Image == "" {
		t.Fatalf("the row is not SWE-rebench-shaped: family %q, eval_script %d bytes, image %q", inst.Family, len(inst.EvalScript), inst.Image)
	}
	testenv.RequireImage(t, engine, inst.Image)

	rnd := make([]byte, 4)
	rand.Read(rnd)
	runID := "test-rebench-" + hex.EncodeToString(rnd)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		engine.Sweep(ctx, sandbox.Selector{RunID: runID})
	})
	notAFix := "diff --git a/NOTES.txt b/NOTES.txt\nnew file mode 100644\n--- /dev/null\n+++ b/NOTES.txt\n@@ -0,0 +1 @@\n+applies, fixes nothing\n"
	tests := []struct {
		name         string
		inst         dataset.Instance
		patch        string
		wantResolved bool
		wantF2P      eval.TestResults
	}{
		{"planted fix resolves", inst, inst.Patch, true, tr(inst.FailToPass, nil)},
		{"a patch that fixes nothing does not", inst, notAFix, false, tr(nil, inst.FailToPass)},
		{"a missing test fails", instMissing, inst.Patch, false, tr(inst.FailToPass, []string{missing})},
	}
	graders := func(name string) family.Grader {
		if name == Name {
			return Profile{}.Grader()
		}
		return nil
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			ev, err := eval.New(eval.Options{OutDir: out, RunID: runID, Starter: &eval.SandboxStarter{Backend: engine, RunID: runID}, Graders: graders})
			if err != nil {
				t.Fatal(err)
			}
			patch := tt.patch
			p := eval.Prediction{InstanceID: id, ModelNameOrPath: "org/model", ModelPatch: &patch}
			res, err := ev.Evaluate(context.Background(), tt.inst, p)
			if err != nil {
				t.Fatal(err)
			}
			logOut, _ := os.ReadFile(filepath.Join(out, id, "test_output.txt"))
			if res.Report == nil {
				t.Fatalf("no report: %s %s: %s\n%s", res.Outcome, res.ErrorKind, res.Reason, logOut)
			}
			if res.Report.Resolved != tt.wantResolved || (res.Outcome == eval.Resolved) != tt.wantResolved {
				t.Errorf("got resolved %t (%s), want %t\n%s", res.Report.Resolved, res.Outcome, tt.wantResolved, logOut)
			}
			ts := res.Report.TestsStatus
			if ts == nil {
				t.Fatalf("no tests_status\n%s", logOut)
			}
			if !reflect.DeepEqual(ts.FailToPass, tt.wantF2P) || !reflect.DeepEqual(ts.PassToPass, tr(inst.PassToPass, nil)) {
				t.Errorf("got FAIL_TO_PASS %+v, PASS_TO_PASS %+v; want %+v, every PASS_TO_PASS test passing", ts.FailToPass, ts.PassToPass, tt.wantF2P)
			}
			// The script run is the fork's, and the test command ran as it wrote it.
			script, _ := os.ReadFile(filepath.Join(out, id, "eval.sh"))
			want, _ := Script(tt.inst)
			if string(script) != want {
				t.Errorf("eval.sh differs from Script:\n%s", script)
			}
			if !strings.Contains(string(logOut), "+ LANG=C.UTF-8\n+ LC_ALL=C.UTF-8\n+ pytest --no-header -rA --tb=no -p no:cacheprovider tests/test_slugify.py\n") {
				t.Errorf("the test command did not run as the fork writes it:\n%s", logOut)
			}
			// Regrading the log gives the same report, as the harness's rewrite_reports does.
			again, err := Grade(tt.inst, string(logOut))
			if err != nil || !reflect.DeepEqual(again, *res.Report) {
				t.Errorf("regrade: got %+v, %v; want %+v", again, err, *res.Report)
			}
			_, regraded, err := eval.RegradeFromLogs(eval.RegradeOptions{LogsDir: out, OutDir: t.TempDir(), RunID: runID, Graders: graders},
				[]dataset.Instance{tt.inst}, map[string]eval.Prediction{id: p})
			if err != nil || len(regraded) != 1 || regraded[0].Report == nil || !reflect.DeepEqual(*regraded[0].Report, *res.Report) {
				t.Errorf("eval --from-logs: got %+v, %v; want the report %+v", regraded, err, *res.Report)
			}
			// A second evaluation reuses the report (resume).
			reused, err := ev.Evaluate(context.Background(), tt.inst, p)
			if err != nil || reused.Report == nil || !reflect.DeepEqual(*reused.Report, *res.Report) {
				t.Errorf("resume: got %+v, %v", reused, err)
			}
		})
	}
}
