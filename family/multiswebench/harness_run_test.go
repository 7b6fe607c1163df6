package multiswebench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
)

// testdata/harness-run is the output folder of Multi-SWE-bench's own harness
// (multi-swe-bench/multi-swe-bench at 24f493f8a103e72312ded4f6b9c89f081d69cb09,
// `python3 -m multi_swe_bench.harness.run_evaluation --config config.json`, see its README) run
// on the demo rows with their gold patches, in the demo images: the expectations below are what
// the harness wrote there.
var harnessRunDir = filepath.Join("testdata", "harness-run")

// harnessReport is the harness's report.json (report.py's Report.json()); its sets and lists are
// in Python's set order, so reports are compared decoded.
type harnessReport struct {
	Org      string          `json:"org"`
	Repo     string          `json:"repo"`
	Number   int             `json:"number"`
	Valid    bool            `json:"valid"`
	ErrorMsg string          `json:"error_msg"`
	Fixed    map[string]Test `json:"fixed_tests"`
	P2P      map[string]Test `json:"p2p_tests"`
	F2P      map[string]Test `json:"f2p_tests"`
	S2P      map[string]Test `json:"s2p_tests"`
	N2P      map[string]Test `json:"n2p_tests"`
	Run      *TestResult     `json:"run_result"`
	Test     *TestResult     `json:"test_patch_result"`
	Fix      *TestResult     `json:"fix_patch_result"`
}

func decodeReport(t *testing.T, path string) harnessReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r harnessReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// harnessInstance is what the harness's run left for one instance.
type harnessInstance struct {
	resolved bool
	report   harnessReport
	log      string
}

// readHarnessRun reads the harness's final_report.json and each instance's evals/pr-<n> folder,
// keyed by the harness's id (org/repo:pr-n).
func readHarnessRun(t *testing.T) map[string]harnessInstance {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(harnessRunDir, "final_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var final struct {
		Submitted  []string `json:"submitted_ids"`
		Resolved   []string `json:"resolved_ids"`
		Unresolved []string `json:"unresolved_ids"`
		Errors     []string `json:"error_ids"`
	}
	if err := json.Unmarshal(data, &final); err != nil {
		t.Fatal(err)
	}
	if len(final.Errors) != 0 || len(final.Resolved)+len(final.Unresolved) != len(final.Submitted) {
		t.Fatalf("the harness's final_report.json: %s", data)
	}
	out := map[string]harnessInstance{}
	for _, id := range final.Submitted {
		m := harnessID.FindStringSubmatch(id)
		if m == nil {
			t.Fatalf("final_report.json: %q", id)
		}
		dir := filepath.Join(harnessRunDir, m[1], m[2], "evals", "pr-"+m[3])
		log, err := os.ReadFile(filepath.Join(dir, fixLogFile))
		if err != nil {
			t.Fatal(err)
		}
		out[id] = harnessInstance{resolved: slices.Contains(final.Resolved, id), report: decodeReport(t, filepath.Join(dir, reportFile)), log: string(log)}
	}
	return out
}

func loadDemo(t *testing.T) []dataset.Instance {
	t.Helper()
	l, err := dataset.Load(context.Background(), filepath.Join("testdata", "demo", "dataset.jsonl"), dataset.LoadOptions{Families: []dataset.Family{Profile{}}})
	if err != nil {
		t.Fatal(err)
	}
	return l.Instances
}

