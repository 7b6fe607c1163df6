package report

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/internal/redact"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

func TestTerms(t *testing.T) {
	var got []string
	terms("Fix temperature.fuentes() — TZ-aware: pandas>=1.0 x a1 CamelCase_name 0123456789abcdef0123 12345678901 Ünïcode "+strings.Repeat("y", 50), func(w string) { got = append(got, w) })
	want := []string{"fix", "temperature", "fuentes", "tz", "aware", "pandas", "camelcase_name", "ünïcode", strings.Repeat("y", maxTerm)}
	// "1", "0", "x" are too short; "a1" is kept; the hash and the long number are left out.
	want = slices.Insert(want, 6, "a1")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("terms:\n got %q\nwant %q", got, want)
	}
	for term, key := range map[string]string{"fuentes": "fu", "a1": "a1", "ünïcode": "~", "_x": "_x"} {
		if got := shardKey(term); got != key {
			t.Errorf("shardKey(%q) = %q, want %q", term, got, key)
		}
	}
}

func TestPostingsRoundTrip(t *testing.T) {
	for _, docs := range [][]uint32{{0}, {5}, {0, 1, 2, 3}, {31, 32, 33, 1 << 20, 1<<20 + 1, 1 << 30}} {
		enc := string(appendPostings(nil, docs))
		if got := decodePostings(enc); !reflect.DeepEqual(got, docs) {
			t.Errorf("postings %v → %q → %v", docs, enc, got)
		}
		if strings.ContainsAny(enc, "\"\\\t\n") {
			t.Errorf("postings %q hold a character that needs escaping", enc)
		}
	}
}

func TestIndexShards(t *testing.T) {
	b := newIndexBuilder()
	b.add(3, docTerms("fuentes timezone fuentes"))
	b.add(1, docTerms("fuel and fuentes"))
	b.add(7, docTerms("timezone"))
	ix := b.finish()
	shard := string(ix.shards["fu"])
	m := regexp.MustCompile(`^SR\.shard\("fu",(".*")\);\n$`).FindStringSubmatch(shard)
	if m == nil {
		t.Fatalf("shard script %q", shard)
	}
	var body string
	if err := json.Unmarshal([]byte(m[1]), &body); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(body, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "fuel\t") || !strings.HasPrefix(lines[1], "fuentes\t") {
		t.Fatalf("shard lines %q", lines)
	}
	if got := decodePostings(strings.SplitN(lines[1], "\t", 2)[1]); !reflect.DeepEqual(got, []uint32{1, 3}) {
		t.Errorf("fuentes is in docs %v, want [1 3]", got)
	}
	if ix.terms != 4 || ix.docs != 3 {
		t.Errorf("%d terms in %d docs, want 4 in 3", ix.terms, ix.docs)
	}
}

func TestClip(t *testing.T) {
	s := strings.Repeat("a", 50) + "é" + strings.Repeat("b", 50)
	got, elided := clip(s, 40, 10)
	if !strings.HasPrefix(got, strings.Repeat("a", 10)) || !strings.HasSuffix(got, strings.Repeat("b", 30)) || elided != len(s)-40 {
		t.Errorf("clip = %q, %d", got, elided)
	}
	if got, elided := clip("short", 40, 10); got != "short" || elided != 0 {
		t.Errorf("clip of a short text = %q, %d", got, elided)
	}
}

func TestProblemOfTask(t *testing.T) {
	task := "<pr_description>\nConsider the following PR description:\nThe bug.\nDetails.\n</pr_description>\n\n<instructions>…"
	if got := problemOfTask(task); got != "The bug.\nDetails." {
		t.Errorf("problemOfTask = %q", got)
	}
	if got := problemOfTask("no tags"); got != "no tags" {
		t.Errorf("problemOfTask without tags = %q", got)
	}
}

func TestEncodeID(t *testing.T) {
	for _, id := range []string{"django__django-11099", "a/b", "..", ".hidden", "x y", "ü"} {
		enc := encodeID(id)
		if strings.ContainsAny(enc, "/ \\") || enc == ".." || strings.HasPrefix(enc, ".") {
			t.Errorf("encodeID(%q) = %q is no safe file name", id, enc)
		}
		if got, ok := decodeID(enc); !ok || got != id {
			t.Errorf("decodeID(encodeID(%q)) = %q, %v", id, got, ok)
		}
	}
}

