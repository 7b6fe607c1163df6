package configs

import (
	"os"
	"runtime"
	"strings"
)

// fallbackUname approximates platform.uname() from what the Go runtime knows.
func fallbackUname() map[string]any {
	host, _ := os.Hostname()
	sys := runtime.GOOS
	if sys != "" {
		sys = strings.ToUpper(sys[:1]) + sys[1:]
	}
	return map[string]any{"system": sys, "node": host, "release": "", "version": "", "machine": runtime.GOARCH, "processor": runtime.GOARCH}
}
