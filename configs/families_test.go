package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The families section is kept as written (package family/all decodes and checks it), in files
// and overrides, with the 2.x layout and the 1.x one, and saved with the config.
func TestFamiliesSection(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(file, []byte("families:\n  pro:\n    scripts_dir: /data/run_scripts\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{DefaultName, file}, []string{"families.live.python_image=python:3.13"})
	if err != nil {
		t.Fatal(err)
	}
	pro, _ := cfg.Families["pro"].(map[string]any)
	live, _ := cfg.Families["live"].(map[string]any)
	if pro["scripts_dir"] != "/data/run_scripts" || live["python_image"] != "python:3.13" {
		t.Errorf("families = %v", cfg.Families)
	}
	if dumped, _ := cfg.Dump()["families"].(map[string]any); dumped["pro"] == nil {
		t.Errorf("the dumped config (run.json) lacks the families section: %v", cfg.Dump())
	}
	if cfg, err := Load([]string{"swebench_v1.yaml", file}, nil); err != nil || cfg.Families["pro"] == nil {
		t.Errorf("1.x layout with a families section: %v, %v", cfg, err)
	}
	if _, err := Load([]string{DefaultName}, []string{"family.pro.scripts_dir=x"}); err == nil || !strings.Contains(err.Error(), "families") {
		t.Errorf("a misspelt top-level key: err = %v, want one listing families among the known keys", err)
	}
}
