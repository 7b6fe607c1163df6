package export_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/export"
	"github.com/swebench-run/swebench-run/export/exporttest"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// run exports and fails the test on an error.
func run(t *testing.T, o export.Options) *export.Summary {
	t.Helper()
	sum, err := export.Export(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// check reads a written file back with the independent reader of its format and returns the
// trajectories it holds (Parquet rows; nil for the JSONL formats, whose lines are counted).
func check(t *testing.T, f export.Format, path string) ([]export.Row, int) {
	t.Helper()
	var n int
	var err error
	switch f {
	case export.OpenAI:
		n, err = exporttest.CheckOpenAI(path)
	case export.ShareGPT:
		n, err = exporttest.CheckShareGPT(path)
	case export.SWESmith:
		var lines []map[string]any
		lines, err = exporttest.Lines(path)
		for _, l := range lines {
			msgs, _ := l["messages"].([]any)
			if _, ok := l["instance_id"].(string); !ok || len(msgs) == 0 {
				t.Errorf("%s: a line without instance_id or messages: %.200v", path, l)
			}
		}
		n = len(lines)
	case export.Parquet:
		var rows []export.Row
		rows, err = exporttest.ReadParquet(path)
		if err != nil {
			t.Fatal(err)
		}
		return rows, len(rows)
	}
	if err != nil {
		t.Fatal(err)
	}
	return nil, n
}

func outName(f export.Format) string {
	if f == export.Parquet {
		return "out.parquet"
	}
	return "out.jsonl"
}

// The corpus's real trajectories export in every format, and each output passes its format's
// reader: mini-swe-agent 2.x tool calling (a published run graded by the harness), mini-swe-agent
// 1.x and 2.x text mode (its test data), SWE-agent .traj files (SWE-smith's and a demonstration).
func TestCorpusTrajectoriesInEveryFormat(t *testing.T) {
	deepseek := []string{"runs", "deepseek-chat-lite-dev"}
	smith := []string{"more-datasets", "swe-smith", "tests", "test_logs"}
	tests := []struct {
		name        string
		input       func(t *testing.T) export.Input
		n           int
		resolved    int // rows resolved (-1: no verdicts)
		toolCalling bool
		format      string
	}{
		{"mini-swe-agent 2.x run, tool calls, harness logs", func(t *testing.T) export.Input {
			return export.Input{Path: testenv.Fixtures(t, append(deepseek, "output")...), EvalLogs: testenv.Fixtures(t, append(deepseek, "eval-logs")...)}
		}, 23, 6, true, "mini-swe-agent-1.1"},
		{"mini-swe-agent 1.x text mode", func(t *testing.T) export.Input {
			return export.Input{Path: testenv.Fixtures(t, "trajectories", "mini-swe-agent-1.17.5", "github_issue.traj.json")}
		}, 1, -1, false, "mini-swe-agent-1"},
		{"mini-swe-agent 1.x text mode, submitted at once", func(t *testing.T) export.Input {
			return export.Input{Path: testenv.Fixtures(t, "trajectories", "mini-swe-agent-1.17.5", "local.traj.json")}
		}, 1, -1, false, "mini-swe-agent-1"},
		{"mini-swe-agent 2.x text mode", func(t *testing.T) export.Input {
			return export.Input{Path: testenv.Fixtures(t, "trajectories", "github_issue.traj.json")}
		}, 1, -1, false, "mini-swe-agent-1"},
		{"SWE-agent trajectories graded by SWE-smith's harness", func(t *testing.T) export.Input {
			return export.Input{Path: testenv.Fixtures(t, append(smith, "trajectories")...), EvalLogs: testenv.Fixtures(t, append(smith, "run_evaluation")...)}
		}, 2, 2, true, "swe-agent"},
		{"SWE-agent demonstration", func(t *testing.T) export.Input {
			return export.Input{Path: testenv.Fixtures(t, "trajectories", "swe-agent-demonstrations", "demonstrations",
				"replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1", "marshmallow-code__marshmallow-1867.traj")}
		}, 1, -1, true, "swe-agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.input(t)
			for _, f := range export.Formats {
				t.Run(string(f), func(t *testing.T) {
					out := filepath.Join(t.TempDir(), outName(f))
					sum := run(t, export.Options{Inputs: []export.Input{in}, Format: f, Output: out, Version: "test"})
					rows, n := check(t, f, out)
					if n != tt.n || sum.Written != tt.n || len(sum.Files) != 1 {
						t.Fatalf("%d trajectories read back, %d written (%+v), want %d", n, sum.Written, sum.Files, tt.n)
					}
					if f != export.Parquet {
						return
					}
					resolved := 0
					for _, r := range rows {
						if tt.resolved < 0 && r.Resolved != nil {
							t.Errorf("%s: resolved %v without an evaluation", r.InstanceID, *r.Resolved)
						}
						if r.Resolved != nil && *r.Resolved {
							resolved++
						}
						if r.ToolCalling != tt.toolCalling || r.Format != tt.format || (r.Tools != "") != tt.toolCalling {
							t.Errorf("%s: tool calling %v (%s), tools %.80q; want %v (%s)", r.InstanceID, r.ToolCalling, r.Format, r.Tools, tt.toolCalling, tt.format)
						}
						if last := r.Messages[len(r.Messages)-1]; last.Role != "assistant" {
							t.Errorf("%s: the last message is %s %.80q, want the last reply (what follows it the model never saw)", r.InstanceID, last.Role, last.Content)
						}
						for _, m := range r.Messages {
							if strings.Contains(m.Content, "/Users/fuchur") {
								t.Errorf("%s: a host path in %.100q", r.InstanceID, m.Content)
							}
						}
					}
					if tt.resolved >= 0 && resolved != tt.resolved {
						t.Errorf("%d resolved, want %d", resolved, tt.resolved)
					}
					if sum.Card == "" {
						t.Error("no dataset card")
					}
				})
			}
		})
	}
}

// The published mini-swe-agent run's rows: what the trajectory and the harness say of it.
func TestParquetRowOfMiniRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.parquet")
	in := export.Input{Path: testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output"), EvalLogs: testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "eval-logs")}
	run(t, export.Options{Inputs: []export.Input{in}, Format: export.Parquet, Output: out, Version: "test"})
	rows, _ := check(t, export.Parquet, out)
	r := rows[0]
	// Figures of marshmallow-code__marshmallow-1343.traj.json (info.model_stats, the replies'
	// usage) and its report.json (resolved).
	if r.InstanceID != "marshmallow-code__marshmallow-1343" || r.Repo != "marshmallow-code/marshmallow" || r.Model != "deepseek/deepseek-chat" ||
		r.Resolved == nil || !*r.Resolved || r.Verdict != "resolved" || r.Cost == nil || *r.Cost != 0.15769009199999998 || r.Steps != 189 ||
		r.InputTokens == nil || *r.InputTokens != 4972116 || r.ExitStatus != "Submitted" || r.Run != "output" {
		t.Errorf("row %s: repo %s, model %s, resolved %v %s, cost %v, steps %d, tokens %v, exit %s, run %s", r.InstanceID, r.Repo, r.Model, r.Resolved, r.Verdict, r.Cost, r.Steps, r.InputTokens, r.ExitStatus, r.Run)
	}
	var tools []map[string]any
	if err := json.Unmarshal([]byte(r.Tools), &tools); err != nil || !reflect.DeepEqual(jsonRound(t, tools), jsonRound(t, []any{model.BashTool()})) {
		t.Errorf("tools %s, want the bash tool", r.Tools)
	}
	// Observations as sent: the rendered template, not the raw output.
	for _, m := range r.Messages {
		if m.Kind == "observation" && !strings.HasPrefix(m.Content, "<returncode>") {
			t.Errorf("observation %.80q, want the rendered template", m.Content)
			break
		}
	}
	if m := r.Messages[2]; m.Role != "assistant" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Name != "bash" || !m.Trainable ||
		r.Messages[3].ToolCallID != m.ToolCalls[0].ID {
		t.Errorf("first reply %+v, answered by %+v", m, r.Messages[3])
	}
	// The run's one flagged trajectory (`git log --all --grep`, see docs/cli.md's audit example):
	// its row says so, and --exclude-flagged leaves it out.
	for _, r := range rows {
		flagged := r.InstanceID == "sqlfluff__sqlfluff-1625"
		if flagged != (len(r.Flags) > 0) || flagged && (r.Flags[0] != "history" || !r.Revealed) {
			t.Errorf("%s: flags %v, revealed %v", r.InstanceID, r.Flags, r.Revealed)
		}
	}
	sum := run(t, export.Options{Inputs: []export.Input{in}, Format: export.OpenAI, Output: filepath.Join(t.TempDir(), "o.jsonl"), Filter: export.Filter{ExcludeFlagged: true}})
	if sum.Written != 22 || sum.Skipped[export.OutcomeFlagged] != 1 {
		t.Errorf("--exclude-flagged: %d written, skipped %v", sum.Written, sum.Skipped)
	}
}

func jsonRound(t *testing.T, v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	json.Unmarshal(data, &out)
	return out
}

// SWE-smith's format, from the SWE-agent trajectories of SWE-smith's tests, equals SWE-smith's
// own conversion of them (tests/test_logs/ft_xml_example.jsonl, which its tests expect from
// swesmith/train/traj_mgr's transform_traj_xml, SWE-bench/SWE-smith at cf2e649d), line for line
// and byte for byte. That conversion puts the system template of SWE-smith's
// agent/swesmith_infer.yaml in place of the trajectories' system prompt; that file is not in the
// corpus, so the prompt is taken from the expected file. Its third entry, moto pr_7331, is of a
// trajectory the corpus does not hold.
func TestSWESmithFormatMatchesItsTooling(t *testing.T) {
	logs := []string{"more-datasets", "swe-smith", "tests", "test_logs"}
	want := map[string]string{}
	var order []string
	f, err := os.Open(testenv.Fixtures(t, append(logs, "ft_xml_example.jsonl")...))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	var system string
	for sc.Scan() {
		var e struct {
			InstanceID string `json:"instance_id"`
			Messages   []struct{ Role, Content string }
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		want[e.InstanceID] = sc.Text()
		order = append(order, e.InstanceID)
		system = e.Messages[0].Content
	}
	if len(want) != 3 {
		t.Fatalf("the expected file has %d entries (%v), want 3", len(want), order)
	}
	out := filepath.Join(t.TempDir(), "ft_xml.jsonl")
	sum := run(t, export.Options{
		Inputs: []export.Input{{Path: testenv.Fixtures(t, append(logs, "trajectories")...), EvalLogs: testenv.Fixtures(t, append(logs, "run_evaluation")...)}},
		Format: export.SWESmith, Output: out, Filter: export.Filter{Resolved: true}, SystemPrompt: &system,
	})
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 || sum.Written != 2 {
		t.Fatalf("%d lines written, want the 2 trajectories the corpus holds", len(lines))
	}
	for _, l := range lines {
		var e struct {
			InstanceID string `json:"instance_id"`
		}
		json.Unmarshal([]byte(l), &e)
		w, ok := want[e.InstanceID]
		switch {
		case !ok:
			t.Errorf("%s is not in SWE-smith's file", e.InstanceID)
		case l != w:
			t.Errorf("%s differs from SWE-smith's conversion:\n%s", e.InstanceID, firstDiff(l, w))
		}
	}
}

func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d:\n got …%.200s\nwant …%.200s", i, got[lo:], want[lo:min(len(want), lo+280)])
}

// A sweep's export with --resolved --exclude-flagged --per-instance best holds exactly the
// expected trajectories; split by repository, the files share no repository.
func TestSweepResolvedUnflaggedBest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nightly")
	yes, no := exporttest.Bool(true), exporttest.Bool(false)
	flagged := []string{"git log --all --oneline | head"}
	cells := []exporttest.Cell{
		{Name: "a-r1", Variant: "a", Repeat: 1, Run: exporttest.Run{Instances: []exporttest.Instance{
			{ID: "org1__repo-1", Steps: 5, Cost: 0.5, Resolved: yes},
			{ID: "org1__repo-2", Steps: 4, Cost: 0.4, Resolved: no},
			{ID: "org2__lib-1", Steps: 3, Resolved: no},
			{ID: "org3__tool-1", Steps: 2, Resolved: yes, Commands: flagged},
			{ID: "org4__app-1", Steps: 7, Cost: 0.7, Resolved: yes},
		}}},
		{Name: "a-r2", Variant: "a", Repeat: 2, Run: exporttest.Run{Instances: []exporttest.Instance{
			{ID: "org1__repo-1", Steps: 3, Cost: 0.3, Resolved: yes, Commands: flagged}, // fewest steps, but flagged
			{ID: "org1__repo-2", Steps: 6, Cost: 0.5, Resolved: yes},
			{ID: "org2__lib-1", Steps: 3, Resolved: no},
			{ID: "org3__tool-1", Steps: 2},                          // not evaluated
			{ID: "org4__app-1", Steps: 7, Cost: 0.7, Resolved: yes}, // a tie: the first stays
		}}},
		{Name: "b-r1", Variant: "b", Repeat: 1, Run: exporttest.Run{Instances: []exporttest.Instance{
			{ID: "org1__repo-1", Steps: 4, Cost: 0.9, Resolved: yes},
			{ID: "org1__repo-2", Steps: 6, Cost: 0.2, Resolved: yes}, // as many steps as a-r2's, cheaper
			{ID: "org2__lib-1", Steps: 1, Resolved: no},
			{ID: "org5__x-1", Steps: 3, Cost: 0.1, Resolved: yes},
			{ID: "org5__x-2", Steps: 2, Cost: 0.1, Resolved: yes, ExitStatus: "LimitsExceeded"},
		}}},
	}
	if err := exporttest.WriteSweep(dir, "nightly", cells); err != nil {
		t.Fatal(err)
	}
	want := []string{"org1__repo-1@b-r1", "org1__repo-2@b-r1", "org4__app-1@a-r1", "org5__x-1@b-r1", "org5__x-2@b-r1"}
	opts := export.Options{Inputs: []export.Input{{Path: dir}}, Format: export.Parquet, Output: filepath.Join(t.TempDir(), "sweep.parquet"),
		Filter: export.Filter{Resolved: true, ExcludeFlagged: true}, PerInstance: export.BestTrajectory, Version: "test"}
	sum := run(t, opts)
	rows, _ := check(t, export.Parquet, opts.Output)
	if got := chosen(rows); !reflect.DeepEqual(got, want) {
		t.Errorf("chosen %v, want %v", got, want)
	}
	wantSkipped := map[string]int{export.OutcomeUnresolved: 4, export.OutcomeNotEvaluated: 1, export.OutcomeFlagged: 2, export.OutcomeNotChosen: 3}
	if !reflect.DeepEqual(sum.Skipped, wantSkipped) || sum.Found != 15 || sum.Kept != 8 {
		t.Errorf("found %d, kept %d, skipped %v; want 15, 8, %v", sum.Found, sum.Kept, sum.Skipped, wantSkipped)
	}
	for _, r := range rows {
		if r.Cell == "" || r.Repeat == 0 || r.ConfigHash == "" || r.Dataset != "SWE-bench/SWE-bench_Verified:test" || r.Family != "swebench" || len(r.Flags) != 0 {
			t.Errorf("%s: cell %q repeat %d config %q dataset %q family %q flags %v", r.InstanceID, r.Cell, r.Repeat, r.ConfigHash, r.Dataset, r.Family, r.Flags)
		}
	}

	// The exit status and the cells: b's LimitsExceeded trajectory goes with --status Submitted;
	// --model a keeps a's cells only.
	opts.Filter.Statuses = []string{"Submitted"}
	opts.Filter.Models = []string{"a"}
	run(t, opts)
	rows, _ = check(t, export.Parquet, opts.Output)
	if got := chosen(rows); !reflect.DeepEqual(got, []string{"org1__repo-1@a-r1", "org1__repo-2@a-r2", "org4__app-1@a-r1"}) {
		t.Errorf("--model a --status Submitted: %v", got)
	}

	// Split by repository: every trajectory in one of the two files, no repository in both.
	for seed := uint64(1); seed <= 5; seed++ {
		opts.Filter.Statuses, opts.Filter.Models = nil, nil
		opts.ValFraction, opts.Seed = 0.4, seed
		sum = run(t, opts)
		if len(sum.Files) != 2 || sum.Files[0].Path != strings.TrimSuffix(opts.Output, ".parquet")+".train.parquet" || sum.Files[1].Split != "validation" {
			t.Fatalf("files %+v", sum.Files)
		}
		train, _ := check(t, export.Parquet, sum.Files[0].Path)
		val, _ := check(t, export.Parquet, sum.Files[1].Path)
		all := append(chosen(train), chosen(val)...)
		sort.Strings(all)
		if !reflect.DeepEqual(all, want) || len(val) == 0 || len(train) == 0 {
			t.Errorf("seed %d: train %v + validation %v, want %v split in two", seed, chosen(train), chosen(val), want)
		}
		repos := map[string]bool{}
		for _, r := range train {
			repos[r.Repo] = true
		}
		for _, r := range val {
			if repos[r.Repo] {
				t.Errorf("seed %d: %s in both splits", seed, r.Repo)
			}
		}
		card, err := os.ReadFile(sum.Card)
		if err != nil || !strings.Contains(string(card), "  - split: validation\n    path: sweep.validation.parquet\n") {
			t.Errorf("card: %v\n%s", err, card)
		}
	}
}

