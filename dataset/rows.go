package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RowError is a problem with one row of a dataset file: which file, which row (1-based; for JSON
// lines files the line number), which instance and which field.
type RowError struct {
	File       string
	Row        int
	Line       bool // Row is a line number (JSONL)
	InstanceID string
	Field      string
	Err        error
}

func (e *RowError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Row > 0 {
		if e.Line {
			fmt.Fprintf(&b, ": line %d", e.Row)
		} else {
			fmt.Fprintf(&b, ": row %d", e.Row)
		}
	}
	if e.InstanceID != "" {
		fmt.Fprintf(&b, " (instance %s)", e.InstanceID)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %q", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *RowError) Unwrap() error { return e.Err }

// DuplicateIDsError reports instance ids that occur more than once in a dataset.
type DuplicateIDsError struct {
	File string
	Rows map[string][]int // id → 1-based rows it occurs in
}

func (e *DuplicateIDsError) IDs() []string {
	ids := make([]string, 0, len(e.Rows))
	for id := range e.Rows {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (e *DuplicateIDsError) Error() string {
	ids := e.IDs()
	parts := make([]string, len(ids))
	for k, id := range ids {
		rows := make([]string, len(e.Rows[id]))
		for j, r := range e.Rows[id] {
			rows[j] = strconv.Itoa(r)
		}
		parts[k] = fmt.Sprintf("%s (rows %s)", id, strings.Join(rows, ", "))
	}
	return fmt.Sprintf("%s: %d duplicated instance_id(s): %s; every instance_id must be unique, remove or rename the repeated rows",
		e.File, len(ids), strings.Join(parts, "; "))
}

// checkDuplicates returns a *DuplicateIDsError when ids repeat. Empty ids are not checked here.
func checkDuplicates(file string, ids []string) error {
	seen := make(map[string]int, len(ids))
	var dup map[string][]int
	for k, id := range ids {
		if id == "" {
			continue
		}
		first, ok := seen[id]
		if !ok {
			seen[id] = k
			continue
		}
		if dup == nil {
			dup = map[string][]int{}
		}
		if len(dup[id]) == 0 {
			dup[id] = append(dup[id], first+1)
		}
		dup[id] = append(dup[id], k+1)
	}
	if dup != nil {
		return &DuplicateIDsError{File: file, Rows: dup}
	}
	return nil
}

// setColumn stores one decoded column value into inst. v is nil (null), string, bool, int64,
// float64, json.Number, []any, []string or map[string]any. Unknown columns go to Extra.
func setColumn(inst *Instance, name string, v any) error {
	var dst *string
	switch name {
	case "instance_id":
		dst = &inst.InstanceID
	case "repo":
		dst = &inst.Repo
	case "base_commit":
		dst = &inst.BaseCommit
	case "patch":
		dst = &inst.Patch
	case "test_patch":
		dst = &inst.TestPatch
	case "problem_statement":
		dst = &inst.ProblemStatement
	case "hints_text":
		dst = &inst.HintsText
	case "created_at":
		// Some exports store times as numbers (pandas writes datetimes to JSON as epoch
		// milliseconds; parquet timestamps are integers): keep a number's literal text, as for
		// version; what it means is the row's family's to read.
		if n, ok := numberText(v); ok {
			inst.CreatedAt = n
			return nil
		}
		dst = &inst.CreatedAt
	case "environment_setup_commit":
		dst = &inst.EnvironmentSetupCommit
	case "eval_script":
		dst = &inst.EvalScript
	case "log_parser":
		// Kept raw in Extra too: a family whose harness reads another column only when this one
		// is absent (a parser column) tells an empty column from none by it.
		inst.setExtra(name, v)
		dst = &inst.LogParser
	case "eval_type":
		dst = &inst.EvalType
	case "version":
		// Older JSON files store versions as numbers (0.2, 3.1): keep their literal text.
		if n, ok := numberText(v); ok {
			inst.Version = n
			return nil
		}
		dst = &inst.Version
	case "FAIL_TO_PASS":
		l, err := testList(v)
		inst.FailToPass = l
		return err
	case "PASS_TO_PASS":
		l, err := testList(v)
		inst.PassToPass = l
		return err
	case "image":
		dst = &inst.Image
	case "image_name", "docker_image":
		if _, err := stringValue(v); err != nil {
			return err
		}
		inst.setExtra(name, v)
		return nil
	default:
		inst.setExtra(name, v)
		return nil
	}
	s, err := stringValue(v)
	*dst = s
	return err
}

func (i *Instance) setExtra(name string, v any) {
	if i.Extra == nil {
		i.Extra = make(map[string]any, 4)
	}
	i.Extra[name] = v
}

// finish completes a decoded row: Image falls back to image_name, then docker_image.
func (i *Instance) finish() {
	if i.Image != "" {
		return
	}
	for _, col := range imageColumns[1:] {
		if s, _ := i.Extra[col].(string); s != "" {
			i.Image = s
			return
		}
	}
}

// numberText is the literal text of a number column value.
func numberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

func stringValue(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	default:
		return "", fmt.Errorf("want a string, got %s", typeName(v))
	}
}

// testList accepts a list of strings or a string holding a JSON list of strings ("" and null
// are an empty list and an absent column respectively).
func testList(v any) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for k, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %d: want a string, got %s", k, typeName(e))
			}
			out[k] = s
		}
		return out, nil
	case string:
		t := strings.TrimSpace(x)
		if t == "" {
			return []string{}, nil
		}
		if out, ok := parseStringArray(t); ok {
			return out, nil
		}
		var out []string
		if err := json.Unmarshal([]byte(t), &out); err != nil {
			return nil, fmt.Errorf("want a JSON list of strings (or a list), got a string that does not parse as one: %v", err)
		}
		if out == nil {
			out = []string{}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("want a list of strings or a JSON string holding one, got %s", typeName(v))
	}
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64, int64, int32, int:
		return "a number"
	case []any, []string:
		return "a list"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// rowContext wraps err (from setColumn or validation) with file/row/instance context.
func rowContext(err error, file string, row int, line bool, id string) error {
	if err == nil {
		return nil
	}
	var fe *FieldError
	var errs []error
	var flatten func(error)
	flatten = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				flatten(x)
			}
			return
		}
		errs = append(errs, e)
	}
	flatten(err)
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		re := &RowError{File: file, Row: row, Line: line, InstanceID: id, Err: e}
		if errors.As(e, &fe) {
			re.Field, re.Err = fe.Field, errors.New(fe.Reason)
		}
		out = append(out, re)
	}
	return errors.Join(out...)
}

// parseStringArray is a fast path for the common case of a JSON list of strings without escape
// sequences: the elements are substrings of s (no copies). It reports false for anything else,
// which the caller then hands to encoding/json.
func parseStringArray(s string) ([]string, bool) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	n := 0
	for k := 0; k < len(s); k++ {
		if s[k] == '"' {
			n++
		}
	}
	out := make([]string, 0, n/2)
	k := 1
	skip := func() {
		for k < len(s) && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r') {
			k++
		}
	}
	skip()
	if k == len(s)-1 {
		return out, true
	}
	for {
		skip()
		if k >= len(s) || s[k] != '"' {
			return nil, false
		}
		start := k + 1
		end := start
		for end < len(s) && s[end] != '"' {
			if c := s[end]; c == '\\' || c < 0x20 {
				return nil, false
			}
			end++
		}
		if end >= len(s) {
			return nil, false
		}
		out = append(out, s[start:end])
		k = end + 1
		skip()
		if k >= len(s) {
			return nil, false
		}
		switch s[k] {
		case ',':
			k++
		case ']':
			if k != len(s)-1 {
				return nil, false
			}
			return out, utf8.ValidString(s)
		default:
			return nil, false
		}
	}
}
