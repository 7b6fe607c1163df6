package dockerenv_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// testRegistry is a real registry (Debian's docker-registry) on 127.0.0.1, started by
// scripts/start-registry.sh with its storage and access log in a temporary directory.
type testRegistry struct {
	Addr   string
	dir    string
	port   int
	script string
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func startRegistry(t *testing.T) *testRegistry {
	t.Helper()
	testenv.Docker(t) // the registry serves the engine: skips (or fails in CI) without one
	if _, err := exec.LookPath("docker-registry"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set and docker-registry is not installed (apt-get install docker-registry)")
		}
		t.Skip("docker-registry is not installed (apt-get install docker-registry)")
	}
	r := &testRegistry{dir: t.TempDir(), port: freePort(t), script: filepath.Join(testenv.RepoRoot(t), "scripts", "start-registry.sh")}
	r.Addr = "127.0.0.1:" + strconv.Itoa(r.port)
	t.Cleanup(func() { r.stop(t) })
	r.start(t)
	return r
}

func (r *testRegistry) start(t testing.TB) {
	t.Helper()
	out, err := exec.Command(r.script, "--port", strconv.Itoa(r.port), "--dir", r.dir).CombinedOutput()
	if err != nil {
		t.Fatalf("start registry: %v: %s", err, out)
	}
}

func (r *testRegistry) stop(t testing.TB) {
	t.Helper()
	if out, err := exec.Command(r.script, "--port", strconv.Itoa(r.port), "--dir", r.dir, "--stop").CombinedOutput(); err != nil {
		t.Errorf("stop registry: %v: %s", err, out)
	}
}

// manifestGets counts the registry's answers to manifest GETs of repo: one per pull.
func (r *testRegistry) manifestGets(t *testing.T, repo string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, "registry.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), `"GET /v2/`+repo+`/manifests/`)
}

// pushImage builds an image of one layer holding size random bytes, pushes it to the registry as
// repo:latest and removes it from the engine, so that the next use pulls it. It returns the
// reference under host (the registry's address unless a proxy's is given).
func (r *testRegistry) pushImage(t *testing.T, repo string, size int) string {
	t.Helper()
	ref := r.Addr + "/" + repo + ":latest"
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	data := make([]byte, size)
	_, _ = rand.Read(data)
	if err := tw.WriteHeader(&tar.Header{Name: "blob", Mode: 0o644, Size: int64(size), ModTime: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write(data)
	_ = tw.Close()
	cmd := exec.Command("docker", "import", "-", ref)
	cmd.Stdin = &buf
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docker import: %v: %s", err, out)
	}
	t.Cleanup(func() { removeImage(ref) })
	if out, err := exec.Command("docker", "push", ref).CombinedOutput(); err != nil {
		t.Fatalf("docker push: %v: %s", err, out)
	}
	removeImage(ref)
	return ref
}

func removeImage(ref string) { _ = exec.Command("docker", "rmi", "-f", ref).Run() }

func imagePresent(ref string) bool {
	return exec.Command("docker", "image", "inspect", ref).Run() == nil
}

// uniqueRepo names a repository per test, so that tests never share an image.
func uniqueRepo(t *testing.T, name string) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return fmt.Sprintf("swebench-run-test/%s-%x", name, b)
}

// connect opens the default engine with opts, closed at the end of the test.
func connect(t *testing.T, opts dockerenv.Options) *dockerenv.Engine {
	t.Helper()
	testenv.Docker(t) // skips (or fails in CI) without a daemon
	e, err := dockerenv.ConnectWith(context.Background(), "", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// logHook is a slog handler that calls fn for every record.
type logHook struct{ fn func(slog.Record) }

func (h logHook) Enabled(context.Context, slog.Level) bool      { return true }
func (h logHook) Handle(_ context.Context, r slog.Record) error { h.fn(r); return nil }
func (h logHook) WithAttrs([]slog.Attr) slog.Handler            { return h }
func (h logHook) WithGroup(string) slog.Handler                 { return h }

// countingLogger counts the records with message msg, calling onEach (if not nil) with the count.
func countingLogger(msg string, onEach func(n int)) (*slog.Logger, *atomic.Int64) {
	var n atomic.Int64
	return slog.New(logHook{fn: func(r slog.Record) {
		if r.Message == msg {
			k := n.Add(1)
			if onEach != nil {
				onEach(int(k))
			}
		}
	}}), &n
}

// tcpProxy forwards 127.0.0.1:port to a target, at most rate bytes per second from the target
// (0 = unthrottled), and stops forwarding altogether after stallAfter bytes from the target
// (0 = never): a registry whose network stalls, or crawls.
type tcpProxy struct {
	Addr       string
	target     string
	rate       int
	stallAfter int64
	sent       atomic.Int64
	l          net.Listener
	mu         sync.Mutex
	conns      []net.Conn
	done       chan struct{}
}

func startProxy(t *testing.T, target string, rate int, stallAfter int64) *tcpProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{Addr: l.Addr().String(), target: target, rate: rate, stallAfter: stallAfter, l: l, done: make(chan struct{})}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		close(p.done)
		l.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(up, c); up.Close() }()
			go func() { defer wg.Done(); p.copyDown(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *tcpProxy) copyDown(dst, src net.Conn) {
	buf := make([]byte, 16<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if p.stallAfter > 0 && p.sent.Load()+int64(n) > p.stallAfter {
				<-p.done // stall: hold the connection open, forward nothing
				return
			}
			if p.rate > 0 {
				select {
				case <-p.done:
					return
				case <-time.After(time.Duration(float64(n) / float64(p.rate) * float64(time.Second))):
				}
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
			p.sent.Add(int64(n))
		}
		if err != nil {
			return
		}
	}
}
