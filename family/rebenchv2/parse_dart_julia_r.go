package rebenchv2

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Dart (package:test), Julia (Test) and R (testthat, R CMD check) runners.

// dartEvents returns the JSON objects of `dart test --reporter json` output: each line that is a
// JSON object, or the objects of a line that is a JSON array; other lines are skipped.
func dartEvents(log string) []map[string]any {
	var events []map[string]any
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		var v any
		if json.Unmarshal([]byte(line), &v) != nil {
			continue
		}
		switch t := v.(type) {
		case map[string]any:
			events = append(events, t)
		case []any:
			for _, item := range t {
				if obj, ok := item.(map[string]any); ok {
					events = append(events, obj)
				}
			}
		}
	}
	return events
}

// dartKey is a JSON value as a Python dict key: numbers (and booleans, which Python counts as
// 1 and 0) compare by value, strings by text; a list or object cannot be a key.
func dartKey(v any) (string, error) {
	switch t := v.(type) {
	case float64:
		return "n:" + strconv.FormatFloat(t, 'g', -1, 64), nil
	case bool:
		if t {
			return "n:1", nil
		}
		return "n:0", nil
	case string:
		return "s:" + t, nil
	}
	return "", fmt.Errorf("parse_log_dart: a test id is %v, which the harness cannot use as a key (it raises TypeError)", v)
}

// truthy is Python's bool() of a decoded JSON value.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case float64:
		return t != 0
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}

// parseDart reads `dart test --reporter json`: testStart events name test ids (loading pseudo-tests
// are left out) and testDone events give their result (success, failure, error, or skipped);
// hidden tests are left out.
func parseDart(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	names := map[string]string{}
	for _, ev := range dartEvents(log) {
		switch ev["type"] {
		case "testStart":
			test, ok := ev["test"].(map[string]any)
			if !ok {
				continue
			}
			id, name := test["id"], test["name"]
			if id == nil || !truthy(name) {
				continue
			}
			s, ok := name.(string)
			if !ok {
				return nil, fmt.Errorf("parse_log_dart: test %v has the name %v, not a string (the harness raises AttributeError)", id, name)
			}
			if strings.HasPrefix(s, "loading ") {
				continue
			}
			key, err := dartKey(id)
			if err != nil {
				return nil, err
			}
			names[key] = s
		case "testDone":
			id := ev["testID"]
			if id == nil || truthy(ev["hidden"]) {
				continue
			}
			key, err := dartKey(id)
			if err != nil {
				return nil, err
			}
			name, ok := names[key]
			if !ok {
				continue
			}
			switch {
			case ev["result"] == "success":
				m.Set(name, passed)
			case ev["result"] == "failure":
				m.Set(name, failed)
			case ev["result"] == "error":
				m.Set(name, errored)
			case truthy(ev["skipped"]):
				m.Set(name, skipped)
			}
		}
	}
	return m, nil
}

var dartV2Line = pytext.Re(`^\[[\w_]+\]:\s+\d{2}:\d{2}\s+\+(\d+):\s+(/[^:]+\.dart):\s+(.+)$`)

// parseDartV2 reads Flutter's expanded reporter behind a package prefix ("[pkg]: 00:01 +3:
// /path/test.dart: name"): a test seen twice (started, then counted) passed, a test seen once is
// an error.
func parseDartV2(log, _ string) (*logparse.Map, error) {
	type key struct{ file, name string }
	var order []key
	count := map[key]int{}
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" || strings.Contains(strings.ToLower(line), "loading") {
			continue
		}
		if g := dartV2Line.FindStringSubmatch(line); g != nil {
			k := key{g[2], g[3]}
			if count[k] == 0 {
				order = append(order, k)
			}
			count[k]++
		}
	}
	m := logparse.NewMap()
	for _, k := range order {
		if count[k] >= 2 {
			m.Set(k.file+": "+k.name, passed)
		} else {
			m.Set(k.file+": "+k.name, errored)
		}
	}
	return m, nil
}

var (
	dartV3Line    = pytext.Re(`^\d+:\d+\s+\+\d+(?:\s+-\d+)?:\s+(/[^:]+\.dart):\s+(.+?)(?:\s+\[E\])?$`)
	dartV3Loading = pytext.Re(`^\d+:\d+\s+\+\d+\s+-\d+:\s+loading\s+(/[^:]+\.dart)\s+\[E\]$`)
)

// parseDartV3 reads `dart test`'s compact reporter: "00:01 +64: /path/test.dart: name" lines, a
// " [E]" suffix marking a failure, "loading /path/test.dart [E]" an error of the file. (The
// harness also looks for a failure counter in the text before the first ":", which is the
// timestamp's minutes, so that rule never applies; a pass never overrides.)
func parseDartV3(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, raw := range pytext.SplitLines(log) {
		line := pytext.Strip(raw)
		if line == "" {
			continue
		}
		if g := dartV3Loading.FindStringSubmatch(line); g != nil {
			m.Set(g[1], errored)
			continue
		}
		g := dartV3Line.FindStringSubmatch(line)
		if g == nil {
			continue
		}
		name := g[1] + ": " + pytext.Strip(g[2])
		switch {
		case strings.Contains(line, "[E]"):
			m.Set(name, failed)
		case strings.Contains(strings.SplitN(line, ":", 2)[0], " -"):
			setDefault(m, name, failed)
		default:
			setDefault(m, name, passed)
		}
	}
	return m, nil
}