// secretRun copies two instances of the fixture mini-swe-agent run (trajectories, predictions,
// harness logs) and plants secrets: keys in one trajectory's config, and an environment secret in
// a command's output.
func secretRun(t *testing.T) (out, logs string, secrets []string) {
	t.Helper()
	src := testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output")
	srcLogs := testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "eval-logs")
	dir := t.TempDir()
	out, logs = filepath.Join(dir, "out"), filepath.Join(dir, "logs")
	ids := []string{"pvlib__pvlib-python-1072", "marshmallow-code__marshmallow-1343"}
	const envSecret = "sk-env-secret-0123456789abcdef"
	t.Setenv("DEEPSEEK_API_KEY", envSecret)
	secrets = []string{envSecret, "sk-planted-in-config-42", "tok-in-the-url-9876", "Bearer-planted-header-55"}
	var preds bytes.Buffer
	preds.WriteString("{")
	all := map[string]json.RawMessage{}
	data, err := os.ReadFile(filepath.Join(src, "preds.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	for k, id := range ids {
		if k > 0 {
			preds.WriteString(",")
		}
		fmt.Fprintf(&preds, "%q:%s", id, all[id])
		data, err := os.ReadFile(filepath.Join(src, id, id+".traj.json"))
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			var traj map[string]any
			if err := json.Unmarshal(data, &traj); err != nil {
				t.Fatal(err)
			}
			mc := traj["info"].(map[string]any)["config"].(map[string]any)["model"].(map[string]any)
			mc["model_kwargs"] = map[string]any{"api_key": secrets[1], "api_base": "https://proxy.example/v1?api_key=" + secrets[2], "headers": map[string]any{"authorization": secrets[3]}}
			msgs := traj["messages"].([]any)
			obs := msgs[3].(map[string]any)
			obs["content"] = obs["content"].(string) + "\nOPENAI=" + envSecret
			obs["extra"].(map[string]any)["raw_output"] = "DEEPSEEK_API_KEY=" + envSecret + "\n"
			data, _ = json.Marshal(traj)
		}
		if err := os.MkdirAll(filepath.Join(out, id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, id, id+".traj.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(logs, id), os.DirFS(filepath.Join(srcLogs, id))); err != nil {
			t.Fatal(err)
		}
	}
	preds.WriteString("}")
	if err := os.WriteFile(filepath.Join(out, "preds.json"), preds.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out, logs, secrets
}

// siteText returns the text of every file of a written site, instance scripts inflated.
func siteText(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	script := regexp.MustCompile(`^SR\.inst\(\d+,"[^"]*","([A-Za-z0-9+/=]+)"\);\n$`)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if m := script.FindSubmatch(data); m != nil {
			z, err := base64.StdEncoding.DecodeString(string(m[1]))
			if err != nil {
				return err
			}
			zr, err := gzip.NewReader(bytes.NewReader(z))
			if err != nil {
				return err
			}
			if data, err = io.ReadAll(zr); err != nil {
				return err
			}
		}
		out[p] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// No secret reaches a file of the static site: not the planted config keys, not the URL's
// token, not an environment secret a command printed.
func TestWriteKeepsNoSecret(t *testing.T) {
	out, logs, secrets := secretRun(t)
	rep, err := Load(context.Background(), []compare.Source{{Path: out, EvalLogs: logs}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	st, err := rep.Write(context.Background(), site)
	if err != nil {
		t.Fatal(err)
	}
	if st.InstanceFiles != 2 {
		t.Errorf("%d instance files, want 2", st.InstanceFiles)
	}
	files := siteText(t, site)
	redacted := false
	for p, text := range files {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the secret %q", p, s)
			}
		}
		redacted = redacted || strings.Contains(text, `"api_key":"`+redact.Redacted+`"`)
	}
	if !redacted {
		t.Error("no file shows the redacted api_key: the config is missing from the instance page")
	}
	// A folder that holds other files is never replaced; an earlier report is.
	if _, err := rep.Write(context.Background(), site); err != nil {
		t.Errorf("writing over an earlier report: %v", err)
	}
	foreign := t.TempDir()
	os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("x"), 0o644)
	if _, err := rep.Write(context.Background(), foreign); err == nil || !strings.Contains(err.Error(), "not a report") {
		t.Errorf("writing into a folder of other files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "thesis.tex")); err != nil {
		t.Errorf("the other files are gone: %v", err)
	}
}

func rawStatus(t *testing.T, addr, target, host string) int {
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

// The live server answers the pages, data and files it knows, refuses paths that leave it and
// other hosts, and serves no secret.
func TestServer(t *testing.T) {
	out, logs, secrets := secretRun(t)
	srv := NewServer([]compare.Source{{Path: out, EvalLogs: logs}}, Options{})
	if err := srv.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	addr := strings.TrimPrefix(ts.URL, "http://")
	const id = "pvlib__pvlib-python-1072"
	tests := []struct {
		target string
		code   int
	}{
		{"/", 200}, {"/index.html", 200}, {"/assets/app.js", 200}, {"/assets/app.css", 200}, {"/data/summary.js", 200},
		{"/data/i/0/" + id + ".js", 200}, {"/data/search/fu.js", 200}, {"/data/search/zz.js", 200},
		{"/files/0/" + id + "/trajectory", 200}, {"/files/0/" + id + "/report.json", 200}, {"/files/0/" + id + "/test_output.txt", 200},
		{"/data/i/0/nope__nope-1.js", 404}, {"/data/i/7/" + id + ".js", 404}, {"/files/0/" + id + "/preds.json", 404},
		{"/files/0/nope__nope-1/trajectory", 404}, {"/preds.json", 404}, {"/assets/nope.js", 404}, {"/data/search/toolong.js", 404},
		{"/../preds.json", 403}, {"/assets/../../preds.json", 403}, {"/files/0/%2e%2e/%2e%2e/preds.json", 403},
		{"/files/0/" + id + "/..%2F..%2Fpreds.json", 403}, {"/data/i/0/..%5c..%5cpreds.json", 403}, {"/data/i/0/%00.js", 403},
	}
	for _, tt := range tests {
		if got := rawStatus(t, addr, tt.target, addr); got != tt.code {
			t.Errorf("GET %s: %d, want %d", tt.target, got, tt.code)
		}
	}
	if got := rawStatus(t, addr, "/data/summary.js", "evil.example"); got != 403 {
		t.Errorf("Host evil.example: %d, want 403", got)
	}
	if got := rawStatus(t, addr, "/data/summary.js", "localhost:1234"); got != 200 {
		t.Errorf("Host localhost: %d, want 200", got)
	}
	resp, err := http.Post(ts.URL+"/data/summary.js", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s", resp.Status)
	}
	for _, target := range []string{"/data/summary.js", "/data/i/0/" + id + ".js", "/files/0/" + id + "/trajectory", "/data/search/sk.js", "/data/search/de.js", "/data/search/be.js", "/data/search/to.js"} {
		resp, err := http.Get(ts.URL + target)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, s := range secrets {
			if bytes.Contains(body, []byte(s)) {
				t.Errorf("GET %s serves the secret %q", target, s)
			}
		}
	}
}

// A live run's figures change between requests once MaxAge has passed.
func TestServerRereads(t *testing.T) {
	out, logs, _ := secretRun(t)
	srv := NewServer([]compare.Source{{Path: out, EvalLogs: logs}}, Options{})
	srv.MaxAge = 0
	ts := httptest.NewServer(srv)
	defer ts.Close()
	get := func() string {
		resp, err := http.Get(ts.URL + "/data/summary.js")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	before := get()
	// A third instance appears: its trajectory and prediction.
	const id = "pydicom__pydicom-1139"
	src := testenv.Fixtures(t, "runs", "deepseek-chat-lite-dev", "output")
	if err := os.CopyFS(filepath.Join(out, id), os.DirFS(filepath.Join(src, id))); err != nil {
		t.Fatal(err)
	}
	after := get()
	if before == after || !strings.Contains(after, id) || strings.Contains(before, id) {
		t.Errorf("the summary did not change when an instance appeared")
	}
	if _, err := results.ReadTrajectory(filepath.Join(out, id, id+".traj.json")); err != nil {
		t.Fatal(err)
	}
}

// A run directory with an infrastructure failure: the summary lists it with its reason (secrets
// removed), counts it as not submitted, and keeps the graded instance's figures.
func TestSummaryOfRunDir(t *testing.T) {
	const envSecret = "sk-registry-secret-7777777"
	t.Setenv("REGISTRY_TOKEN", envSecret)
	dir := t.TempDir()
	man := results.Manifest{Tool: "swebench-run", RunID: "r1", Model: "m", Instances: 2,
		Config: map[string]any{"model": map[string]any{"model_name": "m", "api_key": "sk-in-run-json"}}}
	data, _ := json.Marshal(man)
	os.WriteFile(filepath.Join(dir, results.ManifestFile), data, 0o644)
	recs := []results.Record{
		{InstanceID: "a__b-1", Attempt: 1, ExitStatus: "Submitted", Category: results.CategoryModel, Cost: 0.5, Steps: 7, PatchBytes: 10, Queued: 100, End: 160},
		{InstanceID: "a__b-2", Attempt: 1, ExitStatus: "ImagePullError", Category: results.CategoryInfrastructure, Error: "pull: denied for token " + envSecret, Queued: 100, End: 101},
		{InstanceID: "a__b-2", Attempt: 2, ExitStatus: "ImagePullError", Category: results.CategoryInfrastructure, Error: "pull: denied for token " + envSecret, Queued: 200, End: 201},
	}
	var ledger bytes.Buffer
	for _, r := range recs {
		line, _ := json.Marshal(r)
		ledger.Write(append(line, '\n'))
	}
	os.WriteFile(filepath.Join(dir, results.LedgerFile), ledger.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, results.PredsFile), []byte(`{"a__b-1": {"instance_id": "a__b-1", "model_name_or_path": "m", "model_patch": "diff --git a/x b/x\n"}}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "eval", "a__b-1"), 0o755)
	os.WriteFile(filepath.Join(dir, "eval", "a__b-1", "report.json"), []byte(`{"a__b-1": {"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": true,
		"tests_status": {"FAIL_TO_PASS": {"success": ["t1"], "failure": []}, "PASS_TO_PASS": {"success": [], "failure": []}, "FAIL_TO_FAIL": {"success": [], "failure": []}, "PASS_TO_FAIL": {"success": [], "failure": []}}}}`), 0o644)

	rep, err := Load(context.Background(), []compare.Source{{Label: "run", Path: dir}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.summary(nil)
	run := s.Runs[0]
	if run.Cells.V != "RN" {
		t.Errorf("verdicts %q, want RN", run.Cells.V)
	}
	if len(run.Failures) != 1 || run.Failures[0].InstanceID != "a__b-2" || run.Failures[0].Attempts != 2 || run.Failures[0].Error != "pull: denied for token "+redact.Redacted {
		t.Errorf("failures %+v", run.Failures)
	}
	if run.Cells.Cost[0] != 0.5 || run.Cells.Steps[0] != 7 || run.Cells.Seconds[0] != 60 {
		t.Errorf("cells: cost %v, steps %v, seconds %v", run.Cells.Cost, run.Cells.Steps, run.Cells.Seconds)
	}
	if len(run.Cells.Attempts) != 2 || run.Cells.Attempts[0] != 1 || run.Cells.Attempts[1] != 2 {
		t.Errorf("attempts per instance %v, want [1 2]", run.Cells.Attempts)
	}
	if s.Inputs[0].Submitted != 1 || s.Inputs[0].CILow == nil || *s.Inputs[0].CIHigh != 1 {
		t.Errorf("input extras %+v", s.Inputs[0])
	}
	d, text, err := rep.instance(0, "a__b-1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Eval == nil || !d.Eval.Resolved || d.Eval.Tests["FAIL_TO_PASS"].Success[0] != "t1" || d.Patch != "diff --git a/x b/x\n" || d.PatchSource != "preds.json" {
		t.Errorf("instance data %+v", d)
	}
	cfg, _ := json.Marshal(d.Config)
	if !strings.Contains(string(cfg), `"api_key":"`+redact.Redacted+`"`) || text != "" {
		t.Errorf("config %s, text %q", cfg, text)
	}
	script, err := rep.summaryScript(nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(script, []byte(envSecret)) || !bytes.HasPrefix(script, []byte("SR.summary({")) {
		t.Errorf("summary script: %.300s", script)
	}
}
