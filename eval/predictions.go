package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

// GoldModel is the model name of gold predictions (the dataset's own patches).
const GoldModel = "gold"

// Prediction is one model patch to evaluate, in the harness's shape (family.Prediction).
type Prediction = family.Prediction

// GoldPredictions returns the dataset's own patches as predictions of model "gold".
func GoldPredictions(insts []dataset.Instance) map[string]Prediction {
	out := make(map[string]Prediction, len(insts))
	for _, inst := range insts {
		patch := inst.Patch
		out[inst.InstanceID] = Prediction{InstanceID: inst.InstanceID, ModelNameOrPath: GoldModel, ModelPatch: &patch}
	}
	return out
}

// LoadPredictions reads a predictions file in any shape the harness and sb-cli accept: a JSON
// object keyed by instance id (mini-swe-agent's preds.json, SWE-agent's), a JSON list of
// predictions, or JSON lines. Every prediction needs instance_id (or its key in the object form),
// model_name_or_path and model_patch (a string, or null for no patch). Errors name the file and
// the entry or line at fault; a duplicated instance id is an error.
func LoadPredictions(path string) (map[string]Prediction, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read predictions: %w", err)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	trimmed = bytes.TrimPrefix(trimmed, []byte("\ufeff"))
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("predictions %s: file is empty; expected a JSON object keyed by instance id, a JSON list or JSON lines", path)
	}
	switch trimmed[0] {
	case '[':
		return loadPredictionList(path, trimmed)
	case '{':
		if isSingleJSONValue(trimmed) {
			return loadPredictionObject(path, trimmed)
		}
		return loadPredictionLines(path, data)
	}
	return nil, fmt.Errorf("predictions %s: starts with %q; expected a JSON object keyed by instance id, a JSON list or JSON lines", path, string(trimmed[:1]))
}

// isSingleJSONValue reports whether data is one JSON value followed only by whitespace.
func isSingleJSONValue(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return true // let the object loader report the syntax error
	}
	_, err := dec.Token()
	return errors.Is(err, io.EOF)
}

func decodePrediction(raw json.RawMessage, keyID string) (Prediction, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		if err == nil {
			err = errors.New("null")
		}
		return Prediction{}, fmt.Errorf("not a prediction object: %w", err)
	}
	str := func(name string) (string, bool, error) {
		v, ok := fields[name]
		if !ok || string(v) == "null" {
			return "", ok, nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", true, fmt.Errorf("%s is not a string or null", name)
		}
		return s, true, nil
	}
	var p Prediction
	id, hasID, err := str("instance_id")
	if err != nil {
		return p, err
	}
	switch {
	case hasID && keyID != "" && id != keyID:
		return p, fmt.Errorf("instance_id %q differs from its key %q", id, keyID)
	case hasID:
		p.InstanceID = id
	default:
		p.InstanceID = keyID
	}
	if p.InstanceID == "" {
		return p, errors.New("missing instance_id")
	}
	model, _, err := str("model_name_or_path")
	if err != nil {
		return p, fmt.Errorf("%s: %w", p.InstanceID, err)
	}
	if model == "" {
		return p, fmt.Errorf("%s: missing model_name_or_path (the model's name, used to name the run report)", p.InstanceID)
	}
	p.ModelNameOrPath = model
	patch, hasPatch, err := str("model_patch")
	if err != nil {
		return p, fmt.Errorf("%s: %w", p.InstanceID, err)
	}
	if !hasPatch {
		return p, fmt.Errorf("%s: missing model_patch (use \"\" or null for no patch)", p.InstanceID)
	}
	if string(fields["model_patch"]) != "null" {
		p.ModelPatch = &patch
	}
	return p, nil
}

func addPrediction(out map[string]Prediction, p Prediction) error {
	if _, dup := out[p.InstanceID]; dup {
		return fmt.Errorf("instance_id %q appears more than once; keep one prediction per instance", p.InstanceID)
	}
	out[p.InstanceID] = p
	return nil
}

func loadPredictionObject(path string, data []byte) (map[string]Prediction, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("predictions %s: %w", path, err)
	}
	// A lone prediction object (one line of JSONL saved as .json) rather than an object keyed by id.
	if v, ok := obj["instance_id"]; ok && len(v) > 0 && v[0] == '"' {
		p, err := decodePrediction(data, "")
		if err != nil {
			return nil, fmt.Errorf("predictions %s: %w", path, err)
		}
		return map[string]Prediction{p.InstanceID: p}, nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]Prediction, len(obj))
	for _, k := range keys {
		p, err := decodePrediction(obj[k], k)
		if err != nil {
			return nil, fmt.Errorf("predictions %s: entry %q: %w", path, k, err)
		}
		if err := addPrediction(out, p); err != nil {
			return nil, fmt.Errorf("predictions %s: entry %q: %w", path, k, err)
		}
	}
	return out, nil
}

func loadPredictionList(path string, data []byte) (map[string]Prediction, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("predictions %s: %w", path, err)
	}
	out := make(map[string]Prediction, len(list))
	for i, raw := range list {
		p, err := decodePrediction(raw, "")
		if err == nil {
			err = addPrediction(out, p)
		}
		if err != nil {
			return nil, fmt.Errorf("predictions %s: item %d: %w", path, i, err)
		}
	}
	return out, nil
}

func loadPredictionLines(path string, data []byte) (map[string]Prediction, error) {
	out := map[string]Prediction{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		p, err := decodePrediction(json.RawMessage(line), "")
		if err == nil {
			err = addPrediction(out, p)
		}
		if err != nil {
			return nil, fmt.Errorf("predictions %s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("predictions %s:%d: %w", path, n+1, err)
	}
	return out, nil
}

// CheckPredictions returns an error listing the predictions whose instance is not in insts.
func CheckPredictions(preds map[string]Prediction, insts []dataset.Instance) error {
	known := make(map[string]bool, len(insts))
	for _, inst := range insts {
		known[inst.InstanceID] = true
	}
	var unknown []string
	for id := range preds {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("%d predictions are for instances not in the dataset: %s; check --split or remove them", len(unknown), strings.Join(unknown, ", "))
}

// NameUnnamed sets the model name of the predictions that carry none (a harness's own prediction
// files: Multi-SWE-bench's patches, SWE-bench Pro's) to name, so that the run report and the
// comparisons have one.
func NameUnnamed(preds map[string]Prediction, name string) {
	if name == "" {
		return
	}
	for id, p := range preds {
		if p.ModelNameOrPath == "" {
			p.ModelNameOrPath = name
			preds[id] = p
		}
	}
}

// ModelName returns the model name of a prediction set (of the first instance id in sorted order),
// used to name the run report.
func ModelName(preds map[string]Prediction) string {
	ids := make([]string, 0, len(preds))
	for id := range preds {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return "None"
	}
	sort.Strings(ids)
	return preds[ids[0]].ModelNameOrPath
}
