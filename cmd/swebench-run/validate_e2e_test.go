package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/testutil/testenv"
	"github.com/swebench-run/swebench-run/validation"
)

// The instances of the validation's end-to-end test: rows of three families (the SWE-bench
// harness's, SWE-rebench-V2's and SWE-PolyBench's demo rows, in their images' layouts: /testbed,
// /tallykit, /repo), healthy or made broken in this test, in one dataset file.
const (
	vHealthy    = "demo__confparse-31"  // the demo row as it is
	vHealthyImg = "demo__datekit-120"   // the demo row on a copy of its image (whose digest the test changes)
	vNoDep      = "demo__moneyfmt-70"   // an image without a module a test imports (colorsys)
	vCrash      = "demo__pagination-10" // an image whose test runner (pytest) segfaults at start
	vNoBug      = "demo__queuekit-40"   // FAIL_TO_PASS: a test that does not test the bug
	vFlaky      = "demo__slugkit-230"   // a test reading a number that is odd every other time
	vKnownBad   = "demo__confparse-310" // listed broken by a known-bad file, never graded
	rHealthy    = "swebench-run__tallykit-1"
	rNoDep      = "swebench-run__tallykit-10"
	rCrash      = "swebench-run__tallykit-11"
	rNoBug      = "swebench-run__tallykit-12"
	rFlaky      = "swebench-run__tallykit-13"
	pHealthy    = "yt-dlp__yt-dlp-90001"
	pNoDep      = "yt-dlp__yt-dlp-90010"
	pCrash      = "yt-dlp__yt-dlp-90011"
	pNoBug      = "yt-dlp__yt-dlp-90012"
	testImgRepo = "swebench-run-test/validate"
)

// counterServer answers GET /next?key=K with 0, 1, 2, … per key: the "random" number of the
// flaky tests, odd on every other call for the same code, so that a test reading it fails on
// every other run whatever the order the runs take.
func counterServer(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	next := map[string]int{}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		k := r.URL.Query().Get("key")
		n := next[k]
		next[k]++
		mu.Unlock()
		fmt.Fprint(w, n)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// luckyTest is a pytest test that fails when the number the counter server gives for the
// current content of keyFile is odd. The server is the sandbox's default gateway: this machine.
func luckyTest(port int, keyFile string) string {
	return `import hashlib
import socket
import struct
import urllib.request


def _host():
    with open("/proc/net/route") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if fields[1] == "00000000":
                return socket.inet_ntoa(struct.pack("<L", int(fields[2], 16)))


def test_lucky_number():
    with open("` + keyFile + `", "rb") as f:
        key = hashlib.sha256(f.read()).hexdigest()
    url = "http://%s:` + strconv.Itoa(port) + `/next?key=%s" % (_host(), key)
    n = int(urllib.request.urlopen(url, timeout=30).read())
    assert n % 2 == 0, "the number %d is odd" % n
`
}

// newFileDiff is the git diff adding path with content.
func newFileDiff(path, content string) string {
	lines := strings.SplitAfter(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l)
	}
	return b.String()
}

var diffFile = regexp.MustCompile(`(?m)^diff --git a/(\S+) b/`)

// sweEvalScript is a harness-v5 eval_script for a SWE-bench demo row with testPatch: the test
// files reset, the test patch applied, testCmd between the markers (its exit status recorded
// by eval.EvalScript).
func sweEvalScript(base, testPatch, testCmd string) string {
	var existing []string
	for _, block := range strings.Split(testPatch, "diff --git ")[1:] {
		if m := diffFile.FindStringSubmatch("diff --git " + block); m != nil && !strings.Contains(block, "\nnew file mode") {
			existing = append(existing, m[1])
		}
	}
	checkout := ""
	if len(existing) > 0 {
		checkout = "git checkout " + base + " " + strings.Join(existing, " ") + "\n"
	}
	return "#!/bin/bash\nset -uxo pipefail\ncd /testbed\ngit config --global --add safe.directory /testbed\n" + checkout +
		"git apply -v - <<'EOF_114329324912'\n" + testPatch + "\nEOF_114329324912\n: '>>>>> Start Test Output'\n" + testCmd +
		"\n: '>>>>> End Test Output'\n" + checkout
}

