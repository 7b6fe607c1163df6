package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/report/reporttest"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/browsertest"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// compareJSON runs `compare --json` on the inputs and decodes its result.
func compareJSON(t *testing.T, args ...string) *compare.Result {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"compare", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d, stderr:\n%s", code, stderr)
	}
	var res compare.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("compare --json: %v", err)
	}
	return &res
}

// statsJSON runs `stats --json` on an output directory and decodes it.
func statsJSON(t *testing.T, dir string) *results.Stats {
	t.Helper()
	code, stdout, stderr := runCLI(t, "stats", "--json", dir)
	if code != 0 {
		t.Fatalf("stats: exit %d, stderr:\n%s", code, stderr)
	}
	var st results.Stats
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("stats --json: %v", err)
	}
	return &st
}

func problemsOf(insts []dataset.Instance) map[string]string {
	out := map[string]string{}
	for _, in := range insts {
		out[in.InstanceID] = in.ProblemStatement
	}
	return out
}

// The demo run (scripted model, --eval) and its static report in Chromium: no console errors,
// the figures of `stats` and `compare`, search inside one trajectory, a filter and a sort, an
// instance page with its diff and per-test verdicts, and a screenshot of every page.
func TestReportDemo(t *testing.T) {
	split, insts := demoInstances(t)
	b := browsertest.Start(t)
	out := filepath.Join(t.TempDir(), "demo")
	if code, _, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--workers", "2", "-o", out, "--eval", "--progress", "none"); code != 0 {
		t.Fatalf("run: exit %d, stderr:\n%s", code, stderr)
	}
	site := filepath.Join(t.TempDir(), "site")
	code, stdout, stderr := runCLI(t, "report", out, "-o", site)
	if code != 0 {
		t.Fatalf("report: exit %d, stderr:\n%s", code, stderr)
	}
	if want := site + "/index.html\n"; stdout != want {
		t.Errorf("report printed %q, want %q", stdout, want)
	}
	t.Log(strings.TrimSpace(stderr))

	p := reporttest.OpenOverview(t, b, "file://"+filepath.Join(site, "index.html"))
	reporttest.CheckOverview(t, p, compareJSON(t, out))
	st := statsJSON(t, out)
	reporttest.CheckStats(t, p, 0, st)
	if st.Eval == nil || st.Eval.Resolved != len(insts) {
		t.Fatalf("stats: %+v, want every demo instance resolved", st.Eval)
	}
	p.Screenshot("overview")

	word, id := reporttest.UniqueWord(t, reporttest.Trajectories(t, out), problemsOf(insts))
	t.Logf("searching %q, only in the trajectory of %s", word, id)
	reporttest.CheckSearchUnique(t, p, word, id)
	reporttest.CheckFilterAndSort(t, p, "R", len(insts), "steps")
	p.Screenshot("instances")
	// A filter by repository leaves the one instance of that repository.
	reporttest.Goto(t, p, "#/instances", `document.getElementById('f-repo')`, "the table")
	browsertest.Eval[bool](p, `(() => { const s = document.getElementById('f-repo'); s.value = [...s.options].find(o => o.text === 'demo/slugkit').value; s.dispatchEvent(new Event('change')); return true; })()`)
	p.WaitFor(`location.hash.includes('repo=')`, "the repository filter", reporttest.Wait)
	if rows := reporttest.Rows(t, p); len(rows) != 1 || rows[0] != "demo__slugkit-23" {
		t.Errorf("filter by repository demo/slugkit shows %v", rows)
	}

	inst := insts[0].InstanceID
	reporttest.CheckInstance(t, p, inst, 0, filepath.Join(out, "eval", inst, "report.json"), insts[0].Patch)
	if got := browsertest.Eval[string](p, `document.querySelector('.pane pre.prose').textContent`); got != insts[0].ProblemStatement {
		t.Errorf("%s: the problem statement on the page differs from the dataset's", inst)
	}
	p.Screenshot("instance")
	// j on the instance page goes to the next instance of the list.
	browsertest.Eval[bool](p, `document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'j', bubbles: true})), true`)
	p.WaitFor(`document.getElementById('inst-id') && document.getElementById('inst-id').textContent !== `+jsString(inst), "j to open the next instance", reporttest.Wait)
	reporttest.Goto(t, p, "#/compare", `document.querySelector('h1') && document.querySelector('h1').textContent === 'Compare'`, "the compare page")
	p.Screenshot("compare")
	reporttest.NoConsoleErrors(t, p)

	// A sweep of two repeats of the run: one input with its repeats, each cell a row of the
	// runs table and a value of the cell filter.
	sweep := filepath.Join(t.TempDir(), "nightly")
	var cells []compare.Cell
	for r := 1; r <= 2; r++ {
		name := fmt.Sprintf("scripted-r%d", r)
		if err := os.CopyFS(filepath.Join(sweep, name), os.DirFS(out)); err != nil {
			t.Fatal(err)
		}
		cells = append(cells, compare.Cell{Name: name, Variant: "scripted", Dir: name, Model: "scripted", Repeat: r})
	}
	if err := compare.WriteSweep(sweep, &compare.Sweep{SchemaVersion: compare.SweepSchemaVersion, Name: "nightly", Created: time.Now(), Cells: cells}); err != nil {
		t.Fatal(err)
	}
	sweepSite := filepath.Join(t.TempDir(), "sweep-site")
	if code, _, stderr := runCLI(t, "report", sweep, "-o", sweepSite); code != 0 {
		t.Fatalf("report of a sweep: exit %d, stderr:\n%s", code, stderr)
	}
	p.Navigate("file://" + filepath.Join(sweepSite, "index.html"))
	p.WaitFor(`document.querySelector('.input-card [data-k="rate"]')`, "the sweep's overview", reporttest.Wait)
	reporttest.CheckOverview(t, p, compareJSON(t, sweep))
	if got := browsertest.Eval[int](p, `[...document.querySelectorAll('.card h2')].filter(h => h.textContent === 'Runs').length ? document.querySelectorAll('.card table tbody tr').length : 0`); got != 2 {
		t.Errorf("the sweep's runs table has %d rows, want 2 cells", got)
	}
	reporttest.Equal(t, "pass@2", browsertest.Eval[string](p, `document.querySelector('[data-k="passk"]').textContent`), 1, 100)
	reporttest.Goto(t, p, "#/instances?cell=1", `document.getElementById('f-cell') && document.getElementById('shown-count')`, "the cell filter")
	if rows := reporttest.Rows(t, p); len(rows) != len(insts) {
		t.Errorf("cell 2 of the sweep shows %d rows, want %d", len(rows), len(insts))
	}
	p.Screenshot("sweep-instances")
	reporttest.NoConsoleErrors(t, p)

	// Writing again replaces the report; a folder that is no report is refused.
	if code, _, stderr := runCLI(t, "report", out, "-o", site); code != 0 {
		t.Errorf("report over an earlier report: exit %d, %s", code, stderr)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if code, _, stderr := runCLI(t, "report", out, "-o", other); code != 1 || !strings.Contains(stderr, "not a report written by swebench-run") {
		t.Errorf("report into a folder of other files: exit %d, stderr %q", code, stderr)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestReportUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"report", "-o", "x"}, "report needs at least one input"},
		{[]string{"report", "runs/x"}, "report needs -o DIR"},
		{[]string{"view"}, "view needs at least one input"},
		{[]string{"view", "runs/x", "--port", "70000"}, "--port must lie between 0 and 65535"},
		{[]string{"view", "runs/x", "--addr", "my-host"}, "is not an IP address"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
	if code, _, stderr := runCLI(t, "report", filepath.Join(t.TempDir(), "missing"), "-o", t.TempDir()); code != 1 || !strings.Contains(stderr, "missing") {
		t.Errorf("report of a missing input: exit %d, stderr %q", code, stderr)
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader in other goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// slowScript writes the demo's scripted turns with a pause before every turn, so that a run with
// one worker finishes its instances one by one.
func slowScript(t *testing.T, dir string, delay time.Duration) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "demo", "scripted.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var script map[string][]map[string]any
	if err := yaml.Unmarshal(data, &script); err != nil {
		t.Fatal(err)
	}
	for _, turns := range script {
		for _, turn := range turns {
			turn["delay"] = delay.String()
		}
	}
	out, err := yaml.Marshal(script)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rawGet sends a request line as written (no client-side cleaning of the path) and returns the
// status code.
func rawGet(t *testing.T, addr, target, host string) int {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// `view` against a demo run in progress: the page's counts grow while instances finish; then the
// same checks as the static report; `../` paths are refused; no byte served holds a secret (an
// API key in the environment, and keys planted in a trajectory's config); Ctrl-C (the stop
// channel) ends it cleanly.
func TestViewLiveDemo(t *testing.T) {
	split, insts := demoInstances(t)
	b := browsertest.Start(t)
	const envKey = "sk-test-ENVKEY-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", envKey)
	dir := t.TempDir()
	out := filepath.Join(dir, "live")
	script := slowScript(t, dir, 700*time.Millisecond)

	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	runDone := make(chan error, 1)
	var runErr lockedBuffer
	go func() {
		_, err := execute(runCtx, nil, []string{"run", "--split", split, "--model", "scripted:" + script, "--workers", "1", "-o", out, "--eval", "--progress", "none"}, io.Discard, &runErr)
		runDone <- err
	}()
	t.Cleanup(func() { cancelRun(); <-runDone })
	// view needs the output folder: wait for run.json.
	deadline := time.Now().Add(60 * time.Second)
	for !reporttest.FileExists(filepath.Join(out, "run.json")) {
		if time.Now().After(deadline) {
			t.Fatalf("the run wrote no run.json; stderr:\n%s", runErr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	viewCtx, cancelView := context.WithCancel(context.Background())
	defer cancelView()
	stop := make(chan struct{})
	viewDone := make(chan error, 1)
	var viewOut, viewErr lockedBuffer
	go func() {
		_, err := execute(viewCtx, stop, []string{"view", out, "--port", "0"}, &viewOut, &viewErr)
		viewDone <- err
	}()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			close(stop)
			<-viewDone
		}
	})
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == ""; {
		if s := viewOut.String(); strings.HasPrefix(s, "http://") && strings.HasSuffix(s, "\n") {
			url = strings.TrimSpace(s)
			break
		}
		select {
		case err := <-viewDone:
			stopped = true
			t.Fatalf("view ended before printing its address: %v; stderr:\n%s", err, viewErr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("view printed no address; stderr:\n%s", viewErr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")

	// The counts grow while the run goes on.
	p := reporttest.OpenOverview(t, b, url)
	count := func() int {
		return browsertest.Eval[int](p, `(() => { const a = document.querySelector('.input-card .card-top a'); return a ? parseInt(a.textContent.replace(/,/g, ''), 10) : -1; })()`)
	}
	first := count()
	p.Screenshot("overview-early")
	p.WaitFor(fmt.Sprintf(`(() => { const a = document.querySelector('.input-card .card-top a'); return a && parseInt(a.textContent, 10) > %d; })()`, first), "the instance count to grow", 90*time.Second)
	t.Logf("instances shown: %d, then %d", first, count())
	if first >= len(insts) {
		t.Errorf("the run had finished before the page first showed it (%d instances): nothing grew", first)
	}
	select {
	case err := <-runDone:
		runDone <- err
		if err != nil {
			t.Fatalf("run: %v\n%s", err, runErr.String())
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("the demo run did not finish")
	}
	p.WaitFor(fmt.Sprintf(`document.querySelector('.input-card [data-k="resolved"]') && document.querySelector('.input-card [data-k="resolved"]').textContent === '%d'`, len(insts)), "every instance resolved on the live page", 30*time.Second)
	reporttest.CheckOverview(t, p, compareJSON(t, out))
	reporttest.CheckStats(t, p, 0, statsJSON(t, out))
	p.Screenshot("overview")
	word, id := reporttest.UniqueWord(t, reporttest.Trajectories(t, out), problemsOf(insts))
	reporttest.CheckSearchUnique(t, p, word, id)
	reporttest.CheckFilterAndSort(t, p, "R", len(insts), "steps")
	p.Screenshot("instances")
	inst := insts[1].InstanceID
	reporttest.CheckInstance(t, p, inst, 0, filepath.Join(out, "eval", inst, "report.json"), insts[1].Patch)
	p.Screenshot("instance")
	reporttest.NoConsoleErrors(t, p)

	// Secrets planted in a trajectory's config, as a mini-swe-agent run may record them.
	planted := []string{"sk-planted-KEY-abcdef0123456789", "tok-planted-in-url-0123456789", "Bearer-planted-0123456789"}
	tp := filepath.Join(out, inst, inst+".traj.json")
	data, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	var traj map[string]any
	if err := json.Unmarshal(data, &traj); err != nil {
		t.Fatal(err)
	}
	cfg := traj["info"].(map[string]any)["config"].(map[string]any)
	cfg["model"].(map[string]any)["model_kwargs"] = map[string]any{
		"api_key": planted[0], "api_base": "https://proxy.example/v1?token=" + planted[1],
		"extra_headers": map[string]any{"Authorization": planted[2]}, "max_tokens": 4096,
	}
	data, _ = json.Marshal(traj)
	if err := results.WriteFileAtomic(tp, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// Every byte served: pages, assets, data, search shards, raw files.
	paths := []string{"/", "/index.html", "/assets/app.js", "/assets/app.css", "/data/summary.js"}
	for _, in := range insts {
		paths = append(paths, "/data/i/0/"+in.InstanceID+".js")
		for _, f := range []string{"trajectory", "report.json", "test_output.txt", "patch.diff", "eval.sh"} {
			paths = append(paths, "/files/0/"+in.InstanceID+"/"+f)
		}
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_"
	for _, a := range alphabet {
		for _, c := range alphabet {
			paths = append(paths, "/data/search/"+string(a)+string(c)+".js")
		}
	}
	paths = append(paths, "/data/search/~.js")
	served := 0
	for _, path := range paths {
		resp, err := http.Get(url + strings.TrimPrefix(path, "/"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", path, resp.Status)
			continue
		}
		served += len(body)
		for _, secret := range append([]string{envKey}, planted...) {
			if bytes.Contains(body, []byte(secret)) {
				t.Errorf("GET %s serves the secret %q", path, secret)
			}
		}
	}
	t.Logf("%d paths, %d bytes served without a secret", len(paths), served)
	// The planted trajectory is still served, its config redacted.
	resp, err := http.Get(url + "files/0/" + inst + "/trajectory")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(body, []byte(`"api_key": "[redacted]"`)) || !bytes.Contains(body, []byte(`"max_tokens": 4096`)) {
		t.Errorf("the trajectory is not served with its config redacted (and its counts kept):\n%.2000s", body)
	}

	// Paths that leave the report: refused.
	for _, target := range []string{"/../run.json", "/files/0/../../run.json", "/files/0/..%2F..%2Frun.json", "/data/i/0/..%2f..%2fstatus.jsonl",
		"/assets/../../" + filepath.Base(out) + "/run.json", "/files/0/" + inst + "/..%2F..%2Frun.json", "/files/0/" + inst + "/run.json", "/status.jsonl", "/run.json",
		"/files/0/%2e%2e/%2e%2e/etc/passwd", "/data/..%5c..%5crun.json"} {
		if code := rawGet(t, addr, target, addr); code != http.StatusForbidden && code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 403 or 404", target, code)
		}
	}
	// A page of another site cannot read it through a rebound name.
	if code := rawGet(t, addr, "/data/summary.js", "attacker.example"); code != http.StatusForbidden {
		t.Errorf("GET with Host attacker.example: %d, want 403", code)
	}

	// Ctrl-C: the first one stops the server cleanly.
	close(stop)
	stopped = true
	select {
	case err := <-viewDone:
		if code := exitCode(err, io.Discard); code != exitOK {
			t.Errorf("view after Ctrl-C: exit code %d (%v)", code, err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("view did not stop after Ctrl-C")
	}
	if !strings.Contains(viewErr.String(), "view: stopped") {
		t.Errorf("view's stderr: %q", viewErr.String())
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Errorf("the server still listens on %s after Ctrl-C", addr)
	}
}
