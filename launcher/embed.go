package launcher

import (
	"embed"
	"io/fs"
)

// bin holds the launcher programs built by `make launcher` (launcher-linux-ARCH), next to a
// committed README so that a fresh clone compiles without them.
//
//go:embed bin
var bin embed.FS

// Binaries returns the launcher program for a sandbox of architecture arch (GOARCH names:
// amd64, arm64); ok is false when it is not available.
type Binaries func(arch string) (program []byte, ok bool)

// Embedded are the programs built into this binary (make build); none with a plain go build.
func Embedded(arch string) ([]byte, bool) {
	data, err := fs.ReadFile(bin, "bin/launcher-linux-"+arch)
	return data, err == nil && len(data) > 0
}

// Arch maps an architecture as runtimes and `uname -m` name it to GOARCH ("" when unknown).
func Arch(s string) string {
	switch s {
	case "amd64", "x86_64", "x86-64":
		return "amd64"
	case "arm64", "aarch64", "arm64/v8":
		return "arm64"
	}
	return ""
}