// readRows reads a JSONL dataset into rows by instance id.
func readRows(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]map[string]any{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			t.Fatal(err)
		}
		rows[row["instance_id"].(string)] = row
	}
	return rows
}

func copyRow(row map[string]any, id string) map[string]any {
	out := make(map[string]any, len(row))
	for k, v := range row {
		out[k] = v
	}
	out["instance_id"] = id
	return out
}

// pyList writes names as SWE-PolyBench's rows do: a Python list literal.
func pyList(names ...string) string { return "['" + strings.Join(names, "', '") + "']" }

// docker runs the docker command line.
func docker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// deriveImage commits, as tag, a container of base in which script ran, keeping base's
// working directory; the image is removed after the test.
func deriveImage(t *testing.T, base, tag, script string, changes ...string) {
	t.Helper()
	name := "swebench-run-test-derive-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", name).Run() })
	docker(t, "run", "--name", name, base, "bash", "-c", script)
	args := []string{"commit", "--change", `CMD ["/bin/bash"]`}
	for _, c := range changes {
		args = append(args, "--change", c)
	}
	docker(t, append(args, name, tag)...)
	docker(t, "rm", name)
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", tag).Run() })
}

// containersStarted counts the containers of runID that started since since.
func containersStarted(t *testing.T, runID string, since time.Time) int {
	t.Helper()
	time.Sleep(1500 * time.Millisecond) // the engine's events reach its log a moment later
	until := time.Now()
	out := docker(t, "events", "--since", unixArg(since), "--until", unixArg(until), "--filter", "type=container",
		"--filter", "event=start", "--filter", "label=swebench-run.run-id="+runID, "--format", "{{.ID}}")
	if out == "" {
		return 0
	}
	return len(strings.Split(out, "\n"))
}

func unixArg(t time.Time) string { return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond()) }

