package live

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/live/pyparser"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// fakeSandbox answers the harness's script with script, and a parser run with parser (exit code
// parserCode); it records the files written.
type fakeSandbox struct {
	script     string
	timedOut   bool
	parser     string
	parserCode int
	printRaw   []byte // PrintOutputPath's content; nil: no such file
	files      map[string]string
	ran        []string
}

func newFake(script, parser string) *fakeSandbox {
	return &fakeSandbox{script: script, parser: parser, files: map[string]string{}}
}

func (f *fakeSandbox) Exec(_ context.Context, cmd string, _ time.Duration) (string, int, bool, error) {
	f.ran = append(f.ran, cmd)
	switch {
	case cmd == RunCommand:
		return f.script, 0, f.timedOut, nil
	case strings.Contains(cmd, "-I -c"):
		return f.parser, f.parserCode, false, nil
	case cmd == "base64 "+PrintOutputPath:
		if f.printRaw == nil {
			return "base64: " + PrintOutputPath + ": No such file or directory\n", 1, false, nil
		}
		enc := base64.StdEncoding.EncodeToString(f.printRaw)
		var b strings.Builder
		for len(enc) > 76 { // as base64 wraps its output
			b.WriteString(enc[:76] + "\n")
			enc = enc[76:]
		}
		b.WriteString(enc + "\n")
		return b.String(), 0, false, nil
	}
	return "", 0, false, nil
}

func (f *fakeSandbox) WriteFile(_ context.Context, path string, data []byte) error {
	f.files[path] = string(data)
	return nil
}

const reply = "@@swebench-run-parser-reply@@"

func pythonRow() dataset.Instance {
	return dataset.Instance{InstanceID: "a__b-1", TestPatch: "diff --git a/t b/t\n", LogParser: "def parser(log):\n    return {}\n",
		FailToPass: []string{"f"}, PassToPass: []string{"p"},
		Extra: map[string]any{"test_cmds": []any{"make test"}, "print_cmds": []any{"cat out.log"}}}
}

func pytestRow() dataset.Instance {
	return dataset.Instance{InstanceID: "a__b-2", LogParser: "pytest", FailToPass: []string{"tests/t.py::f"}, PassToPass: []string{"tests/t.py::p"},
		Extra: map[string]any{"test_cmds": []any{"pytest -rA"}}}
}

func section(log string) string {
	return "noise\n\n" + MarkerStart + "\n" + log + "\n" + MarkerEnd + "\n"
}