// TestHarnessRunRegraded regrades the harness's own output folder through the grader (no
// containers): every demo row's log is found in the harness's layout, graded to the harness's
// verdict, and the report.json written is the harness's (but for its set order). The rows with
// empty test sets are graded as the harness grades them: jqlang__jq-990003 (p2p_tests {}, only n2p
// tests) and 990005 (no instance_id column) resolved, 990004 (no tests at all) unresolved, its
// tests passing before the fix as after it.
func TestHarnessRunRegraded(t *testing.T) {
	harness := readHarnessRun(t)
	insts := loadDemo(t)
	if len(insts) != len(harness) {
		t.Fatalf("%d demo instances, the harness graded %d", len(insts), len(harness))
	}
	verdicts := map[string]family.Verdict{}
	for _, inst := range insts {
		row, err := rowOf(&inst)
		if err != nil {
			t.Fatal(err)
		}
		h, ok := harness[row.ID()]
		if !ok {
			t.Fatalf("the harness did not grade %s", row.ID())
		}
		pred := family.Prediction{InstanceID: inst.InstanceID, ModelPatch: &inst.Patch}
		dir := t.TempDir()
		v, found, err := (grader{}).Regrade(inst, pred, []string{t.TempDir(), harnessRunDir}, dir)
		if err != nil || !found {
			t.Fatalf("%s: found %v, %v", inst.InstanceID, found, err)
		}
		verdicts[inst.InstanceID] = v
		if got := v.Outcome == family.Resolved; got != h.resolved || (v.Outcome != family.Resolved && v.Outcome != family.Unresolved) {
			t.Errorf("%s: got %s (%s), the harness: resolved %v", inst.InstanceID, v.Outcome, v.Reason, h.resolved)
		}
		if got := decodeReport(t, filepath.Join(dir, reportFile)); !reflect.DeepEqual(got, h.report) {
			t.Errorf("%s: report.json\ngot  %+v\nwant %+v (the harness's)", inst.InstanceID, got, h.report)
		}
		if log, err := os.ReadFile(filepath.Join(dir, fixLogFile)); err != nil || string(log) != h.log {
			t.Errorf("%s: fix-patch-run.log not the harness's (%v)", inst.InstanceID, err)
		}
	}
	for id, want := range map[string]family.Outcome{"jqlang__jq-990003": family.Resolved, "jqlang__jq-990004": family.Unresolved, "jqlang__jq-990005": family.Resolved} {
		if verdicts[id].Outcome != want {
			t.Errorf("%s: got %s, want %s", id, verdicts[id].Outcome, want)
		}
	}
	if r := verdicts["jqlang__jq-990004"].Reason; !strings.Contains(r, "no test cases transitioned from failed to passed") {
		t.Errorf("jqlang__jq-990004: reason %q", r)
	}

	// final_report.json: the harness's counts and lists, in our order (the harness's is the order
	// its workers finish in).
	out := t.TempDir()
	if err := (grader{}).Finish(out, nil, verdicts); err != nil {
		t.Fatal(err)
	}
	if got, want := readFinalReport(t, filepath.Join(out, finalReport)), readFinalReport(t, filepath.Join(harnessRunDir, finalReport)); !reflect.DeepEqual(got, want) {
		t.Errorf("final_report.json\ngot  %v\nwant %v (the harness's)", got, want)
	}
}

// readFinalReport decodes a final_report.json, its lists sorted.
func readFinalReport(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range m {
		if l, ok := v.([]any); ok {
			slices.SortFunc(l, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
			m[k] = l
		}
	}
	return m
}

// TestRegradeLayouts: Regrade finds a fix run's log in this tool's layout (<dir>/<instance_id>/),
// the harness's workdir (<dir>/<org>/<repo>/evals/pr-<n>/) and a leaderboard submission's
// (<dir>/logs/<org>/<repo>/evals/pr-<n>/), and nowhere else.
func TestRegradeLayouts(t *testing.T) {
	harness := readHarnessRun(t)
	var inst dataset.Instance
	for _, i := range loadDemo(t) {
		if i.InstanceID == "jqlang__jq-990003" {
			inst = i
		}
	}
	h := harness["jqlang/jq:pr-990003"]
	pred := family.Prediction{InstanceID: inst.InstanceID, ModelPatch: &inst.Patch}
	for _, c := range []struct {
		name  string
		dir   string // where the log is, under the logs folder; "" for nowhere
		found bool
	}{
		{"this tool's eval folder", "jqlang__jq-990003", true},
		{"the harness's workdir", "jqlang/jq/evals/pr-990003", true},
		{"a leaderboard submission", "logs/jqlang/jq/evals/pr-990003", true},
		{"another instance's folder", "jqlang/jq/evals/pr-990001", false},
		{"the id's folder under logs/", "logs/jqlang__jq-990003", false},
		{"no log", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			logs := t.TempDir()
			if c.dir != "" {
				d := filepath.Join(logs, filepath.FromSlash(c.dir))
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, fixLogFile), []byte(h.log), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			v, found, err := (grader{}).Regrade(inst, pred, []string{logs}, t.TempDir())
			if err != nil || found != c.found {
				t.Fatalf("found %v (%v), want %v", found, err, c.found)
			}
			if found && v.Outcome != family.Resolved {
				t.Errorf("got %s (%s), want resolved as the harness", v.Outcome, v.Reason)
			}
		})
	}
}
