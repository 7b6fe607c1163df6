package submission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// builtFixture builds the fixture run's folder and returns it with the check's options.
func builtFixture(t *testing.T) (string, CheckOptions) {
	t.Helper()
	in, err := OpenInput(fixture(t, fixtureOutput), fixture(t, fixtureLogs))
	if err != nil {
		t.Fatal(err)
	}
	opts := buildOpts(t)
	b, err := Build(context.Background(), in, t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return b.Dir, CheckOptions{Split: opts.Split, Dataset: opts.Dataset}
}

// --check lints any folder: each kind of damage is found, with its severity, and named.
func TestCheckFindsDamage(t *testing.T) {
	const victim = "sqlfluff__sqlfluff-2419" // resolved
	tests := []struct {
		name     string
		damage   func(t *testing.T, dir string)
		check    string
		severity Severity
		mention  string
		alone    bool // the only finding that fails: --force accepts it
	}{
		{
			name: "a resolved instance left out of results.json",
			damage: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "results", "results.json")
				var r Results
				readJSON(t, p, &r)
				r.Resolved = r.Resolved[:len(r.Resolved)-1]
				writeJSON(t, p, r)
			},
			check: CheckResults, severity: Fail, mention: "resolved lacks 1 it does (" + victim + ")",
		},
		{
			name: "an instance claimed resolved",
			damage: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "results", "results.json")
				var r Results
				readJSON(t, p, &r)
				r.Resolved = append(r.Resolved, "pvlib__pvlib-python-1072")
				writeJSON(t, p, r)
			},
			check: CheckResults, severity: Fail, mention: "resolved lists 1 the recomputation does not (pvlib__pvlib-python-1072)",
		},
		{
			name: "per-repository counts over the predictions only",
			damage: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "results", "resolved_by_repo.json")
				var m map[string]Count
				readJSON(t, p, &m)
				m["pyvista/pyvista"] = Count{Resolved: 0, Total: 2}
				writeJSON(t, p, m)
			},
			check: CheckResults, severity: Fail, mention: "pyvista/pyvista 0/2, want 0/1",
		},
		{
			name:   "no results",
			damage: func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "results")) },
			check:  CheckResults, severity: Fail, mention: "missing results/results.json",
		},
		{
			name:   "a file get_results deletes",
			damage: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, ".swebench-run.lock"), "{}") },
			check:  CheckFiles, severity: Warn, mention: ".swebench-run.lock", alone: true,
		},
		{
			name: "a run_instance.log",
			damage: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "logs", victim, "run_instance.log"), "x")
			},
			check: CheckFiles, severity: Warn, mention: filepath.Join("logs", victim, "run_instance.log"), alone: true,
		},
		{
			name:   "a missing trajectory",
			damage: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "trajs", victim+".traj.json")) },
			check:  CheckTrajectories, severity: Fail, mention: victim,
		},
		{
			// Also a failure of results/: results.json lists it as resolved, not as no_logs.
			name:   "a missing log",
			damage: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "logs", victim, "test_output.txt")) },
			check:  CheckLogs, severity: Warn, mention: victim,
		},
		{
			name:   "no log folder",
			damage: func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "logs", victim)) },
			check:  CheckLogs, severity: Warn, mention: "count as no_generation, i.e. unresolved: " + victim,
		},
		{
			name: "attempts that are neither 1 nor 2+",
			damage: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "metadata.yaml")
				data, _ := os.ReadFile(p)
				writeFile(t, p, strings.Replace(string(data), `attempts: "1"`, `attempts: "pass@3"`, 1))
			},
			check: CheckMetadata, severity: Fail, mention: `tags.system.attempts is "pass@3"`,
		},
		{
			name: "no report",
			damage: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "metadata.yaml")
				data, _ := os.ReadFile(p)
				writeFile(t, p, strings.Replace(string(data), "  report: https://example.org/report\n", "", 1))
			},
			check: CheckMetadata, severity: Warn, mention: "info.report", alone: true,
		},
		{
			name:   "no metadata",
			damage: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "metadata.yaml")) },
			check:  CheckMetadata, severity: Fail, mention: "no metadata.yaml",
		},
		{
			name: "two lines for one instance",
			damage: func(t *testing.T, dir string) {
				p := filepath.Join(dir, PredsFile)
				data, _ := os.ReadFile(p)
				first, _, _ := strings.Cut(string(data), "\n")
				writeFile(t, p, string(data)+first+"\n")
			},
			check: CheckDuplicates, severity: Fail, mention: "(line 1, line 24)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, opts := builtFixture(t)
			tt.damage(t, dir)
			rep, err := Check(context.Background(), dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			f, ok := find(rep.Findings, tt.check, tt.severity)
			if !ok {
				t.Fatalf("no %s of check %s in %v", tt.severity, tt.check, rep.Findings)
			}
			if !strings.Contains(f.Message, tt.mention) {
				t.Errorf("%q does not mention %q", f.Message, tt.mention)
			}
			if rep.Err(false) == nil {
				t.Error("the damaged folder passes")
			}
			if tt.alone && rep.Err(true) != nil {
				t.Errorf("with --force the warning still fails: %v", rep.Err(true))
			}
		})
	}
}