var juliaRow = pytext.Re(`^(\s*)(.+?)\s+\|(.+)$`)

// parseJulia reads the "Test Summary: | Pass Fail Error Broken Total Time" tables of Julia's Test:
// every row after a header is a test set, its status from the counts (an error count over a
// failure count; a row whose Pass column is empty is an error).
func parseJulia(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	inSummary, hasFail, hasError := false, false, false
	for _, raw := range pytext.SplitLines(log) {
		if strings.Contains(raw, "Test Summary:") {
			inSummary = true
			if strings.Contains(raw, "| Pass") {
				header := strings.Split(raw, "|")[1]
				hasFail = strings.Contains(header, "Fail")
				hasError = strings.Contains(header, "Error")
			}
			continue
		}
		if !inSummary {
			continue
		}
		g := juliaRow.FindStringSubmatch(raw)
		if g == nil {
			continue
		}
		name, columns := pytext.Strip(g[2]), g[3]
		var nums []int
		for _, p := range pytext.Fields(columns) {
			if pytext.IsDigit(p) {
				nums = append(nums, pytext.Int(p))
			}
		}
		if len(nums) < 2 {
			continue
		}
		total := nums[len(nums)-1]
		status := passed
		switch len(nums) {
		case 2:
			if pytext.Indent(columns) >= 10 || nums[0] != total {
				status = errored
			}
		case 3:
			if nums[1] > 0 {
				status = errored
				if hasFail && !hasError {
					status = failed
				}
			}
		default:
			switch {
			case nums[2] > 0:
				status = errored
			case nums[1] > 0:
				status = failed
			}
		}
		m.Set(name, status)
	}
	return m, nil
}

var (
	testthatPassed = pytext.Re(`^✔\s+\|[^|]+\|\s+(.+)$`)
	testthatFailed = pytext.Re(`^✖\s+\|[^|]+\|\s+(.+)$`)
	testthatFail   = pytext.Re(`^Failure\s+\([^)]+\):\s+(.+)$`)
	testthatError  = pytext.Re(`^Error\s+\([^)]+\):\s+(.+)$`)
	testthatTiming = pytext.Re(`\s*\[\s*\d+(?:\.\d+)?\s*[a-zA-Z]+\]$`)
)

// parseR reads testthat's progress reporter: context lines "✔ | 60 | name [0.1s]" and
// "✖ | 2 2 9 | name", then the "── Failed tests ──" section's "Failure ('file:1:1'): name" and
// "Error (…): name" entries.
func parseR(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	clean := func(s string) string { return pytext.Strip(testthatTiming.ReplaceAllString(pytext.Strip(s), "")) }
	lines := pytext.SplitLines(log)
	for _, raw := range lines {
		line := pytext.Strip(raw)
		if g := testthatPassed.FindStringSubmatch(line); g != nil {
			m.Set(clean(g[1]), passed)
		} else if g := testthatFailed.FindStringSubmatch(line); g != nil {
			m.Set(clean(g[1]), failed)
		}
	}
	inFailed := false
	for _, raw := range lines {
		line := pytext.Strip(raw)
		if strings.HasPrefix(line, "── Failed tests ──") || strings.HasPrefix(line, "== Failed tests ==") {
			inFailed = true
			continue
		}
		if !inFailed || line == "" {
			continue
		}
		if strings.HasPrefix(line, "[ FAIL") || strings.HasPrefix(line, "══ Results ══") {
			break
		}
		if g := testthatFail.FindStringSubmatch(line); g != nil {
			m.Set(clean(g[1]), failed)
		} else if g := testthatError.FindStringSubmatch(line); g != nil {
			m.Set(clean(g[1]), errored)
		}
	}
	return m, nil
}

var (
	rcheckWithStatus = pytext.Re(`^\* checking (.+?) \.\.\. ([A-Z]+)$`)
	rcheckPending    = pytext.Re(`^\* checking (.+?) \.\.\.$`)
	rcheckStatus     = map[string]string{
		"OK": passed, "NOTE": passed, "NOTES": passed,
		"WARNING": failed, "WARNINGS": failed, "FAIL": failed, "FAILED": failed,
		"ERROR": errored, "ERRORS": errored, "SKIPPED": skipped,
	}
)

// parseRV2 reads R CMD check: each "* checking X ... STATUS" line is a test (NOTE passes, WARNING
// fails); a check whose status comes on a later line takes the first later line that starts
// with a known status word, and passes if none comes. A line after a pending check holding only
// dots, colons or exclamation marks is an error, as the harness's parser raises on it.
func parseRV2(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	pending := ""
	for _, raw := range pytext.SplitLines(log) {
		s := pytext.Strip(raw)
		if s == "" {
			continue
		}
		if pending != "" {
			words := pytext.Fields(strings.Trim(s, ".:!"))
			if len(words) == 0 {
				return nil, indexError("parse_log_r_v2", s)
			}
			if status, ok := rcheckStatus[strings.ToUpper(words[0])]; ok {
				m.Set(pending, status)
				pending = ""
			}
			continue
		}
		if g := rcheckWithStatus.FindStringSubmatch(s); g != nil {
			status, ok := rcheckStatus[strings.ToUpper(g[2])]
			if !ok {
				status = passed
			}
			m.Set(g[1], status)
			continue
		}
		if g := rcheckPending.FindStringSubmatch(s); g != nil {
			pending = g[1]
		}
	}
	if pending != "" {
		setDefault(m, pending, passed)
	}
	return m, nil
}
