package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
)

func TestRunWritesHarnessRunReport(t *testing.T) {
	fix := diffOf(t, baseText, fixedText)
	breaks := diffOf(t, baseText, strings.Replace(baseText, "line 5\n", "line 5 broken\n", 1))
	insts := []dataset.Instance{
		testInstance("o__r-1", ""), testInstance("o__r-2", ""), testInstance("o__r-3", ""), testInstance("o__r-4", ""),
	}
	preds := map[string]Prediction{
		"o__r-1": pred("o__r-1", fix),
		"o__r-2": pred("o__r-2", breaks),
		"o__r-3": pred("o__r-3", ""),
	}
	out := t.TempDir()
	st := &fakeStarter{t: t, repo: testRepo(t, baseText)}
	var seen []string
	ev, err := New(Options{OutDir: out, RunID: "run7", Starter: st, Workers: 2, OnResult: func(r Result) { seen = append(seen, r.InstanceID) }})
	if err != nil {
		t.Fatal(err)
	}
	rep, results, err := ev.Run(context.Background(), insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(st.started), 2; got != want {
		t.Errorf("containers started: got %d, want %d (empty patches are not run)", got, want)
	}
	if got, want := len(results), 3; got != want {
		t.Errorf("results: got %d, want %d", got, want)
	}
	if got, want := len(seen), 3; got != want {
		t.Errorf("OnResult calls: got %d, want %d", got, want)
	}
	want := RunReport{
		TotalInstances: 4, SubmittedInstances: 3, CompletedInstances: 2, ResolvedInstances: 1, UnresolvedInstances: 1,
		EmptyPatchInstances: 1, ErrorInstances: 0,
		CompletedIDs: []string{"o__r-1", "o__r-2"}, IncompleteIDs: []string{"o__r-4"}, EmptyPatchIDs: []string{"o__r-3"},
		SubmittedIDs: []string{"o__r-1", "o__r-2", "o__r-3"}, ResolvedIDs: []string{"o__r-1"}, UnresolvedIDs: []string{"o__r-2"},
		ErrorIDs: []string{}, ErrorReasons: map[string]string{}, SchemaVersion: 2,
	}
	if !reflect.DeepEqual(rep, want) {
		t.Errorf("run report:\n got %+v\nwant %+v", rep, want)
	}
	data, err := os.ReadFile(filepath.Join(out, "org__model.run7.json"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk RunReport
	if err := json.Unmarshal(data, &onDisk); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(onDisk, want) {
		t.Errorf("run report file:\n got %s\nwant %+v", data, want)
	}
	// Same keys, in the same order, as a run report of the harness.
	harness, err := os.ReadFile(fixture(t, "runs/deepseek-chat-lite-dev/summary-reports/deepseek__deepseek-chat.deepseek_chat_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := topKeys(t, data), insertAfter(topKeys(t, harness), "error_ids", "error_reasons"); !reflect.DeepEqual(got, want) {
		t.Errorf("run report keys:\n got %v\nwant %v", got, want)
	}

	// A second run resumes: the reports on disk are reused, no container starts.
	st2 := &fakeStarter{t: t, err: errors.New("no containers in this test")}
	ev2, err := New(Options{OutDir: out, RunID: "run8", Starter: st2})
	if err != nil {
		t.Fatal(err)
	}
	rep2, _, err := ev2.Run(context.Background(), insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if len(st2.started) != 0 || rep2.ResolvedInstances != 1 || rep2.UnresolvedInstances != 1 {
		t.Errorf("resume: started %d containers, report %+v", len(st2.started), rep2)
	}
}

// topKeys lists the top-level keys of an indented JSON object, in order.
func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var keys []string
	for _, g := range regexp.MustCompile(`(?m)^    "([^"]+)":`).FindAllStringSubmatch(string(data), -1) {
		keys = append(keys, g[1])
	}
	return keys
}

func TestRunRejectsBadInput(t *testing.T) {
	fix := diffOf(t, baseText, fixedText)
	noScript := testInstance("o__r-2", "")
	noScript.EvalScript = ""
	badParser := testInstance("o__r-3", "")
	badParser.LogParser = "parse_log_nonesuch"
	tests := []struct {
		name    string
		insts   []dataset.Instance
		preds   map[string]Prediction
		wantErr []string
	}{
		{"prediction for an unknown id", []dataset.Instance{testInstance("o__r-1", "")},
			map[string]Prediction{"o__r-1": pred("o__r-1", fix), "x__y-9": pred("x__y-9", fix), "a__b-1": pred("a__b-1", fix)},
			[]string{"2 predictions", "a__b-1, x__y-9", "not in the dataset"}},
		{"row without eval_script", []dataset.Instance{noScript}, map[string]Prediction{"o__r-2": pred("o__r-2", fix)},
			[]string{"eval_script", "o__r-2"}},
		{"unknown log parser", []dataset.Instance{badParser}, map[string]Prediction{"o__r-3": pred("o__r-3", fix)},
			[]string{"parse_log_nonesuch", "o__r-3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &fakeStarter{t: t, repo: testRepo(t, baseText)}
			ev, err := New(Options{OutDir: t.TempDir(), RunID: "r", Starter: st})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = ev.Run(context.Background(), tt.insts, tt.preds)
			if err == nil {
				t.Fatal("got no error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if len(st.started) != 0 {
				t.Error("a container was started despite the bad input")
			}
		})
	}
}

func insertAfter(list []string, after, item string) []string {
	var out []string
	for _, s := range list {
		out = append(out, s)
		if s == after {
			out = append(out, item)
		}
	}
	return out
}

func TestRunStopsWhenCancelled(t *testing.T) {
	fix := diffOf(t, baseText, fixedText)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st := &fakeStarter{t: t, repo: testRepo(t, baseText)}
	out := t.TempDir()
	ev, err := New(Options{OutDir: out, RunID: "r", Starter: st})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ev.Run(ctx, []dataset.Instance{testInstance("o__r-1", "")}, map[string]Prediction{"o__r-1": pred("o__r-1", fix)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if len(st.started) != 0 {
		t.Errorf("started %d containers after cancellation", len(st.started))
	}
	if _, err := os.Stat(filepath.Join(out, "org__model.r.json")); err == nil {
		t.Error("run report written for an interrupted run")
	}
}

func TestRunDrainStopsScheduling(t *testing.T) {
	fix := diffOf(t, baseText, fixedText)
	drain := make(chan struct{})
	close(drain)
	st := &fakeStarter{t: t, repo: testRepo(t, baseText)}
	ev, err := New(Options{OutDir: t.TempDir(), RunID: "r", Starter: st, Drain: drain})
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := ev.Run(context.Background(), []dataset.Instance{testInstance("o__r-1", "")}, map[string]Prediction{"o__r-1": pred("o__r-1", fix)})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.started) != 0 {
		t.Errorf("started %d containers after drain", len(st.started))
	}
	if got, want := rep.ErrorReasons["o__r-1"], "not evaluated"; got != want {
		t.Errorf("got reason %q, want %q", got, want)
	}
}
