package main

import (
	"bytes"
	"encoding/json"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/swebench-run/swebench-run/results"
)

// While a run goes on, what libraries log on their own lands in its log file, one JSON line per
// line they wrote, with the library's name; afterwards their outputs are what they were.
func TestRouteLibraryLogs(t *testing.T) {
	var buf bytes.Buffer
	before := log.Writer()
	restore := routeLibraryLogs(slog.New(slog.NewJSONHandler(&buf, nil)))
	log.Printf("first line\nsecond line")
	logrus.Errorf("Value.String() not implemented for type: %s", "func") // as gonja reports it
	restore()
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec struct{ Msg, Library string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		got = append(got, rec.Library+": "+rec.Msg)
	}
	joined := strings.Join(got, "\n")
	for _, want := range []string{"log: first line", "log: second line", "gonja: "} {
		if !strings.Contains(joined, want) {
			t.Errorf("log lacks %q:\n%s", want, joined)
		}
	}
	if !strings.Contains(joined, "Value.String() not implemented") {
		t.Errorf("the template engine's line is missing:\n%s", joined)
	}
	if log.Writer() != before {
		t.Errorf("the standard log's output was not restored")
	}
}

// An evaluation (eval, submission) keeps its own log file in its folder, created if missing; what
// libraries log meanwhile lands there, tagged with the evaluation's run id, and appends to what
// an earlier evaluation of the same folder wrote.
func TestOpenEvalLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "eval")
	for _, line := range []string{"first evaluation", "second evaluation"} {
		logger, closeLog, err := openEvalLog(dir, "run-1")
		if err != nil {
			t.Fatal(err)
		}
		log.Print(line)
		logger.Warn("container not removed", "instance", "x__y-1")
		closeLog()
	}
	data, err := os.ReadFile(filepath.Join(dir, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 log lines, got %d:\n%s", len(lines), data)
	}
	for i, want := range []string{"first evaluation", "container not removed", "second evaluation", "container not removed"} {
		var rec struct{ Msg, Eval string }
		if err := json.Unmarshal([]byte(lines[i]), &rec); err != nil {
			t.Fatalf("log line %q: %v", lines[i], err)
		}
		if rec.Msg != want || rec.Eval != "run-1" {
			t.Errorf("line %d = %q (eval %q), want %q (eval run-1)", i, rec.Msg, rec.Eval, want)
		}
	}
}
