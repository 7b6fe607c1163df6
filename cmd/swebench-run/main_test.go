package main

import (
	"os"
	"testing"

	"github.com/swebench-run/swebench-run/kubeenv/kubetest"
)

// TestMain stops the Kubernetes test cluster when these tests started it (kubetest.Main).
func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }
