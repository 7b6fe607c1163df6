package submission

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
)

// The fixture run (mini-swe-agent output and the harness's logs) built on Lite dev: results/
// says what the harness reports say, every file is there, metadata.yaml has every field, and
// the folder passes the check any folder gets.
func TestBuildFixtureRun(t *testing.T) {
	outDir, logsDir := fixture(t, fixtureOutput), fixture(t, fixtureLogs)
	in, err := OpenInput(outDir, logsDir)
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != InputMini {
		t.Errorf("input kind %q, want %q", in.Kind, InputMini)
	}
	root := t.TempDir()
	opts := buildOpts(t)
	opts.SBCLI = true
	b, err := Build(context.Background(), in, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "evaluation", "lite-dev", "20260102_deepseek-chat")
	if b.Dir != dir || b.Folder != "20260102_deepseek-chat" {
		t.Errorf("built %s (%s), want %s", b.Dir, b.Folder, dir)
	}

	// What the harness's report.json files say, read independently.
	var wantResolved, ids []string
	entries, err := os.ReadDir(logsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		ids = append(ids, e.Name())
		rep, _, err := eval.ReadReport(filepath.Join(logsDir, e.Name(), "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Resolved {
			wantResolved = append(wantResolved, e.Name())
		}
	}
	sort.Strings(wantResolved)
	if len(wantResolved) != 6 || len(ids) != 23 {
		t.Fatalf("the fixture has %d resolved of %d; want 6 of 23", len(wantResolved), len(ids))
	}
	var res Results
	readJSON(t, filepath.Join(dir, "results", "results.json"), &res)
	if !reflect.DeepEqual(res.Resolved, wantResolved) {
		t.Errorf("results.json resolved = %v, want the harness's %v", res.Resolved, wantResolved)
	}
	if res.NoGeneration == nil || len(res.NoGeneration) != 0 || res.NoLogs == nil || len(res.NoLogs) != 0 {
		t.Errorf("no_generation = %v, no_logs = %v; want both [] (every instance of the split has a prediction and a log)", res.NoGeneration, res.NoLogs)
	}
	// Python's json.dump(indent=2): exactly these bytes.
	raw, err := os.ReadFile(filepath.Join(dir, "results", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"no_generation\": [],\n  \"no_logs\": [],\n  \"resolved\": [\n    \"" + strings.Join(wantResolved, "\",\n    \"") + "\"\n  ]\n}"
	if string(raw) != want {
		t.Errorf("results.json =\n%s\nwant\n%s", raw, want)
	}
	var byRepo, byYear map[string]Count
	readJSON(t, filepath.Join(dir, "results", "resolved_by_repo.json"), &byRepo)
	readJSON(t, filepath.Join(dir, "results", "resolved_by_time.json"), &byYear)
	for name, m := range map[string]map[string]Count{"by repo": byRepo, "by time": byYear} {
		total, resolved := 0, 0
		for _, c := range m {
			total += c.Total
			resolved += c.Resolved
		}
		if total != 23 || resolved != 6 {
			t.Errorf("resolved %s adds up to %d/%d, want 6/23 (the whole split)", name, resolved, total)
		}
	}
	if byRepo["marshmallow-code/marshmallow"] != (Count{Resolved: 2, Total: 2}) || byYear["2021"] != (Count{Resolved: 1, Total: 8}) {
		t.Errorf("by repo %v, by year %v", byRepo, byYear)
	}

	// Every prediction, trajectory and log.
	pf, err := readPredFile(filepath.Join(dir, PredsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.Entries) != 23 || len(pf.Bad) > 0 {
		t.Errorf("all_preds.jsonl: %d entries, bad %v", len(pf.Entries), pf.Bad)
	}
	for _, id := range ids {
		src, _ := os.ReadFile(filepath.Join(outDir, id, id+".traj.json"))
		got, err := os.ReadFile(filepath.Join(dir, "trajs", id+".traj.json"))
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("trajs/%s.traj.json: %v, or not the run's trajectory", id, err)
		}
		for _, name := range []string{"patch.diff", "eval.sh", "test_output.txt", "report.json"} {
			src, _ := os.ReadFile(filepath.Join(logsDir, id, name))
			got, err := os.ReadFile(filepath.Join(dir, "logs", id, name))
			if err != nil || !bytes.Equal(got, src) {
				t.Errorf("logs/%s/%s: %v, or not the harness's file", id, name, err)
			}
		}
		if exists(filepath.Join(dir, "logs", id, "run_instance.log")) {
			t.Errorf("logs/%s/run_instance.log is there; get_results removes it", id)
		}
	}

	// metadata.yaml: every field, with its type.
	var meta struct {
		Info struct {
			Name    string   `yaml:"name"`
			Site    string   `yaml:"site"`
			Report  string   `yaml:"report"`
			Authors []string `yaml:"authors"`
		} `yaml:"info"`
		Assets struct {
			Logs  string `yaml:"logs"`
			Trajs string `yaml:"trajs"`
		} `yaml:"assets"`
		Tags struct {
			Checked  *bool    `yaml:"checked"`
			Model    []string `yaml:"model"`
			Org      []string `yaml:"org"`
			OSModel  *bool    `yaml:"os_model"`
			OSSystem *bool    `yaml:"os_system"`
			System   struct {
				Attempts string `yaml:"attempts"`
			} `yaml:"system"`
		} `yaml:"tags"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "metadata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&meta); err != nil {
		t.Fatalf("metadata.yaml: %v\n%s", err, data)
	}
	if meta.Info.Name != "deepseek-chat" || meta.Info.Site != "https://example.org/agent" || meta.Info.Report != "https://example.org/report" ||
		!reflect.DeepEqual(meta.Info.Authors, []string{"Ada Lovelace"}) ||
		meta.Assets.Logs != "s3://swe-bench-submissions/lite-dev/20260102_deepseek-chat/logs" ||
		meta.Assets.Trajs != "s3://swe-bench-submissions/lite-dev/20260102_deepseek-chat/trajs" ||
		meta.Tags.Checked == nil || *meta.Tags.Checked || !reflect.DeepEqual(meta.Tags.Model, []string{"deepseek-chat"}) ||
		!reflect.DeepEqual(meta.Tags.Org, []string{"Example"}) || meta.Tags.OSModel == nil || meta.Tags.OSSystem == nil ||
		meta.Tags.System.Attempts != "1" {
		t.Errorf("metadata.yaml = %+v\n%s", meta, data)
	}
	if !strings.Contains(string(data), `attempts: "1"`) {
		t.Errorf("attempts is not the string \"1\":\n%s", data)
	}

	// README: the get_results summary and the checklist.
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"Submission summary for 20260102_deepseek-chat on SWE-bench lite-dev split\n==================================================\nResolved 6 instances (26.09%)\n",
		"- marshmallow-code/marshmallow: 2/2 (100.0%)\n", "- 2021: 1/8 (12.5%)\n", "- 2019: 2/3 (66.67%)\n",
		"- [x] " + itemPass1, "- [x] " + itemTests, "- [x] " + itemHints, "- [ ] " + itemBrowsing,
		"| tool | mini-swe-agent 2.2.7 |",
	} {
		if !strings.Contains(string(readme), s) {
			t.Errorf("README lacks %q:\n%s", s, readme)
		}
	}

	// The sb-cli file: an object keyed by id, one model, and the command.
	var sb map[string]map[string]string
	readJSON(t, b.SBCLIFile, &sb)
	if len(sb) != 23 || sb["pydicom__pydicom-901"]["model_name_or_path"] != fixtureModel || sb["pydicom__pydicom-901"]["instance_id"] != "pydicom__pydicom-901" {
		t.Errorf("sb-cli file: %d entries, %v", len(sb), sb["pydicom__pydicom-901"])
	}
	if want := "sb-cli submit swe-bench_lite dev --predictions_path " + b.SBCLIFile + " --run_id 20260102_deepseek-chat"; b.SBCLICommand != want {
		t.Errorf("command %q, want %q", b.SBCLICommand, want)
	}

	// Only the folder is left: no temporary folder, no lock file.
	parent, _ := os.ReadDir(filepath.Dir(dir))
	if len(parent) != 1 {
		t.Errorf("evaluation/lite-dev holds %d entries, want the folder alone", len(parent))
	}
	rep, err := Check(context.Background(), dir, CheckOptions{Split: opts.Split, Dataset: opts.Dataset})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(false); err != nil {
		t.Errorf("the folder does not pass --check: %v\n%v", err, rep.Findings)
	}
	if !reflect.DeepEqual(rep.Computed.Results, res) {
		t.Errorf("check recomputed %+v, the folder says %+v", rep.Computed.Results, res)
	}

	// A second build replaces the folder only with --force.
	if _, err := Build(context.Background(), in, root, opts); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("a second build without --force: %v", err)
	}
	opts.Force = true
	if _, err := Build(context.Background(), in, root, opts); err != nil {
		t.Errorf("a second build with --force: %v", err)
	}
}

// Instances of the split without a prediction, and predictions with an empty patch, are
// no_generation; the missing predictions are a warning that needs --force, written into the
// README, and the folder still passes --check.
func TestBuildNoGeneration(t *testing.T) {
	out, logs := fixtureCopy(t)
	removed := []string{"pvlib__pvlib-python-1072", "sqlfluff__sqlfluff-1517"}
	const empty = "pydicom__pydicom-1413"
	editPreds(t, out, func(p map[string]map[string]any) {
		for _, id := range removed {
			delete(p, id)
		}
		p[empty]["model_patch"] = ""
	})
	editTrajectories(t, out, func(id string, traj map[string]any) {
		if id == empty {
			traj["info"].(map[string]any)["submission"] = ""
		}
	})
	in, err := OpenInput(out, logs)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	opts := buildOpts(t)
	_, err = Build(context.Background(), in, root, opts)
	fs := checksError(t, err)
	f, ok := find(fs, CheckMissing, Warn)
	if !ok || !reflect.DeepEqual(f.IDs, removed) {
		t.Fatalf("findings %v; want a missing-prediction warning naming %v", fs, removed)
	}
	if exists(filepath.Join(root, "evaluation")) {
		t.Error("a refused build left files behind")
	}

	opts.Force = true
	b, err := Build(context.Background(), in, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantNoGen := append(append([]string{}, removed...), empty)
	sort.Strings(wantNoGen)
	var res Results
	readJSON(t, filepath.Join(b.Dir, "results", "results.json"), &res)
	if !reflect.DeepEqual(res.NoGeneration, wantNoGen) || len(res.NoLogs) != 0 {
		t.Errorf("no_generation %v, no_logs %v; want %v and none", res.NoGeneration, res.NoLogs, wantNoGen)
	}
	if len(res.Resolved) != 6 {
		t.Errorf("resolved %v, want the 6 (none of the removed was resolved)", res.Resolved)
	}
	if exists(filepath.Join(b.Dir, "logs", empty)) {
		t.Errorf("logs/%s exists; an empty patch is not evaluated", empty)
	}
	readme, _ := os.ReadFile(filepath.Join(b.Dir, "README.md"))
	if !strings.Contains(string(readme), "**missing**: 2 of the 23 instances") || !strings.Contains(string(readme), "<!-- swebench-run accepted: missing -->") {
		t.Errorf("README does not record the accepted warning:\n%s", readme)
	}
	rep, err := Check(context.Background(), b.Dir, CheckOptions{Split: opts.Split, Dataset: opts.Dataset})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(false); err != nil {
		t.Errorf("the folder does not pass --check although its README accepts the warning: %v", err)
	}
}

// Every check trips on a run that breaks it, with a message naming the instances or the config
// key; hard failures stop even with --force, warnings only without it.
func TestBuildChecksTrip(t *testing.T) {
	const victim = "pydicom__pydicom-901"
	tests := []struct {
		name     string
		edit     func(t *testing.T, out, logs string)
		check    string
		severity Severity
		mention  string // in the finding's message
		force    bool   // build with --force
	}{
		{
			name: "a template using hints",
			edit: func(t *testing.T, out, _ string) {
				editTrajectories(t, out, func(_ string, traj map[string]any) {
					agent := traj["info"].(map[string]any)["config"].(map[string]any)["agent"].(map[string]any)
					agent["instance_template"] = agent["instance_template"].(string) + "\n{% if hints_text %}Hints:\n{{ hints_text }}{% endif %}"
				})
			},
			check: CheckTemplates, severity: Fail, mention: "agent.instance_template uses {{hints_text}}", force: true,
		},
		{
			name: "a template using FAIL_TO_PASS",
			edit: func(t *testing.T, out, _ string) {
				editTrajectories(t, out, func(_ string, traj map[string]any) {
					model := traj["info"].(map[string]any)["config"].(map[string]any)["model"].(map[string]any)
					model["format_error_template"] = "Run {{ FAIL_TO_PASS | join(' ') }}"
				})
			},
			check: CheckTemplates, severity: Fail, mention: "model.format_error_template uses {{FAIL_TO_PASS}}", force: true,
		},
		{
			name: "two model names",
			edit: func(t *testing.T, out, _ string) {
				editPreds(t, out, func(p map[string]map[string]any) { p[victim]["model_name_or_path"] = "openai/gpt-5" })
			},
			check: CheckModelName, severity: Fail, mention: `"openai/gpt-5" (1: ` + victim + `)`, force: true,
		},
		{
			name:  "a missing trajectory",
			edit:  func(t *testing.T, out, _ string) { os.Remove(filepath.Join(out, victim, victim+".traj.json")) },
			check: CheckTrajectories, severity: Fail, mention: victim, force: true,
		},
		{
			name: "a duplicate id",
			edit: func(t *testing.T, out, _ string) {
				p := filepath.Join(out, results.PredsFile)
				data, _ := os.ReadFile(p)
				var preds map[string]json.RawMessage
				json.Unmarshal(data, &preds)
				dup := []byte(`{"` + victim + `": ` + string(preds[victim]) + ",")
				writeFile(t, p, string(append(dup, bytes.TrimPrefix(bytes.TrimSpace(data), []byte("{"))...)))
			},
			check: CheckDuplicates, severity: Fail, mention: victim + ` (key "` + victim + `", key "` + victim + `")`, force: true,
		},
		{
			name: "a prediction for an instance outside the split",
			edit: func(t *testing.T, out, _ string) {
				editPreds(t, out, func(p map[string]map[string]any) {
					p["django__django-11099"] = map[string]any{"instance_id": "django__django-11099", "model_name_or_path": fixtureModel, "model_patch": ""}
				})
			},
			check: CheckUnknown, severity: Fail, mention: "django__django-11099", force: true,
		},
		{
			name: "a patch editing a file of the test_patch",
			edit: func(t *testing.T, out, logs string) {
				extra := "diff --git a/pydicom/tests/test_config.py b/pydicom/tests/test_config.py\n--- a/pydicom/tests/test_config.py\n+++ b/pydicom/tests/test_config.py\n@@ -1,1 +1,1 @@\n-x\n+y\n"
				var patch string
				editPreds(t, out, func(p map[string]map[string]any) {
					patch = p[victim]["model_patch"].(string) + extra
					p[victim]["model_patch"] = patch
				})
				editTrajectories(t, out, func(id string, traj map[string]any) {
					if id == victim {
						traj["info"].(map[string]any)["submission"] = patch
					}
				})
				writeFile(t, filepath.Join(logs, victim, "patch.diff"), patch)
			},
			check: CheckTestFiles, severity: Warn, mention: victim + ": pydicom/tests/test_config.py (in the test_patch)",
		},
		{
			name: "a conftest.py",
			edit: func(t *testing.T, out, logs string) {
				extra := "diff --git a/conftest.py b/conftest.py\nnew file mode 100644\n--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1 @@\n+import pytest\n"
				var patch string
				editPreds(t, out, func(p map[string]map[string]any) {
					patch = p[victim]["model_patch"].(string) + extra
					p[victim]["model_patch"] = patch
				})
				editTrajectories(t, out, func(id string, traj map[string]any) {
					if id == victim {
						traj["info"].(map[string]any)["submission"] = patch
					}
				})
				writeFile(t, filepath.Join(logs, victim, "patch.diff"), patch)
			},
			check: CheckTestFiles, severity: Warn, mention: victim + ": conftest.py (conftest.py)",
		},
		{
			name: "a log made for another patch",
			edit: func(t *testing.T, _, logs string) {
				writeFile(t, filepath.Join(logs, victim, "patch.diff"), "diff --git a/x b/x\n")
			},
			check: CheckStaleLogs, severity: Fail, mention: victim, force: true,
		},
		{
			name: "a trajectory ending with another submission",
			edit: func(t *testing.T, out, _ string) {
				editTrajectories(t, out, func(id string, traj map[string]any) {
					if id == victim {
						traj["info"].(map[string]any)["submission"] = "diff --git a/other b/other\n"
					}
				})
			},
			check: CheckTrajSubmission, severity: Warn, mention: victim,
		},
		{
			name: "a report.json that its log contradicts",
			edit: func(t *testing.T, _, logs string) {
				p := filepath.Join(logs, victim, "report.json")
				data, _ := os.ReadFile(p)
				writeFile(t, p, strings.Replace(string(data), `"resolved": false`, `"resolved": true`, 1))
			},
			check: CheckRegrade, severity: Warn, mention: victim + " (report.json: resolved true, regraded: false)",
		},
		{
			name: "a log whose tests never ran",
			edit: func(t *testing.T, _, logs string) {
				os.Remove(filepath.Join(logs, victim, "test_output.txt"))
			},
			check: CheckLogs, severity: Warn, mention: victim,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, logs := fixtureCopy(t)
			tt.edit(t, out, logs)
			in, err := OpenInput(out, logs)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			opts := buildOpts(t)
			opts.Force = tt.force
			_, err = Build(context.Background(), in, root, opts)
			fs := checksError(t, err)
			f, ok := find(fs, tt.check, tt.severity)
			if !ok {
				t.Fatalf("no %s finding of check %s in %v", tt.severity, tt.check, fs)
			}
			if !strings.Contains(f.Message, tt.mention) {
				t.Errorf("the finding %q does not mention %q", f.Message, tt.mention)
			}
			if exists(filepath.Join(root, "evaluation", "lite-dev", "20260102_deepseek-chat")) {
				t.Error("the folder was written although the checks failed")
			}
			if tt.severity == Warn {
				opts.Force = true
				b, err := Build(context.Background(), in, root, opts)
				if err != nil {
					t.Fatalf("with --force: %v", err)
				}
				readme, _ := os.ReadFile(filepath.Join(b.Dir, "README.md"))
				if !strings.Contains(string(readme), "**"+tt.check+"**: ") {
					t.Errorf("the README does not list the accepted warning %s", tt.check)
				}
				var res Results
				readJSON(t, filepath.Join(b.Dir, "results", "results.json"), &res)
				if noLogs := tt.check == CheckLogs; noLogs != reflect.DeepEqual(res.NoLogs, []string{victim}) {
					t.Errorf("no_logs = %v", res.NoLogs)
				}
			}
		})
	}
}

// A run whose ledger shows a model outcome retried (--retry-failed) made several attempts: its
// attempts are "2+", the pass@1 box stays unchecked, and declaring "1" fails.
func TestBuildRetryFailedHistory(t *testing.T) {
	ds := liteDev(t)
	retried := "sqlfluff__sqlfluff-1625"
	out := runDirFromFixture(t, ds, []results.Record{
		{InstanceID: retried, Attempt: 1, ExitStatus: "LimitsExceeded", Category: results.CategoryModel, ModelName: fixtureModel, End: 1},
		// Infrastructure failures are not attempts of the model.
		{InstanceID: "pydicom__pydicom-901", Attempt: 1, ExitStatus: "ContainerStartError", Category: results.CategoryInfrastructure, End: 1},
	})
	in, err := OpenInput(out, "")
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != InputRun || in.EvalDir != filepath.Join(out, "eval") {
		t.Fatalf("input %s with eval dir %s", in.Kind, in.EvalDir)
	}
	opts := buildOpts(t)
	opts.Metadata.Attempts = AttemptsOne
	_, err = Build(context.Background(), in, t.TempDir(), opts)
	f, ok := find(checksError(t, err), CheckAttempts, Fail)
	if !ok || !reflect.DeepEqual(f.IDs, []string{retried}) || !strings.Contains(f.Message, `declare "2+"`) {
		t.Fatalf("declaring attempts 1: %v", err)
	}

	opts.Metadata.Attempts = ""
	b, err := Build(context.Background(), in, t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if b.Attempts != AttemptsMany {
		t.Errorf("attempts %q, want 2+", b.Attempts)
	}
	meta, _ := os.ReadFile(filepath.Join(b.Dir, "metadata.yaml"))
	readme, _ := os.ReadFile(filepath.Join(b.Dir, "README.md"))
	if !strings.Contains(string(meta), `attempts: "2+"`) || !strings.Contains(string(readme), "- [ ] "+itemPass1) || !strings.Contains(string(readme), retried) {
		t.Errorf("metadata:\n%s\nREADME:\n%s", meta, readme)
	}
	// Our run: the template check reads run.json, and the README names the run.
	if !strings.Contains(string(readme), "`run.json`") || !strings.Contains(string(readme), "(run id `r1`)") {
		t.Errorf("README does not describe our run:\n%s", readme)
	}

	// The same run without the retry is pass@1.
	in2, err := OpenInput(runDirFromFixture(t, ds, nil), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err = Build(context.Background(), in2, t.TempDir(), buildOpts(t))
	if err != nil {
		t.Fatal(err)
	}
	if b.Attempts != AttemptsOne {
		t.Errorf("attempts %q without a retry, want 1", b.Attempts)
	}
}

// Our run's template check reads run.json: a hint there fails, naming the key.
func TestBuildRunConfigTemplate(t *testing.T) {
	ds := liteDev(t)
	out := runDirFromFixture(t, ds, nil)
	var man map[string]any
	readJSON(t, filepath.Join(out, results.ManifestFile), &man)
	man["config"].(map[string]any)["run"] = map[string]any{"env_startup_command": "echo '{{ patch }}' > /tmp/gold"}
	writeJSON(t, filepath.Join(out, results.ManifestFile), man)
	in, err := OpenInput(out, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), in, t.TempDir(), buildOpts(t))
	f, ok := find(checksError(t, err), CheckTemplates, Fail)
	if !ok || !strings.Contains(f.Message, "run.json: run.env_startup_command uses {{patch}} (line 1), the gold patch") {
		t.Errorf("finding %+v", f)
	}
}

// Without evaluation (--no-eval), predictions without a log fail, naming them; nothing is
// written.
func TestBuildNoEval(t *testing.T) {
	out, _ := fixtureCopy(t)
	in, err := OpenInput(out, filepath.Join(t.TempDir(), "no-logs"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(in.NeedsEvaluation()); n != 23 {
		t.Errorf("%d predictions need evaluation, want 23", n)
	}
	root := t.TempDir()
	_, err = Build(context.Background(), in, root, buildOpts(t))
	f, ok := find(checksError(t, err), CheckLogs, Fail)
	if !ok || len(f.IDs) != 23 || !strings.Contains(f.Message, "--no-eval") {
		t.Errorf("finding %+v", f)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("%s holds %d entries after a refused build", root, len(entries))
	}
}

// The evaluation hook gets the predictions without a log, and the folder is built from what it
// wrote.
func TestBuildEvaluatesMissingLogs(t *testing.T) {
	out, logs := fixtureCopy(t)
	const victim = "sqlfluff__sqlfluff-1733" // resolved
	saved := filepath.Join(t.TempDir(), victim)
	if err := os.Rename(filepath.Join(logs, victim), saved); err != nil {
		t.Fatal(err)
	}
	in, err := OpenInput(out, logs)
	if err != nil {
		t.Fatal(err)
	}
	if got := in.NeedsEvaluation(); !reflect.DeepEqual(got, []string{victim}) {
		t.Fatalf("needs evaluation: %v", got)
	}
	opts := buildOpts(t)
	calls := 0
	opts.Evaluate = func(ctx context.Context, in *Input, insts []dataset.Instance, preds map[string]eval.Prediction) error {
		calls++
		if len(insts) != 23 || len(preds) != 23 {
			t.Errorf("evaluate got %d instances and %d predictions", len(insts), len(preds))
		}
		// Stand in for the evaluator with the harness's own files for that instance.
		return os.Rename(saved, filepath.Join(in.EvalDir, victim))
	}
	b, err := Build(context.Background(), in, t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || len(b.Computed.Results.Resolved) != 6 {
		t.Errorf("%d evaluations, resolved %v", calls, b.Computed.Results.Resolved)
	}
}

// A build that fails after it started writing leaves no half folder behind.
func TestBuildFailureLeavesNothing(t *testing.T) {
	in, err := OpenInput(fixture(t, fixtureOutput), fixture(t, fixtureLogs))
	if err != nil {
		t.Fatal(err)
	}
	opts := buildOpts(t)
	insts := append([]dataset.Instance(nil), opts.Dataset.Instances...)
	insts[len(insts)-1].CreatedAt = "yesterday" // Compute fails on it, after the copies
	opts.Dataset.Instances = insts
	root := t.TempDir()
	if _, err := Build(context.Background(), in, root, opts); err == nil || !strings.Contains(err.Error(), "created_at") {
		t.Fatalf("build: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "evaluation", "lite-dev"))
	if len(entries) != 0 {
		t.Errorf("the failed build left %v", entries)
	}
}
