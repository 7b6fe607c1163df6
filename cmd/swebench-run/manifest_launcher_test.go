package main

import (
	"testing"

	"github.com/swebench-run/swebench-run/results"
)

// A resume may switch environment.launcher (it does not change what commands do), and a
// run.json written before the key existed resumes; other config changes still refuse.
func TestResumeIgnoresLauncher(t *testing.T) {
	man := func(env map[string]any) *results.Manifest {
		return &results.Manifest{Model: "m", Config: map[string]any{"environment": env}}
	}
	tests := []struct {
		name      string
		prev, cur map[string]any
		want      string
	}{
		{"run.json from before the key", map[string]any{"cwd": "/testbed"}, map[string]any{"cwd": "/testbed", "launcher": "auto"}, ""},
		{"launcher off, then auto", map[string]any{"cwd": "/testbed", "launcher": "off"}, map[string]any{"cwd": "/testbed", "launcher": "auto"}, ""},
		{"another cwd", map[string]any{"cwd": "/testbed", "launcher": "auto"}, map[string]any{"cwd": "/app", "launcher": "auto"}, "config"},
		{"history past, then past", map[string]any{"cwd": "/testbed", "history": "past"}, map[string]any{"cwd": "/testbed", "history": "past"}, ""},
		{"history past, then none", map[string]any{"cwd": "/testbed", "history": "past"}, map[string]any{"cwd": "/testbed", "history": "none"},
			"environment.history (past, now none: resume with -c environment.history=past)"},
		{"run.json from before the history guard, resumed as-is", map[string]any{"cwd": "/testbed"}, map[string]any{"cwd": "/testbed", "history": "as-is"}, ""},
		{"run.json from before the history guard, resumed past", map[string]any{"cwd": "/testbed"}, map[string]any{"cwd": "/testbed", "history": "past"},
			"environment.history (as-is: a run made before the history guard, now past: resume with -c environment.history=as-is)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := incompatible(man(tt.prev), man(tt.cur)); got != tt.want {
				t.Errorf("incompatible = %q, want %q", got, tt.want)
			}
		})
	}
}
