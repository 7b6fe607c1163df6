package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The kubernetes section is kept as written (package kubeenv decodes and checks it), in files
// and overrides, with the 2.x layout and the 1.x one; other top-level keys stay errors.
func TestKubernetesSection(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "k.yaml")
	if err := os.WriteFile(file, []byte("kubernetes:\n  namespace: swebench\n  node_selector: {pool: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{DefaultName, file}, []string{"kubernetes.runtime_class=gvisor"})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Kubernetes["namespace"]; got != "swebench" {
		t.Errorf("kubernetes.namespace = %v, want swebench", got)
	}
	if got := cfg.Kubernetes["runtime_class"]; got != "gvisor" {
		t.Errorf("kubernetes.runtime_class = %v, want gvisor (override)", got)
	}
	if sel, ok := cfg.Kubernetes["node_selector"].(map[string]any); !ok || sel["pool"] != "a" {
		t.Errorf("kubernetes.node_selector = %v, want {pool: a}", cfg.Kubernetes["node_selector"])
	}
	if cfg, err := Load([]string{"swebench_v1.yaml", file}, nil); err != nil || cfg.Kubernetes["namespace"] != "swebench" {
		t.Errorf("1.x layout with a kubernetes section: %v, %v", cfg, err)
	}
	if _, err := Load([]string{DefaultName}, []string{"kubernetess.namespace=x"}); err == nil || !strings.Contains(err.Error(), "kubernetes") {
		t.Errorf("a misspelt top-level key: err = %v, want one listing kubernetes among the known keys", err)
	}
}
