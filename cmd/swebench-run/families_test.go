package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The families' options come from the run config's families section, over their environment
// fallbacks: SWE-bench Pro's demo rows can be graded only with their scripts folder, which
// families.pro.scripts_dir or SWEBENCH_RUN_PRO_SCRIPTS names, the config winning.
func TestFamiliesConfigOptions(t *testing.T) {
	root := testenv.RepoRoot(t)
	scripts := filepath.Join(root, "demo", "pro", "run_scripts")
	l, err := dataset.Load(context.Background(), filepath.Join(root, "demo", "pro", "dataset.jsonl"), dataset.LoadOptions{Families: families().Families()})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	tests := []struct {
		name, env, key string
		gradable       bool
	}{
		{"neither: the pinned commit's scripts, which have no demo instance", "", "", false},
		{"the config key", "", scripts, true},
		{"the environment fallback", scripts, "", true},
		{"the config key wins", filepath.Join(t.TempDir(), "nothing"), scripts, true},
		{"the config key wins, also when wrong", scripts, filepath.Join(t.TempDir(), "nothing"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envProScripts, tt.env)
			var overrides []string
			if tt.key != "" {
				overrides = append(overrides, "families.pro.scripts_dir="+tt.key)
			}
			cfg, err := configs.Load(nil, overrides)
			if err != nil {
				t.Fatal(err)
			}
			reg, err := familiesFor(cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = reg.Grader("pro").Check(l.Instances)
			if (err == nil) != tt.gradable {
				t.Errorf("Check: %v, want gradable %t", err, tt.gradable)
			}
		})
	}
}

// A families section that is not the families' options stops run, eval and sweep before any
// dataset is loaded, naming the key.
func TestFamiliesConfigErrors(t *testing.T) {
	t.Setenv("HF_HUB_OFFLINE", "1")
	tests := []struct{ override, want string }{
		{"families.pro.script_dir=/x", "config: unknown key families.pro.script_dir (known keys of families.pro: scripts_dir)"},
		{"families.gym.x=1", "config: families.gym: SWE-Gym has no options (the families with options: live, pro)"},
		{"families.nope.x=1", "config: unknown family families.nope"},
		{"families.live.python_image=[1]", "config families.live: cannot unmarshal"},
	}
	for _, tt := range tests {
		for _, args := range [][]string{
			{"run", "--split", "no-such-dataset", "--model", "scripted", "--dry-run", "-c", tt.override},
			{"eval", "--predictions", "gold", "--split", "no-such-dataset", "-c", tt.override},
			{"config", "show", "-c", tt.override},
		} {
			code, _, stderr := runCLI(t, args...)
			if code != 1 || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "no-such-dataset") {
				t.Errorf("%s: exit %d, stderr %q; want 1 and %q, before the dataset is looked at", strings.Join(args, " "), code, stderr, tt.want)
			}
		}
	}
}
