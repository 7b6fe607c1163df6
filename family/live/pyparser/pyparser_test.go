package pyparser

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// archive is where the corpus keeps SWE-bench-Live's RepoLaunch trajectory archive: per
// instance, result.json holds the row's log_parser (Python source) and test_status, that
// parser's output on the instance's own test run.
const archive = "more-datasets/swe-bench-live/repolaunch-trajectory-archive"

// pythonSandbox starts a container of the project's base image (Debian's Python 3.11), without
// network, removed when the test ends.
func pythonSandbox(t *testing.T) Sandbox {
	t.Helper()
	engine := testenv.Docker(t)
	testenv.RequireImage(t, engine, testenv.BaseImage)
	rnd := make([]byte, 4)
	rand.Read(rnd)
	runID := "test-pyparser-" + hex.EncodeToString(rnd)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		engine.Sweep(ctx, sandbox.Selector{RunID: runID})
	})
	sb, err := engine.Start(ctx, sandbox.Spec{
		Image: testenv.BaseImage, RunID: runID, InstanceID: "log-parser", Role: "eval", Cwd: "/",
		Limits: sandbox.Limits{NetworkMode: "none"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Remove(context.Background()) })
	return Adapt(sb, 64<<20)
}

// archived is one instance of the archive: its parser and its recorded status map, in order.
type archived struct {
	parser string
	status []entry
}

func loadArchived(t *testing.T, rel string) archived {
	t.Helper()
	data, err := os.ReadFile(testenv.Fixtures(t, path.Join(archive, rel, "result.json")))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		LogParser  string          `json:"log_parser"`
		TestStatus json.RawMessage `json:"test_status"`
	}
	// The archive writes NaN for unknown costs; the fields read here are plain JSON.
	if err := json.Unmarshal(bytes.ReplaceAll(data, []byte("NaN"), []byte("null")), &r); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	a := archived{parser: r.LogParser}
	dec := json.NewDecoder(bytes.NewReader(r.TestStatus))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: test_status is not an object", rel)
	}
	for dec.More() {
		k, _ := dec.Token()
		v, _ := dec.Token()
		a.status = append(a.status, entry{k.(string), v.(string)})
	}
	return a
}

// sample takes the first few tests of each status, in the record's order.
func sample(status []entry, perStatus int) []entry {
	n := map[string]int{}
	var out []entry
	for _, e := range status {
		if n[e.status] < perStatus {
			n[e.status]++
			out = append(out, e)
		}
	}
	return out
}

