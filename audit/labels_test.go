package audit_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/audit"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// label is one hand-labelled command of testdata/labels.jsonl: every command of the corpus's
// real trajectories (mini-swe-agent 1.x and 2.x, SWE-agent, OpenHands), in the order their
// reader gives them, and the commands quoted in public issues about agents reading the answer
// from the repository (source "issue:OWNER/REPO#N"; a placeholder hash stands as the issue
// says), each with the class it should get ("" for none) and why.
type label struct {
	Source   string      `json:"source"`
	Instance string      `json:"instance"`
	Index    int         `json:"index"`
	Command  string      `json:"command"`
	Class    audit.Class `json:"class"`
	Why      string      `json:"why"`
}

func readLabels(t *testing.T) []label {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []label
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l label
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("labels.jsonl line %d: %v", len(out)+1, err)
		}
		if l.Why == "" {
			t.Fatalf("labels.jsonl line %d (%q) says not why", len(out)+1, l.Command)
		}
		out = append(out, l)
	}
	return out
}

// The repository each issue's commands were run on, for the network class.
var issueRepos = map[string]string{
	"issue:SWE-agent/mini-swe-agent#787": "gravitational/teleport",
	"issue:scaleapi/SWE-bench_Pro-os#7":  "gravitational/teleport",
	"issue:scaleapi/SWE-bench_Pro-os#93": "gravitational/teleport",
}

// The scanner's precision and recall on the labelled commands, measured here: every labelled
// flag found with its class (recall 1.0) and no command flagged that should not be (precision
// 1.0). The test fails below these figures.
const (
	minPrecision = 1.0
	minRecall    = 1.0
)

func TestPrecisionRecall(t *testing.T) {
	labels := readLabels(t)
	// The scanner's classes for every trajectory command, by source, instance and index.
	got := map[string]audit.Class{}
	scanned := map[string]bool{}
	for _, l := range labels {
		if strings.HasPrefix(l.Source, "issue:") || scanned[l.Source] {
			continue
		}
		scanned[l.Source] = true
		runs, err := results.ReadAgentRuns(testenv.Fixtures(t, strings.Split(l.Source, "/")...))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			for i := range r.Steps {
				got[fmt.Sprintf("%s|%s|%d", l.Source, r.InstanceID, i)] = ""
			}
			flagged := map[int]audit.Class{}
			for _, f := range r.Flags() {
				for i, s := range r.Steps {
					if s.Step == f.Step && s.Command == f.Command {
						flagged[i] = f.Class
					}
				}
			}
			for i, c := range flagged {
				got[fmt.Sprintf("%s|%s|%d", l.Source, r.InstanceID, i)] = c
			}
		}
	}
	var tp, fp, fn, n int
	for _, l := range labels {
		var c audit.Class
		if strings.HasPrefix(l.Source, "issue:") {
			c, _ = audit.Classify(l.Command, audit.Task{Repo: issueRepos[l.Source]})
		} else {
			var ok bool
			c, ok = got[fmt.Sprintf("%s|%s|%d", l.Source, l.Instance, l.Index)]
			if !ok {
				t.Fatalf("labelled command %s %s #%d (%q) is not in what the reader gives", l.Source, l.Instance, l.Index, l.Command)
			}
		}
		n++
		switch {
		case c != "" && c == l.Class:
			tp++
		case c != "" && l.Class == "":
			fp++
			t.Logf("false flag (%s): %s %s #%d %q — labelled: %s", c, l.Source, l.Instance, l.Index, l.Command, l.Why)
		case c != l.Class:
			fn++
			if c != "" {
				fp++
			}
			t.Logf("missed (%q, got %q): %s %s #%d %q — %s", l.Class, c, l.Source, l.Instance, l.Index, l.Command, l.Why)
		}
	}
	if len(got) != n-countIssues(labels) {
		t.Errorf("the readers give %d commands, %d are labelled", len(got), n-countIssues(labels))
	}
	precision, recall := ratio(tp, tp+fp), ratio(tp, tp+fn)
	t.Logf("%d commands labelled (%d flags): precision %.3f (%d of %d flags right), recall %.3f (%d of %d found)", n, tp+fn, precision, tp, tp+fp, recall, tp, tp+fn)
	if precision < minPrecision || recall < minRecall {
		t.Errorf("precision %.3f, recall %.3f; measured at least %.3f and %.3f", precision, recall, minPrecision, minRecall)
	}
}

func countIssues(ls []label) int {
	n := 0
	for _, l := range ls {
		if strings.HasPrefix(l.Source, "issue:") {
			n++
		}
	}
	return n
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}
