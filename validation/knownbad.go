package validation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// KnownEntry is one instance of a known-bad list.
type KnownEntry struct {
	InstanceID string  `json:"instance_id"`
	Outcome    Outcome `json:"outcome"` // KnownBad when the list does not say
	Note       string  `json:"note"`
}

// ReadKnownBad reads a list of instances a benchmark's maintainers (or a team) know to be broken.
// Forms, told apart by the first character:
//
//   - text: one instance per line, `ID [OUTCOME] [NOTE…]`, fields separated by white space (or
//     by tabs); OUTCOME is one of the outcomes (gold_fails, empty_passes, flaky, infrastructure;
//     dashes or spaces allowed), else the words after the id are the note; `#` starts a comment;
//     blank lines are skipped. A plain list of ids is such a file.
//   - a JSON list of ids, or of objects {"instance_id", "outcome", "note"} ("reason" is taken as
//     the note);
//   - a JSON object keyed by id, whose values are a note, or objects {"outcome", "note"}.
//
// Errors name the file and the line or entry. An id listed twice is an error.
func ReadKnownBad(path string) ([]KnownEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("known-bad list: %w", err)
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	var entries []KnownEntry
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		entries, err = knownJSONList(trimmed)
	case len(trimmed) > 0 && trimmed[0] == '{':
		entries, err = knownJSONObject(trimmed)
	default:
		entries, err = knownText(path, data)
		if err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, fmt.Errorf("known-bad list %s: %w; expected one id per line (`ID [OUTCOME] [NOTE]`), a JSON list of ids or of {instance_id, outcome, note}, or a JSON object keyed by id", path, err)
	}
	seen := map[string]bool{}
	for i := range entries {
		e := &entries[i]
		if e.InstanceID == "" {
			return nil, fmt.Errorf("known-bad list %s: entry %d has no instance id", path, i+1)
		}
		if seen[e.InstanceID] {
			return nil, fmt.Errorf("known-bad list %s: %s is listed twice; keep one entry", path, e.InstanceID)
		}
		seen[e.InstanceID] = true
		if e.Outcome == "" {
			e.Outcome = KnownBad
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].InstanceID < entries[j].InstanceID })
	return entries, nil
}

func knownText(path string, data []byte) ([]KnownEntry, error) {
	var out []KnownEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if k := strings.Index(line, "#"); k == 0 || (k > 0 && (line[k-1] == ' ' || line[k-1] == '\t')) {
			line = line[:k]
		}
		var fields []string
		if strings.Contains(line, "\t") {
			for _, f := range strings.Split(line, "\t") {
				if f = strings.TrimSpace(f); f != "" {
					fields = append(fields, f)
				}
			}
		} else {
			fields = strings.Fields(line)
		}
		if len(fields) == 0 {
			continue
		}
		e := KnownEntry{InstanceID: fields[0]}
		rest := fields[1:]
		if len(rest) > 0 {
			if o, err := ParseOutcome(rest[0]); err == nil {
				e.Outcome, rest = o, rest[1:]
			} else if len(rest) > 1 {
				if o, err := ParseOutcome(rest[0] + "_" + rest[1]); err == nil { // "gold fails"
					e.Outcome, rest = o, rest[2:]
				}
			}
		}
		e.Note = strings.Join(rest, " ")
		if e.Outcome == OK {
			return nil, fmt.Errorf("known-bad list %s:%d: %s is listed as ok; a known-bad list names broken instances", path, n, e.InstanceID)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("known-bad list %s:%d: %w", path, n+1, err)
	}
	return out, nil
}

// knownObject is an entry of the JSON forms.
type knownObject struct {
	InstanceID string `json:"instance_id"`
	Outcome    string `json:"outcome"`
	Note       string `json:"note"`
	Reason     string `json:"reason"`
}

func (o knownObject) entry(id string) (KnownEntry, error) {
	e := KnownEntry{InstanceID: id, Note: o.Note}
	if e.Note == "" {
		e.Note = o.Reason
	}
	if o.Outcome != "" {
		out, err := ParseOutcome(o.Outcome)
		if err != nil {
			return e, fmt.Errorf("%s: %w", id, err)
		}
		if out == OK {
			return e, fmt.Errorf("%s is listed as ok; a known-bad list names broken instances", id)
		}
		e.Outcome = out
	}
	return e, nil
}

func knownJSONList(data []byte) ([]KnownEntry, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := make([]KnownEntry, 0, len(raw))
	for i, r := range raw {
		var id string
		if json.Unmarshal(r, &id) == nil {
			out = append(out, KnownEntry{InstanceID: id})
			continue
		}
		var o knownObject
		if err := json.Unmarshal(r, &o); err != nil {
			return nil, fmt.Errorf("item %d: neither an id nor an object {instance_id, outcome, note}", i+1)
		}
		e, err := o.entry(o.InstanceID)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i+1, err)
		}
		out = append(out, e)
	}
	return out, nil
}

func knownJSONObject(data []byte) ([]KnownEntry, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := make([]KnownEntry, 0, len(raw))
	for id, r := range raw {
		var note string
		if json.Unmarshal(r, &note) == nil {
			out = append(out, KnownEntry{InstanceID: id, Note: note})
			continue
		}
		var o knownObject
		if err := json.Unmarshal(r, &o); err != nil {
			return nil, fmt.Errorf("entry %q: neither a note nor an object {outcome, note}", id)
		}
		if o.InstanceID != "" && o.InstanceID != id {
			return nil, fmt.Errorf("entry %q names instance_id %q", id, o.InstanceID)
		}
		e, err := o.entry(id)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", id, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Record is the record a known-bad entry stands for, from the list at path.
func (e KnownEntry) Record(path string) Record {
	reason := "listed broken by " + path
	return Record{InstanceID: e.InstanceID, Outcome: e.Outcome, Reason: reason, Tests: []Test{}, Gradings: []Grading{},
		Source: sourceKnownBad + path, Note: e.Note}
}
