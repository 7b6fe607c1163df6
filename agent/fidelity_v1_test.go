package agent_test

// Fidelity of the mini-swe-agent 1.x loop: trajectories that 1.x itself produced replay through
// our loop (Config.Mini1) with identical messages, exit status, submission and model stats.
//
//   - testdata/mswea1/*.traj.json: scenarios (format errors, timeouts, truncated observations,
//     limits, 1.x's built-in templates) run by mini-swe-agent 1.17.5's own DefaultAgent and
//     saved by its own save_traj (generate.py regenerates them), with the inputs they were fed
//     under "replay_inputs". Their config is loaded from the trajectory's info.config.
//   - mini-swe-agent's own 1.x test trajectories (tests/test_data at v1.17.5) with the config
//     they were made with (config/github_issue.yaml at v1.6.0, the last 1.x release whose
//     shipped config renders them), from the test corpus (trajectories/mini-swe-agent-1.17.5,
//     configs/mini-swe-agent-1.6.0).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// v1Info is the info block of a mini-swe-agent-1 trajectory.
type v1Info struct {
	ExitStatus  string  `json:"exit_status"`
	Submission  *string `json:"submission"`
	MiniVersion string  `json:"mini_version"`
	ModelStats  struct {
		InstanceCost float64 `json:"instance_cost"`
		APICalls     int     `json:"api_calls"`
	} `json:"model_stats"`
}

// v1Trajectory is a mini-swe-agent-1 trajectory with the scenario inputs generate.py adds.
type v1Trajectory struct {
	Info             v1Info          `json:"info"`
	Messages         []agent.Message `json:"messages"`
	TrajectoryFormat string          `json:"trajectory_format"`
	ReplayInputs     struct {
		Task    string    `json:"task"`
		Costs   []float64 `json:"costs"`
		Replies []string  `json:"replies"`
		Steps   []struct {
			Command    string `json:"command"`
			Output     string `json:"output"`
			ReturnCode int    `json:"returncode"`
			TimedOut   bool   `json:"timed_out"`
		} `json:"steps"`
	} `json:"replay_inputs"`
}

func textReplies(texts []string, costs []float64) []agent.Reply {
	replies := make([]agent.Reply, len(texts))
	for i, s := range texts {
		replies[i] = agent.Reply{Message: agent.Message{"role": "assistant", "content": s}}
		if i < len(costs) {
			replies[i].Cost = costs[i]
		}
	}
	return replies
}

// compareV1Messages requires got and want to be equal but for their timestamps.
func compareV1Messages(t *testing.T, got, want []agent.Message) {
	t.Helper()
	strip := func(m agent.Message) map[string]any {
		n := normalize(t, m)
		delete(n, "timestamp")
		return n
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		g, w := strip(got[i]), strip(want[i])
		if _, ok := got[i]["timestamp"].(float64); !ok {
			t.Errorf("message %d has no timestamp", i)
		}
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.MarshalIndent(g, "", " ")
			wj, _ := json.MarshalIndent(w, "", " ")
			t.Fatalf("message %d (%s) differs:\n%s", i, w["role"], firstDiff(string(gj), string(wj)))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d", len(got), len(want))
	}
}

// runV1 runs the 1.x loop of cfg on task with the given model replies and command outputs.
func runV1(t *testing.T, cfg *configs.Config, task string, replies []agent.Reply, steps []envStep) (agent.Result, *recordedEnv) {
	t.Helper()
	if !cfg.Agent.Mini1 {
		t.Fatalf("the config was not detected as 1.x: %s", cfg.LayoutNote())
	}
	env := &recordedEnv{t: t, steps: steps}
	a := agent.New(cfg.Agent, &recordedModel{replies: replies}, env, nil)
	a.Vars = cfg.TemplateVars()
	res, err := a.Run(context.Background(), task)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res, env
}

func checkV1Result(t *testing.T, res agent.Result, env *recordedEnv, traj *v1Trajectory) {
	t.Helper()
	compareV1Messages(t, res.Messages, traj.Messages)
	if got, want := res.ExitStatus, traj.Info.ExitStatus; got != want {
		t.Errorf("exit status = %q, want %q", got, want)
	}
	if traj.Info.Submission != nil {
		if got, want := res.Submission, *traj.Info.Submission; got != want {
			t.Errorf("submission differs:\n%s", firstDiff(got, want))
		}
	}
	if traj.Info.ModelStats.APICalls > 0 {
		if got, want := res.Stats.APICalls, traj.Info.ModelStats.APICalls; got != want {
			t.Errorf("api calls = %d, want %d", got, want)
		}
		if got, want := res.Stats.Cost, traj.Info.ModelStats.InstanceCost; fmt.Sprintf("%.9f", got) != fmt.Sprintf("%.9f", want) {
			t.Errorf("cost = %v, want %v", got, want)
		}
	}
	if env.n != len(env.steps) {
		t.Errorf("ran %d of %d recorded commands", env.n, len(env.steps))
	}
}

