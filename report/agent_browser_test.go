package report_test

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/agent/installed"
	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/model/proxy"
	"github.com/swebench-run/swebench-run/report"
	"github.com/swebench-run/swebench-run/report/reporttest"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/browsertest"
	"github.com/swebench-run/swebench-run/testutil/providertest"
)

// installedRun writes a run of one installed-agent instance as the runner writes it: a real
// proxy in front of a fake provider records two calls of the agent (the second refused by the
// call limit), and the trajectory is made of that record.
func installedRun(t *testing.T) (string, string) {
	t.Helper()
	const id, task = "demo__agent-1", "Fix the bug in calc.py."
	t.Setenv("OPENAI_API_KEY", "sk-test")
	fake := providertest.New(t, providertest.Script{Tasks: map[string]string{id: task},
		Turns: map[string][]providertest.Turn{id: {{Content: "Looking.", Commands: []string{"cat calc.py"}}, {Content: "Done.", Commands: []string{"echo ok"}}}}},
		providertest.Options{Wire: providertest.Chat, Path: providertest.BodyStream("/chat/completions")})
	up, err := model.NewUpstream(model.Config{ModelName: "openai/gpt-4.1", BaseURL: fake.URL, Prices: map[string]model.Price{"openai/gpt-4.1": {Input: 2, Output: 8}}}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.Start(proxy.Config{Upstream: up})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	dir := t.TempDir()
	out, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	record := filepath.Join(dir, id, "agent", "proxy.jsonl")
	pi, err := p.Register(id, proxy.InstanceOptions{Limits: proxy.Limits{Calls: 1}, RecordPath: record})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		req, _ := http.NewRequest("POST", pi.Endpoints().OpenAI+"/chat/completions", bytes.NewReader([]byte(`{"model":"gpt-x","messages":[{"role":"user","content":"`+task+`"}]}`)))
		req.Header.Set("Authorization", "Bearer "+pi.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	sum, _ := pi.End()
	calls, _, err := proxy.ReadRecord(record)
	if err != nil || len(calls) != 2 {
		t.Fatalf("record: %d calls, %v", len(calls), err)
	}
	msgs := installed.Messages(task, calls)
	traj := &results.Trajectory{InstanceID: id, TrajectoryFormat: results.TrajectoryFormat, Info: results.TrajectoryInfo{
		ExitStatus: model.StatusLimitsExceeded, ModelStats: results.ModelStats{InstanceCost: sum.Cost, APICalls: sum.Calls},
		SwebenchRun: &results.RunInfo{Version: "test", Agent: &results.InstalledAgent{Kind: "installed", Name: "custom", Version: "1.0", Wire: "any",
			Command: "/opt/swebench-run/agent/bin/testagent -task /tmp/swebench-run-task.md", InstallSHA256: "0123456789abcdef", ExitCode: -1,
			Ended: model.StatusLimitsExceeded, Record: "agent/proxy.jsonl", Stdout: "agent/stdout.txt"}}}}
	for _, m := range msgs {
		traj.Messages = append(traj.Messages, m)
	}
	if err := out.WriteTrajectory(traj); err != nil {
		t.Fatal(err)
	}
	if err := out.Record(results.Record{InstanceID: id, Attempt: 1, ExitStatus: model.StatusLimitsExceeded, Category: results.CategoryModel, ModelName: "openai/gpt-4.1", Cost: sum.Cost, APICalls: sum.Calls},
		&results.Prediction{InstanceID: id, ModelNameOrPath: "openai/gpt-4.1", ModelPatch: ""}); err != nil {
		t.Fatal(err)
	}
	return dir, id
}

// An installed agent's instance page shows the agent (its exit, why it was ended) and the
// proxy's record of every call beside the trajectory made of it.
func TestReportInstalledAgentInBrowser(t *testing.T) {
	b := browsertest.Start(t)
	dir, id := installedRun(t)
	rep, err := report.Load(context.Background(), []compare.Source{{Path: dir}}, report.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	reporttest.Goto(t, p, "#/i/"+id+"?r=0", `document.querySelector('#agent [data-k="proxy-calls"]')`, "the installed agent's instance")
	if got := browsertest.Eval[string](p, `[...document.querySelectorAll('#agent tbody tr td:nth-child(5)')].map(td => td.textContent).join(',')`); got != "200,429" {
		t.Errorf("the proxy calls' statuses %q, want 200,429", got)
	}
	if got := browsertest.Eval[string](p, `document.querySelector('#agent [data-k="agent-ended"]').textContent`); got != model.StatusLimitsExceeded {
		t.Errorf("ended by %q", got)
	}
	if got := browsertest.Eval[string](p, `document.querySelector('#agent tbody tr:nth-child(2) td:last-child').textContent`); got == "" {
		t.Error("the refused call shows no error")
	}
	if n := browsertest.Eval[int](p, `document.querySelectorAll('#trajectory .step').length`); n == 0 {
		t.Error("the trajectory made of the record shows no step")
	}
	p.Screenshot("installed-agent")
	reporttest.NoConsoleErrors(t, p)
}