// validationDataset builds the broken images and writes the dataset of the validation test.
func validationDataset(t *testing.T, dir string) string {
	t.Helper()
	demoSplit, _ := demoInstances(t)
	rebench := familyDemo(t, "rebench-v2")
	poly := familyDemo(t, "polybench")
	port := counterServer(t)

	// The broken images: one without a module of the standard library that a test imports and
	// pytest does not (colorsys), one whose pytest segfaults when it is imported.
	const (
		noModule = "rm -f /usr/lib/python3.11/colorsys.py /usr/lib/python3.11/__pycache__/colorsys.*"
		segfault = "echo 'import os; os.kill(os.getpid(), 11)' >> /usr/lib/python3/dist-packages/pytest/__init__.py"
	)
	palette := func(dir string) string {
		return newFileDiff(dir+"/test_palette.py", "import colorsys\n\n\ndef test_palette():\n    assert colorsys.rgb_to_hsv(1, 0, 0)[0] == 0\n")
	}
	withP2P := func(r map[string]any, test string) {
		var p2p []string
		if err := json.Unmarshal([]byte(r["PASS_TO_PASS"].(string)), &p2p); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(append(p2p, test))
		r["PASS_TO_PASS"] = string(b)
	}
	swe := readRows(t, demoSplit)
	var rows []map[string]any
	add := func(r map[string]any) { rows = append(rows, r) }
	testCmd := func(row map[string]any) string {
		return strings.SplitN(strings.SplitN(row["eval_script"].(string), ": '>>>>> Start Test Output'\n", 2)[1], "\n", 2)[0]
	}

	add(swe[vHealthy])
	r := copyRow(swe["demo__datekit-12"], vHealthyImg)
	r["image"] = testImgRepo + ":datekit"
	deriveImage(t, swe["demo__datekit-12"]["image"].(string), testImgRepo+":datekit", "true")
	add(r)
	r = copyRow(swe["demo__moneyfmt-7"], vNoDep)
	r["image"] = testImgRepo + ":moneyfmt-nodep"
	r["test_patch"] = r["test_patch"].(string) + palette("tests")
	withP2P(r, "tests/test_palette.py::test_palette")
	r["eval_script"] = sweEvalScript(r["base_commit"].(string), r["test_patch"].(string), testCmd(r)+" tests/test_palette.py")
	deriveImage(t, swe["demo__moneyfmt-7"]["image"].(string), testImgRepo+":moneyfmt-nodep", noModule)
	add(r)
	r = copyRow(swe["demo__pagination-1"], vCrash)
	r["image"] = testImgRepo + ":pagination-crash"
	r["eval_script"] = sweEvalScript(r["base_commit"].(string), r["test_patch"].(string), testCmd(r))
	deriveImage(t, swe["demo__pagination-1"]["image"].(string), testImgRepo+":pagination-crash", segfault)
	add(r)
	r = copyRow(swe["demo__queuekit-4"], vNoBug)
	smoke := newFileDiff("tests/test_smoke.py", "import queuekit\n\n\ndef test_smoke():\n    assert queuekit.Queue\n")
	r["test_patch"] = r["test_patch"].(string) + smoke
	r["FAIL_TO_PASS"] = `["tests/test_smoke.py::test_smoke"]`
	r["eval_script"] = sweEvalScript(r["base_commit"].(string), r["test_patch"].(string), testCmd(r)+" tests/test_smoke.py")
	add(r)
	r = copyRow(swe["demo__slugkit-23"], vFlaky)
	r["test_patch"] = r["test_patch"].(string) + newFileDiff("tests/test_lucky.py", luckyTest(port, "slugkit/slug.py"))
	withP2P(r, "tests/test_lucky.py::test_lucky_number")
	r["eval_script"] = sweEvalScript(r["base_commit"].(string), r["test_patch"].(string), testCmd(r)+" tests/test_lucky.py")
	add(r)
	add(copyRow(swe[vHealthy], vKnownBad))

	rb := readRows(t, rebench)
	add(rb[rHealthy])
	rbase := rb[rHealthy]
	rImage := rbase["image_name"].(string)
	r = copyRow(rbase, rNoDep)
	r["image_name"] = testImgRepo + ":tallykit-nodep"
	r["test_patch"] = r["test_patch"].(string) + palette("tests")
	r["PASS_TO_PASS"] = append(append([]any{}, rbase["PASS_TO_PASS"].([]any)...), "tests/test_palette.py::test_palette")
	deriveImage(t, rImage, testImgRepo+":tallykit-nodep", noModule)
	add(r)
	r = copyRow(rbase, rCrash)
	r["image_name"] = testImgRepo + ":tallykit-crash"
	deriveImage(t, rImage, testImgRepo+":tallykit-crash", segfault)
	add(r)
	r = copyRow(rbase, rNoBug)
	r["test_patch"] = newFileDiff("tests/test_smoke.py", "import tally\n\n\ndef test_smoke():\n    assert tally.count\n")
	r["FAIL_TO_PASS"] = []any{"tests/test_smoke.py::test_smoke"}
	add(r)
	r = copyRow(rbase, rFlaky)
	r["test_patch"] = r["test_patch"].(string) + newFileDiff("tests/test_lucky.py", luckyTest(port, "tally/__init__.py"))
	r["PASS_TO_PASS"] = append(append([]any{}, rbase["PASS_TO_PASS"].([]any)...), "tests/test_lucky.py::test_lucky_number")
	add(r)

	pb := readRows(t, poly)
	add(pb[pHealthy])
	pbase := pb[pHealthy]
	pImage := pbase["image"].(string)
	r = copyRow(pbase, pNoDep)
	r["image"] = testImgRepo + ":ytdl-nodep"
	r["test_patch"] = r["test_patch"].(string) + palette("test")
	r["P2P"] = pyList("test/test_basic.py:None:test_format_bytes", "test/test_basic.py:None:test_parse_duration_empty", "test/test_palette.py:None:test_palette")
	deriveImage(t, pImage, testImgRepo+":ytdl-nodep", noModule)
	add(r)
	r = copyRow(pbase, pCrash)
	r["image"] = testImgRepo + ":ytdl-crash"
	deriveImage(t, pImage, testImgRepo+":ytdl-crash", segfault)
	add(r)
	r = copyRow(pbase, pNoBug)
	r["test_patch"] = newFileDiff("test/test_smoke.py", "from ytdl import utils\n\n\ndef test_smoke():\n    assert utils.parse_duration\n")
	r["F2P"] = pyList("test/test_smoke.py:None:test_smoke")
	add(r)

	path := filepath.Join(dir, "validate-demo.jsonl")
	var out bytes.Buffer
	for _, row := range rows {
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readRecords reads the validations the store holds.
func readRecords(t *testing.T, store string) map[string]validation.Record {
	t.Helper()
	set, err := validation.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	return set.Records
}

// goldScript is a scripted agent's turns for an instance: apply patch (its gold patch, or a
// guess that fixes nothing) and submit the diff.
func goldScript(patch string) []model.ScriptedTurn {
	return []model.ScriptedTurn{
		{Content: "Applying the fix.", Commands: []string{"cat > /tmp/fix.diff <<'EOF_FIX'\n" + patch + "EOF_FIX\ngit apply /tmp/fix.diff && git diff > /tmp/patch.txt"}},
		{Content: "Submitting.", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat /tmp/patch.txt"}},
	}
}

var guessScript = []model.ScriptedTurn{
	{Content: "A guess.", Commands: []string{`f=$(git ls-files '*.py' | grep -v test | head -1) && echo '# guessed' >> "$f" && git diff > /tmp/patch.txt`}},
	{Content: "Submitting.", Commands: []string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat /tmp/patch.txt"}},
}

// Broken environments of three families' layouts are found, kept and used:
//   - validate classifies a healthy instance as ok, one whose image lacks a module as gold fails
//     (with the tests, not collected), one whose test runner segfaults as gold fails (no test
//     collected), one whose FAIL_TO_PASS test does not test the bug as empty passes, one whose
//     test reads a number that is odd every other time as flaky (--repeat 5), and a listed one as
//     known bad;
//   - a second validate starts no container, and after one image's digest changed it grades that
//     instance only;
//   - a sweep of two scripted agents evaluates with the store: the environment's failures are
//     marked in the cells' run reports; compare sets the broken instances apart and says so,
//     and with --include-broken its figures are those without a validation;
//   - eval of a prediction on the instance without its module reports environment, with the
//     tests as evidence, and leaves the healthy instance's verdict as it is.
func TestValidateEndToEnd(t *testing.T) {
	testenv.Docker(t)
	dir := t.TempDir()
	split := validationDataset(t, dir)
	store := filepath.Join(dir, "store")
	known := filepath.Join(dir, "known-bad.txt")
	if err := os.WriteFile(known, []byte("# from the maintainers\n"+vKnownBad+"  needs a network service\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flaky := []string{vFlaky, rFlaky}
	all := []string{vHealthy, vHealthyImg, vNoDep, vCrash, vNoBug, vKnownBad, rHealthy, rNoDep, rCrash, rNoBug, pHealthy, pNoDep, pCrash, pNoBug}
	validate := func(runID string, extra ...string) (int, string, string) {
		args := append([]string{"validate", "--split", split, "--validation", store, "--workers", "3", "--progress", "lines", "--run-id", runID, "--known-bad", known}, extra...)
		return runCLI(t, args...)
	}

	code, stdout, stderr := validate("v-once", "--instance-ids", strings.Join(all, ","))
	if code != 0 {
		t.Fatalf("validate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("validate:\n%s", stdout)
	code, stdout, stderr = validate("v-flaky", "--instance-ids", strings.Join(flaky, ","), "--repeat", "5")
	if code != 0 {
		t.Fatalf("validate --repeat 5: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("validate --repeat 5:\n%s", stdout)
	recs := readRecords(t, store)
	want := map[string]validation.Outcome{
		vHealthy: validation.OK, vHealthyImg: validation.OK, rHealthy: validation.OK, pHealthy: validation.OK,
		vNoDep: validation.GoldFails, rNoDep: validation.GoldFails, pNoDep: validation.GoldFails,
		vCrash: validation.GoldFails, rCrash: validation.GoldFails, pCrash: validation.GoldFails,
		vNoBug: validation.EmptyPasses, rNoBug: validation.EmptyPasses, pNoBug: validation.EmptyPasses,
		vFlaky: validation.Flaky, rFlaky: validation.Flaky, vKnownBad: validation.KnownBad,
	}
	if len(recs) != len(want) {
		t.Errorf("%d records, want %d", len(recs), len(want))
	}
	for id, o := range want {
		rec := recs[id]
		if rec.Outcome != o {
			t.Errorf("%s: %s (%s), want %s", id, rec.Outcome, rec.Reason, o)
		}
		if o != validation.KnownBad && (rec.ImageDigest == "" || rec.Dataset != filepath.Base(split) || !strings.HasPrefix(rec.DatasetRevision, "sha256:") || rec.Date.IsZero() || rec.ToolVersion == "") {
			t.Errorf("%s: provenance %q %q %q %v %q", id, rec.ImageDigest, rec.Dataset, rec.DatasetRevision, rec.Date, rec.ToolVersion)
		}
	}
	// The tests concerned, and how.
	for _, id := range []string{vNoDep, rNoDep} {
		rec := recs[id]
		if len(rec.Tests) == 0 {
			t.Errorf("%s: no tests named (%s)", id, rec.Reason)
		}
		for _, tc := range rec.Tests {
			if tc.Status != validation.StatusMissing && tc.Status != validation.StatusError {
				t.Errorf("%s: %s is %s under the gold patch, want missing or error", id, tc.Name, tc.Status)
			}
		}
	}
	if rec := recs[pNoDep]; len(rec.Tests) == 0 || rec.Tests[0].Status != validation.StatusMissing {
		t.Errorf("%s: tests %+v (%s)", pNoDep, rec.Tests, rec.Reason)
	}
	for _, id := range []string{vCrash, rCrash, pCrash} {
		if rec := recs[id]; !strings.Contains(rec.Reason, "collected no test") || !strings.Contains(rec.Reason, "signal 11") {
			t.Errorf("%s: reason %q, want no test collected and signal 11", id, rec.Reason)
		}
	}
	for _, id := range flaky {
		rec := recs[id]
		if rec.Repeats != 5 || len(rec.Gradings) != 10 || len(rec.Tests) == 0 || !strings.HasSuffix(rec.Tests[0].Name, "test_lucky_number") {
			t.Errorf("%s: %d repeats, %d gradings, tests %+v (%s)", id, rec.Repeats, len(rec.Gradings), rec.Tests, rec.Reason)
		}
	}
	if rec := recs[vKnownBad]; rec.Note != "needs a network service" || !rec.FromKnownBad() || len(rec.Gradings) != 0 {
		t.Errorf("known bad: %+v", rec)
	}

	// A second validate answers from the store: no container starts.
	since := time.Now()
	code, stdout, stderr = validate("v-again", "--instance-ids", strings.Join(append(all, flaky...), ","))
	if code != 0 || !strings.Contains(stdout, "graded now: 0 instances") {
		t.Fatalf("second validate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := containersStarted(t, "v-again", since); n != 0 {
		t.Errorf("the second validate started %d containers, want none", n)
	}
	// A new digest of one image: that instance alone is graded again, with its two patches.
	before := recs[vHealthyImg]
	deriveImage(t, testImgRepo+":datekit", testImgRepo+":datekit", "true", "LABEL rebuilt=1")
	since = time.Now()
	code, stdout, stderr = validate("v-digest", "--instance-ids", strings.Join(append(all, flaky...), ","))
	if code != 0 || !strings.Contains(stdout, "graded now: 1 instances (2 gradings") {
		t.Fatalf("validate after a new image: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := containersStarted(t, "v-digest", since); n != 2 {
		t.Errorf("the validate after the image changed started %d containers, want 2 (gold and empty of %s)", n, vHealthyImg)
	}
	after := readRecords(t, store)
	if a := after[vHealthyImg]; a.ImageDigest == before.ImageDigest || a.Outcome != validation.OK || !a.Date.After(before.Date) {
		t.Errorf("%s after the new image: digest %s (was %s), %s", vHealthyImg, a.ImageDigest, before.ImageDigest, a.Outcome)
	}
	for id, r := range recs {
		if id != vHealthyImg && !after[id].Date.Equal(r.Date) {
			t.Errorf("%s was validated again though its image did not change", id)
		}
	}

	// A sweep of two scripted agents over some of them, evaluated with the store.
	t.Setenv(validation.EnvDir, store)
	swept := []string{vHealthy, vNoDep, vCrash, vNoBug, vFlaky, rNoDep, pNoBug}
	rows := map[string]map[string]any{}
	for id, row := range readRows(t, split) {
		rows[id] = row
	}
	full, partial := map[string][]model.ScriptedTurn{}, map[string][]model.ScriptedTurn{}
	for _, id := range swept {
		full[id] = goldScript(rows[id]["patch"].(string))
		partial[id] = guessScript
	}
	partial[vHealthy] = full[vHealthy]
	writeScript(t, filepath.Join(dir, "full.yaml"), full)
	writeScript(t, filepath.Join(dir, "partial.yaml"), partial)
	out := filepath.Join(dir, "sweeps")
	sweepFile := filepath.Join(dir, "night.yaml")
	ids, _ := json.Marshal(swept)
	if err := os.WriteFile(sweepFile, []byte(fmt.Sprintf(`name: night
output: %s
datasets:
  - name: broken
    split: %s
    instance_ids: %s
models:
  - name: full
    model: scripted:full.yaml
  - name: partial
    model: scripted:partial.yaml
workers: 3
eval: true
baseline: full
`, out, split, ids)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "sweep", "-c", sweepFile, "--progress", "none")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	folder := sweepFolder(t, out)
	if !strings.Contains(stdout, "instances whose environment is broken") {
		t.Errorf("the sweep's comparison does not say what it set apart:\n%s", stdout)
	}
	man, err := compare.ReadSweep(folder)
	if err != nil {
		t.Fatal(err)
	}
	var fullCell string
	for _, c := range man.Cells {
		if c.Variant == "full" {
			fullCell = filepath.Join(folder, c.Dir)
		}
	}
	rep := runReportOf(fullCell)
	if rep == nil {
		t.Fatalf("no run report in %s", fullCell)
	}
	for _, id := range []string{vNoDep, vCrash, rNoDep} {
		if ev := rep.EnvironmentEvidence[id]; ev == "" {
			t.Errorf("%s: the full agent's evaluation does not mark it environment (%v)", id, rep.EnvironmentIDs)
		}
	}
	if ev := rep.EnvironmentEvidence[vNoDep]; !strings.Contains(ev, "fail the same way under the gold patch") || !strings.Contains(ev, "tests/test_format.py::") {
		t.Errorf("%s evidence %q, want the gold patch's failing tests", vNoDep, ev)
	}
	if !containsID(rep.UnresolvedIDs, vNoDep) || !containsID(rep.ResolvedIDs, vHealthy) {
		t.Errorf("the harness's lists changed: resolved %v, unresolved %v", rep.ResolvedIDs, rep.UnresolvedIDs)
	}

	// compare: the broken instances set apart, and said so; --include-broken gives the figures
	// a comparison without a validation gives.
	cmpJSON := func(args ...string) *compare.Result {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"compare", "--json", "--baseline", "full"}, append(args, folder)...)...)
		if code != 0 {
			t.Fatalf("compare %v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
		var res compare.Result
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		return &res
	}
	withV := cmpJSON()
	included := cmpJSON("--include-broken")
	none := cmpJSON("--validation", t.TempDir())
	p := withV.Pairs[0]
	wantApart := []string{rNoDep, vCrash, vNoBug, vNoDep, pNoBug}
	sort.Strings(wantApart)
	if !equalStrings(p.SetApart, wantApart) || !containsID(p.Flaky, vFlaky) || p.Common != 2 {
		t.Errorf("compare: set apart %v (want %v), flaky %v, common %d", p.SetApart, wantApart, p.Flaky, p.Common)
	}
	if withV.SetApart == nil || withV.SetApart.Count() != 5 || len(withV.SetApart.Flaky) != 1 {
		t.Errorf("compare: set_apart %+v", withV.SetApart)
	}
	ip, np := included.Pairs[0], none.Pairs[0]
	if ip.Common != 7 || ip.Common != np.Common || ip.Paired != np.Paired || !equalStrings(ip.Regressed, np.Regressed) || !equalStrings(ip.Newly, np.Newly) ||
		ip.Both != np.Both || ip.Neither != np.Neither || ip.McNemarP != np.McNemarP || len(ip.SetApart) != 0 ||
		included.Gate.Verdicts[0].Line != none.Gate.Verdicts[0].Line {
		t.Errorf("--include-broken: %+v\nwithout a validation: %+v", ip, np)
	}
	code, text, _ := runCLI(t, "compare", "--baseline", "full", folder)
	t.Logf("compare:\n%s", text)
	if code != 0 || !strings.Contains(text, "5 instances whose environment is broken (3 gold fails, 2 empty passes), 1 flaky: left out of the paired figures and the gate") {
		t.Errorf("compare's text does not say what it set apart (exit %d):\n%s", code, text)
	}
	code, st, _ := runCLI(t, "stats", fullCell)
	if code != 0 || !strings.Contains(st, "validation: 7 of 7 instances validated") || !strings.Contains(st, "environment: 3 unresolved instances failed as their environment fails") {
		t.Errorf("stats (exit %d):\n%s", code, st)
	}

	// eval of the full agent's predictions on the instance without its module and on a healthy one.
	evalOut := filepath.Join(dir, "eval")
	code, stdout, stderr = runCLI(t, "eval", "--predictions", filepath.Join(fullCell, "preds.json"), "--split", split,
		"--instance-ids", vNoDep+","+vHealthy, "-o", evalOut, "--run-id", "env", "--validation", store)
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("eval:\n%s", stdout)
	if !strings.Contains(stdout, "1 resolved, 1 unresolved (1 of them set apart as the environment's)") || !strings.Contains(stdout, "environment "+vNoDep+": the ") {
		t.Errorf("eval summary:\n%s", stdout)
	}
	er := readRunReport(t, filepath.Join(evalOut, "scripted.env.json"))
	if !equalStrings(er.EnvironmentIDs, []string{vNoDep}) || !equalStrings(er.ResolvedIDs, []string{vHealthy}) || !equalStrings(er.UnresolvedIDs, []string{vNoDep}) {
		t.Errorf("eval run report: environment %v, resolved %v, unresolved %v", er.EnvironmentIDs, er.ResolvedIDs, er.UnresolvedIDs)
	}
	if _, err := os.Stat(filepath.Join(evalOut, vHealthy, "report.json")); err != nil {
		t.Error(err)
	}
	var healthy eval.InstanceReport
	data, err := os.ReadFile(filepath.Join(evalOut, vHealthy, "report.json"))
	if err != nil || json.Unmarshal(data, &healthy) != nil || !healthy.Resolved {
		t.Errorf("the healthy instance's report: %s (%v)", data, err)
	}
}

func containsID(list []string, id string) bool {
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
