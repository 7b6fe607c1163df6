// Package launchertest gives tests the launcher built from this checkout's source (not the
// binary a `make build` embedded, which may be older than the source), and the fault suite
// every backend runs with its launcher on: the launcher killed before and during a command,
// its binary replaced, garbage and floods written into its descriptors from inside the
// sandbox, as an agent could.
package launchertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/swebench-run/swebench-run/launcher"
)

var (
	buildOnce sync.Once
	built     []byte
	buildErr  error
)

// Binaries returns the launcher for this machine's architecture, built once per test process
// from launcher/cmd/launcher (CGO_ENABLED=0, static); it fails t when the build fails.
func Binaries(t testing.TB) launcher.Binaries {
	t.Helper()
	buildOnce.Do(func() { built, buildErr = build() })
	if buildErr != nil {
		t.Fatalf("build the launcher: %v", buildErr)
	}
	return func(arch string) ([]byte, bool) {
		if arch != runtime.GOARCH {
			return nil, false
		}
		return built, true
	}
}

func build() ([]byte, error) {
	dir, err := os.MkdirTemp("", "swebench-launcher-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, "launcher")
	cmd := exec.Command(goTool, "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./launcher/cmd/launcher")
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, &buildError{err: err, out: string(msg)}
	}
	return os.ReadFile(out)
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
