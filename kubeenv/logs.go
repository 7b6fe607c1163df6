package kubeenv

import (
	"log/slog"

	"k8s.io/klog/v2"
)

// RouteLogs sends what client-go logs on its own through klog — a broken exec stream ("Unhandled
// Error" … "websocket: close 1006"), a dropped watch, API warnings — to logger instead of klog's
// default, the terminal, where it would land between a run's progress lines. The func returned
// sends it back to klog's default output.
func RouteLogs(logger *slog.Logger) (restore func()) {
	klog.SetSlogLogger(logger)
	return klog.ClearLogger
}