// TestFidelityV1Scenarios replays the scenarios mini-swe-agent 1.17.5 ran (testdata/mswea1),
// twice: with the inputs it was fed, and with inputs recovered from its messages alone (as a
// real 1.x trajectory is replayed, where command outputs are only in the rendered observations).
func TestFidelityV1Scenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "mswea1", "*.traj.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 6 {
		t.Fatalf("found %d scenario trajectories in testdata/mswea1, want 6 (regenerate them with generate.py)", len(files))
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".traj.json"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var traj v1Trajectory
			if err := json.Unmarshal(data, &traj); err != nil {
				t.Fatal(err)
			}
			if traj.TrajectoryFormat != "mini-swe-agent-1" || !strings.HasPrefix(traj.Info.MiniVersion, "1.") {
				t.Fatalf("not a 1.x trajectory: format %q, version %q", traj.TrajectoryFormat, traj.Info.MiniVersion)
			}
			// The config a 1.x run recorded in info.config loads unchanged from the trajectory.
			cfg, err := configs.Load([]string{f}, nil)
			if err != nil {
				t.Fatalf("info.config does not load: %v", err)
			}
			in := traj.ReplayInputs
			t.Run("inputs", func(t *testing.T) {
				steps := make([]envStep, len(in.Steps))
				for i, s := range in.Steps {
					steps[i] = envStep{s.Command, agent.Output{Output: s.Output, ReturnCode: s.ReturnCode, TimedOut: s.TimedOut}}
				}
				res, env := runV1(t, cfg, in.Task, textReplies(in.Replies, in.Costs), steps)
				checkV1Result(t, res, env, &traj)
			})
			t.Run("messages", func(t *testing.T) {
				if !strings.HasPrefix(cfg.Agent.ObservationTemplate, "<returncode>") {
					t.Skip("outputs cannot be recovered from this observation template's messages")
				}
				re, err := agent.CompilePyRegex(cfg.Agent.ActionRegex)
				if err != nil {
					t.Fatal(err)
				}
				replies, steps := v1Script(t, re, traj.Messages)
				for i := range replies {
					replies[i].Cost = in.Costs[i]
				}
				res, env := runV1(t, cfg, in.Task, replies, steps)
				checkV1Result(t, res, env, &traj)
			})
		})
	}
}

// Renderings of 1.x's observation template (swebench.yaml and the configs of its tests) and of
// its default timeout template, from which v1Script recovers the command outputs.
var (
	v1ObsRe       = regexp.MustCompile(`(?s)\A<returncode>(-?\d+)</returncode>\n<output>\n(.*)</output>\z`)
	v1ObsLongRe   = regexp.MustCompile(`(?s)\A<returncode>(-?\d+)</returncode>\n<warning>\n.*?</warning><output_head>\n(.*)\n</output_head>\n<elided_chars>\n(\d+) characters elided\n</elided_chars>\n<output_tail>\n(.*)\n</output_tail>\z`)
	v1TimeoutRe   = regexp.MustCompile(`(?s)\AThe last command <command>(.*)</command> timed out and has been killed\.\nThe output of the command was:\n(?:<output>\n(.*)\n</output>|<warning>Output was too long and has been truncated\.</warning>\n<output_head>\n(.*)\n</output_head>\n<elided_chars>(\d+) characters elided</elided_chars>\n<output_tail>\n(.*)\n</output_tail>)\nPlease try another command`)
	v1SubmitMarks = []string{agent.SubmitMarker, "MINI_SWE_AGENT_FINAL_OUTPUT"}
)

// elided rebuilds an output of which only head, tail and the elided count are known: the
// template reads nothing else of it.
func elided(head, n, tail string) string {
	k, _ := strconv.Atoi(n)
	return head + strings.Repeat(".", k) + tail
}

