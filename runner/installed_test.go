package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/agent/installed"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/model/proxy"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/providertest"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// testAgentInstall builds the test agent (agent/installed/testagent) static into an install
// folder (bin/testagent) and returns the folder.
func testAgentInstall(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "testagent"), "./agent/installed/testagent")
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the test agent: %v\n%s", err, out)
	}
	return dir
}

// The provider's key, in two halves so that no command line of the agent holds it whole.
const keyHead, keyTail = "sk-provider-secret-", "do-not-leak-7f3a"

type installedRig struct {
	out    *results.Dir
	insts  []dataset.Instance
	sum    Summary
	runErr error
}

// refuseKey makes the fake provider answer every call 401, as OpenAI refuses a key.
var refuseKey = false

// runBudget, when set, is the run-wide budget of runInstalledDemo (the loop's and the proxy's).
var runBudget *model.Budget

// runInstalledDemo runs the first demo instance with the test agent speaking wire, behind a
// proxy to a fake provider of that wire whose script is the demo's, plus a turn that looks for
// the provider's key in the container's environment and files.
func runInstalledDemo(t *testing.T, wire, modelName, fakeWire string, path providertest.PathFunc, keyEnv, command string, overrides ...string) installedRig {
	t.Helper()
	e := testenv.Docker(t)
	ctx := context.Background()
	root := testenv.RepoRoot(t)
	loaded, err := dataset.Load(ctx, filepath.Join(root, "demo", "dataset.jsonl"), dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	insts := loaded.Instances[:1]
	testenv.RequireImage(t, e, insts[0].Image)
	scripted, err := model.LoadScripted(filepath.Join(root, "demo", "scripted.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	id := insts[0].InstanceID
	demo, _ := scripted.Script(id)
	var turns []providertest.Turn
	for i, tr := range demo {
		if i == len(demo)-1 { // before the submission: look for the provider's key
			turns = append(turns, providertest.Turn{Content: "Checking the environment.", Commands: []string{
				"env | sort",
				fmt.Sprintf(`k="%s""%s"; grep -rlsF --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev "$k" / | head -5; echo scan-done`, keyHead, keyTail),
			}})
		}
		turns = append(turns, providertest.Turn{Content: tr.Content, Commands: tr.Commands})
	}
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"} {
		t.Setenv(k, "")
	}
	t.Setenv(keyEnv, keyHead+keyTail)
	fake := providertest.New(t, providertest.Script{Tasks: map[string]string{id: insts[0].TaskText()}, Turns: map[string][]providertest.Turn{id: turns}},
		providertest.Options{Wire: fakeWire, Path: path, Wrap: func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if refuseKey {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusUnauthorized)
					_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
					return
				}
				h.ServeHTTP(w, r)
			})
		}})
	up, err := model.NewUpstream(model.Config{ModelName: modelName, BaseURL: fake.URL, Prices: map[string]model.Price{modelName: {Input: 3, Output: 15}}},
		model.Options{Env: os.Getenv, Budget: runBudget})
	if err != nil {
		t.Fatal(err)
	}
	gw, err := e.Gateway(ctx, "bridge")
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.Start(proxy.Config{Upstream: up, Listen: net.JoinHostPort(gw, "0")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })

	dir := testAgentInstall(t)
	inst, err := installed.Prepare(dir, "-")
	if ce, ok := err.(*installed.ChecksumError); ok {
		inst, err = installed.Prepare(dir, ce.Got)
	}
	if err != nil {
		t.Fatal(err)
	}
	ov := append([]string{"agent.kind=installed", "agent.installed.name=custom", "agent.installed.command='" + strings.ReplaceAll(command, "'", "''") + "'",
		"agent.installed.install.path=" + dir, "agent.installed.install.sha256=" + inst.SHA256}, overrides...)
	cfg, err := configs.Load(nil, ov)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := installed.Resolve(cfg.Agent.Installed)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := dockerenv.NewPool(ctx, nil, 1, dockerenv.Options{Pull: dockerenv.PullNever})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	out, err := results.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	runID := fmt.Sprintf("test-installed-%s-%d", wire, os.Getpid())
	opts := Options{RunID: runID, Version: "test", Workers: 1, Config: cfg, ModelName: modelName,
		Backend: pool, Out: out, Resume: Resume{MaxAttempts: 1}, Installed: &InstalledAgent{Spec: spec, Install: inst, Proxy: p}}
	if runBudget != nil {
		opts.Budget = runBudget
	}
	sum, err := Run(ctx, insts, opts)
	if err != nil && !refuseKey {
		t.Fatalf("run: %v", err)
	}
	if ids := containersOf(t, runID); ids != "" {
		t.Errorf("containers left behind: %s", ids)
	}
	return installedRig{out: out, insts: insts, sum: sum, runErr: err}
}

