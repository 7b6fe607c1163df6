package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// jsonTable holds a JSON lines file, a JSON list of rows, a JSON object of rows keyed by instance
// id, or one row as a JSON object (each optionally gzip-compressed). Rows stay raw until asked
// for.
type jsonTable struct {
	name  string
	lines bool              // JSON lines: row numbers are line numbers
	raw   []json.RawMessage // one object per row
	nums  []int             // 1-based row (or line) number of each row
	keys  []string          // object form: the key of each row
}

func openJSON(path string, data []byte, namers []IDNamer) (*jsonTable, error) {
	data, err := maybeGunzip(path, data)
	if err != nil {
		return nil, err
	}
	t := &jsonTable{name: path}
	lower := strings.ToLower(strings.TrimSuffix(strings.ToLower(path), ".gz"))
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	trimmed = bytes.TrimPrefix(trimmed, []byte("\ufeff"))
	switch {
	case strings.HasSuffix(lower, ".jsonl") || strings.HasSuffix(lower, ".ndjson"):
		return t, t.splitLines(data)
	case len(trimmed) == 0:
		return nil, fmt.Errorf("%s: empty file: want a JSON list of rows, an object of rows keyed by instance_id, or JSON lines", path)
	case trimmed[0] == '[':
		return t, t.decodeList(trimmed)
	case trimmed[0] == '{':
		// An object keyed by id, or JSON lines saved as .json: the latter has a second value.
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		var first json.RawMessage
		if err := dec.Decode(&first); err == nil && dec.More() {
			return t, t.splitLines(data)
		}
		if isOneRow(first, namers) {
			t.raw, t.nums = []json.RawMessage{first}, []int{1}
			return t, nil
		}
		return t, t.decodeObject(trimmed, namers)
	default:
		return nil, fmt.Errorf("%s: does not start with '[' or '{': want a JSON list of rows, an object of rows keyed by instance_id, or JSON lines (.jsonl)", path)
	}
}

func maybeGunzip(path string, data []byte) ([]byte, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: corrupt gzip data: %w", path, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: corrupt or truncated gzip data: %w", path, err)
	}
	return out, nil
}

func (t *jsonTable) splitLines(data []byte) error {
	t.lines = true
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		l = bytes.TrimSpace(l)
		if line == 1 {
			l = bytes.TrimPrefix(l, []byte("\ufeff"))
		}
		if len(l) == 0 {
			continue
		}
		if l[0] != '{' || !json.Valid(l) {
			return &RowError{File: t.name, Row: line, Line: true, Err: errors.New("not a JSON object (each line of a JSON lines file must be one object)")}
		}
		t.raw = append(t.raw, json.RawMessage(l))
		t.nums = append(t.nums, line)
	}
	return nil
}

func (t *jsonTable) decodeList(data []byte) error {
	var rows []json.RawMessage
	if err := json.Unmarshal(data, &rows); err != nil {
		return fmt.Errorf("%s: invalid JSON list of rows: %w", t.name, err)
	}
	for k, r := range rows {
		if r = bytes.TrimSpace(r); len(r) == 0 || r[0] != '{' {
			return &RowError{File: t.name, Row: k + 1, Err: errors.New("not a JSON object")}
		}
		t.raw = append(t.raw, r)
		t.nums = append(t.nums, k+1)
	}
	return nil
}

// isOneRow reports whether a JSON object is one row rather than an object of rows keyed by id:
// it has an instance_id that is not an object (an instance.json or task file of one instance, as
// some harnesses keep them), or every column a family names its rows by (IDNamer) with values
// that are not objects.
func isOneRow(obj json.RawMessage, namers []IDNamer) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return false
	}
	scalar := func(col string) bool {
		v, ok := m[col]
		v = bytes.TrimSpace(v)
		return ok && len(v) > 0 && v[0] != '{'
	}
	if scalar("instance_id") {
		return true
	}
	for _, n := range namers {
		cols := n.IDColumns()
		if len(cols) > 0 && !slices.ContainsFunc(cols, func(c string) bool { return !scalar(c) }) {
			return true
		}
	}
	return false
}

// oneRowColumns names what makes an object one row, for messages.
func oneRowColumns(namers []IDNamer) string {
	alts := []string{"an instance_id"}
	for _, n := range namers {
		alts = append(alts, strings.Join(n.IDColumns(), ", "))
	}
	return strings.Join(alts, " or ")
}

func (t *jsonTable) decodeObject(data []byte, namers []IDNamer) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: invalid JSON: %w", t.name, err)
	}
	for k := 1; dec.More(); k++ {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%s: invalid JSON object of rows: %w", t.name, err)
		}
		key, _ := tok.(string)
		var r json.RawMessage
		if err := dec.Decode(&r); err != nil {
			return fmt.Errorf("%s: row %q: invalid JSON: %w", t.name, key, err)
		}
		if len(r) == 0 || r[0] != '{' {
			return &RowError{File: t.name, Row: k, InstanceID: key, Err: fmt.Errorf("not a JSON object: an object of rows maps each instance_id to its row, and an object that is one row has %s", oneRowColumns(namers))}
		}
		t.raw = append(t.raw, r)
		t.nums = append(t.nums, k)
		t.keys = append(t.keys, key)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: invalid JSON object of rows: %w", t.name, err)
	}
	return nil
}

func (t *jsonTable) numRows() int { return len(t.raw) }

func (t *jsonTable) ids() ([]string, error) {
	ids := make([]string, len(t.raw))
	for k, r := range t.raw {
		var row struct {
			ID any `json:"instance_id"`
		}
		if err := json.Unmarshal(r, &row); err != nil {
			return nil, t.rowErr(k, "", "", fmt.Errorf("invalid JSON: %w", err))
		}
		id, err := stringValue(row.ID)
		if err != nil {
			return nil, t.rowErr(k, "", "instance_id", err)
		}
		if t.keys != nil {
			if id != "" && id != t.keys[k] {
				return nil, t.rowErr(k, t.keys[k], "instance_id", fmt.Errorf("%q differs from the row's key %q", id, t.keys[k]))
			}
			id = t.keys[k]
		}
		ids[k] = id
	}
	return ids, nil
}

func (t *jsonTable) values(rows []int, cols []string) ([]map[string]any, error) {
	out := make([]map[string]any, len(rows))
	for k, r := range rows {
		dec := json.NewDecoder(bytes.NewReader(t.raw[r]))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, t.rowErr(r, "", "", fmt.Errorf("invalid JSON: %w", err))
		}
		out[k] = map[string]any{}
		for _, c := range cols {
			if v, ok := m[c]; ok {
				out[k][c] = v
			}
		}
	}
	return out, nil
}

func (t *jsonTable) rowErr(k int, id, field string, err error) error {
	return &RowError{File: t.name, Row: t.nums[k], Line: t.lines, InstanceID: id, Field: field, Err: err}
}

func (t *jsonTable) rows(ctx context.Context, slot []int, insts []Instance, set func(row int, col string, err error)) error {
	for k, r := range t.raw {
		if slot[k] < 0 {
			continue
		}
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return t.rowErr(k, "", "", fmt.Errorf("invalid JSON: %w", err))
		}
		inst := &insts[slot[k]]
		for name, v := range m {
			if err := setColumn(inst, name, v); err != nil {
				set(k, name, err)
			}
		}
		if t.keys != nil {
			inst.InstanceID = t.keys[k]
		}
	}
	return nil
}

// rowNumber maps a table row index to what errors show.
func (t *jsonTable) rowNumber(k int) (int, bool) { return t.nums[k], t.lines }