// chosen names the rows as instance@cell, sorted.
func chosen(rows []export.Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.InstanceID+"@"+r.Cell)
	}
	sort.Strings(out)
	return out
}

// writeJSON writes v as JSON to dir/name (dir created).
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Format errors: mini-swe-agent 1.x keeps the reply without a valid command before the error
// (not trained: weight 0), 2.x keeps the error alone; --drop-format-errors removes both.
func TestFormatErrors(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "v1", "t__v1-1.traj.json")
	writeJSON(t, v1, map[string]any{"trajectory_format": "mini-swe-agent-1", "instance_id": "t__v1-1",
		"info": map[string]any{"exit_status": "Submitted", "submission": "diff", "mini_version": "1.17.5", "model_stats": map[string]any{"instance_cost": 0.1, "api_calls": 3}},
		"messages": []any{
			map[string]any{"role": "system", "content": "sys"},
			map[string]any{"role": "user", "content": "task"},
			map[string]any{"role": "assistant", "content": "two\n```bash\nls\n```\n```bash\npwd\n```"},
			map[string]any{"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks."},
			map[string]any{"role": "assistant", "content": "one\n```bash\nls\n```"},
			map[string]any{"role": "user", "content": "<returncode>0</returncode>\n<output>\na\n</output>"},
			map[string]any{"role": "assistant", "content": "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
			map[string]any{"role": "user", "content": "diff"},
		}})
	v2 := filepath.Join(dir, "v2", "t__v2-1.traj.json")
	call := func(id, cmd string) map[string]any {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": string(args)}}
	}
	writeJSON(t, v2, map[string]any{"trajectory_format": "mini-swe-agent-1.1", "instance_id": "t__v2-1",
		"info": map[string]any{"exit_status": "Submitted", "submission": "diff", "model_stats": map[string]any{"instance_cost": 0.1, "api_calls": 3}},
		"messages": []any{
			map[string]any{"role": "system", "content": "sys"},
			map[string]any{"role": "user", "content": "task"},
			map[string]any{"role": "assistant", "content": "look", "tool_calls": []any{call("c1", "ls"), call("c2", "pwd")}},
			map[string]any{"role": "tool", "tool_call_id": "c1", "content": "out 1", "extra": map[string]any{"raw_output": "1", "returncode": 0.0}},
			map[string]any{"role": "tool", "tool_call_id": "c2", "content": "out 2", "extra": map[string]any{"raw_output": "2", "returncode": 0.0}},
			map[string]any{"role": "user", "content": "No tool calls found.", "extra": map[string]any{"interrupt_type": "FormatError"}},
			map[string]any{"role": "assistant", "content": "submit", "tool_calls": []any{call("c3", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")}},
			map[string]any{"role": "exit", "content": "diff", "extra": map[string]any{"exit_status": "Submitted", "submission": "diff"}},
		}})
	type msg struct {
		Role    string   `json:"role"`
		Content *string  `json:"content"`
		Weight  *float64 `json:"weight"`
	}
	openai := func(t *testing.T, path string, drop bool) []msg {
		out := filepath.Join(t.TempDir(), "o.jsonl")
		run(t, export.Options{Inputs: []export.Input{{Path: path}}, Format: export.OpenAI, Output: out, DropFormatErrors: drop})
		if _, err := exporttest.CheckOpenAI(out); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(out)
		var l struct{ Messages []msg }
		json.Unmarshal(data, &l)
		return l.Messages
	}
	weights := func(ms []msg) string {
		var s []string
		for _, m := range ms {
			w := "-"
			if m.Weight != nil {
				w = fmt.Sprint(*m.Weight)
			}
			s = append(s, m.Role+":"+w)
		}
		return strings.Join(s, " ")
	}
	if got, want := weights(openai(t, v1, false)), "system:- user:- assistant:0 user:- assistant:1 user:- assistant:1"; got != want {
		t.Errorf("1.x kept: %s, want %s", got, want)
	}
	if got, want := weights(openai(t, v1, true)), "system:- user:- assistant:1 user:- assistant:1"; got != want {
		t.Errorf("1.x dropped: %s, want %s", got, want)
	}
	if got, want := weights(openai(t, v2, false)), "system:- user:- assistant:1 tool:- tool:- user:- assistant:1"; got != want {
		t.Errorf("2.x kept: %s, want %s", got, want)
	}
	if got, want := weights(openai(t, v2, true)), "system:- user:- assistant:1 tool:- tool:- assistant:1"; got != want {
		t.Errorf("2.x dropped: %s, want %s", got, want)
	}

	// ShareGPT: the two outputs are one observation; the 2.x format error joins it.
	out := filepath.Join(t.TempDir(), "s.jsonl")
	run(t, export.Options{Inputs: []export.Input{{Path: v2}}, Format: export.ShareGPT, Output: out})
	if _, err := exporttest.CheckShareGPT(out); err != nil {
		t.Fatal(err)
	}
	lines, _ := exporttest.Lines(out)
	turns := lines[0]["conversations"].([]any)
	obs := turns[3].(map[string]any)
	if len(turns) != 5 || obs["from"] != "observation" || obs["value"] != "out 1\n</tool_response>\n<tool_response>\nout 2\n\nNo tool calls found." {
		t.Errorf("turns %v", turns)
	}
	if fc := turns[2].(map[string]any); fc["value"] != `[{"name":"bash","arguments":{"command":"ls"}},{"name":"bash","arguments":{"command":"pwd"}}]` || fc["thought"] != "look" {
		t.Errorf("function_call %v", fc)
	}
	// Parquet counts the format error and keeps its kind.
	out = filepath.Join(t.TempDir(), "p.parquet")
	run(t, export.Options{Inputs: []export.Input{{Path: v1}}, Format: export.Parquet, Output: out})
	rows, _ := check(t, export.Parquet, out)
	if r := rows[0]; r.FormatErrors != 1 || r.Messages[3].Kind != "format_error" || r.Messages[2].Trainable || !r.Messages[4].Trainable || r.Steps != 3 {
		t.Errorf("row: %d format errors, messages %+v", r.FormatErrors, r.Messages)
	}
}

// Secrets (the values of secret-looking environment variables, URL credentials) and host paths
// are never written, in any format.
func TestRedaction(t *testing.T) {
	t.Setenv("MY_SERVICE_API_KEY", "sk-live-0123456789abcdef")
	dir := filepath.Join(t.TempDir(), "runs", "secret")
	host := filepath.Join(dir, "work")
	output := fmt.Sprintf("key sk-live-0123456789abcdef at https://bob:hunter2hunter2@git.example/x.git in %s/src/a.py\n", host)
	if err := exporttest.WriteRun(dir, exporttest.Run{Instances: []exporttest.Instance{{ID: "org__repo-1", Output: output, Resolved: exporttest.Bool(true)}}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range export.Formats {
		out := filepath.Join(t.TempDir(), outName(f))
		run(t, export.Options{Inputs: []export.Input{{Path: dir}}, Format: f, Output: out})
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if f == export.Parquet {
			rows, _ := check(t, f, out)
			b, _ := json.Marshal(rows)
			data = b
		}
		for _, secret := range []string{"sk-live-0123456789abcdef", "hunter2hunter2", host} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s: %q written", f, secret)
			}
		}
		// The input's folder is a host path: what is below it stays.
		if !strings.Contains(string(data), "[host-path]/work/src/a.py") || !strings.Contains(string(data), "[redacted]") {
			t.Errorf("%s: no redaction markers in %.300s", f, data)
		}
	}
}

// Steps and cost bounds, and the error of a selection that leaves nothing (no file written).
func TestFiltersAndNothingSelected(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if err := exporttest.WriteRun(dir, exporttest.Run{Instances: []exporttest.Instance{
		{ID: "a__a-1", Steps: 2, Cost: 0.1}, {ID: "a__a-2", Steps: 5, Cost: 0.5}, {ID: "b__b-1", Steps: 9, Cost: 2},
	}}); err != nil {
		t.Fatal(err)
	}
	ip := func(n int) *int { return &n }
	fp := func(x float64) *float64 { return &x }
	tests := []struct {
		filter export.Filter
		want   []string
	}{
		{export.Filter{MinSteps: ip(3)}, []string{"a__a-2", "b__b-1"}},
		{export.Filter{MaxSteps: ip(5)}, []string{"a__a-1", "a__a-2"}},
		{export.Filter{MinCost: fp(0.2), MaxCost: fp(1)}, []string{"a__a-2"}},
		{export.Filter{ConfigHashes: []string{"ffffff"}}, nil},
		{export.Filter{Resolved: true}, nil}, // no evaluation
	}
	for _, tt := range tests {
		out := filepath.Join(t.TempDir(), "o.parquet")
		sum, err := export.Export(context.Background(), export.Options{Inputs: []export.Input{{Path: dir}}, Format: export.Parquet, Output: out, Filter: tt.filter})
		if tt.want == nil {
			if !errors.Is(err, export.ErrNothingSelected) {
				t.Errorf("%+v: %v, want ErrNothingSelected", tt.filter, err)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Errorf("%+v: %s written", tt.filter, out)
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
				t.Errorf("%+v: files left: %v", tt.filter, entries)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := check(t, export.Parquet, out)
		var got []string
		for _, r := range rows {
			got = append(got, r.InstanceID)
		}
		if !slices.Equal(got, tt.want) || sum.Written != len(tt.want) {
			t.Errorf("%+v: %v, want %v", tt.filter, got, tt.want)
		}
	}
}

// A cancelled export stops with the context's error and leaves nothing, its spool included.
func TestCancelled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if err := exporttest.WriteRun(dir, exporttest.Run{Instances: []exporttest.Instance{{ID: "a__a-1"}, {ID: "a__a-2"}}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "o.parquet")
	if _, err := export.Export(ctx, export.Options{Inputs: []export.Input{{Path: dir}}, Format: export.Parquet, Output: out}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// A README.md export did not write is not replaced by the dataset card.
func TestCardDoesNotReplaceAReadme(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if err := exporttest.WriteRun(dir, exporttest.Run{Instances: []exporttest.Instance{{ID: "a__a-1"}}}); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	readme := filepath.Join(outDir, "README.md")
	os.WriteFile(readme, []byte("# my dataset\n"), 0o644)
	_, err := export.Export(context.Background(), export.Options{Inputs: []export.Input{{Path: dir}}, Format: export.Parquet, Output: filepath.Join(outDir, "d.parquet")})
	if err == nil || !strings.Contains(err.Error(), "not written by export") {
		t.Errorf("err %v", err)
	}
	if data, _ := os.ReadFile(readme); string(data) != "# my dataset\n" {
		t.Errorf("README.md replaced: %q", data)
	}
}

// Many trajectories: the Parquet file is written in row groups, every row read back.
func TestParquetRowGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2,500 trajectories")
	}
	dir := filepath.Join(t.TempDir(), "many")
	var insts []exporttest.Instance
	for i := range 2500 {
		insts = append(insts, exporttest.Instance{ID: fmt.Sprintf("org%d__repo-%d", i%17, i), Steps: 2 + i%5, Resolved: exporttest.Bool(i%3 == 0)})
	}
	if err := exporttest.WriteRun(dir, exporttest.Run{Instances: insts}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "many.parquet")
	run(t, export.Options{Inputs: []export.Input{{Path: dir}}, Format: export.Parquet, Output: out})
	rows, _ := check(t, export.Parquet, out)
	groups, err := exporttest.RowGroups(out)
	if err != nil || len(rows) != 2500 || groups < 3 {
		t.Errorf("%d rows in %d row groups (%v), want 2500 in 3 or more", len(rows), groups, err)
	}
}
