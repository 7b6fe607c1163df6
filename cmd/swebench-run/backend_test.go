package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad backend choices are usage errors (exit 2) naming the flag, before any dataset or cluster.
func TestBackendFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--split", "x.jsonl", "--backend", "nomad"}, "--backend"},
		{[]string{"run", "--split", "x.jsonl", "--namespace", "ns"}, "--namespace is for --backend kubernetes"},
		{[]string{"run", "--split", "x.jsonl", "--kube-context", "c"}, "--kube-context is for --backend kubernetes"},
		{[]string{"run", "--split", "x.jsonl", "--backend", "kubernetes", "--docker-host", "unix:///x"}, "--docker-host is for --backend docker"},
		{[]string{"run", "--split", "x.jsonl", "--backend", "kubernetes", "--image-cache", "remove"}, "--image-cache is for --backend docker"},
		{[]string{"--split", "x.jsonl", "--backend", "nomad"}, "--backend"},
		{[]string{"eval", "--predictions", "gold", "--split", "x.jsonl", "--backend", "kubernetes", "--docker-host", "unix:///x"}, "--docker-host"},
		{[]string{"cleanup", "--backend", "nomad"}, "--backend"},
		{[]string{"cleanup", "--namespace", "x"}, "--namespace"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, stderr.String(), exitUsage, tt.want)
			}
		})
	}
}

// The config's kubernetes section is checked before any pod starts: a misspelt key is an error
// naming it, with either backend.
func TestKubernetesConfigSection(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "k.yaml")
	if err := os.WriteFile(cfg, []byte("kubernetes:\n  nodeSelector: {pool: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "d.jsonl")
	row := `{"instance_id":"a__b-1","repo":"a/b","base_commit":"x","problem_statement":"p","image":"img"}` + "\n"
	if err := os.WriteFile(data, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, backend := range []string{"docker", "kubernetes"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"run", "--split", data, "--model", "scripted:" + filepath.Join(dir, "none.yaml"), "-c", "swebench.yaml", "-c", cfg, "--backend", backend, "-o", filepath.Join(dir, "out-"+backend)}, &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), "nodeSelector") {
			t.Errorf("--backend %s: exit %d, stderr %q; want an error naming nodeSelector", backend, code, stderr.String())
		}
	}
}