// TestArchivedParsersOnToolLogs runs the log_parser of each of the 27 instances of SWE-bench-Live's
// RepoLaunch archive (Linux and Windows tasks; C, C++, C#, Go, Java, JavaScript, Rust, TypeScript)
// in a container, on a log in the format its instance's test tool prints, holding tests the
// archive recorded. The parser must return each of those tests with its recorded status, and only
// names its own recorded map has: status maps of the shape test_status records.
func TestArchivedParsersOnToolLogs(t *testing.T) {
	sb := pythonSandbox(t)
	tests := []struct {
		instance string
		render   func([]entry) string
	}{
		{"c/playground/flatpak__flatpak-6550", mesonTest(false)},
		{"c/playground/flatpak__flatpak-6571", shellSyntaxError},
		{"c/playground/flatpak__flatpak-6587", mesonTest(true)},
		{"cpp/playground/BYVoid__OpenCC-1094", ctestGoogleTest},
		{"cpp/playground/BYVoid__OpenCC-1096", ctestGoogleTest},
		{"cpp/playground/BYVoid__OpenCC-1123", ctestGoogleTest},
		{"cs/playground/Azure__azure-sdk-for-net-57253", trx},
		{"cs/playground/Azure__azure-sdk-for-net-57294", trx},
		{"cs/playground/Azure__azure-sdk-for-net-57297", trx},
		{"go/playground/NVIDIA__gpu-operator-2258", goTestJSON("")},
		{"go/playground/amir20__dozzle-4612", goTestJSON("")},
		{"go/playground/asaskevich__govalidator-509", goTestJSON("github.com/asaskevich/govalidator")},
		{"java/playground/Azure__azure-sdk-for-java-48529", surefireXML(".")},
		{"java/playground/apache__dolphinscheduler-17909", surefireXML("::")},
		{"java/playground/apache__dolphinscheduler-18069", surefireXML("::")},
		{"js/playground/BrasilAPI__BrasilAPI-755", jestJSON("skipped")},
		{"js/playground/aralroca__next-translate-1259", jestJSON("pending")},
		{"js/playground/code-charity__youtube-3708", jestJSON("pending")},
		{"rust/playground/J-F-Liu__lopdf-481", cargoTest(true)},
		{"rust/playground/TheDan64__inkwell-683", shellSyntaxError},
		{"rust/playground/astral-sh__ruff-24236", cargoTest(false)},
		{"ts/playground/chimurai__http-proxy-middleware-1163", jestJSON("pending")},
		{"ts/playground/kepano__defuddle-243", jestJSON("skipped")},
		{"ts/playground/taiga-family__taiga-ui-13656", npmPretest},
		{"windows_tasks/playground/ChaiScript__ChaiScript-661", powershellJSON},
		{"windows_tasks/playground/dotnet__runtime-126064", trx},
		{"windows_tasks/playground/dotnet__runtime-126571", trx},
	}
	for _, tt := range tests {
		t.Run(path.Base(tt.instance), func(t *testing.T) {
			a := loadArchived(t, tt.instance)
			if len(a.status) == 0 || !strings.Contains(a.parser, "def parser(") {
				t.Fatalf("archive entry has no parser or no test_status")
			}
			want := sample(a.status, 3)
			log := tt.render(want)
			got, err := Run(context.Background(), sb, a.parser, log, 0)
			if err != nil {
				t.Fatalf("%v\nlog:\n%s", err, log)
			}
			recorded := map[string]string{}
			for _, e := range a.status {
				recorded[e.name] = e.status
			}
			returned := map[string]string{}
			for _, e := range got {
				if e.NotStr {
					t.Errorf("parser returned the key %s, not a str", e.Test)
				}
				returned[e.Test] = e.Status
			}
			for _, e := range want {
				if s, ok := returned[e.name]; !ok || s != e.status {
					t.Errorf("test %q: got %q (found %t), want %q as recorded", e.name, s, ok, e.status)
				}
			}
			for _, e := range got {
				k, s := e.Test, e.Status
				if _, ok := recorded[k]; !ok {
					t.Errorf("parser returned %q (%s), a name the recorded test_status does not have", k, s)
				}
				if s != "pass" && s != "fail" && s != "skip" {
					t.Errorf("parser returned status %q for %q; recorded statuses are pass, fail, skip", s, k)
				}
			}
			if t.Failed() {
				t.Logf("log:\n%s", log)
			}
		})
	}
}

