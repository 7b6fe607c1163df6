package configs

import (
	"strings"
	"testing"
)

// agent.kind and agent.installed are strict: errors name the key and what it takes.
func TestInstalledAgentKeys(t *testing.T) {
	base := []string{"agent.kind=installed", "agent.installed.name=custom", "agent.installed.command='{install_dir}/bin/a'", "agent.installed.install.path=/x"}
	cases := []struct {
		name      string
		overrides []string
		want      string // "" valid
	}{
		{"valid", base, ""},
		{"the loop by default", nil, ""},
		{"unknown kind", []string{"agent.kind=plugin"}, `agent.kind "plugin": want loop`},
		{"installed without its section", []string{"agent.kind=installed"}, "agent.installed is not set"},
		{"section without the kind", []string{"agent.installed.name=codex"}, "agent.kind is \"loop\""},
		{"unknown key", append(base, "agent.installed.image=x"), "unknown key agent.installed.image (known keys of agent.installed: command, env, install, name, timeout, version)"},
		{"unknown install key", append(base, "agent.installed.install.url=x"), "unknown key agent.installed.install.url"},
		{"unknown profile", append(base, "agent.installed.name=cursor"), `agent.installed.name "cursor"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load(nil, tc.overrides)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			_ = cfg
		})
	}
}
