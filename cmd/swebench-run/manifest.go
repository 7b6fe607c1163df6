package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/results"
)

// prepareManifest writes run.json for a new run, or checks that a resume uses the same model,
// config and dataset as the run it continues (unless --force) and updates it.
func prepareManifest(out *results.Dir, f runFlags, cfg *configs.Config, loaded *dataset.Loaded, n int, modelName string) (*results.Manifest, error) {
	src, err := json.Marshal(loaded.Source)
	if err != nil {
		return nil, err
	}
	sel, err := json.Marshal(f.sel)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	cur := &results.Manifest{
		Tool: "swebench-run", Version: version, RunID: f.runID, Created: now, Updated: now,
		Model: modelName, Dataset: src, Selection: sel, Instances: n, Config: cfg.Dump(),
	}
	prev, err := results.ReadManifest(out.Path())
	if err != nil {
		return nil, err
	}
	if prev != nil {
		if diff := incompatible(prev, cur); diff != "" && !f.force {
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
	if !reflect.DeepEqual(normalize(prev.Config), normalize(cur.Config)) {
		return "config"
	}
	var a, b struct {
		ResolvedSHA string `json:"resolved_sha"`
		Files       []struct {
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	_ = json.Unmarshal(prev.Dataset, &a)
	_ = json.Unmarshal(cur.Dataset, &b)
	if a.ResolvedSHA != b.ResolvedSHA || !reflect.DeepEqual(a.Files, b.Files) {
		return "dataset revision"
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
