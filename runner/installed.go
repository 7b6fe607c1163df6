package runner

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/agent/installed"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/model/proxy"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/sandbox"
)

// InstalledAgent is a cell's installed agent (agent.kind: installed): the resolved profile,
// the verified install and the run's model proxy, which cmd starts where the backend's
// sandboxes reach it. Its instances run as one long command each (runInstalled).
type InstalledAgent struct {
	Spec    installed.Spec
	Install *installed.Install
	Proxy   *proxy.Proxy
}

// Exit statuses of installed agents besides the loop's (Submitted: the agent exited 0;
// LimitsExceeded, RunBudgetExhausted: the proxy ended it; TimeExceeded: its wall-clock limit).
const (
	// StatusAgentFailed: the installed agent exited with a non-zero code on its own.
	StatusAgentFailed = "AgentFailed"
	// StatusAgentInstallFailed: its install could not be copied or unpacked into the sandbox
	// (an infrastructure failure, retried).
	StatusAgentInstallFailed = "AgentInstallFailed"
)

func init() { infrastructureStatuses[StatusAgentInstallFailed] = true }

// Files of an installed agent in the sandbox.
const (
	agentHome     = "/tmp/swebench-run-agent-home"
	agentLogs     = "/tmp/swebench-run-agent-logs" // $SWEBENCH_RUN_AGENT_LOGS: collected as the profiles' session folders are
	installTar    = "/tmp/swebench-run-agent-install.tar"
	maxAgentOut   = 8 << 20  // stdout kept (first and last halves)
	maxSessionB64 = 64 << 20 // the session files' archive, base64
)

// installedRun is what runInstalled needs of runInstance.
type installedRun struct {
	c      *Cell
	inst   dataset.Instance
	env    *startingEnv
	cwd    string
	traj   *results.Trajectory
	info   *results.RunInfo
	rec    *results.Record
	log    *slog.Logger
	stop   <-chan struct{} // the run's graceful stop (first Ctrl-C): the agent is ended
	finish func(status string, cause error, res *agent.Result) (results.Record, *results.Prediction, error)
}

