//go:build !linux

package main

import "os"

func run() int {
	os.Stderr.WriteString("launcher: runs on Linux only\n")
	return 2
}
