// Package browsertest drives a real headless Chromium for tests of the HTML report: it finds the
// browser (Debian's chromium on PATH), opens pages, collects what they write to the console,
// evaluates JavaScript, and keeps screenshots as test artefacts. Without a browser, a test skips —
// except when CI is set, where it fails. The browser is always stopped when the test ends.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Timeout bounds every single browser action.
const Timeout = 60 * time.Second

// Browser is a running headless Chromium.
type Browser struct {
	ctx context.Context
}

// Find returns the path of the browser: $SWEBENCH_RUN_CHROMIUM, else chromium (or
// chromium-browser, google-chrome) on PATH.
func Find() (string, error) {
	if p := os.Getenv("SWEBENCH_RUN_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium on PATH (install Debian's: apt-get install -y chromium)")
}

// Start starts a headless browser, stopped when the test ends (also when it fails).
func Start(t testing.TB) *Browser {
	t.Helper()
	path, err := Find()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and %v", err)
		}
		t.Skip(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // tests run as root in CI
		chromedp.DisableGPU,
		chromedp.WindowSize(1360, 900),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser, bound to ctx only
		t.Fatalf("start %s: %v", path, err)
	}
	return &Browser{ctx: ctx}
}

// Page is one tab, with the console messages it wrote.
type Page struct {
	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	msgs   []chromedp.ConsoleMessage
	done   chan struct{}
}

// Open opens url in a new tab of a 1360×900 window. The tab closes when the test ends.
func (b *Browser) Open(t testing.TB, url string) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	p := &Page{t: t, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		cancel()
		t.Fatalf("open a tab: %v", err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		defer close(p.done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.msgs = append(p.msgs, m)
			p.mu.Unlock()
		}
	}()
	t.Cleanup(p.Close)
	p.Navigate(url)
	return p
}

// Close closes the tab and waits for the console reader.
func (p *Page) Close() {
	p.cancel()
	<-p.done
}

// Navigate loads url in the tab.
func (p *Page) Navigate(url string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		p.t.Fatalf("navigate to %s: %v", url, err)
	}
}

// Errors returns the errors the page wrote to the console so far: console.error calls, uncaught
// exceptions, and browser log errors (a script or file that failed to load).
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.msgs {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
			where := m.URL
			if where != "" {
				where = fmt.Sprintf(" (%s:%d)", where, m.Line+1)
			}
			out = append(out, m.String()+where)
		}
	}
	return out
}

// Messages returns every console message so far, as text.
func (p *Page) Messages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, len(p.msgs))
	for k, m := range p.msgs {
		out[k] = m.String()
	}
	return out
}

// Eval evaluates a JavaScript expression (awaiting a promise) and decodes its value.
func Eval[T any](p *Page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// Do runs actions in the tab.
func (p *Page) Do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
}

// WaitFor waits until the JavaScript condition is true, and fails the test with what (and the
// console's errors) after timeout.
func (p *Page) WaitFor(cond, what string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, Timeout)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+cond+")"))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			p.Screenshot("timeout-" + sanitize(what))
			p.t.Fatalf("waited %s for %s (%s); last error %v; console errors: %v", timeout, what, cond, err, p.Errors())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// MaxShotHeight caps the height of a screenshot: a long page is taken from its top.
const MaxShotHeight = 3600

// Screenshot saves a PNG of the tab (the whole page, up to MaxShotHeight pixels) under
// ArtifactsDir as <test>-<name>.png and returns its path.
func (p *Page) Screenshot(name string) string {
	p.t.Helper()
	path := filepath.Join(ArtifactsDir(p.t), sanitize(p.t.Name())+"-"+sanitize(name)+".png")
	if err := p.ScreenshotTo(path, MaxShotHeight); err != nil {
		p.t.Errorf("screenshot %s: %v", name, err)
		return ""
	}
	p.t.Logf("screenshot: %s", path)
	return path
}

// ScreenshotTo saves a PNG of the page's top, at most maxHeight pixels tall, as path.
func (p *Page) ScreenshotTo(path string, maxHeight int64) error {
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	height, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`Math.ceil(document.documentElement.scrollHeight)`))
	if err != nil {
		return err
	}
	height = max(900, min(height, maxHeight))
	// A viewport as tall as the page draws sticky headers where a reader sees them.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1360, height)); err != nil {
		return err
	}
	time.Sleep(150 * time.Millisecond) // layout and lazy rows after the resize
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if rerr := chromedp.Do(ctx, chromedp.EmulateViewport(1360, 900)); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// ArtifactsDir is where tests keep their artefacts: $SWEBENCH_RUN_ARTIFACTS, else test-artifacts/
// in the repository root (listed in .gitignore). It is created when needed.
func ArtifactsDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("SWEBENCH_RUN_ARTIFACTS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artefacts: %v", err)
	}
	return dir
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func sanitize(s string) string { return strings.Trim(unsafeName.ReplaceAllString(s, "_"), "_") }