// runInstalled runs one attempt of an installed agent in the instance's sandbox: it copies the
// install in through the sandbox's file API and unpacks it, writes the task file, registers the
// instance with the proxy (its token and limits: agent.step_limit calls, agent.cost_limit
// dollars), runs the agent's command as one exec with agent.installed.timeout as its limit
// (ending it, on a limit or at the run's end, kills its whole process tree), then computes the
// patch as the working tree's change against the commit the task started from, collects the
// agent's session files and stdout into <out>/<id>/agent/, and records the attempt with the
// proxy's record turned into the trajectory's messages.
func runInstalled(ctx context.Context, r installedRun) (results.Record, *results.Prediction, error) {
	ia := r.c.Installed
	spec := ia.Spec
	s := r.env
	select {
	case <-s.done:
	case <-ctx.Done():
		return r.finish(agent.StatusInterrupted, ctx.Err(), nil)
	}
	if s.err != nil {
		if ctx.Err() != nil {
			return r.finish(agent.StatusInterrupted, ctx.Err(), nil)
		}
		return r.finish(exitStatusOf(s.err, StatusContainerError), s.err, nil)
	}
	if s.onReady != nil {
		s.onReady(s.env.c)
		s.onReady = nil
	}
	sb := s.env.c
	id := r.inst.InstanceID
	dir := filepath.Join(r.c.Out.Path(), id, results.AgentDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return *r.rec, nil, fmt.Errorf("%w: %w", errOutput, err)
	}
	aux := func(cmd string, timeout time.Duration) (sandbox.ExecResult, error) {
		return sb.Exec(ctx, cmd, sandbox.ExecOptions{Timeout: timeout, Cwd: r.cwd, Interpreter: []string{"bash", "-c"}, MaxOutput: maxSessionB64})
	}

	// The install, never rebuilt: the same verified bytes in every sandbox.
	if err := sb.WriteFile(ctx, installTar, ia.Install.Tar); err != nil {
		return r.finish(StatusAgentInstallFailed, envFailure(ctx, fmt.Errorf("copying the agent's install into the sandbox: %w", err)), nil)
	}
	out, err := aux(fmt.Sprintf("mkdir -p %s %s %s && tar -xf %s -C %s && rm -f %s", shq(spec.InstallDir), agentHome, agentLogs, installTar, shq(spec.InstallDir), installTar), 5*time.Minute)
	if err == nil && out.ExitCode != 0 {
		err = fmt.Errorf("unpacking the agent's install into %s exited with %d (the image needs tar): %s", spec.InstallDir, out.ExitCode, out.Output)
	}
	if err != nil {
		return r.finish(StatusAgentInstallFailed, envFailure(ctx, err), nil)
	}
	task := r.inst.TaskText()
	if err := sb.WriteFile(ctx, installed.TaskFile, []byte(task)); err != nil {
		return r.finish(StatusAgentInstallFailed, envFailure(ctx, fmt.Errorf("writing the task file: %w", err)), nil)
	}
	startSHA := ""
	if out, err := aux("git rev-parse HEAD 2>/dev/null", time.Minute); err == nil && out.ExitCode == 0 {
		startSHA = strings.TrimSpace(out.Output)
	}

	pi, err := ia.Proxy.Register(id, proxy.InstanceOptions{
		Limits:     proxy.Limits{Calls: r.c.Config.Agent.StepLimit, Cost: r.c.Config.Agent.CostLimit},
		RecordPath: filepath.Join(dir, "proxy.jsonl"),
	})
	if err != nil {
		return r.finish(StatusModelSetupError, err, nil)
	}
	ended := false
	endProxy := func() proxy.Summary {
		if ended {
			return pi.Summary()
		}
		ended = true
		sum, err := pi.End()
		if err != nil {
			r.log.Warn("the proxy's record of the instance could not be written", "err", err)
		}
		return sum
	}
	defer endProxy()

	// The environment: the proxy in each wire's variables, the profile's, the config's; no
	// forward_env (a host's variables may hold credentials) and nothing else of this host.
	envMap := map[string]string{}
	for _, kv := range pi.Env() {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	vars := installed.Vars{TaskFile: installed.TaskFile, Workdir: r.cwd, InstallDir: spec.InstallDir,
		Model: installed.ModelArg(r.c.ModelName), OpenAIBaseURL: pi.Endpoints().OpenAI, Token: pi.Token()}
	envMap["HOME"] = agentHome
	envMap["SWEBENCH_RUN_AGENT_LOGS"] = agentLogs
	envMap["SWEBENCH_RUN_TASK_FILE"] = installed.TaskFile
	for k, v := range r.c.Config.Environment.Env {
		envMap[k] = v
	}
	for k, v := range spec.Env {
		envMap[k] = installed.Expand(v, vars)
	}
	command := installed.Expand(spec.Command, vars)
	timeout := time.Duration(spec.TimeoutSeconds * float64(time.Second))
	run := &results.InstalledAgent{Kind: agent.KindInstalled, Name: spec.Name, Version: spec.Version, Wire: spec.Wire,
		Command: command, InstallSHA256: ia.Install.SHA256, StartSHA: startSHA, ExitCode: -1,
		Record: results.AgentDir + "/proxy.jsonl", Stdout: results.AgentDir + "/stdout.txt"}
	r.info.Agent = run

	// The agent: one exec, ended by the proxy's Done (a limit, the budget), by the run's
	// cancellation, or by its timeout; each kills every process it started.
	agentCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := make(chan struct{})
	var byStop atomic.Bool
	go func() {
		defer close(stopped)
		select {
		case <-pi.Done():
			cancel()
		case <-r.stop:
			byStop.Store(true)
			cancel()
		case <-agentCtx.Done():
		}
	}()
	r.rec.FirstStep = unix(time.Now())
	start := time.Now()
	res, execErr := sb.Exec(agentCtx, command, sandbox.ExecOptions{Timeout: timeout, Cwd: r.cwd, Env: envMap,
		Interpreter: []string{"bash", "-c"}, MaxOutput: maxAgentOut})
	cancel()
	<-stopped
	run.DurationS = time.Since(start).Seconds()
	if execErr == nil {
		run.ExitCode, run.TimedOut = res.ExitCode, res.TimedOut
		if res.TimedOut {
			run.ExitCode = -1
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "stdout.txt"), []byte(res.Output), 0o644); err != nil {
		return *r.rec, nil, fmt.Errorf("%w: %w", errOutput, err)
	}

	// The agent is gone: end its token (a call whose reply it already read may still be
	// finishing in the proxy, and may be what ended it), then read why the proxy stopped.
	sum := endProxy()
	status, cause := agent.StatusSubmitted, error(nil)
	proxyErr := pi.Err()
	switch {
	case ctx.Err() != nil:
		status, cause, run.Ended = agent.StatusInterrupted, ctx.Err(), agent.StatusInterrupted
	case byStop.Load() && proxyErr == nil:
		status, run.Ended = agent.StatusInterrupted, agent.StatusInterrupted
		cause = errors.New("the run was stopped (Ctrl-C): the agent was ended with every process it started")
	case proxyErr != nil:
		status, cause = exitStatusOf(proxyErr, model.StatusLimitsExceeded), proxyErr
		run.Ended = status
	case execErr != nil:
		cause = envFailure(ctx, execErr)
		status = exitStatusOf(cause, StatusEnvironmentError)
	case res.TimedOut:
		status, run.Ended = agent.StatusTimeExceeded, agent.StatusTimeExceeded
		cause = fmt.Errorf("the agent ran past agent.installed.timeout (%s) and was killed with every process it started", timeout)
	case res.ExitCode != 0:
		status = StatusAgentFailed
	}

	// What the agent left running: nothing, when ending it ended its whole process tree.
	if ctx.Err() == nil && (execErr == nil || !isDied(execErr)) {
		if out, err := aux(leftoverProbe, time.Minute); err == nil && out.ExitCode == 0 {
			if left := strings.TrimSpace(out.Output); left != "" {
				run.LeftoverProcesses = strings.Count(left, "\n") + 1
				r.log.Warn("processes of the agent outlived it", "processes", left)
				_ = os.WriteFile(filepath.Join(dir, "leftover_processes.txt"), []byte(left+"\n"), 0o644)
				var pids []string
				for _, line := range strings.Split(left, "\n") {
					if pid, _, _ := strings.Cut(line, " "); pid != "" && strings.Trim(pid, "0123456789") == "" {
						pids = append(pids, pid)
					}
				}
				if len(pids) > 0 { // they would change the tree while the patch is taken
					_, _ = aux("kill -KILL "+strings.Join(pids, " ")+" 2>/dev/null; true", time.Minute)
				}
			}
		}
	}

	// The patch: the tree's change against the task's start, whatever the agent did to the
	// index or the history (it may have committed).
	patch := ""
	if ctx.Err() == nil && (execErr == nil || status != StatusEnvironmentError && !isDied(execErr)) {
		base := startSHA
		if base == "" {
			base = "HEAD"
		}
		out, err := aux("git add -A >/dev/null 2>&1; git -c core.quotepath=false diff --cached "+shq(base)+" --", 5*time.Minute)
		if err != nil {
			r.log.Warn("computing the patch failed", "err", err)
		} else if out.ExitCode == 0 {
			patch = out.Output
		}
		if n, err := collectSessions(ctx, aux, append(append([]string{}, spec.Sessions...), agentLogs), filepath.Join(dir, "sessions")); err != nil {
			r.log.Warn("collecting the agent's session files failed", "err", err)
		} else if n > 0 {
			run.Sessions = results.AgentDir + "/sessions/"
		}
	}
	calls, torn, err := proxy.ReadRecord(filepath.Join(dir, "proxy.jsonl"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		r.log.Warn("reading the proxy's record failed", "err", err)
	}
	run.TornRecord = torn
	ares := agent.Result{Submission: patch, Stats: agent.Stats{Cost: sum.Cost, APICalls: sum.Calls}}
	ares.Messages = installed.Messages(task, calls)
	for _, c := range calls {
		ares.Stats.Usage.InputTokens += c.Usage.InputTokens
		ares.Stats.Usage.OutputTokens += c.Usage.OutputTokens
		ares.Stats.Usage.CacheReadTokens += c.Usage.CacheReadTokens
		ares.Stats.Usage.CacheWriteTokens += c.Usage.CacheWriteTokens
		ares.Stats.Usage.ReasoningTokens += c.Usage.ReasoningTokens
		if (c.Kind == "" || c.Kind == "generate") && c.HTTPStatus == 200 {
			ares.Stats.Steps = append(ares.Stats.Steps, agent.StepTiming{Model: time.Duration(c.DurationMS * float64(time.Millisecond))})
		}
	}
	exit := agent.Message{"role": "exit", "content": fmt.Sprintf("the installed agent %s exited with %d", spec.Name, run.ExitCode),
		"extra": map[string]any{"exit_status": status, "submission": patch}}
	if cause != nil {
		exit["content"] = cause.Error()
		exit["extra"].(map[string]any)["exception_str"] = cause.Error()
	}
	ares.Messages = append(ares.Messages, exit)
	ares.ExitStatus = status
	rec, pred, err := r.finish(status, cause, &ares)
	if err == nil && cause != nil && errors.Is(cause, model.ErrFatal) && !errors.Is(cause, model.ErrBudgetExhausted) {
		// Every other instance of the cell would fail the same way (the run's key refused).
		return rec, pred, &fatalModelError{cause}
	}
	return rec, pred, err
}

func exitStatusOf(err error, def string) string {
	var es agent.ExitStatuser
	if errors.As(err, &es) && es.ExitStatus() != "" {
		return es.ExitStatus()
	}
	return def
}

func isDied(err error) bool {
	var de *sandbox.DiedError
	return errors.As(err, &de) || errors.Is(err, sandbox.ErrBackendDown)
}

// leftoverProbe lists the sandbox's processes other than its main process, the launcher and
// the probe itself (its shell and the exec's wrapper), as "PID ARGS" lines, with bash builtins
// only (a subprocess would list itself).
const leftoverProbe = `for d in /proc/[0-9]*; do p=${d#/proc/}; ` +
	`if [ "$p" = 1 ] || [ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] || [ "$p" = "$PPID" ]; then continue; fi; ` +
	`a=(); mapfile -d '' a < "$d/cmdline" 2>/dev/null || continue; [ ${#a[@]} -eq 0 ] && continue; c="${a[*]}"; ` +
	`case "$c" in *"/.swebench-run-"*) continue;; esac; echo "$p $c"; done; true`

// shq quotes s for bash.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// collectSessions copies the files under the sandbox's folders dirs into dest, as a tar
// stream the sandbox prints in base64. What comes back is untrusted: only regular files and
// folders, no path out of dest, bounded in size.
func collectSessions(ctx context.Context, aux func(string, time.Duration) (sandbox.ExecResult, error), dirs []string, dest string) (int, error) {
	var rel []string
	for _, d := range dirs {
		d = path.Clean(d)
		if path.IsAbs(d) && d != "/" {
			rel = append(rel, shq(strings.TrimPrefix(d, "/")))
		}
	}
	if len(rel) == 0 {
		return 0, nil
	}
	sort.Strings(rel)
	cmd := "cd / && ls -d " + strings.Join(rel, " ") + " 2>/dev/null | tar -cf - -T - 2>/dev/null | base64 -w0"
	out, err := aux(cmd, 5*time.Minute)
	if err != nil {
		return 0, err
	}
	if out.TruncatedBytes > 0 {
		return 0, fmt.Errorf("the session files are over %d bytes: not collected", maxSessionB64/4*3)
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(out.Output))
	if err != nil || len(data) == 0 {
		return 0, err
	}
	tr := tar.NewReader(bytes.NewReader(data))
	n := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		name := path.Clean("/" + h.Name)[1:]
		if name == "" {
			continue
		}
		target := filepath.Join(dest, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return n, err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return n, err
			}
			b, err := io.ReadAll(io.LimitReader(tr, maxSessionB64))
			if err != nil {
				return n, err
			}
			if err := os.WriteFile(target, b, 0o644); err != nil {
				return n, err
			}
			n++
		}
	}
}
