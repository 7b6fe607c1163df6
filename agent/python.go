package agent

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"

	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Python-compatible pieces of mini-swe-agent 1.x's loop: its action regex is a Python `re`
// pattern matched with re.DOTALL (internal/pyre), and its default observation template prints
// the output dict with Python's str().

// CompilePyRegex compiles a mini-swe-agent action regex (see pyre.Compile).
func CompilePyRegex(expr string) (*pyre.Regexp, error) { return pyre.Compile(expr) }

// findAllPy is Python's re.findall for a pattern with at most one group.
func findAllPy(re *pyre.Regexp, s string) []string { return pyre.FindAll(re, s) }

// pyDict is a dict for templates: its keys read as attributes and items, and it prints as
// Python's str() of a dict with these keys in this order.
type pyDict struct {
	keys []string
	vals map[string]any
}

func newPyDict(kv ...any) pyDict {
	d := pyDict{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		d.keys = append(d.keys, k)
		d.vals[k] = kv[i+1]
	}
	return d
}

var (
	_ exec.AttributeGetter = pyDict{}
	_ exec.ItemGetter      = pyDict{}
	_ fmt.Stringer         = pyDict{}
)

// GetAttribute implements exec.AttributeGetter.
func (d pyDict) GetAttribute(name string) (*exec.Value, bool) {
	v, ok := d.vals[name]
	if !ok {
		return exec.AsValue(nil), false
	}
	return exec.AsValue(v), true
}

// GetItem implements exec.ItemGetter.
func (d pyDict) GetItem(key any) (*exec.Value, bool) {
	k, ok := key.(string)
	if !ok {
		if v, isValue := key.(*exec.Value); isValue && v.IsString() {
			k, ok = v.String(), true
		}
	}
	if !ok {
		return exec.AsValue(nil), false
	}
	return d.GetAttribute(k)
}

// String is Python's str() of the dict.
func (d pyDict) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range d.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyRepr(k))
		b.WriteString(": ")
		b.WriteString(pyRepr(d.vals[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// pyRepr is Python's repr() of a string, number, bool or None.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return pytext.StrRepr(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(x)
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatFloat(x, 'f', 1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
