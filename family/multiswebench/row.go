package multiswebench

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Row is one instance of a Multi-SWE-bench dataset (the harness's Dataset: a pull request with its
// issues, patches, the three reference runs and the test sets they define).
type Row struct {
	Org            string          `json:"org"`
	Repo           string          `json:"repo"`
	Number         int             `json:"number"`
	State          string          `json:"state"`
	Title          string          `json:"title"`
	Body           *string         `json:"body"`
	Base           Base            `json:"base"`
	ResolvedIssues []ResolvedIssue `json:"resolved_issues"`
	FixPatch       string          `json:"fix_patch"`
	TestPatch      string          `json:"test_patch"`
	Tag            string          `json:"tag,omitempty"`
	NumberInterval string          `json:"number_interval,omitempty"`
	Lang           string          `json:"lang,omitempty"`

	// The reference runs and the test sets they define (decoded by ParseRow, which names the
	// field of a malformed one).
	FixedTests, P2PTests, F2PTests, S2PTests, N2PTests map[string]Test `json:"-"`
	RunResult, TestPatchResult, FixPatchResult         *TestResult     `json:"-"`
}

// Base is the pull request's target branch and the commit the instance starts from.
type Base struct {
	Label string `json:"label"`
	Ref   string `json:"ref"`
	SHA   string `json:"sha"`
}

// ResolvedIssue is an issue the pull request resolves: the task the agent is given.
type ResolvedIssue struct {
	Number int     `json:"number"`
	Title  string  `json:"title"`
	Body   *string `json:"body"`
}

// ID is the instance's harness id, "org/repo:pr-number".
func (r *Row) ID() string { return ID(r.Org, r.Repo, r.Number) }

// ParseRow decodes one dataset row and checks what the harness checks when it loads one: the
// fields it requires are present and the three runs are consistent TestResults. Errors name the
// field.
func ParseRow(data []byte) (*Row, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	for _, f := range []string{"org", "repo", "number", "state", "title", "base", "resolved_issues", "fix_patch", "test_patch", "run_result", "test_patch_result", "fix_patch_result"} {
		if v, ok := fields[f]; !ok || string(v) == "null" {
			return nil, fmt.Errorf("field %s is missing or null: this is not a Multi-SWE-bench row (a row carries org, repo, number, base, resolved_issues, fix_patch, test_patch and the run_result, test_patch_result and fix_patch_result of its reference runs)", f)
		}
	}
	var r Row
	if err := json.Unmarshal(data, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("field %s: a JSON %s where the harness wants a %s", te.Field, te.Value, te.Type)
		}
		return nil, err
	}
	for _, f := range []struct {
		name string
		dst  **TestResult
	}{{"run_result", &r.RunResult}, {"test_patch_result", &r.TestPatchResult}, {"fix_patch_result", &r.FixPatchResult}} {
		if err := json.Unmarshal(fields[f.name], f.dst); err != nil {
			return nil, fmt.Errorf("field %s: %w", f.name, err)
		}
	}
	for _, f := range []struct {
		name string
		dst  *map[string]Test
	}{{"fixed_tests", &r.FixedTests}, {"p2p_tests", &r.P2PTests}, {"f2p_tests", &r.F2PTests}, {"s2p_tests", &r.S2PTests}, {"n2p_tests", &r.N2PTests}} {
		if raw, ok := fields[f.name]; ok {
			if err := json.Unmarshal(raw, f.dst); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.name, err)
			}
		}
	}
	return &r, nil
}
