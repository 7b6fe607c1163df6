package submission

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

	"github.com/swebench-run/swebench-run/eval"
)

// entry is one prediction as it stands in a predictions file, with where it stands, so that
// duplicates and bad entries can be named. A JSON object keyed by id is read key by key, so a
// repeated key is seen (encoding/json, like Python's json, would keep the last one silently).
type entry struct {
	eval.Prediction
	Where string // "line 3", "item 2", "key \"x\""
}

// predFile is a predictions file read entry by entry.
type predFile struct {
	Path    string
	Entries []entry // in file order
	// Bad lists the entries that are not predictions (missing fields, wrong types), each with
	// its place and what is wrong.
	Bad []string
}

// readPredFile reads a predictions file in any shape the harness and sb-cli accept: a JSON object
// keyed by instance id, a JSON list, or JSON lines.
func readPredFile(path string) (*predFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pf := &predFile{Path: path}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return pf, nil
	case trimmed[0] == '[':
		var list []json.RawMessage
		if err := json.Unmarshal(trimmed, &list); err != nil {
			return nil, fmt.Errorf("predictions %s: %w", path, err)
		}
		for i, raw := range list {
			pf.add(raw, "", fmt.Sprintf("item %d", i))
		}
	case trimmed[0] == '{' && singleValue(trimmed):
		if err := pf.readObject(trimmed); err != nil {
			return nil, fmt.Errorf("predictions %s: %w", path, err)
		}
	default:
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
			if line != "" {
				pf.add(json.RawMessage(line), "", fmt.Sprintf("line %d", n))
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("predictions %s: %w", path, err)
		}
	}
	return pf, nil
}

// readObject reads {"<id>": {…}, …} key by key. A lone prediction object (one JSONL line saved
// as .json) is one entry.
func (pf *predFile) readObject(data []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	if v, ok := probe["instance_id"]; ok && len(v) > 0 && v[0] == '"' {
		pf.add(data, "", "the object")
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		pf.add(raw, key, fmt.Sprintf("key %q", key))
	}
	return nil
}

func singleValue(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return true
	}
	_, err := dec.Token()
	return errors.Is(err, io.EOF)
}

// add decodes one entry; keyID is its key in the object form.
func (pf *predFile) add(raw json.RawMessage, keyID, where string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		pf.Bad = append(pf.Bad, fmt.Sprintf("%s: not a JSON object", where))
		return
	}
	str := func(name string) (s string, present, null bool, err error) {
		v, ok := fields[name]
		if !ok {
			return "", false, false, nil
		}
		if string(v) == "null" {
			return "", true, true, nil
		}
		if err := json.Unmarshal(v, &s); err != nil {
			return "", true, false, fmt.Errorf("%s is not a string", name)
		}
		return s, true, false, nil
	}
	var p eval.Prediction
	id, hasID, _, err := str("instance_id")
	if err != nil {
		pf.Bad = append(pf.Bad, fmt.Sprintf("%s: %v", where, err))
		return
	}
	switch {
	case hasID && keyID != "" && id != keyID:
		pf.Bad = append(pf.Bad, fmt.Sprintf("%s: instance_id %q differs from its key", where, id))
		return
	case hasID && id != "":
		p.InstanceID = id
	default:
		p.InstanceID = keyID
	}
	if p.InstanceID == "" {
		pf.Bad = append(pf.Bad, fmt.Sprintf("%s: no instance_id", where))
		return
	}
	model, _, _, err := str("model_name_or_path")
	if err != nil || model == "" {
		pf.Bad = append(pf.Bad, fmt.Sprintf("%s (%s): no model_name_or_path string", where, p.InstanceID))
		return
	}
	p.ModelNameOrPath = model
	patch, hasPatch, null, err := str("model_patch")
	if err != nil || !hasPatch {
		pf.Bad = append(pf.Bad, fmt.Sprintf("%s (%s): model_patch must be a string or null", where, p.InstanceID))
		return
	}
	if !null {
		p.ModelPatch = &patch
	}
	pf.Entries = append(pf.Entries, entry{Prediction: p, Where: where})
}

// byID returns the predictions keyed by id (the last entry wins, as in Python).
func (pf *predFile) byID() map[string]eval.Prediction {
	out := make(map[string]eval.Prediction, len(pf.Entries))
	for _, e := range pf.Entries {
		out[e.InstanceID] = e.Prediction
	}
	return out
}

// duplicates returns the ids that appear more than once, each with the places they appear.
func (pf *predFile) duplicates() map[string][]string {
	where := map[string][]string{}
	for _, e := range pf.Entries {
		where[e.InstanceID] = append(where[e.InstanceID], e.Where)
	}
	for id, w := range where {
		if len(w) < 2 {
			delete(where, id)
		}
	}
	return where
}

// models returns the model names of the entries, each with the number of entries and the first
// ids that carry it.
func (pf *predFile) models() map[string][]string {
	out := map[string][]string{}
	for _, e := range pf.Entries {
		out[e.ModelNameOrPath] = append(out[e.ModelNameOrPath], e.InstanceID)
	}
	return out
}

// sortedIDs returns the keys of m, sorted.
func sortedIDs[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// marshalPredLine is one line of all_preds.jsonl: instance_id, model_name_or_path, model_patch,
// in that order (a null patch stays null).
func marshalPredLine(p eval.Prediction) ([]byte, error) {
	line := struct {
		InstanceID      string  `json:"instance_id"`
		ModelNameOrPath string  `json:"model_name_or_path"`
		ModelPatch      *string `json:"model_patch"`
	}{p.InstanceID, p.ModelNameOrPath, p.ModelPatch}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(line); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
