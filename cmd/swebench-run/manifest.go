package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"time"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
)

// prepareManifest writes run.json for a new run, or checks that a resume uses the same model,
// config and dataset as the run it continues (unless force) and updates it. runID "" keeps the
// run's id, or makes a new one.
func prepareManifest(out *results.Dir, runID string, force bool, cfg *configs.Config, loaded *dataset.Loaded, modelName string) (*results.Manifest, error) {
	dm := loaded.Manifest()
	ds, err := json.Marshal(dm)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	cur := &results.Manifest{
		Tool: "swebench-run", Version: version, RunID: runID, Created: now, Updated: now,
		Model: modelName, Dataset: ds, Instances: dm.Instances, Config: cfg.Dump(),
	}
	prev, err := results.ReadManifest(out.Path())
	if err != nil {
		return nil, err
	}
	if prev != nil {
		if diff := incompatible(prev, cur); diff != "" && !force {
			return nil, fmt.Errorf("%s holds a run with a different %s; resuming would mix incomparable results. Use a new -o, or --force to resume anyway", out.Path(), diff)
		}
		if cur.RunID == "" {
			cur.RunID = prev.RunID
		}
		cur.Created = prev.Created
	}
	if cur.RunID == "" {
		cur.RunID = newRunID()
	}
	return cur, out.WriteJSON(results.ManifestFile, cur)
}

// incompatible names what differs between two manifests in a way that breaks comparability.
func incompatible(prev, cur *results.Manifest) string {
	if prev.Model != cur.Model {
		return fmt.Sprintf("model (%s, now %s)", prev.Model, cur.Model)
	}
	if a, b := historyOf(prev.Config), historyOf(cur.Config); a != b {
		was := a
		if results.HistoryMode(prev.Config) == "" {
			was += ": a run made before the history guard"
		}
		return fmt.Sprintf("environment.history (%s, now %s: resume with -c environment.history=%s)", was, b, a)
	}
	if !reflect.DeepEqual(withoutLauncher(normalize(prev.Config)), withoutLauncher(normalize(cur.Config))) {
		return "config"
	}
	// The selection may change between resumes (e.g. a --filter subset first); the dataset may not.
	var a, b dataset.Manifest
	_ = json.Unmarshal(prev.Dataset, &a)
	_ = json.Unmarshal(cur.Dataset, &b)
	a.Selection, b.Selection = nil, nil
	a.IDsSHA256, b.IDsSHA256 = "", ""
	a.Instances, b.Instances = 0, 0
	if err := a.Comparable(b); err != nil {
		return "dataset (" + err.Error() + ")"
	}
	return ""
}

// normalize round-trips v through JSON so that values read from run.json and values built in
// memory compare equal.
func normalize(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// withoutLauncher drops environment.launcher from a normalized config: how commands run (the
// launcher or the backend's exec) does not change their results, so a run may resume with the
// other setting (and a run.json written before the key existed compares equal). It drops
// environment.history too, which historyOf compares.
func withoutLauncher(config any) any {
	m, ok := config.(map[string]any)
	if !ok {
		return config
	}
	if env, ok := m["environment"].(map[string]any); ok {
		delete(env, "launcher")
		delete(env, "history")
	}
	return m
}

// historyOf is a config's environment.history; a config without the key (a run made before the
// history guard) saw its images' repositories as they were: as-is.
func historyOf(config map[string]any) string {
	if h := results.HistoryMode(config); h != "" {
		return h
	}
	return "as-is"
}

// readManifestBeside returns the run id of the run.json next to a predictions file, if any.
func readManifestBeside(predsPath string) (string, error) {
	man, err := results.ReadManifest(filepath.Dir(predsPath))
	if err != nil || man == nil {
		return "", err
	}
	return man.RunID, nil
}
