package polybench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/internal/atomicfile"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// Output is the harness's per-instance report, <instance_id>_result.json (PolyBenchOutput).
type Output struct {
	InstanceID   string   `json:"instance_id"`
	PatchApplied bool     `json:"patch_applied"`
	Generation   bool     `json:"generation"` // a patch was generated (false: empty prediction)
	WithLogs     bool     `json:"with_logs"`  // the parser returned results
	AllF2PPassed bool     `json:"all_f2p_passed"`
	NoP2PFailed  bool     `json:"no_p2p_failed"`
	Resolved     bool     `json:"resolved"`
	PassedTests  []string `json:"passed_tests"`
	FailedTests  []string `json:"failed_tests"`
}

// Score is the harness's instance_level_scoring: with results, the instance is resolved iff every
// F2P test is among the passed tests and no P2P test is among the failed ones (a test the log
// never mentions does not fail P2P); without results (nil), nothing holds.
func Score(id string, r *Results, f2p, p2p []string, patchApplied, generation bool) Output {
	o := Output{InstanceID: id, PatchApplied: patchApplied, Generation: generation, PassedTests: []string{}, FailedTests: []string{}}
	if r == nil {
		return o
	}
	o.WithLogs = true
	if r.PassedTests != nil {
		o.PassedTests = r.PassedTests
	}
	if r.FailedTests != nil {
		o.FailedTests = r.FailedTests
	}
	passed, failed := set(o.PassedTests), set(o.FailedTests)
	o.AllF2PPassed = true
	for _, t := range f2p {
		if !passed[t] {
			o.AllF2PPassed = false
		}
	}
	o.NoP2PFailed = true
	for _, t := range p2p {
		if failed[t] {
			o.NoP2PFailed = false
		}
	}
	o.Resolved = o.AllF2PPassed && o.NoP2PFailed
	return o
}

func set(s []string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, x := range s {
		m[x] = true
	}
	return m
}

// ResultSuffix ends every per-instance report's file name.
const ResultSuffix = "_result.json"

// ResultPath is where the harness writes an instance's report under its result directory.
func ResultPath(dir, id string) string { return filepath.Join(dir, id+ResultSuffix) }

// Marshal encodes o as the harness writes it: json.dump(…, indent=4), ASCII only, no final newline.
func (o Output) Marshal() ([]byte, error) { return pytext.JSONDumps(o, 4, true) }

// WriteResult writes o as <dir>/<instance_id>_result.json, atomically.
func WriteResult(dir string, o Output) (string, error) {
	b, err := o.Marshal()
	if err != nil {
		return "", err
	}
	path := ResultPath(dir, o.InstanceID)
	if err := atomicfile.Write(path, b, 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// ReadResult reads one <instance_id>_result.json.
func ReadResult(path string) (Output, error) {
	var o Output
	data, err := os.ReadFile(path)
	if err != nil {
		return o, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return o, fmt.Errorf("%s: not a SWE-PolyBench result (<id>_result.json): %w", path, err)
	}
	for _, key := range []string{"instance_id", "resolved"} {
		if _, ok := raw[key]; !ok {
			return o, fmt.Errorf("%s: not a SWE-PolyBench result (<id>_result.json): no %q field", path, key)
		}
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return o, fmt.Errorf("%s: not a SWE-PolyBench result (<id>_result.json): %w", path, err)
	}
	if want := strings.TrimSuffix(filepath.Base(path), ResultSuffix); o.InstanceID != want {
		return o, fmt.Errorf("%s: holds instance %q, but its name says %q", path, o.InstanceID, want)
	}
	return o, nil
}

// ErrNoResults is returned by ReadResults for a directory without any result file.
var ErrNoResults = errors.New("no SWE-PolyBench results (*_result.json)")

// ReadResults reads every <instance_id>_result.json of a directory (the harness's result path or
// a submission's logs/ folder), sorted by instance id.
func ReadResults(dir string) ([]Output, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+ResultSuffix))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoResults)
	}
	sort.Strings(paths)
	out := make([]Output, 0, len(paths))
	for _, p := range paths {
		o, err := ReadResult(p)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