// Folders laid out as others lay them out pass: mini-swe-agent's trajs/<id>/<id>.traj.json,
// preds.json instead of all_preds.jsonl, metadata.yml, test output dumped by sb-cli as a JSON
// string, attempts as the number 1, authors as one string.
func TestCheckOtherLayouts(t *testing.T) {
	dir, opts := builtFixture(t)
	const victim = "marshmallow-code__marshmallow-1343" // resolved
	// trajs/<id>/<id>.traj.json for one instance.
	if err := os.MkdirAll(filepath.Join(dir, "trajs", victim), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "trajs", victim+".traj.json"), filepath.Join(dir, "trajs", victim, victim+".traj.json")); err != nil {
		t.Fatal(err)
	}
	// preds.json, an object keyed by id.
	pf, err := readPredFile(filepath.Join(dir, PredsFile))
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{}
	for _, e := range pf.Entries {
		obj[e.InstanceID] = map[string]any{"model_name_or_path": e.ModelNameOrPath, "model_patch": e.Patch()}
	}
	writeJSON(t, filepath.Join(dir, "preds.json"), obj)
	os.Remove(filepath.Join(dir, PredsFile))
	// metadata.yml with other spellings.
	writeFile(t, filepath.Join(dir, "metadata.yml"), `info:
  name: DeepSeek agent
  site: https://example.org
  report: https://example.org/report
  authors: Ada Lovelace, Charles Babbage
assets:
  logs: s3://swe-bench-submissions/lite/x/logs
  trajs: s3://swe-bench-submissions/lite/x/trajs
tags:
  checked: false
  model: deepseek-chat
  org: Example
  os_model: true
  os_system: true
  system:
    attempts: 1
  model_display: DeepSeek V3
`)
	os.Remove(filepath.Join(dir, "metadata.yaml"))
	// sb-cli's dump of a test output.
	p := filepath.Join(dir, "logs", victim, "test_output.txt")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	dumped, _ := json.Marshal(string(data))
	writeFile(t, p, string(dumped))

	rep, err := Check(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(false); err != nil {
		t.Errorf("the folder does not pass: %v\n%v", err, rep.Findings)
	}
	if !rep.Computed.Regraded[victim] {
		t.Errorf("the dumped test output of %s was not graded resolved", victim)
	}
}

func TestCheckRefusesAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	writeFile(t, p, "{}")
	if _, err := Check(context.Background(), p, CheckOptions{}); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("Check(file) = %v", err)
	}
}

// A folder not called <YYYYMMDD>_<name> fails.
func TestCheckFolderName(t *testing.T) {
	dir, opts := builtFixture(t)
	bad := filepath.Join(filepath.Dir(dir), "deepseek-chat")
	if err := os.Rename(dir, bad); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(context.Background(), bad, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := find(rep.Findings, CheckSplit, Fail); !ok {
		t.Errorf("findings %v", rep.Findings)
	}
}
