package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestConfigShow(t *testing.T) {
	dir := t.TempDir()
	extra := filepath.Join(dir, "extra.yaml")
	if err := os.WriteFile(extra, []byte("agent:\n  step_limit: 7\nenvironment:\n  image: python:3.11\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		json       bool
		stepLimit  int
		modelName  string
		modelClass any
		wantStderr string
	}{
		{"default", []string{"show"}, false, 250, "", nil, ""},
		{"text mode by name", []string{"show", "-c", "swebench_backticks.yaml"}, false, 250, "", "litellm_textbased", ""},
		{"files, overrides and model", []string{"show", "-c", "swebench.yaml", "-c", extra, "-c", "agent.cost_limit=0.5", "--model", "openai/gpt-5", "--json"}, true, 7, "openai/gpt-5", nil, "environment.image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := execCLI(append([]string{"config"}, tt.args...), &out, &errOut); err != nil {
				t.Fatalf("config show: %v", err)
			}
			var got map[string]any
			var err error
			if tt.json {
				err = json.Unmarshal(out.Bytes(), &got)
			} else {
				err = yaml.Unmarshal(out.Bytes(), &got)
			}
			if err != nil {
				t.Fatalf("output does not parse: %v\n%s", err, out.String())
			}
			agentSec := got["agent"].(map[string]any)
			if n, _ := agentSec["step_limit"].(float64); tt.json && int(n) != tt.stepLimit {
				t.Errorf("step_limit = %v, want %d", agentSec["step_limit"], tt.stepLimit)
			}
			if n, _ := agentSec["step_limit"].(int); !tt.json && n != tt.stepLimit {
				t.Errorf("step_limit = %v, want %d", agentSec["step_limit"], tt.stepLimit)
			}
			m := got["model"].(map[string]any)
			if m["model_name"] != tt.modelName || m["model_class"] != tt.modelClass {
				t.Errorf("model %v class %v, want %q %v", m["model_name"], m["model_class"], tt.modelName, tt.modelClass)
			}
			if !strings.Contains(errOut.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want it to mention %q", errOut.String(), tt.wantStderr)
			}
		})
	}
}

func TestConfigList(t *testing.T) {
	var out bytes.Buffer
	if err := execCLI([]string{"config", "list"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "swebench.yaml\t(default)\nswebench_backticks.yaml\nswebench_v1.yaml\n"; got != want {
		t.Errorf("list = %q, want %q", got, want)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantUsage bool
		want      string
	}{
		{"no subcommand", nil, true, "show or list"},
		{"unknown subcommand", []string{"edit"}, true, "edit"},
		{"stray argument", []string{"show", "x.yaml"}, true, "-c"},
		{"unknown key", []string{"show", "-c", "agent.step_limt=3"}, false, "agent.step_limt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := execCLI(append([]string{"config"}, tt.args...), &out, &out)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, errUsage); got != tt.wantUsage {
				t.Errorf("usage error = %v, want %v (%v)", got, tt.wantUsage, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}