// v1Script turns a 1.x message list into model replies and command outputs: each assistant
// message is a reply; the user message after it is a format error (the reply has no single
// command), a timeout, an observation, or — last — the submission.
func v1Script(t *testing.T, re *pyre.Regexp, msgs []agent.Message) ([]agent.Reply, []envStep) {
	t.Helper()
	var replies []agent.Reply
	var steps []envStep
	for i, m := range msgs {
		if m.Role() != "assistant" {
			continue
		}
		replies = append(replies, agent.Reply{Message: agent.Message{"role": "assistant", "content": m.Content()}})
		found := re.FindAllStringSubmatch(m.Content(), -1)
		if len(found) != 1 || i+1 >= len(msgs) {
			continue // a format error (or the limit came first): no command ran
		}
		cmd := strings.TrimSpace(found[0][1])
		next := msgs[i+1].Content()
		if i+1 == len(msgs)-1 && !v1ObsRe.MatchString(next) && !v1ObsLongRe.MatchString(next) && !v1TimeoutRe.MatchString(next) {
			// The last message answers a command and is no observation: the submission.
			marker := v1SubmitMarks[0]
			if strings.Contains(cmd, v1SubmitMarks[1]) {
				marker = v1SubmitMarks[1]
			}
			steps = append(steps, envStep{cmd, agent.Output{Output: marker + "\n" + next}})
			continue
		}
		var out agent.Output
		if g := v1ObsRe.FindStringSubmatch(next); g != nil {
			out.ReturnCode, _ = strconv.Atoi(g[1])
			out.Output = g[2]
		} else if g := v1ObsLongRe.FindStringSubmatch(next); g != nil {
			out.ReturnCode, _ = strconv.Atoi(g[1])
			out.Output = elided(g[2], g[3], g[4])
		} else if g := v1TimeoutRe.FindStringSubmatch(next); g != nil {
			if g[1] != cmd {
				t.Fatalf("message %d: the timeout names command %q, the reply ran %q", i+1, g[1], cmd)
			}
			out.TimedOut, out.ReturnCode = true, -1
			out.Output = g[2]
			if g[4] != "" {
				out.Output = elided(g[3], g[4], g[5])
			}
		} else {
			t.Fatalf("message %d is no observation of %q: %.100q", i+1, cmd, next)
		}
		if !utf8.ValidString(out.Output) {
			t.Fatalf("message %d: recovered output is not UTF-8", i+1)
		}
		steps = append(steps, envStep{cmd, out})
	}
	return replies, steps
}

// TestFidelityV1OwnTestData replays mini-swe-agent's own 1.x test trajectories (bare message
// lists, last changed before 1.x added timestamps) with the config they were made with. Their
// system message predates rendering the system template with Jinja2, which drops its final
// newline; the config's system template is therefore the recorded message plus that newline.
// The tasks are those of the scripts that made them: "Blah blah blah" for local, the issue's
// title and body, which only the instance message holds, for github_issue.
func TestFidelityV1OwnTestData(t *testing.T) {
	const taskPrefix, taskEnd = "Please solve this issue: ", "\n\nYou can execute bash commands"
	tests := []struct {
		file string
		task string
	}{
		{"local.traj.json", "Blah blah blah"},
		{"github_issue.traj.json", ""},
	}
	config := testenv.Fixtures(t, "configs", "mini-swe-agent-1.6.0", "github_issue.yaml")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(testenv.Fixtures(t, "trajectories", "mini-swe-agent-1.17.5", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var msgs []agent.Message
			if err := json.Unmarshal(data, &msgs); err != nil {
				t.Fatal(err)
			}
			task := tt.task
			if instance := msgs[1].Content(); task == "" {
				end := strings.Index(instance, taskEnd)
				if !strings.HasPrefix(instance, taskPrefix) || end < 0 {
					t.Fatalf("instance message does not have the expected shape: %.80q", instance)
				}
				task = instance[len(taskPrefix):end]
			}
			sys := filepath.Join(t.TempDir(), "system.yaml")
			quoted, _ := json.Marshal(msgs[0].Content() + "\n")
			if err := os.WriteFile(sys, []byte("agent:\n  system_template: "+string(quoted)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := configs.Load([]string{config, sys}, nil)
			if err != nil {
				t.Fatalf("github_issue.yaml does not load: %v", err)
			}
			re, err := agent.CompilePyRegex(cfg.Agent.ActionRegex)
			if err != nil {
				t.Fatal(err)
			}
			replies, steps := v1Script(t, re, msgs)
			res, env := runV1(t, cfg, task, replies, steps)
			last := msgs[len(msgs)-1].Content()
			checkV1Result(t, res, env, &v1Trajectory{Messages: msgs, Info: v1Info{ExitStatus: agent.StatusSubmitted, Submission: &last}})
		})
	}
}
