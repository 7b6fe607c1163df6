package main

import (
	"bytes"
	"encoding/json"
	"log"
	"log/slog"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
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
