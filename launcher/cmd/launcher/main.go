// Command launcher runs inside a sandbox and runs the commands that package launcher's client
// sends it, each as a fresh process with the semantics of the backend's own exec; see package
// launcher for what it reproduces and how a session ends. It is built for linux/amd64 and
// linux/arm64 (make launcher) and embedded into swebench-run.
package main

import "os"

func main() { os.Exit(run()) }
