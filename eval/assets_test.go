package eval

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// assetServer stands for raw.githubusercontent.com: every URL is served from it (the client's
// transport sends all requests there), each file's bytes derived from its path, except paths in
// missing, which answer 404.
func assetServer(t *testing.T, missing map[string]bool) (*http.Client, func(path string) []byte) {
	body := func(p string) []byte { return []byte("\x89PNG\r\n\x1a\nfixture " + p) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if missing[r.URL.Path] {
			http.NotFound(w, r)
			return
		}
		w.Write(body(r.URL.Path))
	}))
	t.Cleanup(srv.Close)
	target, _ := url.Parse(srv.URL)
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
	return client, body
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// multimodalRow is a row of the SWE-bench Multimodal fixture whose test_patch has image assets.
func multimodalRow(t *testing.T, id string) dataset.Instance {
	t.Helper()
	l, err := dataset.Load(context.Background(), testenv.Fixtures(t, "datasets", "SWE-bench_Multimodal.dev.parquet"),
		dataset.LoadOptions{Selection: &dataset.Selection{IDs: []string{id}}})
	if err != nil {
		t.Fatal(err)
	}
	return l.Instances[0]
}

// TestImageAssetsReachTheEvalContainer stages a SWE-bench Multimodal fixture row's test_patch
// assets in a real container, as the harness does: the files land in /image_assets, the eval
// script restores them into the working tree just before the test output starts, and an asset
// that cannot be downloaded is skipped and logged.
func TestImageAssetsReachTheEvalContainer(t *testing.T) {
	engine := testenv.Docker(t)
	row := multimodalRow(t, "chartjs__Chart.js-9764")
	assets, err := row.ImageAssets()
	if err != nil || len(assets.TestPatch) != 6 {
		t.Fatalf("fixture row: %d test_patch assets, %v; want 6", len(assets.TestPatch), err)
	}
	lost := assets.TestPatch[5]
	lostURL, _ := url.Parse(lost.URL)
	client, body := assetServer(t, map[string]bool{lostURL.Path: true})

	// The row as it is, but run in a demo image with a script that shows what the tests would see.
	const image = "swebench-run-demo/sweb.eval.x86_64.demo_1776_slugkit-23:latest"
	testenv.RequireImage(t, engine, image)
	row.Image = image
	row.EvalScript = "#!/bin/bash\nset -uxo pipefail\ncd /testbed\nrm -rf test\n: '>>>>> Start Test Output'\nfind test -type f | sort | xargs sha256sum\nls /image_assets | sort\n: '>>>>> End Test Output'\n"

	rnd := make([]byte, 4)
	rand.Read(rnd)
	runID := "test-assets-" + hex.EncodeToString(rnd)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		engine.Sweep(ctx, sandbox.Selector{RunID: runID})
	})
	out := t.TempDir()
	ev, err := New(Options{OutDir: out, RunID: runID, AssetClient: client,
		Starter: &SandboxStarter{Backend: engine, RunID: runID}})
	if err != nil {
		t.Fatal(err)
	}
	patch := "diff --git a/NOTES.txt b/NOTES.txt\nnew file mode 100644\n--- /dev/null\n+++ b/NOTES.txt\n@@ -0,0 +1 @@\n+x\n"
	res, err := ev.Evaluate(context.Background(), row, pred(row.InstanceID, patch))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, row.InstanceID)
	logOut, err := os.ReadFile(filepath.Join(dir, testOutputFile))
	if err != nil {
		t.Fatalf("no test output (%s %s: %s): %v", res.Outcome, res.ErrorKind, res.Reason, err)
	}
	for _, a := range assets.TestPatch[:5] {
		sum := sha256.Sum256(body(mustPath(t, a.URL)))
		if want := hex.EncodeToString(sum[:]) + "  " + a.Path; !strings.Contains(string(logOut), want) {
			t.Errorf("the container's working tree lacks %s with the downloaded bytes (want %q)\n%s", a.Path, want, logOut)
		}
		flat := strings.ReplaceAll(a.Path, "/", "__")
		if !strings.Contains(string(logOut), "\n"+flat+"\n") {
			t.Errorf("/image_assets lacks %s", flat)
		}
		if got, err := os.ReadFile(filepath.Join(dir, "image_assets", flat)); err != nil || string(got) != string(body(mustPath(t, a.URL))) {
			t.Errorf("local copy of %s: %v", flat, err)
		}
	}
	if strings.Contains(string(logOut), lost.Path) {
		t.Errorf("the asset that could not be downloaded was staged anyway:\n%s", logOut)
	}

	// eval.sh is the script with the restore commands just before the start marker.
	script, _ := os.ReadFile(filepath.Join(dir, evalScriptFile))
	var restore []string
	for _, a := range assets.TestPatch[:5] {
		flat := strings.ReplaceAll(a.Path, "/", "__")
		restore = append(restore, fmt.Sprintf("mkdir -p $(dirname %s) && cp /image_assets/%s %s", a.Path, flat, a.Path))
	}
	want := strings.Replace(EvalScript(row.EvalScript), ": '>>>>> Start Test Output'", strings.Join(restore, "\n")+"\n: '>>>>> Start Test Output'", 1)
	if string(script) != want {
		t.Errorf("got eval.sh\n%s\nwant\n%s", script, want)
	}
	ilog, _ := os.ReadFile(filepath.Join(dir, instanceLog))
	for _, w := range []string{"Could not fetch image asset " + lost.URL, "Staged 5 patch asset(s) for restore after git apply"} {
		if !strings.Contains(string(ilog), w) {
			t.Errorf("run_instance.log lacks %q:\n%s", w, ilog)
		}
	}
}

func mustPath(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

func TestInjectAssetRestore(t *testing.T) {
	tests := []struct {
		name, script string
		restore      []string
		want         string
	}{
		{"before the start marker", "a\n: '>>>>> Start Test Output'\nb\n", []string{"r1", "r2"}, "a\nr1\nr2\n: '>>>>> Start Test Output'\nb\n"},
		{"nothing to restore", "a\n", nil, "a\n"},
		{"no marker: at the end", "a\n", []string{"r1"}, "a\n\nr1"},
	}
	for _, tt := range tests {
		if got := injectAssetRestore(tt.script, tt.restore); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
