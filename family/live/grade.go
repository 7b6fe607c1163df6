package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/live/pyparser"
)

// Tests is one category of a Report: the tests of the category that passed and that failed.
type Tests struct {
	Success []string `json:"success"`
	Failure []string `json:"failure"`
}

// Report is the harness's report.json of one instance.
type Report struct {
	InstanceID string `json:"instance_id"`
	Resolved   bool   `json:"resolved"`
	PassToPass Tests  `json:"PASS_TO_PASS"`
	FailToPass Tests  `json:"FAIL_TO_PASS"`
}

// TestStatus is one item of the status map the harness grades (the dict the row's parser
// returned, or the pytest parser's map).
type TestStatus = pyparser.Entry

// Status is a status map in the parser's order. It may name a test twice, when the parser
// returned a str key and a non-str one of the same text ({"5": …, 5: …}), as the harness's dict
// and status.json do.
type Status []TestStatus

// Grade grades a status map as the harness's run_instance does: a test succeeded when its
// status contains "pass" and failed when it contains "fail" (case-insensitively, as Python's
// str.lower; a test the log does not have is neither; a key that was not a Python str is no
// test); resolved means no PASS_TO_PASS and no FAIL_TO_PASS test failed and every FAIL_TO_PASS
// test succeeded (or as many succeeded as the row lists). The harness builds the lists from sets;
// here they are sorted.
func Grade(inst *dataset.Instance, status Status) Report {
	succ, fail := map[string]bool{}, map[string]bool{}
	for _, e := range status {
		if e.NotStr {
			continue
		}
		if lowerContains(e.Status, "pass") {
			succ[e.Test] = true
		}
		if lowerContains(e.Status, "fail") {
			fail[e.Test] = true
		}
	}
	pick := func(tests []string, in map[string]bool) []string {
		out := []string{}
		for _, t := range tests {
			if in[t] && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		slices.Sort(out)
		return out
	}
	r := Report{
		InstanceID: inst.InstanceID,
		PassToPass: Tests{Success: pick(inst.PassToPass, succ), Failure: pick(inst.PassToPass, fail)},
		FailToPass: Tests{Success: pick(inst.FailToPass, succ), Failure: pick(inst.FailToPass, fail)},
	}
	allF2P := true
	for _, t := range inst.FailToPass {
		if !succ[t] {
			allF2P = false
		}
	}
	f2p := allF2P || len(r.FailToPass.Success) == len(inst.FailToPass)
	r.Resolved = len(r.PassToPass.Failure) == 0 && len(r.FailToPass.Failure) == 0 && f2p
	return r
}

// MarshalReport returns report.json as the harness writes it (json.dump with indent=True: one
// space of indentation, non-ASCII escaped).
func MarshalReport(r Report) ([]byte, error) { return family.MarshalPython(r, 1) }

// ReadReport decodes a report.json of the harness. The error names what is missing.
func ReadReport(data []byte) (Report, error) {
	var raw struct {
		InstanceID *string `json:"instance_id"`
		Resolved   *bool   `json:"resolved"`
		PassToPass *Tests  `json:"PASS_TO_PASS"`
		FailToPass *Tests  `json:"FAIL_TO_PASS"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Report{}, err
	}
	if raw.InstanceID == nil || raw.Resolved == nil {
		return Report{}, fmt.Errorf("not a SWE-bench-Live report: want instance_id and resolved")
	}
	r := Report{InstanceID: *raw.InstanceID, Resolved: *raw.Resolved}
	if raw.PassToPass != nil {
		r.PassToPass = *raw.PassToPass
	}
	if raw.FailToPass != nil {
		r.FailToPass = *raw.FailToPass
	}
	return r, nil
}

// MarshalStatus returns status.json as the harness writes it (json.dump(…, indent=True)): the
// status map in the parser's order, indented by one space, non-ASCII escaped.
func MarshalStatus(m Status) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(e.Test)
		if err != nil {
			return nil, err
		}
		sb, err := json.Marshal(e.Status)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(sb)
	}
	b.WriteByte('}')
	return family.PythonJSON(b.Bytes(), 1)
}

// ReadStatus decodes a status.json as Python's json.load does (a key given twice keeps its first
// place and its last status). Every key is a str there: a parser's non-str keys are not told
// apart once written.
func ReadStatus(data []byte) (Status, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("status map: want a JSON object")
	}
	m := logparse.NewMap()
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		v, err := dec.Token()
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("status map: test %v has status %v, want a string", k, v)
		}
		m.Set(k.(string), s)
	}
	return statusOf(m), nil
}

// statusOf is a Map's entries in its order.
func statusOf(m *logparse.Map) Status {
	out := make(Status, 0, m.Len())
	for _, k := range m.Keys() {
		s, _ := m.Get(k)
		out = append(out, TestStatus{Test: k, Status: s})
	}
	return out
}

// Results is the harness's results.json of a run.
type Results struct {
	Submitted     int      `json:"submitted"`
	SubmittedIDs  []string `json:"submitted_ids"`
	EmptyPatch    int      `json:"empty_patch"`
	EmptyPatchIDs []string `json:"empty_patch_ids"`
	SuccessIDs    []string `json:"success_ids"`
	FailureIDs    []string `json:"failure_ids"`
	ErrorIDs      []string `json:"error_ids"`
	IncompleteIDs []string `json:"incomplete_ids"`
	Success       int      `json:"success"`
	Failure       int      `json:"failure"`
	Error         int      `json:"error"`
	Incomplete    int      `json:"incomplete"`
}

// MarshalResults returns results.json as the harness writes it.
func MarshalResults(r Results) ([]byte, error) {
	for _, l := range []*[]string{&r.SubmittedIDs, &r.EmptyPatchIDs, &r.SuccessIDs, &r.FailureIDs, &r.ErrorIDs, &r.IncompleteIDs} {
		if *l == nil {
			*l = []string{}
		}
	}
	return family.MarshalPython(r, 1)
}

// ReadResults decodes a results.json of the harness.
func ReadResults(data []byte) (Results, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return Results{}, err
	}
	for _, k := range []string{"submitted_ids", "success_ids", "failure_ids"} {
		if _, ok := keys[k]; !ok {
			return Results{}, fmt.Errorf("not a SWE-bench-Live results.json: no %s", k)
		}
	}
	var r Results
	err := json.Unmarshal(data, &r)
	return r, err
}
