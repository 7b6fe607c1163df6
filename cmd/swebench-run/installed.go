package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/agent/installed"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/model/proxy"
	"github.com/swebench-run/swebench-run/runner"
)

// Environment variables that place the model proxy of installed agents (docs/agents.md).
const (
	envProxyListen    = "SWEBENCH_RUN_PROXY_LISTEN"    // host:port to bind
	envProxyAdvertise = "SWEBENCH_RUN_PROXY_ADVERTISE" // host[:port] the sandboxes reach it at
)

// installedSetup is what prepareInstalled needs to know of the run.
type installedSetup struct {
	split    string
	insts    []dataset.Instance
	budget   *model.Budget
	limiters *model.Limiters
	backend  string // backendDocker or backendKubernetes
	pool     sandboxes
	network  string // --network
	stderr   io.Writer
	install  *installed.Install // verifyInstall's
}

// verifyInstall reads the install of cfg's installed agent and checks it against its pinned
// SHA-256: a mismatch stops the command before anything is written (nil for our loop).
func verifyInstall(cfg *configs.Config) (*installed.Install, error) {
	if cfg.Agent.Kind != agent.KindInstalled {
		return nil, nil
	}
	return installed.Prepare(cfg.Agent.Installed.Install.Path, cfg.Agent.Installed.Install.SHA256)
}

// prepareInstalled prepares the installed agent of cfg (nil for our loop, agent.kind loop):
// the profile resolved, the install read and checked against its pinned SHA-256 (before any
// instance runs), the run's model as an upstream of the proxy (the scripted model served over
// HTTP for the demo), and the proxy started where the backend's sandboxes reach it. The
// returned function stops the proxy (gracefully) and the scripted server.
func prepareInstalled(ctx context.Context, cfg *configs.Config, s installedSetup) (*runner.InstalledAgent, func(), error) {
	if cfg.Agent.Kind != agent.KindInstalled {
		return nil, func() {}, nil
	}
	spec, err := installed.Resolve(cfg.Agent.Installed)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	inst := s.install
	if inst == nil {
		if inst, err = verifyInstall(cfg); err != nil {
			return nil, nil, err
		}
	}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	mc, err := upstreamConfig(cfg, s, &closers)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	up, err := model.NewUpstream(mc, model.Options{Budget: s.budget, Limiters: s.limiters, Env: os.Getenv})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	if spec.Wire != installed.WireAny && !acceptsWire(up, spec.Wire) {
		closeAll()
		return nil, nil, fmt.Errorf("agent.installed.name %s speaks the %s API, which the model %s does not take (the proxy forwards a wire only to a model of that wire, docs/proxy.md): give it a model of its API", spec.Name, spec.Wire, cfg.Model.ModelName)
	}
	listen, err := proxyListen(ctx, s)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	p, err := proxy.Start(proxy.Config{Upstream: up, Listen: listen, Advertise: os.Getenv(envProxyAdvertise)})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	closers = append(closers, func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = p.Close(ctx)
	})
	fmt.Fprintf(s.stderr, "swebench-run: installed agent %s (install %s, sha256 %s); model proxy at %s\n", spec.Name, inst.Source, inst.SHA256[:12], p.URL())
	return &runner.InstalledAgent{Spec: spec, Install: inst, Proxy: p}, closeAll, nil
}

func acceptsWire(up *model.Upstream, wire string) bool {
	switch wire {
	case installed.WireAnthropic:
		return up.Accepts(model.WireAnthropic)
	case installed.WireOpenAIChat:
		return up.Accepts(model.WireChat)
	case installed.WireOpenAIResponses:
		return up.Accepts(model.WireResponses)
	case installed.WireGemini:
		return up.Accepts(model.WireGemini)
	}
	return true
}

// upstreamConfig is the model the proxy forwards to: the run's model section, or for the
// scripted model an OpenAI-compatible server of ours on the loopback that plays its script
// (model.ScriptedHandler), billed at model.ScriptedPrice.
func upstreamConfig(cfg *configs.Config, s installedSetup, closers *[]func()) (model.Config, error) {
	name := cfg.Model.ModelName
	if name != "scripted" && !strings.HasPrefix(name, "scripted:") {
		return modelConfig(cfg, name)
	}
	path := strings.TrimPrefix(strings.TrimPrefix(name, "scripted"), ":")
	if path == "" {
		path = filepath.Join(filepath.Dir(s.split), "scripted.yaml")
	}
	script, err := model.LoadScripted(path)
	if err != nil {
		return model.Config{}, err
	}
	tasks := map[string]string{}
	for _, in := range s.insts {
		tasks[in.InstanceID] = in.TaskText()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return model.Config{}, fmt.Errorf("scripted model server: %w", err)
	}
	srv := &http.Server{Handler: script.ScriptedHandler(tasks), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	*closers = append(*closers, func() { _ = srv.Close() })
	return model.Config{
		ModelName: "openai/scripted", BaseURL: "http://" + ln.Addr().String() + "/v1", APIKey: "scripted",
		Prices: map[string]model.Price{"openai/scripted": model.ScriptedPrice, "scripted": model.ScriptedPrice},
	}, nil
}

// proxyListen is the address the proxy binds: $SWEBENCH_RUN_PROXY_LISTEN, else on Docker the
// gateway of the containers' network (the host as the containers see it), else on Kubernetes
// this host's address on its default route (pods reach the nodes' network).
func proxyListen(ctx context.Context, s installedSetup) (string, error) {
	if v := os.Getenv(envProxyListen); v != "" {
		if _, _, err := net.SplitHostPort(v); err != nil {
			return "", fmt.Errorf("%s=%q: want host:port (port 0: a free one)", envProxyListen, v)
		}
		return v, nil
	}
	if s.backend == backendKubernetes {
		c, err := net.Dial("udp", "192.0.2.1:9") // no packet is sent: the route's source address
		if err != nil {
			return "", fmt.Errorf("model proxy: no address of this host for the pods to reach (%w): give one with %s", err, envProxyListen)
		}
		defer c.Close()
		host, _, _ := net.SplitHostPort(c.LocalAddr().String())
		return net.JoinHostPort(host, "0"), nil
	}
	pool, ok := s.pool.(*dockerenv.Pool)
	if !ok || len(pool.Engines()) == 0 {
		return "", errors.New("model proxy: no Docker engine to find the containers' gateway on")
	}
	e := pool.Engines()[0]
	if len(pool.Engines()) > 1 || strings.HasPrefix(e.Host(), "ssh://") || strings.HasPrefix(e.Host(), "tcp://") {
		fmt.Fprintf(s.stderr, "swebench-run: warning: the model proxy binds this host's side of %s's network; containers of other or remote engines reach it only if %s routes there (docs/agents.md)\n", e.Host(), envProxyAdvertise)
	}
	gw, err := e.Gateway(ctx, s.network)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(gw, "0"), nil
}
