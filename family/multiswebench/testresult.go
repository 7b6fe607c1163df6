package multiswebench

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Status is a test's state in one run, as the harness's TestStatus writes it in reports.
type Status string

// The statuses a report compares (the harness's TestStatus PASS, FAIL, SKIP and NONE; NONE is a
// test the run did not report).
const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Skip Status = "SKIP"
	None Status = "NONE"
)

// nameSet is a set of test names (a Python set[str]).
type nameSet map[string]struct{}

func (s nameSet) add(name string)      { s[name] = struct{}{} }
func (s nameSet) remove(name string)   { delete(s, name) }
func (s nameSet) has(name string) bool { _, ok := s[name]; return ok }
func (s nameSet) sorted() []string     { return sortedKeys(s) }

func newSet(names ...string) nameSet {
	s := nameSet{}
	for _, n := range names {
		s.add(n)
	}
	return s
}

// sortedKeys returns the keys of m in sorted order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// TestResult is one run's outcome as the harness keeps it (its TestResult): the passed, failed and
// skipped test names, three disjoint sets. It is what a repository's parse_log returns and what a
// dataset row stores as run_result, test_patch_result and fix_patch_result.
type TestResult struct {
	passed, failed, skipped nameSet
}

// newTestResult checks the sets as the harness's TestResult does when it is built: a name in two
// sets makes the run unreadable (the harness raises, and the instance is an error).
func newTestResult(passed, failed, skipped nameSet) (*TestResult, error) {
	for _, c := range []struct {
		a, b         nameSet
		aName, bName string
	}{
		{passed, failed, "Passed", "failed"},
		{passed, skipped, "Passed", "skipped"},
		{failed, skipped, "Failed", "skipped"},
	} {
		var common []string
		for n := range c.a {
			if c.b.has(n) {
				common = append(common, n)
			}
		}
		if len(common) > 0 {
			slices.Sort(common)
			return nil, fmt.Errorf("%s tests and %s tests should not have common items: `%s`", c.aName, c.bName, pySetRepr(common))
		}
	}
	return &TestResult{passed: passed, failed: failed, skipped: skipped}, nil
}

// NewTestResult builds a TestResult from name lists; duplicates collapse. It fails, like the
// harness, when a name is in two lists.
func NewTestResult(passed, failed, skipped []string) (*TestResult, error) {
	return newTestResult(newSet(passed...), newSet(failed...), newSet(skipped...))
}

// Passed, Failed and Skipped return the test names of each set, sorted.
func (r *TestResult) Passed() []string  { return r.passed.sorted() }
func (r *TestResult) Failed() []string  { return r.failed.sorted() }
func (r *TestResult) Skipped() []string { return r.skipped.sorted() }

// Count is the number of tests the run reported (the harness's all_count).
func (r *TestResult) Count() int { return len(r.passed) + len(r.failed) + len(r.skipped) }

// Status returns PASS, FAIL or SKIP for a reported test and NONE otherwise.
func (r *TestResult) Status(name string) Status {
	switch {
	case r.passed.has(name):
		return Pass
	case r.failed.has(name):
		return Fail
	case r.skipped.has(name):
		return Skip
	}
	return None
}

// testResultJSON is the harness's serialized TestResult.
type testResultJSON struct {
	PassedCount  *int      `json:"passed_count"`
	FailedCount  *int      `json:"failed_count"`
	SkippedCount *int      `json:"skipped_count"`
	PassedTests  *[]string `json:"passed_tests"`
	FailedTests  *[]string `json:"failed_tests"`
	SkippedTests *[]string `json:"skipped_tests"`
}

// UnmarshalJSON reads a TestResult as the harness writes it and checks it as the harness does
// when it loads one: every field present, each count equal to its set's size, the sets disjoint.
func (r *TestResult) UnmarshalJSON(data []byte) error {
	var j testResultJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"passed_count", j.PassedCount != nil}, {"failed_count", j.FailedCount != nil}, {"skipped_count", j.SkippedCount != nil},
		{"passed_tests", j.PassedTests != nil}, {"failed_tests", j.FailedTests != nil}, {"skipped_tests", j.SkippedTests != nil},
	} {
		if !f.ok {
			return fmt.Errorf("field %s is missing or null", f.name)
		}
	}
	sets := [3]nameSet{newSet(*j.PassedTests...), newSet(*j.FailedTests...), newSet(*j.SkippedTests...)}
	for i, c := range []struct {
		name  string
		count int
	}{{"passed", *j.PassedCount}, {"failed", *j.FailedCount}, {"skipped", *j.SkippedCount}} {
		if len(sets[i]) != c.count {
			return fmt.Errorf("invalid %s_count: `%d`, %s_tests: `%d`", c.name, c.count, c.name, len(sets[i]))
		}
	}
	res, err := newTestResult(sets[0], sets[1], sets[2])
	if err != nil {
		return err
	}
	*r = *res
	return nil
}

// pyValue renders the TestResult as the harness serializes it (field order of its dataclass; the
// sets as sorted lists, where Python lists a set in no particular order).
func (r *TestResult) pyValue() pyObject {
	return pyObject{
		{"passed_count", len(r.passed)},
		{"failed_count", len(r.failed)},
		{"skipped_count", len(r.skipped)},
		{"passed_tests", r.Passed()},
		{"failed_tests", r.Failed()},
		{"skipped_tests", r.Skipped()},
	}
}

// MarshalJSON writes the TestResult in the harness's format.
func (r *TestResult) MarshalJSON() ([]byte, error) { return []byte(pyDumps(r.pyValue(), 0)), nil }

// pySetRepr renders sorted names as Python prints a set of strings.
func pySetRepr(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = pytext.StrRepr(n)
	}
	return "{" + strings.Join(q, ", ") + "}"
}
