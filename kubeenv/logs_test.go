package kubeenv

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// What client-go reports on its own (here the "Unhandled Error" of a broken exec stream, as
// client-go's websocket executor reports it) goes to the run's log, not to the terminal.
func TestRouteLogs(t *testing.T) {
	var buf bytes.Buffer
	restore := RouteLogs(slog.New(slog.NewJSONHandler(&buf, nil)))
	defer restore()
	utilruntime.HandleError(errors.New("next reader: websocket: close 1006 (abnormal closure): unexpected EOF"))
	got := buf.String()
	for _, want := range []string{`"msg":"Unhandled Error"`, "close 1006"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q: %s", want, got)
		}
	}
}
