package polybench

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// kodahLogs is the logs/ folder of a published SWE-PolyBench Verified submission
// (amazon-science/SWE-PolyBench, evaluation/PBVerified/20260430_kodah_gpt-5-mini): 382
// <id>_result.json files written by the harness; its metadata says 107 resolved.
func kodahLogs(t *testing.T) string {
	return testenv.Fixtures(t, "more-datasets", "swe-polybench", "evaluation", "PBVerified", "20260430_kodah_gpt-5-mini", "logs")
}

func TestReadPublishedResults(t *testing.T) {
	dir := kodahLogs(t)
	outs, err := ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	resolved, withLogs, applied := 0, 0, 0
	for _, o := range outs {
		if o.Resolved {
			resolved++
		}
		if o.WithLogs {
			withLogs++
		}
		if o.PatchApplied {
			applied++
		}
		if o.Resolved != (o.AllF2PPassed && o.NoP2PFailed && o.WithLogs) {
			t.Errorf("%s: resolved %v, but all_f2p_passed %v, no_p2p_failed %v, with_logs %v",
				o.InstanceID, o.Resolved, o.AllF2PPassed, o.NoP2PFailed, o.WithLogs)
		}
	}
	if len(outs) != 382 || resolved != 107 {
		t.Errorf("got %d results, %d resolved; want 382 and 107", len(outs), resolved)
	}
	t.Logf("382 results: %d resolved, %d with logs, %d patches applied", resolved, withLogs, applied)
}

// TestWriteMatchesHarness: writing what was read gives the harness's files byte for byte
// (json.dump with indent=4, ASCII escapes, no final newline).
func TestWriteMatchesHarness(t *testing.T) {
	dir := kodahLogs(t)
	outs, err := ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		want, err := os.ReadFile(ResultPath(dir, o.InstanceID))
		if err != nil {
			t.Fatal(err)
		}
		got, err := o.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: wrote\n%s\nthe harness wrote\n%s", o.InstanceID, got, want)
		}
	}
	path, err := WriteResult(t.TempDir(), outs[0])
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ReadResult(path); err != nil || !reflect.DeepEqual(back, outs[0]) {
		t.Errorf("WriteResult then ReadResult: got %+v, %v; want %+v", back, err, outs[0])
	}
}

func TestReadResultRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for name, body := range map[string]string{
		"a_result.json": `{"instance_id": "b", "resolved": true}`,
		"c_result.json": `{"instance_id": "c"}`,
		"d_result.json": `[1]`,
	} {
		if _, err := ReadResult(write(name, body)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: got %v, want an error naming the file", name, err)
		}
	}
	if _, err := ReadResults(t.TempDir()); !errors.Is(err, ErrNoResults) {
		t.Errorf("empty directory: got %v, want ErrNoResults", err)
	}
}

func TestScore(t *testing.T) {
	f2p, p2p := []string{"a", "b"}, []string{"c", "d"}
	tests := []struct {
		name                  string
		r                     *Results
		f2pOK, p2pOK, resolve bool
	}{
		{"all pass", &Results{PassedTests: []string{"a", "b", "c", "d"}}, true, true, true},
		{"P2P missing from the log does not fail", &Results{PassedTests: []string{"a", "b"}}, true, true, true},
		{"F2P missing fails", &Results{PassedTests: []string{"a", "c", "d"}}, false, true, false},
		{"P2P failed", &Results{PassedTests: []string{"a", "b", "c"}, FailedTests: []string{"d"}}, true, false, false},
		{"F2P both passed and failed counts as passed", &Results{PassedTests: []string{"a", "b"}, FailedTests: []string{"a"}}, true, true, true},
		{"no logs", nil, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Score("x", tt.r, f2p, p2p, true, true)
			if o.AllF2PPassed != tt.f2pOK || o.NoP2PFailed != tt.p2pOK || o.Resolved != tt.resolve || o.WithLogs != (tt.r != nil) {
				t.Errorf("got %+v", o)
			}
		})
	}
	empty := Score("x", &Results{}, nil, nil, true, true)
	if !empty.Resolved || !reflect.DeepEqual(empty.PassedTests, []string{}) {
		t.Errorf("empty results and no tests expected: got %+v, want resolved with [] lists", empty)
	}
}
