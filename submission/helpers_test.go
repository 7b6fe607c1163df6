package submission

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The real mini-swe-agent run on Lite dev in the test corpus: 23 predictions, all evaluated by
// the harness, 6 resolved.
const (
	fixtureOutput = "runs/deepseek-chat-lite-dev/output"
	fixtureLogs   = "runs/deepseek-chat-lite-dev/eval-logs"
	fixtureModel  = "deepseek/deepseek-chat"
)

// fixture returns a path of the test corpus.
func fixture(t *testing.T, rel string) string {
	t.Helper()
	return testenv.Fixtures(t, filepath.FromSlash(rel))
}

// liteDev loads the Lite dev split (23 instances, with the eval columns) from the corpus.
func liteDev(t *testing.T) Dataset {
	t.Helper()
	return loadDataset(t, fixture(t, "datasets/SWE-bench_Lite.dev.parquet"))
}

func loadDataset(t *testing.T, spec string) Dataset {
	t.Helper()
	l, err := dataset.Load(context.Background(), spec, dataset.LoadOptions{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	return Dataset{Spec: spec, Instances: l.Instances, Source: l.Source}
}

// localLoad loads datasets from local files (and the hub cache) only.
func localLoad(ctx context.Context, spec string) ([]dataset.Instance, error) {
	l, err := dataset.Load(ctx, spec, dataset.LoadOptions{Offline: true})
	if err != nil {
		return nil, err
	}
	return l.Instances, nil
}

func mustSplit(t *testing.T, name string, custom bool) Split {
	t.Helper()
	s, err := LookupSplit(name, custom)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// copyTree copies a folder (the corpus is read-only) into a new temporary folder and returns it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// fixtureCopy copies the fixture run and its logs, for tests that change them.
func fixtureCopy(t *testing.T) (output, logs string) {
	t.Helper()
	return copyTree(t, fixture(t, fixtureOutput)), copyTree(t, fixture(t, fixtureLogs))
}

// editPreds rewrites a preds.json (object keyed by id).
func editPreds(t *testing.T, dir string, edit func(map[string]map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, results.PredsFile)
	var preds map[string]map[string]any
	readJSON(t, p, &preds)
	edit(preds)
	writeJSON(t, p, preds)
}

// editTrajectories rewrites every trajectory of a run folder.
func editTrajectories(t *testing.T, dir string, edit func(id string, traj map[string]any)) {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*", "*.traj.json"))
	if err != nil || len(matches) == 0 {
		t.Fatalf("no trajectories in %s (%v)", dir, err)
	}
	for _, p := range matches {
		var traj map[string]any
		readJSON(t, p, &traj)
		edit(strings.TrimSuffix(filepath.Base(p), ".traj.json"), traj)
		writeJSON(t, p, traj)
	}
}

func readJSON(t *testing.T, p string, v any) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

func writeJSON(t *testing.T, p string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fullMetadata fills the fields a submitter gives with flags.
func fullMetadata() Metadata {
	return Metadata{Site: "https://example.org/agent", Report: "https://example.org/report", Authors: []string{"Ada Lovelace"}, Orgs: []string{"Example"}}
}

// buildOpts are the options of a build of the fixture run on Lite dev.
func buildOpts(t *testing.T) Options {
	t.Helper()
	return Options{Split: mustSplit(t, "lite-dev", false), Dataset: liteDev(t), Name: "deepseek-chat", Date: "20260102",
		Metadata: fullMetadata(), Load: localLoad, Tool: "swebench-run test"}
}

// findings returns the findings of a build's error (it must be a *ChecksError).
func checksError(t *testing.T, err error) Findings {
	t.Helper()
	var ce *ChecksError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *ChecksError", err)
	}
	if !errors.Is(err, ErrChecksFailed) {
		t.Errorf("error %v does not wrap ErrChecksFailed", err)
	}
	return ce.Findings
}

// find returns the first finding of a check with a severity.
func find(fs Findings, check string, sev Severity) (Finding, bool) {
	for _, f := range fs {
		if f.Check == check && f.Severity == sev {
			return f, true
		}
	}
	return Finding{}, false
}

// runDirFromFixture makes one of our output directories out of the fixture run: run.json with
// the trajectories' config, a ledger with one model outcome per instance (plus the records
// extra gives), preds.json, trajectories, and eval/ holding the harness logs.
func runDirFromFixture(t *testing.T, ds Dataset, extra []results.Record) string {
	t.Helper()
	out, logs := fixtureCopy(t)
	var traj struct {
		Info struct {
			Config map[string]any `json:"config"`
		} `json:"info"`
	}
	readJSON(t, filepath.Join(out, "pydicom__pydicom-901", "pydicom__pydicom-901.traj.json"), &traj)
	dm, err := json.Marshal(dataset.Manifest{Source: ds.Source, Instances: len(ds.Instances)})
	if err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(out, results.ManifestFile), results.Manifest{
		Tool: "swebench-run", Version: "test", RunID: "r1", Model: fixtureModel, Dataset: dm, Instances: len(ds.Instances), Config: traj.Info.Config,
	})
	var preds map[string]map[string]any
	readJSON(t, filepath.Join(out, results.PredsFile), &preds)
	var ledger []byte
	for _, rec := range extra {
		line, _ := json.Marshal(rec)
		ledger = append(append(ledger, line...), '\n')
	}
	for _, id := range sortedIDs(preds) {
		line, _ := json.Marshal(results.Record{InstanceID: id, Attempt: 1, ExitStatus: "Submitted", Category: results.CategoryModel, ModelName: fixtureModel, Cost: 0.05, End: 1})
		ledger = append(append(ledger, line...), '\n')
	}
	writeFile(t, filepath.Join(out, results.LedgerFile), string(ledger))
	if err := os.Rename(logs, filepath.Join(out, "eval")); err != nil {
		t.Fatal(err)
	}
	return out
}
