package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// dockerProxy forwards TCP connections to the local Docker socket: a second "engine" address
// that the test can cut off at will, as if that host had died.
type dockerProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	down  bool
}

func newDockerProxy(t *testing.T) *dockerProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dockerProxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("unix", "/var/run/docker.sock")
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			if p.down {
				c.Close()
				d.Close()
				p.mu.Unlock()
				continue
			}
			p.conns = append(p.conns, c, d)
			p.mu.Unlock()
			go func() { io.Copy(d, c); d.Close() }()
			go func() { io.Copy(c, d); c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *dockerProxy) addr() string { return "tcp://" + p.ln.Addr().String() }

// cut kills every connection and refuses new ones.
func (p *dockerProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
}

// Two engines; one dies mid-run. Its instances end EngineDown and are retried at once on the
// engine that still answers; the run completes every instance and leaves no container.
func TestEngineFailover(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	dir := t.TempDir()
	var rows, script strings.Builder
	var ids []string
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("fail__over-%d", i)
		ids = append(ids, id)
		fmt.Fprintf(&rows, `{"instance_id": %q, "problem_statement": "say hi", "image": %q}`+"\n", id, testenv.BaseImage)
		fmt.Fprintf(&script, "%s:\n  - commands: [\"echo hi\"]\n    delay: 4s\n  - commands: [\"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo 'patch of %s'\"]\n", id, id)
	}
	split := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(split, []byte(rows.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "scripted.yaml"), []byte(script.String()), 0o644)

	proxy := newDockerProxy(t)
	out := filepath.Join(dir, "out")
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		defer close(done)
		code, _, stderr = runCLI(t, "run", "--split", split, "--model", "scripted", "-o", out, "-c", "environment.cwd=/tmp",
			"--docker-host", "default,workers=2", "--docker-host", proxy.addr()+",workers=2", "--progress", "lines")
	}()
	// Cut the second engine once its instances are in their first (4 s) turn.
	time.Sleep(2500 * time.Millisecond)
	proxy.cut()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("the run did not finish after an engine died")
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	history, _, err := results.ReadLedger(out)
	if err != nil {
		t.Fatal(err)
	}
	down := 0
	for _, id := range ids {
		h := history[id]
		last := h[len(h)-1]
		if last.ExitStatus != "Submitted" || !strings.Contains(last.Host, "docker.sock") {
			t.Errorf("%s: last attempt %s on %s, want Submitted on the surviving engine", id, last.ExitStatus, last.Host)
		}
		for _, r := range h[:len(h)-1] {
			if r.ExitStatus == "EngineDown" {
				down++
			}
		}
	}
	t.Logf("run output:\n%s", stderr)
	if down == 0 {
		t.Errorf("no attempt ended EngineDown; the engine was cut while instances ran on it:\n%s", stderr)
	}
	assertNoContainers(t, runID(t, out))
}