func TestGraderGrade(t *testing.T) {
	pred := func(p string) family.Prediction { return family.Prediction{InstanceID: "x", ModelPatch: &p} }
	okReply := reply + `{"status": [["f", "pass", true], ["p", "pass", true]]}` + "\n"
	tests := []struct {
		name        string
		inst        dataset.Instance
		instance    *fakeSandbox
		helper      *fakeSandbox // nil: env.Start is nil
		helperErr   error
		wantOutcome family.Outcome
		wantKind    family.ErrorKind
		wantReason  string
	}{
		{"pytest row resolved", pytestRow(), newFake(section("PASSED tests/t.py::f\nPASSED tests/t.py::p"), ""), nil, nil, family.Resolved, "", ""},
		{"pytest row unresolved", pytestRow(), newFake(section("FAILED tests/t.py::f - boom\nPASSED tests/t.py::p"), ""), nil, nil, family.Unresolved, "", ""},
		{"Python parser in the Python container", pythonRow(), newFake(section("log"), "never asked"), newFake("", okReply), nil, family.Resolved, "", ""},
		{"Python parser in the instance's container when the Python image cannot start", pythonRow(), newFake(section("log"), okReply), nil, errors.New("pull denied"), family.Resolved, "", ""},
		{"no Python anywhere", pythonRow(), func() *fakeSandbox {
			f := newFake(section("log"), "no python3 or python on PATH\n")
			f.parserCode = 127
			return f
		}(),
			nil, errors.New("pull denied"), family.Error, family.KindContainer, "pull denied"},
		{"a failing parser is an error, as in the harness", pythonRow(), newFake(section("log"), ""), newFake("", reply+`{"error": "Traceback\nKeyError: 'x'\n", "stderr": ""}`+"\n"), nil,
			family.Error, family.KindGrading, "KeyError"},
		{"no print section", pytestRow(), newFake("bash: syntax error\n", ""), nil, nil, family.Error, family.KindNoTestOutput, "print commands"},
		// The sandbox replaced the invalid byte with U+FFFD; the harness drops it, and reads the
		// test "tests/t.py::f" (TestRawPrintLog).
		{"invalid UTF-8 is dropped, as the harness drops it", pytestRow(), func() *fakeSandbox {
			f := newFake(section("PASSED tests/t.py::\ufffdf\nPASSED tests/t.py::p"), "")
			f.printRaw = []byte("PASSED tests/t.py::\xfff\nPASSED tests/t.py::p")
			return f
		}(), nil, nil, family.Resolved, "", ""},
		{"invalid UTF-8 whose bytes cannot be read", pytestRow(), newFake(section("PASSED tests/t.py::\ufffdf\nPASSED tests/t.py::p"), ""), nil, nil, family.Unresolved, "", ""},
		{"a row without PASS_TO_PASS is not graded", func() dataset.Instance { i := pytestRow(); i.PassToPass = nil; return i }(), newFake(section("PASSED tests/t.py::f"), ""), nil, nil,
			family.Error, family.KindGrading, "evaluation.py cannot grade it"},
		{"timeout", pytestRow(), func() *fakeSandbox { f := newFake("partial", ""); f.timedOut = true; return f }(), nil, nil, family.Error, family.KindTimeout, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := family.GradeEnv{Timeout: time.Minute}
			if tt.helper != nil || tt.helperErr != nil {
				env.Start = func(context.Context, string) (family.Sandbox, func(), error) {
					if tt.helperErr != nil {
						return nil, nil, tt.helperErr
					}
					return tt.helper, func() {}, nil
				}
			}
			g := New(Options{}).Grader()
			v, err := g.Grade(context.Background(), env, tt.instance, tt.inst, pred("the patch"), dir)
			if err != nil {
				t.Fatal(err)
			}
			if v.Outcome != tt.wantOutcome || v.ErrorKind != tt.wantKind || !strings.Contains(v.Reason, tt.wantReason) {
				t.Fatalf("got %s %s %q, want %s %s %q", v.Outcome, v.ErrorKind, v.Reason, tt.wantOutcome, tt.wantKind, tt.wantReason)
			}
			if tt.wantKind == family.KindGrading && len(tt.instance.ran) == 0 {
				return // refused before anything ran
			}
			if tt.instance.files[PatchPath] != "the patch" || tt.instance.files[TestPatchPath] != tt.inst.TestPatch || !strings.Contains(tt.instance.files[ScriptPath], "git apply --reject") {
				t.Errorf("files in the container: %v", tt.instance.files)
			}
			if tt.helper != nil {
				for _, cmd := range tt.instance.ran {
					if strings.Contains(cmd, "-I -c") {
						t.Errorf("the parser ran in the instance's container although the Python container started")
					}
				}
			}
			if v.Outcome == family.Error {
				return
			}
			for _, f := range []string{ScriptFile, TestOutputFile, PostPatchLogFile, StatusFile, ReportFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
			rep, ok := g.Reuse(tt.inst, family.Prediction{}, dir)
			if !ok || rep.Outcome != tt.wantOutcome {
				t.Errorf("Reuse: got %+v, %t", rep, ok)
			}
		})
	}
}