func readTraj(t *testing.T, out *results.Dir, id string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(out.TrajectoryPath(id))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The test agent solves a demo instance through the proxy on each of the four wires: the patch
// is the tree's change against the task's start, each model call is in the record and priced,
// the trajectory's messages hold the commands, and neither the container's environment nor its
// files hold the provider's key (the agent sees only the proxy's address and its token).
func TestInstalledAgentEveryWire(t *testing.T) {
	cases := []struct {
		wire, model, fake, keyEnv string
		path                      providertest.PathFunc
	}{
		{"chat", "openai/gpt-4.1", providertest.Chat, "OPENAI_API_KEY", providertest.BodyStream("/chat/completions")},
		{"responses", "openai/gpt-5-codex", providertest.Responses, "OPENAI_API_KEY", providertest.BodyStream("/responses")},
		{"anthropic", "anthropic/claude-sonnet-4-5", providertest.Anthropic, "ANTHROPIC_API_KEY", providertest.BodyStream("/v1/messages")},
		{"gemini", "gemini/gemini-2.5-pro", providertest.Gemini, "GEMINI_API_KEY",
			providertest.URLStream("/v1beta/models/gemini-2.5-pro:generateContent", "/v1beta/models/gemini-2.5-pro:streamGenerateContent")},
	}
	for _, tc := range cases {
		t.Run(tc.wire, func(t *testing.T) {
			r := runInstalledDemo(t, tc.wire, tc.model, tc.fake, tc.path, tc.keyEnv, "{install_dir}/bin/testagent -wire "+tc.wire+" -task {task_file}")
			id := r.insts[0].InstanceID
			recs := r.out.History()[id]
			if len(recs) != 1 || recs[0].ExitStatus != agent.StatusSubmitted {
				t.Fatalf("records %+v, want one Submitted", recs)
			}
			pred := r.out.Predictions()[id]
			if !strings.Contains(pred.ModelPatch, "+COMMENT_PREFIXES = (\"#\", \";\")") || !strings.HasPrefix(pred.ModelPatch, "diff --git a/confparse/parser.py") {
				t.Errorf("patch does not hold the fix:\n%s", pred.ModelPatch)
			}
			calls, torn, err := proxy.ReadRecord(filepath.Join(r.out.Path(), id, "agent", "proxy.jsonl"))
			if err != nil || torn {
				t.Fatalf("record: %v (torn %v)", err, torn)
			}
			if len(calls) != recs[0].APICalls || len(calls) < 5 {
				t.Errorf("%d calls in the record, %d in the ledger", len(calls), recs[0].APICalls)
			}
			var cost float64
			for _, c := range calls {
				if c.HTTPStatus != http.StatusOK || c.Wire != tc.wire {
					t.Errorf("call %d: status %d wire %s", c.Seq, c.HTTPStatus, c.Wire)
				}
				cost += c.Cost
			}
			if cost <= 0 || fmt.Sprintf("%.9f", cost) != fmt.Sprintf("%.9f", recs[0].Cost) {
				t.Errorf("cost: record %v, ledger %v", cost, recs[0].Cost)
			}
			stdout, err := os.ReadFile(filepath.Join(r.out.Path(), id, "agent", "stdout.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(stdout), "scan-done") || !strings.Contains(string(stdout), "OPENAI_API_KEY=sbr-") {
				t.Fatalf("the environment check did not run:\n%s", stdout)
			}
			for _, f := range []string{"stdout.txt", "proxy.jsonl"} {
				data, _ := os.ReadFile(filepath.Join(r.out.Path(), id, "agent", f))
				if strings.Contains(string(data), keyHead+keyTail) {
					t.Errorf("agent/%s holds the provider's key: it reached the container", f)
				}
			}
			if _, err := os.Stat(filepath.Join(r.out.Path(), id, "agent", "sessions", "tmp", "swebench-run-agent-logs", "testagent.jsonl")); err != nil {
				t.Errorf("the agent's session file was not collected: %v", err)
			}
			traj := readTraj(t, r.out, id)
			ag := traj["info"].(map[string]any)["swebench_run"].(map[string]any)["agent"].(map[string]any)
			if ag["exit_code"] != 0.0 || ag["leftover_processes"] != nil {
				t.Errorf("agent info %v", ag)
			}
			var commands []string
			for _, m := range traj["messages"].([]any) {
				mm := m.(map[string]any)
				for _, tcall := range arr(mm["tool_calls"]) {
					fn := tcall.(map[string]any)["function"].(map[string]any)
					commands = append(commands, fn["arguments"].(string))
				}
			}
			if len(commands) < 6 || !strings.Contains(strings.Join(commands, "\n"), "git ls-files") {
				t.Errorf("trajectory commands: %v", commands)
			}
		})
	}
}

func arr(v any) []any { a, _ := v.([]any); return a }

// Limits end the agent: the call limit (agent.step_limit) is refused by the proxy in the wire's
// quota shape and the instance ends LimitsExceeded; a wall-clock limit kills the agent and every
// process it started: nothing is left running in the sandbox.
func TestInstalledAgentLimits(t *testing.T) {
	t.Run("calls", func(t *testing.T) {
		r := runInstalledDemo(t, "chat", "openai/gpt-4.1", providertest.Chat, providertest.BodyStream("/chat/completions"), "OPENAI_API_KEY",
			"{install_dir}/bin/testagent -wire chat -task {task_file}", "agent.step_limit=2")
		id := r.insts[0].InstanceID
		rec := r.out.History()[id][0]
		if rec.ExitStatus != model.StatusLimitsExceeded || rec.APICalls != 2 {
			t.Errorf("record %+v, want LimitsExceeded after 2 calls", rec)
		}
		ag := readTraj(t, r.out, id)["info"].(map[string]any)["swebench_run"].(map[string]any)["agent"].(map[string]any)
		if ag["ended"] != model.StatusLimitsExceeded {
			t.Errorf("agent info %v", ag)
		}
	})
	t.Run("cost", func(t *testing.T) {
		r := runInstalledDemo(t, "chat", "openai/gpt-4.1", providertest.Chat, providertest.BodyStream("/chat/completions"), "OPENAI_API_KEY",
			"{install_dir}/bin/testagent -wire chat -task {task_file}", "agent.cost_limit=0.0001")
		rec := r.out.History()[r.insts[0].InstanceID][0]
		// The first call ends past the limit (the limit sees the calls that ended): the second is refused.
		if rec.ExitStatus != model.StatusLimitsExceeded || rec.APICalls != 1 || rec.Cost <= 0.0001 {
			t.Errorf("record %+v, want LimitsExceeded after 1 call past $0.0001", rec)
		}
	})
	t.Run("the run's budget", func(t *testing.T) {
		runBudget = model.NewBudget(0.0001)
		defer func() { runBudget = nil }()
		r := runInstalledDemo(t, "chat", "openai/gpt-4.1", providertest.Chat, providertest.BodyStream("/chat/completions"), "OPENAI_API_KEY",
			"{install_dir}/bin/testagent -wire chat -task {task_file}")
		rec := r.out.History()[r.insts[0].InstanceID][0]
		// The first call spends past the budget; the next is refused before the provider (admitted
		// by the proxy, refused by the model layer's budget: 2 calls, 1 answered).
		if rec.ExitStatus != model.StatusRunBudgetExhausted || rec.Category != results.CategoryUnfinished || rec.Steps != 1 {
			t.Errorf("record %+v, want RunBudgetExhausted (unfinished) after 1 answered call", rec)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		r := runInstalledDemo(t, "chat", "openai/gpt-4.1", providertest.Chat, providertest.BodyStream("/chat/completions"), "OPENAI_API_KEY",
			"(setsid {install_dir}/bin/testagent -sleep 300s &) ; {install_dir}/bin/testagent -sleep 300s", "agent.installed.timeout=3")
		id := r.insts[0].InstanceID
		rec := r.out.History()[id][0]
		if rec.ExitStatus != agent.StatusTimeExceeded {
			t.Errorf("record %+v, want TimeExceeded", rec)
		}
		ag := readTraj(t, r.out, id)["info"].(map[string]any)["swebench_run"].(map[string]any)["agent"].(map[string]any)
		if ag["timed_out"] != true || ag["leftover_processes"] != nil {
			left, _ := os.ReadFile(filepath.Join(r.out.Path(), id, "agent", "leftover_processes.txt"))
			t.Errorf("agent info %v; left running:\n%s", ag, left)
		}
	})
	t.Run("the run's key refused", func(t *testing.T) {
		refuseKey = true
		defer func() { refuseKey = false }()
		r := runInstalledDemo(t, "chat", "openai/gpt-4.1", providertest.Chat, providertest.BodyStream("/chat/completions"), "OPENAI_API_KEY",
			"{install_dir}/bin/testagent -wire chat -task {task_file}")
		if r.runErr == nil || !errors.Is(r.runErr, model.ErrFatal) {
			t.Errorf("run error %v, want the cell stopped by a fatal model error", r.runErr)
		}
		rec := r.out.History()[r.insts[0].InstanceID][0]
		if rec.Category != results.CategoryInfrastructure {
			t.Errorf("record %+v, want an infrastructure failure (nothing learned about the model)", rec)
		}
	})
	t.Run("left running after a normal exit", func(t *testing.T) {
		r := runInstalledDemo(t, "chat", "openai/gpt-4.1", providertest.Chat, providertest.BodyStream("/chat/completions"), "OPENAI_API_KEY",
			// The agent exits only once its child is in a session of its own: before that, the end of
			// the agent's command would take the child with it (its process group), and nothing
			// would be left for the probe to find.
			"rm -f /tmp/detached; setsid sh -c 'touch /tmp/detached; exec sleep 300' >/dev/null 2>&1 </dev/null & "+
				"while [ ! -e /tmp/detached ]; do sleep 0.05; done; echo started")
		id := r.insts[0].InstanceID
		left, err := os.ReadFile(filepath.Join(r.out.Path(), id, "agent", "leftover_processes.txt"))
		if err != nil || !strings.Contains(string(left), "sleep 300") {
			t.Errorf("the probe missed a process the agent left: %q, %v", left, err)
		}
	})
}