// TestRunAsTheHarness checks the harness's rules for parsers in a container: output the parser
// prints is not its result, a false result is an empty map, the log arrives byte for byte (CR and
// non-ASCII kept), the order of the returned map is kept, and failures are *ParserError with the
// traceback.
func TestRunAsTheHarness(t *testing.T) {
	sb := pythonSandbox(t)
	log := "ok a\r\nok b\nfail ü-ñ\n"
	tests := []struct {
		name    string
		source  string
		want    []Entry
		wantErr string // substring of the traceback
	}{
		{"statuses in the parser's order; prints are not the result", `def parser(log: str) -> dict[str, str]:
    import sys
    print("noise on stdout")
    print("noise on stderr", file=sys.stderr)
    out = {}
    for line in log.split("\n"):
        if line:
            st, name = line.split(" ", 1)
            out[name] = st
    return out`, []Entry{{"a\r", "ok", false}, {"b", "ok", false}, {"ü-ñ", "fail", false}}, ""},
		{"None is an empty map", "def parser(log):\n    return None\n", nil, ""},
		{"3.10 syntax is accepted", "def parser(log: str) -> dict[str, str]:\n    x: str | None = None\n    return {'t': 'pass'}\n", []Entry{{"t", "pass", false}}, ""},
		// The harness (SWE-bench-Live evaluation.py at 70ec57e8, RepoLaunch run_parser at
		// 7735b1e7, run by python3 on this parser) wrote status.json as
		// {"5": "pass", "5": "fail", "null": "pass", "1.5": "pass", "true": "fail", "t": "pass"}
		// and graded only the str keys.
		{"keys that are not str keep their JSON text and are marked", "def parser(log):\n    return {5: 'pass', '5': 'fail', None: 'pass', 1.5: 'pass', True: 'fail', 't': 'pass'}\n",
			[]Entry{{"5", "pass", true}, {"5", "fail", false}, {"null", "pass", true}, {"1.5", "pass", true}, {"true", "fail", true}, {"t", "pass", false}}, ""},
		// The harness's json.dump of status.json raises on such a key: the instance is an error.
		{"a key json.dump refuses", "def parser(log):\n    return {(1, 2): 'pass'}\n", nil, "keys must be str, int, float, bool or None"},
		{"an exception", "def parser(log):\n    raise ValueError('cannot read this log')\n", nil, "ValueError: cannot read this log"},
		{"no parser function", "def parse(log):\n    return {}\n", nil, "defines no function named 'parser'"},
		{"a syntax error", "def parser(log)\n    return {}\n", nil, "SyntaxError"},
		{"a list is not a map", "def parser(log):\n    return ['a']\n", nil, "not a dict"},
		{"statuses must be strings", "def parser(log):\n    return {'a': 1}\n", nil, "not a string"},
		{"sys.exit is a failure", "def parser(log):\n    import sys\n    sys.exit(2)\n", nil, "SystemExit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Run(context.Background(), sb, tt.source, log, time.Minute)
			if tt.wantErr != "" {
				var pe *ParserError
				if !errors.As(err, &pe) || !strings.Contains(pe.Traceback, tt.wantErr) {
					t.Fatalf("got %v (%T), want a *ParserError whose traceback has %q", err, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("a parser that runs too long is killed", func(t *testing.T) {
		_, err := Run(context.Background(), sb, "def parser(log):\n    while True:\n        pass\n", log, 2*time.Second)
		if err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("got %v, want a timeout", err)
		}
	})
	t.Run("nothing is left behind", func(t *testing.T) {
		out, _, _, err := sb.Exec(context.Background(), "ls /tmp | grep -c swebench-run-parser || true", time.Minute)
		if err != nil || strings.TrimSpace(out) != "0" {
			t.Errorf("got %q, %v; want no parser folders left in /tmp", out, err)
		}
	})
}

// fakeSandbox answers the driver run with a canned result.
type fakeSandbox struct {
	run   sandbox.ExecResult
	files map[string]string
}

func (f *fakeSandbox) Exec(_ context.Context, cmd string, _ time.Duration) (string, int, bool, error) {
	if strings.HasPrefix(cmd, "rm -f") {
		return "", 0, false, nil
	}
	return f.run.Output, f.run.ExitCode, f.run.TimedOut, nil
}

func (f *fakeSandbox) WriteFile(_ context.Context, p string, data []byte) error {
	f.files[p] = string(data)
	return nil
}

// TestRunReplies checks how Run reads what the sandbox returns, without a container.
func TestRunReplies(t *testing.T) {
	tests := []struct {
		name    string
		run     sandbox.ExecResult
		want    []Entry
		wantErr func(error) bool
	}{
		{"a status map", sandbox.ExecResult{Output: "\n" + replyMark + `{"status": [["a", "pass", true], ["b", "fail", true], ["7", "pass", false]]}` + "\n"},
			[]Entry{{"a", "pass", false}, {"b", "fail", false}, {"7", "pass", true}}, nil},
		{"a malformed item", sandbox.ExecResult{Output: replyMark + `{"status": [["a", "pass"]]}` + "\n"}, nil,
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "is_str") }},
		{"no python", sandbox.ExecResult{Output: "no python3 or python on PATH\n", ExitCode: 127}, nil,
			func(err error) bool { return errors.Is(err, ErrNoPython) }},
		{"an old python", sandbox.ExecResult{Output: replyMark + `{"python": "3.8"}` + "\n", ExitCode: 3}, nil,
			func(err error) bool { return errors.Is(err, ErrNoPython) && strings.Contains(err.Error(), "3.8") }},
		{"a parser error", sandbox.ExecResult{Output: replyMark + `{"error": "Traceback…\nKeyError: 'x'\n", "stderr": ""}` + "\n"}, nil,
			func(err error) bool {
				var pe *ParserError
				return errors.As(err, &pe) && strings.Contains(err.Error(), "KeyError: 'x'")
			}},
		{"a timeout", sandbox.ExecResult{TimedOut: true, ExitCode: 137}, nil,
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "killed") }},
		{"no reply", sandbox.ExecResult{Output: "Segmentation fault\n", ExitCode: 139}, nil,
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "Segmentation fault") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeSandbox{run: tt.run, files: map[string]string{}}
			got, err := Run(context.Background(), f, "def parser(log): pass", "the log", 0)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("got error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if len(f.files) != 1 {
				t.Fatalf("files written: %v", f.files)
			}
			for _, data := range f.files {
				var req map[string]string
				if err := json.Unmarshal([]byte(data), &req); err != nil || req["log"] != "the log" || req["source"] != "def parser(log): pass" {
					t.Errorf("request written: %s", data)
				}
			}
		})
	}
}
