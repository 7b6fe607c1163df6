package sandbox

import (
	"slices"
	"testing"
)

func TestEnvList(t *testing.T) {
	got := EnvList(map[string]string{"B": "base", "A": "1"}, map[string]string{"B": "over", "C": ""})
	if want := []string{"A=1", "B=over", "C="}; !slices.Equal(got, want) {
		t.Errorf("EnvList = %q, want %q", got, want)
	}
}

func TestParseOOMKills(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", 3, true},                // cgroup v1
		{"low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 0\n", 2, true}, // cgroup v2
		{"cat: /sys/fs/cgroup/memory.events: No such file or directory\n", 0, false},
	}
	for _, tt := range tests {
		if got, ok := ParseOOMKills(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("ParseOOMKills(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestOOMNote(t *testing.T) {
	for limit, want := range map[int64]string{
		512 << 20:       "512MiB",
		3 << 29:         "1.5GiB",
		8 << 30:         "8GiB",
		1000:            "1000B",
		100<<20 + 1<<18: "100.25MiB",
	} {
		if got := OOMNote(limit); got != "\n[swebench-run: the command was killed for exceeding the container's memory limit of "+want+"]\n" {
			t.Errorf("OOMNote(%d) = %q, want the limit as %s", limit, got, want)
		}
	}
}