func TestGraderRegrade(t *testing.T) {
	g := New(Options{}).Grader()
	logs := t.TempDir()
	write := func(id, name, data string) {
		os.MkdirAll(filepath.Join(logs, id), 0o755)
		if err := os.WriteFile(filepath.Join(logs, id, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The harness's layout: post_patch_log.txt and status.json.
	write("a__b-1", PostPatchLogFile, "whatever the tool printed\n")
	write("a__b-1", StatusFile, "{\n \"f\": \"pass\",\n \"p\": \"fail\"\n}")
	// This tool's layout: test_output.txt only, for a pytest row.
	write("a__b-2", TestOutputFile, section("PASSED tests/t.py::f\nPASSED tests/t.py::p"))

	out := t.TempDir()
	v, found, err := g.Regrade(pythonRow(), family.Prediction{}, []string{t.TempDir(), logs}, filepath.Join(out, "a__b-1"))
	if err != nil || !found || v.Outcome != family.Unresolved {
		t.Fatalf("harness layout: got %+v, %t, %v", v, found, err)
	}
	data, _ := os.ReadFile(filepath.Join(out, "a__b-1", ReportFile))
	if rep, err := ReadReport(data); err != nil || !reflect.DeepEqual(rep.PassToPass.Failure, []string{"p"}) {
		t.Errorf("report: %+v, %v", rep, err)
	}
	v, found, err = g.Regrade(pytestRow(), family.Prediction{}, []string{logs}, filepath.Join(out, "a__b-2"))
	if err != nil || !found || v.Outcome != family.Resolved {
		t.Errorf("our layout: got %+v, %t, %v", v, found, err)
	}
	// A Python row without status.json cannot be regraded without a container.
	os.Remove(filepath.Join(logs, "a__b-1", StatusFile))
	v, found, _ = g.Regrade(pythonRow(), family.Prediction{}, []string{logs}, filepath.Join(out, "a__b-1"))
	if !found || v.ErrorKind != family.KindGrading || !strings.Contains(v.Reason, "status.json") {
		t.Errorf("no status.json: got %+v, %t", v, found)
	}
	if _, found, _ := g.Regrade(pythonRow(), family.Prediction{}, []string{t.TempDir()}, out); found {
		t.Error("found a log in an empty folder")
	}
	// A row the harness cannot grade: no log is "not found"; a log is graded as an error.
	noTests := pytestRow()
	noTests.FailToPass, noTests.PassToPass = nil, nil
	if _, found, err := g.Regrade(noTests, family.Prediction{}, []string{t.TempDir()}, out); found || err != nil {
		t.Errorf("no log of a row without test lists: found %t, %v", found, err)
	}
	v, found, err = g.Regrade(noTests, family.Prediction{}, []string{logs}, filepath.Join(out, "a__b-2"))
	if err != nil || !found || v.ErrorKind != family.KindGrading || !strings.Contains(v.Reason, "FAIL_TO_PASS and PASS_TO_PASS") {
		t.Errorf("a row without test lists: got %+v, %t, %v", v, found, err)
	}
	// A Windows task's logs regrade: regrading runs no container.
	win := pytestRow()
	win.Extra["platform"] = "windows"
	v, found, err = g.Regrade(win, family.Prediction{}, []string{logs}, filepath.Join(out, "a__b-2"))
	if err != nil || !found || v.Outcome != family.Resolved {
		t.Errorf("a Windows task: got %+v, %t, %v", v, found, err)
	}
}

func TestGraderFinishAndReports(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) family.Prediction { return family.Prediction{ModelPatch: &s} }
	preds := map[string]family.Prediction{"a": p("x"), "b": p("x"), "c": p(""), "d": p("x"), "e": p("x")}
	verdicts := map[string]family.Verdict{
		"a": {Outcome: family.Resolved}, "b": {Outcome: family.Unresolved}, "d": {Outcome: family.Error, ErrorKind: family.KindGrading},
	}
	if err := New(Options{}).Grader().Finish(dir, preds, verdicts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ReadResults(data)
	if err != nil {
		t.Fatal(err)
	}
	want := Results{Submitted: 5, SubmittedIDs: []string{"a", "b", "c", "d", "e"}, EmptyPatch: 1, EmptyPatchIDs: []string{"c"},
		SuccessIDs: []string{"a"}, FailureIDs: []string{"b"}, ErrorIDs: []string{"d"}, IncompleteIDs: []string{"e"},
		Success: 1, Failure: 1, Error: 1, Incomplete: 1}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("results.json: got %+v\nwant %+v", res, want)
	}

	// The folder: a's report says resolved; b has a report too; results.json adds c, d, e.
	for id, resolved := range map[string]bool{"a": true, "b": false} {
		data, _ := MarshalReport(Report{InstanceID: id, Resolved: resolved})
		os.MkdirAll(filepath.Join(dir, id), 0o755)
		os.WriteFile(filepath.Join(dir, id, ReportFile), data, 0o644)
	}
	// A SWE-bench report.json is not this family's.
	os.MkdirAll(filepath.Join(dir, "z"), 0o755)
	os.WriteFile(filepath.Join(dir, "z", ReportFile), []byte(`{"z": {"resolved": true}}`), 0o644)
	fv, ok, err := New(Options{}).Reports().ReadEvalFolder(dir)
	if err != nil || !ok {
		t.Fatalf("ReadEvalFolder: %t, %v", ok, err)
	}
	got := map[string]family.Outcome{}
	for id, v := range fv.Verdicts {
		got[id] = v.Outcome
	}
	wantOutcomes := map[string]family.Outcome{"a": family.Resolved, "b": family.Unresolved, "c": family.EmptyPatch, "d": family.Error, "e": family.Error}
	if !reflect.DeepEqual(got, wantOutcomes) {
		t.Errorf("verdicts: got %v, want %v", got, wantOutcomes)
	}

	rr := New(Options{}).Reports()
	if fv, ok, err := rr.ReadReportFile("results.json", data); err != nil || !ok || len(fv.Verdicts) != 5 {
		t.Errorf("results.json alone: %+v, %t, %v", fv, ok, err)
	}
	one, _ := MarshalReport(Report{InstanceID: "a", Resolved: true})
	if fv, ok, err := rr.ReadReportFile("report.json", one); err != nil || !ok || fv.Verdicts["a"].Outcome != family.Resolved {
		t.Errorf("report.json alone: %+v, %t, %v", fv, ok, err)
	}
	if _, ok, _ := rr.ReadReportFile("report.json", []byte(`{"a": {"resolved": true}}`)); ok {
		t.Error("a SWE-bench report.json was taken")
	}
	if _, ok, _ := rr.ReadEvalFolder(t.TempDir()); ok {
		t.Error("an empty folder was taken")
	}
}

func TestProfileRows(t *testing.T) {
	p := New(Options{})
	inst := pytestRow()
	if !p.Match(&inst) {
		t.Fatal("Match: false for a SWE-bench-Live row")
	}
	if err := p.Prepare(&inst); err != nil {
		t.Fatal(err)
	}
	if inst.Image != DefaultImage("a__b-2") || inst.WorkDir != "/testbed" {
		t.Errorf("prepared: image %q, workdir %q", inst.Image, inst.WorkDir)
	}
	swebench := dataset.Instance{InstanceID: "x", LogParser: "parse_log_pytest", EvalScript: "#!/bin/bash"}
	if p.Match(&swebench) {
		t.Error("Match: true for a SWE-bench row")
	}
	win := pythonRow()
	win.Image = "starryzhang/sweb.eval.win.a_1776_b-1"
	if err := p.Prepare(&win); err != nil {
		t.Errorf("Prepare of a Windows row: %v", err)
	}
	if err := p.Grader().Check([]dataset.Instance{pytestRow(), win}); err == nil || !strings.Contains(err.Error(), "a__b-1") || !strings.Contains(err.Error(), "Windows containers") {
		t.Errorf("Check: %v", err)
	}
	noTests := pytestRow()
	noTests.FailToPass, noTests.PassToPass = nil, nil
	if err := p.Prepare(&noTests); err != nil {
		t.Errorf("Prepare of a row without test lists: %v", err)
	}
	if err := p.ValidateForEval(&noTests); err != nil {
		t.Errorf("ValidateForEval of a row without test lists: %v", err)
	}
	if err := p.Grader().Check([]dataset.Instance{noTests}); err == nil || !strings.Contains(err.Error(), "instance a__b-2: ") || !strings.Contains(err.Error(), "validation.py") {
		t.Errorf("Check: %v", err)
	}
}

// TestGradeInvalidUTF8InAContainer runs the harness's commands in a container whose print
// command prints invalid UTF-8: the log is what the harness's session decodes (TestRawPrintLog:
// the invalid byte dropped), so the test "tests/t.py::f" passes.
func TestGradeInvalidUTF8InAContainer(t *testing.T) {
	engine := testenv.Docker(t)
	testenv.RequireImage(t, engine, testenv.BaseImage)
	rnd := make([]byte, 4)
	rand.Read(rnd)
	runID := "test-live-" + hex.EncodeToString(rnd)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		engine.Sweep(ctx, sandbox.Selector{RunID: runID})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sb, err := engine.Start(ctx, sandbox.Spec{Image: testenv.BaseImage, RunID: runID, InstanceID: "a__b-2", Role: "eval", Cwd: "/",
		Limits: sandbox.Limits{NetworkMode: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Remove(context.Background()) })
	inst := pytestRow()
	inst.Extra["test_cmds"] = []any{"true"}
	inst.Extra["print_cmds"] = []any{`printf 'PASSED tests/t.py::\xfff\n\033[32mPASSED\033[0m tests/t.py::p\r\n'`}
	dir := t.TempDir()
	v, err := New(Options{}).Grader().Grade(ctx, family.GradeEnv{Timeout: time.Minute}, pyparser.Adapt(sb, 64<<20), inst, family.Prediction{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != family.Resolved {
		t.Errorf("got %s %s %q, want resolved", v.Outcome, v.ErrorKind, v.Reason)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, PostPatchLogFile)); string(got) != "PASSED tests/t.py::f\nPASSED tests/t.py::p\n" {
		t.Errorf("post_patch_log.txt: %q", got)
	}
}
