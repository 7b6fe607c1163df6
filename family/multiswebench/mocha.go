package multiswebench

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// mochaJSON reads Mocha's JSON reporter ("--reporter json"): every JSON object found in the log
// (after newlines are removed) is decoded as the report, {"stats": …, "tests": […], "pending":
// […], "failures": […], "passes": […]}; passes, failures and pending give the passed, failed and
// skipped tests, named by fullTitle (with file, "file:fullTitle"). A failure wins over a skip and
// a pass, a skip over a pass. Like the harness, which decodes each object into dataclasses, an
// object that is not such a report (a field missing or of the wrong kind) makes the log
// unreadable.
type mochaJSON struct {
	withFile bool // name tests "file:fullTitle" and require "file" (mui/material-ui)
	prepare  func(string) string
}

var (
	// expressjs/express: "=====" banner lines and "Writing ..." lines are blanked first.
	expressBanner = pytext.Re(`(?m)^(=+|Writing .*)$`)
	// mui/material-ui: the log is read from "Building new" on, without yarn's exit line.
	yarnFailed = pytext.Re(`error Command failed with exit code \d+\.`)
)

func (m mochaJSON) parse(log string, _ int) (*TestResult, error) {
	if m.prepare != nil {
		log = m.prepare(log)
	}
	log = strings.ReplaceAll(log, "\r\n", "")
	log = strings.ReplaceAll(log, "\n", "")
	passed, failed, skipped := nameSet{}, nameSet{}, nameSet{}
	for pos := 0; ; {
		i := strings.IndexByte(log[pos:], '{')
		if i < 0 {
			break
		}
		start := pos + i
		v, n, err := pyRawDecode(log[start:])
		if err != nil {
			pos = start + 1
			continue
		}
		pos = start + n
		info, err := m.report(v.(pyObject))
		if err != nil {
			return nil, fmt.Errorf("a JSON object in the log is not a mocha JSON report: %w", err)
		}
		for _, t := range info.passes {
			passed.add(t)
		}
		for _, t := range info.failures {
			failed.add(t)
		}
		for _, t := range info.pending {
			skipped.add(t)
		}
	}
	for t := range failed {
		passed.remove(t)
		skipped.remove(t)
	}
	for t := range skipped {
		passed.remove(t)
	}
	return newTestResult(passed, failed, skipped)
}

type mochaReport struct {
	passes, failures, pending []string
}

// report decodes an object as the harness's dataclasses_json classes do: required fields must be
// present; a null is accepted anywhere; str fields take str() of other values, int fields int();
// a report's lists must hold objects.
func (m mochaJSON) report(o pyObject) (*mochaReport, error) {
	stats, err := field(o, "stats", true)
	if err != nil {
		return nil, err
	}
	if stats != nil {
		so, ok := stats.(pyObject)
		if !ok {
			return nil, errors.New("stats is not an object")
		}
		for _, f := range []struct {
			name  string
			isInt bool
		}{{"suites", true}, {"tests", true}, {"passes", true}, {"pending", true}, {"failures", true}, {"start", false}, {"end", false}, {"duration", true}} {
			v, err := field(so, f.name, true)
			if err != nil {
				return nil, fmt.Errorf("stats: %w", err)
			}
			if f.isInt {
				if err := pyIntField(v); err != nil {
					return nil, fmt.Errorf("stats.%s: %w", f.name, err)
				}
			}
		}
	}
	var rep mochaReport
	for _, l := range []struct {
		name string
		dst  *[]string
	}{{"tests", nil}, {"pending", &rep.pending}, {"failures", &rep.failures}, {"passes", &rep.passes}} {
		v, err := field(o, l.name, true)
		if err != nil {
			return nil, err
		}
		names, err := m.tests(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.name, err)
		}
		if l.dst == nil {
			continue
		}
		if v == nil { // decoded as None, then iterated
			return nil, fmt.Errorf("%s is null", l.name)
		}
		*l.dst = names
	}
	return &rep, nil
}

// tests decodes a list of test objects (a Python list[Test]: any iterable of objects) into their
// names.
func (m mochaJSON) tests(v any) ([]string, error) {
	var items []any
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []any:
		items = v
	case pyObject: // iterating a dict yields its keys
		for _, kv := range v {
			items = append(items, kv.key)
		}
	case string: // iterating a str yields its characters
		for _, r := range v {
			items = append(items, string(r))
		}
	default:
		return nil, fmt.Errorf("%s is not a list", pyRepr(v))
	}
	var names []string
	for _, it := range items {
		t, ok := it.(pyObject)
		if !ok {
			return nil, fmt.Errorf("%s is not a test object", pyRepr(it))
		}
		vals := map[string]any{}
		fields := []string{"title", "fullTitle", "currentRetry", "err"}
		if m.withFile {
			fields = []string{"title", "fullTitle", "file", "currentRetry", "err"}
		}
		for _, f := range fields {
			x, err := field(t, f, true)
			if err != nil {
				return nil, err
			}
			vals[f] = x
		}
		if err := pyIntField(vals["currentRetry"]); err != nil {
			return nil, fmt.Errorf("currentRetry: %w", err)
		}
		if e := vals["err"]; e != nil {
			if _, ok := e.(pyObject); !ok {
				return nil, fmt.Errorf("err: %s is not an object", pyRepr(e))
			}
		}
		if d, _ := field(t, "duration", false); d != nil {
			if err := pyIntField(d); err != nil {
				return nil, fmt.Errorf("duration: %w", err)
			}
		}
		name := pyStr(vals["fullTitle"])
		if m.withFile {
			name = pyStr(vals["file"]) + ":" + name
		}
		names = append(names, name)
	}
	return names, nil
}

// field returns o's member key; a required member that is absent is an error.
func field(o pyObject, key string, required bool) (any, error) {
	v, ok := o.get(key)
	if !ok && required {
		return nil, fmt.Errorf("required field %q not found", key)
	}
	return v, nil
}

// pyIntField checks that int(v) succeeds in Python (v is kept when it is already an int or bool).
func pyIntField(v any) error {
	switch v := v.(type) {
	case nil, bool:
		return nil
	case pyNumber:
		if !v.isFloat {
			return nil
		}
		if f := v.float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("cannot convert float %s to integer", pyFloatRepr(f))
		}
		return nil
	case string:
		if _, ok := pyIntString(v); !ok {
			return fmt.Errorf("invalid literal for int() with base 10: %s", pytext.StrRepr(v))
		}
		return nil
	}
	return fmt.Errorf("int() argument must be a string or a number, not %s", pyRepr(v))
}

// pyIntString is Python's int(s) for a string: surrounding whitespace, a sign, decimal digits
// (any script) with single underscores between them.
func pyIntString(s string) (*big.Int, bool) {
	s = pytext.Strip(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return nil, false
	}
	var digits strings.Builder
	for _, r := range s {
		switch {
		case r == '_':
		case unicode.Is(unicode.Nd, r):
			digits.WriteRune(r)
		default:
			return nil, false
		}
	}
	n := pyInt(digits.String())
	if neg {
		n.Neg(n)
	}
	return n, true
}
