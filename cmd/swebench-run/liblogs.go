package main

import (
	"bytes"
	"log"
	"log/slog"
	"sync"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/kubeenv"
)

// routeLibraryLogs sends what libraries log on their own — client-go through klog, the template
// engine through logrus, anything through the standard log package — to the run's log file
// (logger), never to the terminal, where it would land between the progress lines. The func
// returned restores the previous outputs.
func routeLibraryLogs(logger *slog.Logger) (restore func()) {
	restoreKube := kubeenv.RouteLogs(logger.With("library", "client-go"))
	restoreTemplates := agent.SetTemplateLogOutput(&logLines{logger: logger.With("library", "gonja")})
	out, flags, prefix := log.Writer(), log.Flags(), log.Prefix()
	log.SetOutput(&logLines{logger: logger.With("library", "log")})
	log.SetFlags(0)
	log.SetPrefix("")
	return func() {
		log.SetOutput(out)
		log.SetFlags(flags)
		log.SetPrefix(prefix)
		restoreTemplates()
		restoreKube()
	}
}

// logLines writes every line written to it as one warning of logger.
type logLines struct {
	logger *slog.Logger
	mu     sync.Mutex
	buf    []byte
}

func (w *logLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if line := bytes.TrimSpace(w.buf[:i]); len(line) > 0 {
			w.logger.Warn(string(line))
		}
		w.buf = w.buf[i+1:]
	}
}
