package pro

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// SWE-bench Pro's rows hold test lists (fail_to_pass, pass_to_pass, selected_test_files_to_run)
// as strings that its harness turns into lists with Python's eval(): Python list literals of
// string literals, single- or double-quoted ("['a', \"b\"]"), of which JSON lists are a case
// (read by pytext.LiteralStrings).

// stringList reads a test list column: a list of strings, or a string holding a Python (or
// JSON) list literal of string literals. An empty string is an empty list.
func stringList(v any) ([]string, error) {
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for k, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %d is not a string", k)
			}
			out[k] = s
		}
		return out, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return []string{}, nil
		}
		return pytext.LiteralStrings(x)
	case nil:
		return nil, errors.New("null")
	}
	return nil, fmt.Errorf("want a list of strings or a string holding one, got %T", v)
}
